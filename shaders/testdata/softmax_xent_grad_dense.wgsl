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
@group(0) @binding(1) var<storage, read> t: array<f32>;
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<storage, read_write> dst: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row + p.first;
	if (row >= p.end) { return; }
	let len = p.length;
	let base = row * len;
	var mx = -3.4028234e38;
	for (var j = 0u; j < len; j++) { mx = max(mx, src[base + j]); }
	var total = 0.0;
	for (var j = 0u; j < len; j++) { total += exp(src[base + j] - mx); }
	let gr = dy[row];
	var mass = 0.0;
	for (var j = 0u; j < len; j++) { mass += t[base + j]; }
	for (var j = 0u; j < len; j++) { dst[base + j] = gr * (exp(src[base + j] - mx) / total * mass - t[base + j]); }
}
