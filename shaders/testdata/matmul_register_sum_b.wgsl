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
@group(0) @binding(3) var<storage, read_write> sums: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
fn put(i: u32, z: u32, r: u32, col: u32, v: f32) { c[i] = v; }
@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
	let M = p.m; let N = p.n; let K = p.k;
	let z = w.z + p.first_batch;
	var rem = z;
	var aoff = 0u;
	var boff = 0u;
	aoff = aoff * M * K;
	boff = boff * K * N;
	let row0 = ((w.y + p.first_row) * 8u + l.y) * 8u;
	let col0 = ((w.x + p.first_col) * 8u + l.x) * 8u;
	var ri: array<u32, 8>;
	var ci: array<u32, 8>;
	for (var t = 0u; t < 8u; t++) {
		ri[t] = min(row0 + t, M - 1u);
		ci[t] = min(col0 + t, N - 1u);
	}
	let cbase = z * M * N;
	var acc: array<f32, 64>;
	var cs: array<f32, 8>;
	let sumCols = row0 == 0u;
	if (p.k_first > 0u) {
		for (var i = 0u; i < 8u; i++) {
			for (var j = 0u; j < 8u; j++) {
				if (row0 + i < M && col0 + j < N) { acc[i * 8u + j] = c[cbase + (row0 + i) * N + col0 + j]; }
			}
		}
		if (sumCols) { for (var j = 0u; j < 8u; j++) { if (col0 + j < N) { cs[j] = sums[col0 + j]; } } }
	}
	for (var k0 = p.k_first; k0 < p.k_end; k0 += 16u) {
		for (var kk = 0u; kk < 16u; kk++) {
			let k = k0 + kk;
			if (k >= K) { break; }
			var av: array<f32, 8>;
			var bv: array<f32, 8>;
			for (var i = 0u; i < 8u; i++) { let ia = aoff + ri[i] * K + k; av[i] = a[ia]; }
			for (var j = 0u; j < 8u; j++) { let ib = boff + k * N + ci[j]; bv[j] = bm[ib]; }
			if (sumCols) { for (var j = 0u; j < 8u; j++) { cs[j] = cs[j] + bv[j]; } }
			for (var i = 0u; i < 8u; i++) {
				for (var j = 0u; j < 8u; j++) {
					acc[i * 8u + j] = fma(av[i], bv[j], acc[i * 8u + j]);
				}
			}
		}
	}
	for (var i = 0u; i < 8u; i++) {
		let r = row0 + i;
		for (var j = 0u; j < 8u; j++) {
			let col = col0 + j;
			if (r < M && col < N) { put(cbase + r * N + col, z, r, col, acc[i * 8u + j]); }
		}
	}
	if (sumCols) { for (var j = 0u; j < 8u; j++) { if (col0 + j < N) { sums[col0 + j] = cs[j]; } } }
}
