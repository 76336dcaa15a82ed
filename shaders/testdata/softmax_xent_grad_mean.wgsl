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
@group(0) @binding(2) var<storage, read> dy: array<f32>;
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
	let gr = dy[0] * p.scale;
	let y = t[row];
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; dst[base + k] = gr * (exp(src[base + k] - mx) / total - select(0.0, 1.0, i32(k) == y)); }
		{ let k = j + 1u; dst[base + k] = gr * (exp(src[base + k] - mx) / total - select(0.0, 1.0, i32(k) == y)); }
		{ let k = j + 2u; dst[base + k] = gr * (exp(src[base + k] - mx) / total - select(0.0, 1.0, i32(k) == y)); }
		{ let k = j + 3u; dst[base + k] = gr * (exp(src[base + k] - mx) / total - select(0.0, 1.0, i32(k) == y)); }
		{ let k = j + 4u; dst[base + k] = gr * (exp(src[base + k] - mx) / total - select(0.0, 1.0, i32(k) == y)); }
		{ let k = j + 5u; dst[base + k] = gr * (exp(src[base + k] - mx) / total - select(0.0, 1.0, i32(k) == y)); }
		{ let k = j + 6u; dst[base + k] = gr * (exp(src[base + k] - mx) / total - select(0.0, 1.0, i32(k) == y)); }
		{ let k = j + 7u; dst[base + k] = gr * (exp(src[base + k] - mx) / total - select(0.0, 1.0, i32(k) == y)); }
	}
	for (; j < len; j++) { let k = j; dst[base + k] = gr * (exp(src[base + k] - mx) / total - select(0.0, 1.0, i32(k) == y)); }
}
