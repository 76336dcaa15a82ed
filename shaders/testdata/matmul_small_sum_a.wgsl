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
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let M = p.m; let N = p.n; let K = p.k;
	let col_blocks = (N + 4u - 1u) / 4u;
	let blocks = (M + 4u - 1u) / 4u * col_blocks;
	var total = blocks;
	let i = (w.x + p.first_col) * 64u + li;
	if (i >= total) { return; }
	let z = i / blocks;
	let row0 = (i % blocks) / col_blocks * 4u;
	let col0 = (i % col_blocks) * 4u;
	var rem = z;
	var aoff = 0u;
	var boff = 0u;
	aoff = aoff * M * K;
	boff = boff * K * N;
	var ri: array<u32, 4>;
	var ci: array<u32, 4>;
	for (var t = 0u; t < 4u; t++) {
		ri[t] = min(row0 + t, M - 1u);
		ci[t] = min(col0 + t, N - 1u);
	}
	let cbase = z * M * N;
	var acc: array<f32, 16>;
	var rs: array<f32, 4>;
	let sumRows = col0 == 0u;
	if (p.k_first > 0u) {
		for (var i = 0u; i < 4u; i++) {
			for (var j = 0u; j < 4u; j++) {
				if (row0 + i < M && col0 + j < N) { acc[i * 4u + j] = c[cbase + (row0 + i) * N + col0 + j]; }
			}
		}
		if (sumRows) { for (var i = 0u; i < 4u; i++) { if (row0 + i < M) { rs[i] = sums[row0 + i]; } } }
	}
	for (var k0 = p.k_first; k0 < p.k_end; k0 += 16u) {
		for (var kk = 0u; kk < 16u; kk++) {
			let k = k0 + kk;
			if (k >= K) { break; }
			var av: array<f32, 4>;
			var bv: array<f32, 4>;
			for (var i = 0u; i < 4u; i++) { let ia = aoff + ri[i] * K + k; av[i] = a[ia]; }
			for (var j = 0u; j < 4u; j++) { let ib = boff + k * N + ci[j]; bv[j] = bm[ib]; }
			if (sumRows) { for (var i = 0u; i < 4u; i++) { rs[i] = rs[i] + av[i]; } }
			for (var i = 0u; i < 4u; i++) {
				for (var j = 0u; j < 4u; j++) {
					acc[i * 4u + j] = fma(av[i], bv[j], acc[i * 4u + j]);
				}
			}
		}
	}
	for (var i = 0u; i < 4u; i++) {
		let r = row0 + i;
		for (var j = 0u; j < 4u; j++) {
			let col = col0 + j;
			if (r < M && col < N) { put(cbase + r * N + col, z, r, col, acc[i * 4u + j]); }
		}
	}
	if (sumRows) { for (var i = 0u; i < 4u; i++) { if (row0 + i < M) { sums[row0 + i] = rs[i]; } } }
}
