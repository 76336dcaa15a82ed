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
	let a = i32(t % axis);
	let base = (t / axis) * count;
	var acc = dst[i];
	for (var j = p.begin; j < p.stop; j++) {
		var x = idx[j];
		if (x < 0) { x = x + i32(axis); }
		if (x == a) { acc += upd[(base + j) * inner + k]; }
	}
	dst[i] = acc;
}
