struct Params {
	first: u32,
	end: u32,
	row: u32,
	length: u32,
	begin: u32,
	stop: u32,
	k: u32,
}
@group(0) @binding(0) var<storage, read> x: array<i32>;
@group(0) @binding(1) var<storage, read> rank: array<u32>;
@group(0) @binding(2) var<storage, read_write> vals: array<i32>;
@group(0) @binding(3) var<storage, read_write> idx: array<i32>;
@group(0) @binding(4) var<uniform> p: Params;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	let j = i % p.length;
	let r = rank[i];
	if (r < p.k) {
		let at = (i / p.length) * p.k + r;
		vals[at] = x[i];
		idx[at] = i32(j);
	}
}
