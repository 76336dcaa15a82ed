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
@group(0) @binding(1) var<storage, read> bm: array<u32>;
fn load_i8(w: u32, k: u32) -> i32 { return bitcast<i32>(w << (24u - 8u * k)) >> 24u; }
fn load4_i8(w: u32) -> vec4<i32> { let v = bitcast<i32>(w); return vec4<i32>(v << 24u, v << 16u, v << 8u, v) >> vec4<u32>(24u); }
fn pack_i8(a: i32, b: i32, c: i32, d: i32) -> u32 { return (bitcast<u32>(a) & 0xffu) | ((bitcast<u32>(b) & 0xffu) << 8u) | ((bitcast<u32>(c) & 0xffu) << 16u) | (bitcast<u32>(d) << 24u); }
fn round_i8(a: i32) -> i32 { return (a << 24u) >> 24u; }

fn lb(i: u32) -> f32 { return f32(load_i8(bm[i >> 2u], i & 3u)); }
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;
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
	if (p.k_first > 0u) {
		for (var i = 0u; i < 4u; i++) {
			for (var j = 0u; j < 4u; j++) {
				if (row0 + i < M && col0 + j < N) { acc[i * 4u + j] = c[cbase + (row0 + i) * N + col0 + j]; }
			}
		}
	}
	for (var k0 = p.k_first; k0 < p.k_end; k0 += 16u) {
		for (var kk = 0u; kk < 16u; kk++) {
			let k = k0 + kk;
			if (k >= K) { break; }
			var av: array<f32, 4>;
			var bv: array<f32, 4>;
			for (var i = 0u; i < 4u; i++) { let ia = aoff + ri[i] * K + k; av[i] = a[ia]; }
			for (var j = 0u; j < 4u; j++) { let ib = boff + ci[j] * K + k; bv[j] = lb(ib); }
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
}
