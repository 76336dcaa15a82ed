struct Params {
	n: u32, row: u32, zero: u32, first: u32,
	s: array<vec4<f32>, 1>,
	w: array<vec4<u32>, 1>,
	m: array<vec4<u32>, 2>,
}
@group(0) @binding(0) var<storage, read> in0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> in1: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> in2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out1: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> p: Params;
fn node0(a0: f32, a1: f32, i: u32, s: vec4<f32>, h2: u32, h3: u32) -> f32 { return a0 + a1; }
fn node1(a0: f32, a1: f32, i: u32, s: vec4<f32>, h2: u32, h3: u32) -> f32 { return max(a0, a1); }
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let t = g.x + g.y * p.row + p.first;
	if (t >= p.n) { return; }
	var rem = 4u * t;
	var o0 = 0u;
	var o1 = 0u;
	{ let dim = p.m[0][1]; let c = rem % dim; rem = rem / dim; o0 += c * p.m[0][3]; o1 += c * p.m[1][1]; }
	{ let dim = p.m[0][0]; let c = rem % dim; rem = rem / dim; o0 += c * p.m[0][2]; o1 += c * p.m[1][0]; }
	let l0 = in0[t];
	let l1 = in1[o0 / 4u];
	let l2 = vec4<f32>(in2[o1]);
	let i0 = 4u * t + 0u;
	let v0_x = node0(l0.x, l1.x, i0, vec4<f32>(), 0u, 0u);
	let v1_x = node1(bitcast<f32>(bitcast<u32>(v0_x) ^ p.zero), l2.x, i0, vec4<f32>(), 0u, 0u);
	let i1 = 4u * t + 1u;
	let v0_y = node0(l0.y, l1.y, i1, vec4<f32>(), 0u, 0u);
	let v1_y = node1(bitcast<f32>(bitcast<u32>(v0_y) ^ p.zero), l2.y, i1, vec4<f32>(), 0u, 0u);
	let i2 = 4u * t + 2u;
	let v0_z = node0(l0.z, l1.z, i2, vec4<f32>(), 0u, 0u);
	let v1_z = node1(bitcast<f32>(bitcast<u32>(v0_z) ^ p.zero), l2.z, i2, vec4<f32>(), 0u, 0u);
	let i3 = 4u * t + 3u;
	let v0_w = node0(l0.w, l1.w, i3, vec4<f32>(), 0u, 0u);
	let v1_w = node1(bitcast<f32>(bitcast<u32>(v0_w) ^ p.zero), l2.w, i3, vec4<f32>(), 0u, 0u);
	out1[t] = vec4<f32>(v1_x, v1_y, v1_z, v1_w);
}
