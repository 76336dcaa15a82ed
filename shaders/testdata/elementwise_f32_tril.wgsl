struct Params {
	n: u32, row: u32, zero: u32, first: u32,
	s: array<vec4<f32>, 1>,
	w: array<vec4<u32>, 1>,
	m: array<vec4<u32>, 1>,
}
@group(0) @binding(0) var<storage, read> in0: array<f32>;
@group(0) @binding(1) var<storage, read_write> out0: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
fn node0(a0: f32, i: u32, s: vec4<f32>, h2: u32, h3: u32) -> f32 { return select(f32(0), a0, i32(i % h2) - i32((i % h3) / h2) <= i32(s.x) * 65536 + i32(s.y)); }
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let t = g.x + g.y * p.row + p.first;
	if (t >= p.n) { return; }
	let i = t;
	let l0 = in0[i];
	let v0 = node0(l0, i, p.s[0], p.w[0].x, p.w[0].y);
	out0[i] = v0;
}
