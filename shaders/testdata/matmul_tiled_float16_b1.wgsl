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
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> bm: array<u32>;
// Conversions between f32 and the half-width floats tensors store two to a
// u32 word (float16: IEEE 754 binary16; bfloat16: f32's upper 16 bits),
// with the bits in a u32's low half. Widening is exact; narrowing rounds
// to nearest, ties to even, float16 overflowing to ±Inf, NaN giving
// 0x7e00 with its sign (float16) or 0x7fc0 (bfloat16): the bits of Go's
// internal/half, in integer arithmetic only, since WGSL leaves
// pack2x16float's rounding and overflow to the implementation.

fn half_to_f32(h: u32) -> f32 {
	let sign = (h & 0x8000u) << 16u;
	let e = (h >> 10u) & 0x1fu;
	let frac = h & 0x3ffu;
	if (e == 0u) {
		// frac · 2^-24: exact, and a normal f32 unless it is zero.
		return bitcast<f32>(sign | bitcast<u32>(f32(frac) * 5.9604644775390625e-8));
	}
	if (e == 0x1fu) {
		return bitcast<f32>(sign | 0x7f800000u | (frac << 13u));
	}
	return bitcast<f32>(sign | ((e + 112u) << 23u) | (frac << 13u));
}

fn f32_to_half(f: f32) -> u32 {
	let b = bitcast<u32>(f);
	let sign = (b >> 16u) & 0x8000u;
	let a = b & 0x7fffffffu;
	if (a > 0x7f800000u) {
		return sign | 0x7e00u;
	}
	if (a >= 0x477ff000u) { // 65,520 and above: Inf
		return sign | 0x7c00u;
	}
	if (a >= 0x38800000u) { // normal: rebias, round 23 fraction bits to 10
		var v = a - 0x38000000u;
		v = v + 0xfffu + ((v >> 13u) & 1u);
		return sign | (v >> 13u);
	}
	if (a <= 0x33000000u) { // at most 2^-25: zero
		return sign;
	}
	// Subnormal: the value in units of 2^-24, rounded.
	let s = 126u - (a >> 23u);
	let m = (a & 0x7fffffu) | 0x800000u;
	var q = m >> s;
	let rem = m & ((1u << s) - 1u);
	let halfway = 1u << (s - 1u);
	if (rem > halfway || (rem == halfway && (q & 1u) == 1u)) {
		q = q + 1u;
	}
	return sign | q;
}

fn bfloat16_to_f32(h: u32) -> f32 {
	return bitcast<f32>(h << 16u);
}

fn f32_to_bfloat16(f: f32) -> u32 {
	let b = bitcast<u32>(f);
	if ((b & 0x7fffffffu) > 0x7f800000u) {
		return 0x7fc0u;
	}
	return (b + 0x7fffu + ((b >> 16u) & 1u)) >> 16u;
}
fn round_f16(a: f32) -> f32 { return half_to_f32(f32_to_half(a)); }
fn round_bf16(a: f32) -> f32 { return bfloat16_to_f32(f32_to_bfloat16(a)); }
fn load_f16(w: u32, hi: u32) -> f32 { return half_to_f32((w >> (hi * 16u)) & 0xffffu); }
fn pack_f16(a: f32, b: f32) -> u32 { return f32_to_half(a) | (f32_to_half(b) << 16u); }
fn load_bf16(w: u32, hi: u32) -> f32 { return bfloat16_to_f32((w >> (hi * 16u)) & 0xffffu); }
fn load4_f16(a: u32, b: u32) -> vec4<f32> { return vec4<f32>(load_f16(a, 0u), load_f16(a, 1u), load_f16(b, 0u), load_f16(b, 1u)); }
fn load4_bf16(a: u32, b: u32) -> vec4<f32> { return vec4<f32>(load_bf16(a, 0u), load_bf16(a, 1u), load_bf16(b, 0u), load_bf16(b, 1u)); }
fn pack_bf16(a: f32, b: f32) -> u32 { return f32_to_bfloat16(a) | (f32_to_bfloat16(b) << 16u); }

fn la(i: u32) -> f32 { return load_f16(a[i >> 1u], i & 1u); }
fn lb(i: u32) -> f32 { return load_f16(bm[i >> 1u], i & 1u); }
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;
fn put(i: u32, z: u32, r: u32, col: u32, v: f32) { c[i] = v; }
var<workgroup> As: array<vec4<f32>, 128>; // [k][m/4], 8×16: four rows of A
var<workgroup> Bs: array<vec4<f32>, 128>; // [k][n/4], 8×16: four columns of B
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>,
		@builtin(local_invocation_index) li: u32) {
	let M = p.m; let N = p.n; let K = p.k;
	let z = w.z + p.first_batch;
	var rem = z;
	var aoff = 0u;
	var boff = 0u;
	{ let dim = p.batch_dims[0][0]; let c = rem % dim; rem = rem / dim; aoff += c * p.a_strides[0][0]; boff += c * p.b_strides[0][0]; }
	aoff = aoff * M * K;
	boff = boff * K * N;
	let row0 = (w.y + p.first_row) * 64u;
	let col0 = (w.x + p.first_col) * 64u;
	let cbase = z * M * N;
	let r0 = row0 + 4u * l.y;
	let c0 = col0 + 4u * l.x;
	var s0 = vec4<f32>(0.0); var s1 = s0; var s2 = s0; var s3 = s0;
	if (p.k_first > 0u) {
		if (r0 + 0u < M && c0 + 0u < N) { s0.x = c[cbase + (r0 + 0u) * N + c0 + 0u]; }
		if (r0 + 0u < M && c0 + 1u < N) { s0.y = c[cbase + (r0 + 0u) * N + c0 + 1u]; }
		if (r0 + 0u < M && c0 + 2u < N) { s0.z = c[cbase + (r0 + 0u) * N + c0 + 2u]; }
		if (r0 + 0u < M && c0 + 3u < N) { s0.w = c[cbase + (r0 + 0u) * N + c0 + 3u]; }
		if (r0 + 1u < M && c0 + 0u < N) { s1.x = c[cbase + (r0 + 1u) * N + c0 + 0u]; }
		if (r0 + 1u < M && c0 + 1u < N) { s1.y = c[cbase + (r0 + 1u) * N + c0 + 1u]; }
		if (r0 + 1u < M && c0 + 2u < N) { s1.z = c[cbase + (r0 + 1u) * N + c0 + 2u]; }
		if (r0 + 1u < M && c0 + 3u < N) { s1.w = c[cbase + (r0 + 1u) * N + c0 + 3u]; }
		if (r0 + 2u < M && c0 + 0u < N) { s2.x = c[cbase + (r0 + 2u) * N + c0 + 0u]; }
		if (r0 + 2u < M && c0 + 1u < N) { s2.y = c[cbase + (r0 + 2u) * N + c0 + 1u]; }
		if (r0 + 2u < M && c0 + 2u < N) { s2.z = c[cbase + (r0 + 2u) * N + c0 + 2u]; }
		if (r0 + 2u < M && c0 + 3u < N) { s2.w = c[cbase + (r0 + 2u) * N + c0 + 3u]; }
		if (r0 + 3u < M && c0 + 0u < N) { s3.x = c[cbase + (r0 + 3u) * N + c0 + 0u]; }
		if (r0 + 3u < M && c0 + 1u < N) { s3.y = c[cbase + (r0 + 3u) * N + c0 + 1u]; }
		if (r0 + 3u < M && c0 + 2u < N) { s3.z = c[cbase + (r0 + 3u) * N + c0 + 2u]; }
		if (r0 + 3u < M && c0 + 3u < N) { s3.w = c[cbase + (r0 + 3u) * N + c0 + 3u]; }
	}
	for (var k0 = p.k_first; k0 < p.k_end; k0 += 8u) {
		if (li < 128u) {
			let kk = li % 8u; let q = li / 8u; let gk = k0 + kk; var v = vec4<f32>(0.0);
			if (gk < K && row0 + 4u * q + 0u < M) { let ia = aoff + (row0 + 4u * q + 0u) * K + gk; v.x = la(ia); }
			if (gk < K && row0 + 4u * q + 1u < M) { let ia = aoff + (row0 + 4u * q + 1u) * K + gk; v.y = la(ia); }
			if (gk < K && row0 + 4u * q + 2u < M) { let ia = aoff + (row0 + 4u * q + 2u) * K + gk; v.z = la(ia); }
			if (gk < K && row0 + 4u * q + 3u < M) { let ia = aoff + (row0 + 4u * q + 3u) * K + gk; v.w = la(ia); }
			As[kk * 16u + q] = v;
		} else {
			let e = li - 128u;
			let q = e % 16u; let kk = e / 16u; let gk = k0 + kk; var v = vec4<f32>(0.0);
			if (gk < K && col0 + 4u * q + 0u < N) { let ib = boff + gk * N + col0 + 4u * q + 0u; v.x = lb(ib); }
			if (gk < K && col0 + 4u * q + 1u < N) { let ib = boff + gk * N + col0 + 4u * q + 1u; v.y = lb(ib); }
			if (gk < K && col0 + 4u * q + 2u < N) { let ib = boff + gk * N + col0 + 4u * q + 2u; v.z = lb(ib); }
			if (gk < K && col0 + 4u * q + 3u < N) { let ib = boff + gk * N + col0 + 4u * q + 3u; v.w = lb(ib); }
			Bs[kk * 16u + q] = v;
		}
		workgroupBarrier();
		for (var kk = 0u; kk < 8u; kk++) {
			let av = As[kk * 16u + l.y];
			let bv = Bs[kk * 16u + l.x];
			s0 = fma(vec4<f32>(av.x), bv, s0);
			s1 = fma(vec4<f32>(av.y), bv, s1);
			s2 = fma(vec4<f32>(av.z), bv, s2);
			s3 = fma(vec4<f32>(av.w), bv, s3);
		}
		workgroupBarrier();
	}
	if (r0 + 0u < M && c0 + 0u < N) { put(cbase + (r0 + 0u) * N + c0 + 0u, z, r0 + 0u, c0 + 0u, s0.x); }
	if (r0 + 0u < M && c0 + 1u < N) { put(cbase + (r0 + 0u) * N + c0 + 1u, z, r0 + 0u, c0 + 1u, s0.y); }
	if (r0 + 0u < M && c0 + 2u < N) { put(cbase + (r0 + 0u) * N + c0 + 2u, z, r0 + 0u, c0 + 2u, s0.z); }
	if (r0 + 0u < M && c0 + 3u < N) { put(cbase + (r0 + 0u) * N + c0 + 3u, z, r0 + 0u, c0 + 3u, s0.w); }
	if (r0 + 1u < M && c0 + 0u < N) { put(cbase + (r0 + 1u) * N + c0 + 0u, z, r0 + 1u, c0 + 0u, s1.x); }
	if (r0 + 1u < M && c0 + 1u < N) { put(cbase + (r0 + 1u) * N + c0 + 1u, z, r0 + 1u, c0 + 1u, s1.y); }
	if (r0 + 1u < M && c0 + 2u < N) { put(cbase + (r0 + 1u) * N + c0 + 2u, z, r0 + 1u, c0 + 2u, s1.z); }
	if (r0 + 1u < M && c0 + 3u < N) { put(cbase + (r0 + 1u) * N + c0 + 3u, z, r0 + 1u, c0 + 3u, s1.w); }
	if (r0 + 2u < M && c0 + 0u < N) { put(cbase + (r0 + 2u) * N + c0 + 0u, z, r0 + 2u, c0 + 0u, s2.x); }
	if (r0 + 2u < M && c0 + 1u < N) { put(cbase + (r0 + 2u) * N + c0 + 1u, z, r0 + 2u, c0 + 1u, s2.y); }
	if (r0 + 2u < M && c0 + 2u < N) { put(cbase + (r0 + 2u) * N + c0 + 2u, z, r0 + 2u, c0 + 2u, s2.z); }
	if (r0 + 2u < M && c0 + 3u < N) { put(cbase + (r0 + 2u) * N + c0 + 3u, z, r0 + 2u, c0 + 3u, s2.w); }
	if (r0 + 3u < M && c0 + 0u < N) { put(cbase + (r0 + 3u) * N + c0 + 0u, z, r0 + 3u, c0 + 0u, s3.x); }
	if (r0 + 3u < M && c0 + 1u < N) { put(cbase + (r0 + 3u) * N + c0 + 1u, z, r0 + 3u, c0 + 1u, s3.y); }
	if (r0 + 3u < M && c0 + 2u < N) { put(cbase + (r0 + 3u) * N + c0 + 2u, z, r0 + 3u, c0 + 2u, s3.z); }
	if (r0 + 3u < M && c0 + 3u < N) { put(cbase + (r0 + 3u) * N + c0 + 3u, z, r0 + 3u, c0 + 3u, s3.w); }
}
