struct Params {
	n: u32, row: u32, zero: u32, first: u32,
	s: array<vec4<f32>, 1>,
	w: array<vec4<u32>, 1>,
	m: array<vec4<u32>, 1>,
}
@group(0) @binding(0) var<storage, read> in0: array<f32>;
@group(0) @binding(1) var<storage, read> in1: array<f32>;
@group(0) @binding(2) var<storage, read> in2: array<f32>;
@group(0) @binding(3) var<storage, read_write> out1: array<f32>;
@group(0) @binding(4) var<storage, read_write> out2: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;
fn node0(a0: f32, a1: f32, i: u32, s: vec4<f32>, h2: u32, h3: u32) -> f32 { return a0 * a1; }
fn node1(a0: f32, a1: f32, i: u32, s: vec4<f32>, h2: u32, h3: u32) -> f32 { return a0 + a1; }
fn node2(a0: f32, i: u32, s: vec4<f32>, h2: u32, h3: u32) -> f32 { return select(a0 * s.x, a0, a0 > 0.0); }
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let t = g.x + g.y * p.row + p.first;
	if (t >= p.n) { return; }
	let i = t;
	let l0 = in0[i];
	let l1 = in1[i];
	let l2 = in2[i];
	let v0 = node0(l0, l1, i, vec4<f32>(), 0u, 0u);
	let v1 = node1(bitcast<f32>(bitcast<u32>(v0) ^ p.zero), l2, i, vec4<f32>(), 0u, 0u);
	let v2 = node2(bitcast<f32>(bitcast<u32>(v1) ^ p.zero), i, p.s[0], p.w[0].x, p.w[0].y);
	out1[i] = v1;
	out2[i] = v2;
}
