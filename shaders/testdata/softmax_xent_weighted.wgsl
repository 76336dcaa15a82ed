struct Params {
	first: u32,
	end: u32,
	row: u32,
	length: u32,
	segments: u32,
	scale: f32,
	stride: u32,
}
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read> t: array<i32>;
@group(0) @binding(2) var<storage, read> w: array<f32>;
@group(0) @binding(3) var<storage, read_write> dst: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row + p.first;
	if (row >= p.end) { return; }
	let len = p.length;
	let base = row * len;
	var j: u32;
	var mx = -3.4028234e38;
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; mx = max(mx, src[base + k]); }
		{ let k = j + 1u; mx = max(mx, src[base + k]); }
		{ let k = j + 2u; mx = max(mx, src[base + k]); }
		{ let k = j + 3u; mx = max(mx, src[base + k]); }
		{ let k = j + 4u; mx = max(mx, src[base + k]); }
		{ let k = j + 5u; mx = max(mx, src[base + k]); }
		{ let k = j + 6u; mx = max(mx, src[base + k]); }
		{ let k = j + 7u; mx = max(mx, src[base + k]); }
	}
	for (; j < len; j++) { let k = j; mx = max(mx, src[base + k]); }
	var total = 0.0;
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; total += exp(src[base + k] - mx); }
		{ let k = j + 1u; total += exp(src[base + k] - mx); }
		{ let k = j + 2u; total += exp(src[base + k] - mx); }
		{ let k = j + 3u; total += exp(src[base + k] - mx); }
		{ let k = j + 4u; total += exp(src[base + k] - mx); }
		{ let k = j + 5u; total += exp(src[base + k] - mx); }
		{ let k = j + 6u; total += exp(src[base + k] - mx); }
		{ let k = j + 7u; total += exp(src[base + k] - mx); }
	}
	for (; j < len; j++) { let k = j; total += exp(src[base + k] - mx); }
	let y = t[row];
	if (y < 0 || u32(y) >= len) { dst[row] = bitcast<f32>(0x7fc00000u); return; }
	let loss = (mx - src[base + u32(y)]) + log(total);
	dst[row] = loss * w[row];
}
