struct Params {
	n: u32, row: u32, zero: u32, first: u32,
	s: array<vec4<f32>, 1>,
	w: array<vec4<u32>, 1>,
	m: array<vec4<u32>, 2>,
}
@group(0) @binding(0) var<storage, read> in0: array<i32>;
@group(0) @binding(1) var<storage, read> in1: array<i32>;
@group(0) @binding(2) var<storage, read_write> out0: array<i32>;
@group(0) @binding(3) var<uniform> p: Params;
fn node0(a0: i32, a1: i32, i: u32, s: vec4<f32>, h2: u32, h3: u32) -> i32 { return a0 + a1; }
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let t = g.x + g.y * p.row + p.first;
	if (t >= p.n) { return; }
	let i = t;
	var rem = i;
	var o0 = 0u;
	{ let dim = p.m[0][2]; let c = rem % dim; rem = rem / dim; o0 += c * p.m[1][1]; }
	{ let dim = p.m[0][1]; let c = rem % dim; rem = rem / dim; o0 += c * p.m[1][0]; }
	{ let dim = p.m[0][0]; let c = rem % dim; rem = rem / dim; o0 += c * p.m[0][3]; }
	let l0 = in0[o0];
	let l1 = in1[i];
	let v0 = node0(l0, l1, i, vec4<f32>(), 0u, 0u);
	out0[i] = v0;
}
