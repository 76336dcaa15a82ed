{{/* The Accumulator's zero fill: u.count zeros over its one binding. */ -}}
struct Params { first: u32, end: u32, row: u32, threads: u32, count: u32 }
@group(0) @binding(0) var<storage, read_write> buf: array<f32>;
@group(0) @binding(1) var<uniform> u: Params;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = u.first + id.x + id.y * u.row;
	if (i >= u.end || i >= u.count) { return; }
	buf[i] = 0.0f;
}
