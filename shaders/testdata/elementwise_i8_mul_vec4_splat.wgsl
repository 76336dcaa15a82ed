struct Params {
	n: u32, row: u32, zero: u32, first: u32,
	s: array<vec4<f32>, 1>,
	w: array<vec4<u32>, 1>,
	m: array<vec4<u32>, 1>,
}
@group(0) @binding(0) var<storage, read> in0: array<u32>;
@group(0) @binding(1) var<storage, read> in1: array<u32>;
@group(0) @binding(2) var<storage, read_write> out0: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;
fn load_i8(w: u32, k: u32) -> i32 { return bitcast<i32>(w << (24u - 8u * k)) >> 24u; }
fn load4_i8(w: u32) -> vec4<i32> { let v = bitcast<i32>(w); return vec4<i32>(v << 24u, v << 16u, v << 8u, v) >> vec4<u32>(24u); }
fn pack_i8(a: i32, b: i32, c: i32, d: i32) -> u32 { return (bitcast<u32>(a) & 0xffu) | ((bitcast<u32>(b) & 0xffu) << 8u) | ((bitcast<u32>(c) & 0xffu) << 16u) | (bitcast<u32>(d) << 24u); }
fn round_i8(a: i32) -> i32 { return (a << 24u) >> 24u; }
fn node0(a0: i32, a1: i32, i: u32, s: vec4<f32>, h2: u32, h3: u32) -> i32 { return round_i8(a0 * a1); }
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let t = g.x + g.y * p.row + p.first;
	if (t >= p.n) { return; }
	var rem = 4u * t;
	var o0 = 0u;
	{ let dim = p.m[0][1]; let c = rem % dim; rem = rem / dim; o0 += c * p.m[0][3]; }
	{ let dim = p.m[0][0]; let c = rem % dim; rem = rem / dim; o0 += c * p.m[0][2]; }
	let l0 = load4_i8(in0[t]);
	let l1 = vec4<i32>(load_i8(in1[o0 >> 2u], o0 & 3u));
	let i0 = 4u * t + 0u;
	let v0_x = node0(l0.x, l1.x, i0, vec4<f32>(), 0u, 0u);
	let i1 = 4u * t + 1u;
	let v0_y = node0(l0.y, l1.y, i1, vec4<f32>(), 0u, 0u);
	let i2 = 4u * t + 2u;
	let v0_z = node0(l0.z, l1.z, i2, vec4<f32>(), 0u, 0u);
	let i3 = 4u * t + 3u;
	let v0_w = node0(l0.w, l1.w, i3, vec4<f32>(), 0u, 0u);
	out0[t] = pack_i8(v0_x, v0_y, v0_z, v0_w);
}
