struct Params {
	n: u32, row: u32, zero: u32, first: u32,
	s: array<vec4<f32>, 1>,
	w: array<vec4<u32>, 1>,
	m: array<vec4<u32>, 1>,
}
@group(0) @binding(0) var<storage, read> in0: array<vec4<i32>>;
@group(0) @binding(1) var<storage, read> in1: array<u32>;
@group(0) @binding(2) var<storage, read_write> out0: array<vec4<i32>>;
@group(0) @binding(3) var<uniform> p: Params;
fn node0(a0: i32, a1: u32, i: u32, s: vec4<f32>, h2: u32, h3: u32) -> i32 { return select(a0, bitcast<i32>(h2), a1 != 0u); }
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let t = g.x + g.y * p.row + p.first;
	if (t >= p.n) { return; }
	var rem = 4u * t;
	var o0 = 0u;
	{ let dim = p.m[0][1]; let c = rem % dim; rem = rem / dim; o0 += c * p.m[0][3]; }
	{ let dim = p.m[0][0]; let c = rem % dim; rem = rem / dim; o0 += c * p.m[0][2]; }
	let l0 = in0[t];
	let l1 = vec4<u32>(in1[o0]);
	let i0 = 4u * t + 0u;
	let v0_x = node0(l0.x, l1.x, i0, p.s[0], p.w[0].x, p.w[0].y);
	let i1 = 4u * t + 1u;
	let v0_y = node0(l0.y, l1.y, i1, p.s[0], p.w[0].x, p.w[0].y);
	let i2 = 4u * t + 2u;
	let v0_z = node0(l0.z, l1.z, i2, p.s[0], p.w[0].x, p.w[0].y);
	let i3 = 4u * t + 3u;
	let v0_w = node0(l0.w, l1.w, i3, p.s[0], p.w[0].x, p.w[0].y);
	out0[t] = vec4<i32>(v0_x, v0_y, v0_z, v0_w);
}
