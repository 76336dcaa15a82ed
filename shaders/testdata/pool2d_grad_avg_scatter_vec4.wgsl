struct Params {
	first: u32,
	end: u32,
	row: u32,
	c: u32,
	in_h: u32,
	in_w: u32,
	out_h: u32,
	out_w: u32,
	kernel_h: u32,
	kernel_w: u32,
	stride_h: u32,
	stride_w: u32,
	pad_top: u32,
	pad_left: u32,
	dilation_h: u32,
	dilation_w: u32,
	count_top: u32,
	count_bottom: u32,
	count_left: u32,
	count_right: u32,
}

@group(0) @binding(0) var<storage, read> dy: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dx: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> p: Params;

// divisor is the count of the positions of the window of kernel from
// start that lie inside [-before, size + after): the input and the padding
// an average counts (Pool2DParams' Count fields).
fn divisor(start: i32, kernel: u32, size: u32, before: u32, after: u32) -> u32 {
	let lo = max(start, -i32(before));
	let hi = min(start + i32(kernel), i32(size + after));
	return u32(hi - lo);
}

// taps is the first position inside [0, size) of the taps start + k·dil,
// k in [0, kernel), and how many lie inside: the taps before 0 are the
// first lo, those from size on the last ones. The first is computed in
// u32, where start (negative in the padding) wraps and lo·dil brings it
// back to its place.
fn taps(start: i32, kernel: u32, dil: u32, size: u32) -> vec2<u32> {
	let lo = select(0u, (u32(-start) + dil - 1u) / dil, start < 0);
	let hi = select(0u, min(kernel, (u32(i32(size) - start) + dil - 1u) / dil), start < i32(size));
	return vec2<u32>(bitcast<u32>(start) + lo * dil, select(0u, hi - lo, hi > lo));
}

// cell is the span [lo, hi) of input positions whose gradient window o
// writes: from its window's start (or 0) to the next window's start, the
// last window to the input's end.
fn cell(o: u32, stride: u32, pad: u32, outs: u32, size: u32) -> vec2<u32> {
	let start = i32(o * stride) - i32(pad);
	let end = select(min(start + i32(stride), i32(size)), i32(size), o + 1u == outs);
	return vec2<u32>(u32(max(start, 0)), u32(end));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	let C = p.c / 4u;
	let c = i % C;
	var t = i / C;
	let ox = t % p.out_w;
	t = t / p.out_w;
	let oy = t % p.out_h;
	let n = t / p.out_h;
	let y0 = i32(oy * p.stride_h) - i32(p.pad_top);
	let x0 = i32(ox * p.stride_w) - i32(p.pad_left);
	let ty = taps(y0, p.kernel_h, p.dilation_h, p.in_h);
	let tx = taps(x0, p.kernel_w, p.dilation_w, p.in_w);
	let base = n * p.in_h;
	let img = base * p.in_w;
	var k = 0u;
	let grad = dy[i] / f32(divisor(y0, p.kernel_h, p.in_h, p.count_top, p.count_bottom) * divisor(x0, p.kernel_w, p.in_w, p.count_left, p.count_right));
	let cy = cell(oy, p.stride_h, p.pad_top, p.out_h, p.in_h);
	let cx = cell(ox, p.stride_w, p.pad_left, p.out_w, p.in_w);
	let ww = cx.y - cx.x;
	let count = (cy.y - cy.x) * ww;
	let step = 1u;
	let skip = p.in_w - ww + 1u;
	var pos = cy.x * p.in_w + cx.x;
	var col = 0u;
	var row = 0u;
	for (; k + 4u <= count; k += 4u) {
		{
			let hit = row < ty.y && col < tx.y;
			dx[(img + pos) * C + c] = select(vec4<f32>(0.0), grad, hit);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			row = select(row, row + 1u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let hit = row < ty.y && col < tx.y;
			dx[(img + pos) * C + c] = select(vec4<f32>(0.0), grad, hit);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			row = select(row, row + 1u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let hit = row < ty.y && col < tx.y;
			dx[(img + pos) * C + c] = select(vec4<f32>(0.0), grad, hit);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			row = select(row, row + 1u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let hit = row < ty.y && col < tx.y;
			dx[(img + pos) * C + c] = select(vec4<f32>(0.0), grad, hit);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			row = select(row, row + 1u, wrap);
			pos += select(step, skip, wrap);
		}
	}
	for (; k < count; k++)
		{
			let hit = row < ty.y && col < tx.y;
			dx[(img + pos) * C + c] = select(vec4<f32>(0.0), grad, hit);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			row = select(row, row + 1u, wrap);
			pos += select(step, skip, wrap);
		}
}
