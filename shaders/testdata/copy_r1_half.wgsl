struct Params {
	first: u32,
	end: u32,
	row: u32,
	src_offset: u32,
	dst_offset: u32,
	dims: array<vec4<u32>, 1>,
	src_strides: array<vec4<u32>, 1>,
	dst_strides: array<vec4<u32>, 1>,
}
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> p: Params;
fn part(i: u32) -> u32 { return (src[i >> 1u] >> ((i & 1u) * 16u)) & 0xffffu; }
fn put(i: u32, v: u32) {
	let shift = (i & 1u) * 16u;
	atomicAnd(&dst[i >> 1u], ~(0xffffu << shift));
	atomicOr(&dst[i >> 1u], v << shift);
}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	var rem = i;
	var si = p.src_offset;
	var di = p.dst_offset;
	{ let dim = p.dims[0][0]; let c = rem % dim; rem = rem / dim; si += c * p.src_strides[0][0]; di += c * p.dst_strides[0][0]; }
	put(di, part(si));
}
