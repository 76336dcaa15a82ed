struct Params {
	first: u32,
	end: u32,
	row: u32,
	inner: u32,
	count: u32,
	axis: u32,
}
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read> idx: array<i32>;
@group(0) @binding(2) var<storage, read_write> dst: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> p: Params;
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
	let inner = p.inner;
	let count = p.count;
	let axis = p.axis;
	let k = i % inner;
	let t = i / inner;
	let j = t % count;
	let o = t / count;
	var x = idx[j];
	if (x < 0) { x = x + i32(axis); }
	if (x < 0 || u32(x) >= axis) { put(i, 0u); return; }
	put(i, part((o * axis + u32(x)) * inner + k));
}
