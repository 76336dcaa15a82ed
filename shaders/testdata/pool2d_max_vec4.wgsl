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
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> p: Params;
fn is_nan(v: vec4<f32>) -> vec4<bool> { return (bitcast<vec4<u32>>(v) & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u); }
fn ord(v: vec4<f32>) -> vec4<i32> {
	let b = bitcast<vec4<i32>>(v);
	return select(select(b, b ^ vec4<i32>(0x7fffffff), b < vec4<i32>(0)), vec4<i32>(0), (bitcast<vec4<u32>>(v) & vec4<u32>(0x7fffffffu)) == vec4<u32>(0u));
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
	let ww = tx.y;
	let count = ty.y * ww;
	let step = p.dilation_w;
	let skip = p.dilation_h * p.in_w - (ww - 1u) * p.dilation_w;
	var pos = ty.x * p.in_w + tx.x;
	var col = 0u;
	var k = 0u;
	var best = x[(img + pos) * C + c];
	for (; k + 4u <= count; k += 4u) {
		{
			let v = x[(img + pos) * C + c];
			let take = !is_nan(best) & ((ord(v) > ord(best)) | is_nan(v));
			best = select(best, v, take);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let v = x[(img + pos) * C + c];
			let take = !is_nan(best) & ((ord(v) > ord(best)) | is_nan(v));
			best = select(best, v, take);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let v = x[(img + pos) * C + c];
			let take = !is_nan(best) & ((ord(v) > ord(best)) | is_nan(v));
			best = select(best, v, take);
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let v = x[(img + pos) * C + c];
			let take = !is_nan(best) & ((ord(v) > ord(best)) | is_nan(v));
			best = select(best, v, take);
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
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
	y[i] = best;
}
