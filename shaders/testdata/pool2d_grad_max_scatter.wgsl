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

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read_write> dx: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

fn is_nan(v: f32) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u; }
fn ord(v: f32) -> i32 {
	let b = bitcast<i32>(v);
	return select(select(b, b ^ 0x7fffffff, b < 0), 0, (bitcast<u32>(v) & 0x7fffffffu) == 0u);
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
	let C = p.c;
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
	var ww = tx.y;
	var count = ty.y * ww;
	var step = p.dilation_w;
	var skip = p.dilation_h * p.in_w - (ww - 1u) * p.dilation_w;
	var pos = ty.x * p.in_w + tx.x;
	var col = 0u;
	var best = x[(img + pos) * C + c];
	var at = u32(pos);
	for (; k + 4u <= count; k += 4u) {
		{
			let v = x[(img + pos) * C + c];
			let take = !is_nan(best) & ((ord(v) > ord(best)) | is_nan(v));
			best = select(best, v, take);
			at = select(at, u32(pos), take);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let v = x[(img + pos) * C + c];
			let take = !is_nan(best) & ((ord(v) > ord(best)) | is_nan(v));
			best = select(best, v, take);
			at = select(at, u32(pos), take);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let v = x[(img + pos) * C + c];
			let take = !is_nan(best) & ((ord(v) > ord(best)) | is_nan(v));
			best = select(best, v, take);
			at = select(at, u32(pos), take);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let v = x[(img + pos) * C + c];
			let take = !is_nan(best) & ((ord(v) > ord(best)) | is_nan(v));
			best = select(best, v, take);
			at = select(at, u32(pos), take);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
	}
	for (; k < count; k++)
		{
			let v = x[(img + pos) * C + c];
			let take = !is_nan(best) & ((ord(v) > ord(best)) | is_nan(v));
			best = select(best, v, take);
			at = select(at, u32(pos), take);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
	let grad = dy[i];
	let cy = cell(oy, p.stride_h, p.pad_top, p.out_h, p.in_h);
	let cx = cell(ox, p.stride_w, p.pad_left, p.out_w, p.in_w);
	ww = cx.y - cx.x;
	count = (cy.y - cy.x) * ww;
	step = 1u;
	skip = p.in_w - ww + 1u;
	pos = cy.x * p.in_w + cx.x;
	col = 0u;
	k = 0u;
	for (; k + 4u <= count; k += 4u) {
		{
			let hit = u32(pos) == at;
			dx[(img + pos) * C + c] = select(f32(0.0), grad, hit);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let hit = u32(pos) == at;
			dx[(img + pos) * C + c] = select(f32(0.0), grad, hit);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let hit = u32(pos) == at;
			dx[(img + pos) * C + c] = select(f32(0.0), grad, hit);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let hit = u32(pos) == at;
			dx[(img + pos) * C + c] = select(f32(0.0), grad, hit);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
	}
	for (; k < count; k++)
		{
			let hit = u32(pos) == at;
			dx[(img + pos) * C + c] = select(f32(0.0), grad, hit);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
}
