struct Params {
	first: u32,
	end: u32,
	row: u32,
	depth: u32,
	on: f32,
	off: f32,
}
@group(0) @binding(0) var<storage, read> idx: array<i32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	let d = i % p.depth;
	y[i] = select(p.off, p.on, idx[i / p.depth] == i32(d));
}
