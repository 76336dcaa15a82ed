struct Params {
	m: u32,
	n: u32,
	k: u32,
	first_col: u32,
	first_row: u32,
	first_batch: u32,
	k_first: u32,
	k_end: u32,
	batch_dims: array<vec4<u32>, 1>,
	a_strides: array<vec4<u32>, 1>,
	b_strides: array<vec4<u32>, 1>,
}
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> bm: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let M = p.m; let N = p.n; let K = p.k;
	let mn = M * N;
	var total = mn;
	total *= p.batch_dims[0][0];
	let i = (w.x + p.first_col) * 64u + li;
	if (i >= total) { return; }
	let z = i / mn;
	let row = (i % mn) / N;
	let col = i % N;
	var rem = z;
	var aoff = 0u;
	var boff = 0u;
	{ let dim = p.batch_dims[0][0]; let c = rem % dim; rem = rem / dim; aoff += c * p.a_strides[0][0]; boff += c * p.b_strides[0][0]; }
	aoff = aoff * M * K + row;
	boff = boff * K * N + col * K;
	var s = 0.0;
	if (p.k_first > 0u) { s = c[i]; }
	for (var k = p.k_first; k < p.k_end; k++) {
		s = fma(a[aoff + k * M], bm[boff + k], s);
	}
	c[i] = s;
}
