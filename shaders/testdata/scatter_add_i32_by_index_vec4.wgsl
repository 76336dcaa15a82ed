struct Params {
	first: u32,
	end: u32,
	row: u32,
	inner: u32,
	count: u32,
	axis: u32,
	begin: u32,
	stop: u32,
}
@group(0) @binding(0) var<storage, read> idx: array<i32>;
@group(0) @binding(1) var<storage, read> upd: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<i32>>;
@group(0) @binding(3) var<uniform> p: Params;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	let inner = p.inner / 4u;
	let count = p.count;
	let axis = p.axis;
	let k = i % inner;
	let t = i / inner;
	let j = t % count;
	let base = (t / count) * count;
	var a = idx[j];
	if (a < 0) { a = a + i32(axis); }
	if (a < 0 || u32(a) >= axis) { return; }
	for (var q = 0u; q < j; q++) {
		var x = idx[q];
		if (x < 0) { x = x + i32(axis); }
		if (x == a) { return; }
	}
	let d = ((t / count) * axis + u32(a)) * inner + k;
	var acc = dst[d];
	for (var q = j; q < count; q++) {
		var x = idx[q];
		if (x < 0) { x = x + i32(axis); }
		if (x == a) { acc += upd[(base + q) * inner + k]; }
	}
	dst[d] = acc;
}
