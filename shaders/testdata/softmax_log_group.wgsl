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
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
fn row_base(r: u32) -> u32 { let st = max(p.stride, 1u); return (r / st) * p.length * st + r % st; }
var<workgroup> red: array<f32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let row = w.x + w.y * p.row + p.first;
	if (row >= p.end) { return; }
	let len = p.length;
	let base = row_base(row);
	let st = max(p.stride, 1u);
	var m = -3.4028234e38;
	for (var b0 = 0u; b0 < len; b0 += 1024u) { for (var u = 0u; u < 16u; u++) { let j = b0 + u * 64u + l; if (j >= len) { break; } m = max(m, src[base + j * st]); } }
	red[l] = m;
	workgroupBarrier();
	for (var h = 32u; h > 0u; h = h >> 1u) {
		if (l < h) { red[l] = max(red[l], red[l + h]); }
		workgroupBarrier();
	}
	let mx = red[0];
	workgroupBarrier();
	var sum = 0.0;
	for (var b0 = 0u; b0 < len; b0 += 1024u) { for (var u = 0u; u < 16u; u++) { let j = b0 + u * 64u + l; if (j >= len) { break; } sum += exp(src[base + j * st] - mx); } }
	red[l] = sum;
	workgroupBarrier();
	for (var h = 32u; h > 0u; h = h >> 1u) {
		if (l < h) { red[l] = red[l] + red[l + h]; }
		workgroupBarrier();
	}
	let total = red[0];
	for (var b0 = 0u; b0 < len; b0 += 1024u) { for (var u = 0u; u < 16u; u++) { let j = b0 + u * 64u + l; if (j >= len) { break; } dst[base + j * st] = src[base + j * st] - mx - log(total); } }
}
