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
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row + p.first;
	if (row >= p.end) { return; }
	let len = p.length;
	let base = row_base(row);
	let st = max(p.stride, 1u);
	var mx = -3.4028234e38;
	for (var j = 0u; j < len; j++) { mx = max(mx, src[base + j * st]); }
	var total = 0.0;
	for (var j = 0u; j < len; j++) { total += exp(src[base + j * st] - mx); }
	for (var j = 0u; j < len; j++) { dst[base + j * st] = exp(src[base + j * st] - mx) / total; }
}
