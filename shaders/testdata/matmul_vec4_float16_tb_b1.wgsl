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
@group(0) @binding(2) var<storage, read_write> c: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> p: Params;
fn put(i: u32, z: u32, r: u32, col: u32, v: vec4<f32>) { c[i] = v; }
@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
	let M = p.m; let N = p.n; let K = p.k;
	let M4 = M / 4u; let K4 = K / 4u; let N4 = N / 4u;
	let z = w.z + p.first_batch;
	var rem = z;
	var aoff = 0u;
	var boff = 0u;
	{ let dim = p.batch_dims[0][0]; let c = rem % dim; rem = rem / dim; aoff += c * p.a_strides[0][0]; boff += c * p.b_strides[0][0]; }
	aoff = aoff * M * K4;
	boff = boff * K * N4;
	let row0 = ((w.y + p.first_row) * 8u + l.y) * 16u;
	let cb0 = ((w.x + p.first_col) * 8u + l.x) * 4u;
	let ra0 = aoff + min(row0 + 0u, M - 1u) * K4;
	let ra1 = aoff + min(row0 + 1u, M - 1u) * K4;
	let ra2 = aoff + min(row0 + 2u, M - 1u) * K4;
	let ra3 = aoff + min(row0 + 3u, M - 1u) * K4;
	let ra4 = aoff + min(row0 + 4u, M - 1u) * K4;
	let ra5 = aoff + min(row0 + 5u, M - 1u) * K4;
	let ra6 = aoff + min(row0 + 6u, M - 1u) * K4;
	let ra7 = aoff + min(row0 + 7u, M - 1u) * K4;
	let ra8 = aoff + min(row0 + 8u, M - 1u) * K4;
	let ra9 = aoff + min(row0 + 9u, M - 1u) * K4;
	let ra10 = aoff + min(row0 + 10u, M - 1u) * K4;
	let ra11 = aoff + min(row0 + 11u, M - 1u) * K4;
	let ra12 = aoff + min(row0 + 12u, M - 1u) * K4;
	let ra13 = aoff + min(row0 + 13u, M - 1u) * K4;
	let ra14 = aoff + min(row0 + 14u, M - 1u) * K4;
	let ra15 = aoff + min(row0 + 15u, M - 1u) * K4;
	let bc0 = boff + min(cb0 + 0u, N4 - 1u) * 4u * K4;
	let bc1 = boff + min(cb0 + 1u, N4 - 1u) * 4u * K4;
	let bc2 = boff + min(cb0 + 2u, N4 - 1u) * 4u * K4;
	let bc3 = boff + min(cb0 + 3u, N4 - 1u) * 4u * K4;
	let cbase = z * M * N4;
	var s0_0 = vec4<f32>(0.0);
	var s0_1 = vec4<f32>(0.0);
	var s0_2 = vec4<f32>(0.0);
	var s0_3 = vec4<f32>(0.0);
	var s1_0 = vec4<f32>(0.0);
	var s1_1 = vec4<f32>(0.0);
	var s1_2 = vec4<f32>(0.0);
	var s1_3 = vec4<f32>(0.0);
	var s2_0 = vec4<f32>(0.0);
	var s2_1 = vec4<f32>(0.0);
	var s2_2 = vec4<f32>(0.0);
	var s2_3 = vec4<f32>(0.0);
	var s3_0 = vec4<f32>(0.0);
	var s3_1 = vec4<f32>(0.0);
	var s3_2 = vec4<f32>(0.0);
	var s3_3 = vec4<f32>(0.0);
	var s4_0 = vec4<f32>(0.0);
	var s4_1 = vec4<f32>(0.0);
	var s4_2 = vec4<f32>(0.0);
	var s4_3 = vec4<f32>(0.0);
	var s5_0 = vec4<f32>(0.0);
	var s5_1 = vec4<f32>(0.0);
	var s5_2 = vec4<f32>(0.0);
	var s5_3 = vec4<f32>(0.0);
	var s6_0 = vec4<f32>(0.0);
	var s6_1 = vec4<f32>(0.0);
	var s6_2 = vec4<f32>(0.0);
	var s6_3 = vec4<f32>(0.0);
	var s7_0 = vec4<f32>(0.0);
	var s7_1 = vec4<f32>(0.0);
	var s7_2 = vec4<f32>(0.0);
	var s7_3 = vec4<f32>(0.0);
	var s8_0 = vec4<f32>(0.0);
	var s8_1 = vec4<f32>(0.0);
	var s8_2 = vec4<f32>(0.0);
	var s8_3 = vec4<f32>(0.0);
	var s9_0 = vec4<f32>(0.0);
	var s9_1 = vec4<f32>(0.0);
	var s9_2 = vec4<f32>(0.0);
	var s9_3 = vec4<f32>(0.0);
	var s10_0 = vec4<f32>(0.0);
	var s10_1 = vec4<f32>(0.0);
	var s10_2 = vec4<f32>(0.0);
	var s10_3 = vec4<f32>(0.0);
	var s11_0 = vec4<f32>(0.0);
	var s11_1 = vec4<f32>(0.0);
	var s11_2 = vec4<f32>(0.0);
	var s11_3 = vec4<f32>(0.0);
	var s12_0 = vec4<f32>(0.0);
	var s12_1 = vec4<f32>(0.0);
	var s12_2 = vec4<f32>(0.0);
	var s12_3 = vec4<f32>(0.0);
	var s13_0 = vec4<f32>(0.0);
	var s13_1 = vec4<f32>(0.0);
	var s13_2 = vec4<f32>(0.0);
	var s13_3 = vec4<f32>(0.0);
	var s14_0 = vec4<f32>(0.0);
	var s14_1 = vec4<f32>(0.0);
	var s14_2 = vec4<f32>(0.0);
	var s14_3 = vec4<f32>(0.0);
	var s15_0 = vec4<f32>(0.0);
	var s15_1 = vec4<f32>(0.0);
	var s15_2 = vec4<f32>(0.0);
	var s15_3 = vec4<f32>(0.0);
	if (p.k_first > 0u) {
		if (row0 + 0u < M && cb0 + 0u < N4) { s0_0 = c[cbase + (row0 + 0u) * N4 + cb0 + 0u]; }
		if (row0 + 0u < M && cb0 + 1u < N4) { s0_1 = c[cbase + (row0 + 0u) * N4 + cb0 + 1u]; }
		if (row0 + 0u < M && cb0 + 2u < N4) { s0_2 = c[cbase + (row0 + 0u) * N4 + cb0 + 2u]; }
		if (row0 + 0u < M && cb0 + 3u < N4) { s0_3 = c[cbase + (row0 + 0u) * N4 + cb0 + 3u]; }
		if (row0 + 1u < M && cb0 + 0u < N4) { s1_0 = c[cbase + (row0 + 1u) * N4 + cb0 + 0u]; }
		if (row0 + 1u < M && cb0 + 1u < N4) { s1_1 = c[cbase + (row0 + 1u) * N4 + cb0 + 1u]; }
		if (row0 + 1u < M && cb0 + 2u < N4) { s1_2 = c[cbase + (row0 + 1u) * N4 + cb0 + 2u]; }
		if (row0 + 1u < M && cb0 + 3u < N4) { s1_3 = c[cbase + (row0 + 1u) * N4 + cb0 + 3u]; }
		if (row0 + 2u < M && cb0 + 0u < N4) { s2_0 = c[cbase + (row0 + 2u) * N4 + cb0 + 0u]; }
		if (row0 + 2u < M && cb0 + 1u < N4) { s2_1 = c[cbase + (row0 + 2u) * N4 + cb0 + 1u]; }
		if (row0 + 2u < M && cb0 + 2u < N4) { s2_2 = c[cbase + (row0 + 2u) * N4 + cb0 + 2u]; }
		if (row0 + 2u < M && cb0 + 3u < N4) { s2_3 = c[cbase + (row0 + 2u) * N4 + cb0 + 3u]; }
		if (row0 + 3u < M && cb0 + 0u < N4) { s3_0 = c[cbase + (row0 + 3u) * N4 + cb0 + 0u]; }
		if (row0 + 3u < M && cb0 + 1u < N4) { s3_1 = c[cbase + (row0 + 3u) * N4 + cb0 + 1u]; }
		if (row0 + 3u < M && cb0 + 2u < N4) { s3_2 = c[cbase + (row0 + 3u) * N4 + cb0 + 2u]; }
		if (row0 + 3u < M && cb0 + 3u < N4) { s3_3 = c[cbase + (row0 + 3u) * N4 + cb0 + 3u]; }
		if (row0 + 4u < M && cb0 + 0u < N4) { s4_0 = c[cbase + (row0 + 4u) * N4 + cb0 + 0u]; }
		if (row0 + 4u < M && cb0 + 1u < N4) { s4_1 = c[cbase + (row0 + 4u) * N4 + cb0 + 1u]; }
		if (row0 + 4u < M && cb0 + 2u < N4) { s4_2 = c[cbase + (row0 + 4u) * N4 + cb0 + 2u]; }
		if (row0 + 4u < M && cb0 + 3u < N4) { s4_3 = c[cbase + (row0 + 4u) * N4 + cb0 + 3u]; }
		if (row0 + 5u < M && cb0 + 0u < N4) { s5_0 = c[cbase + (row0 + 5u) * N4 + cb0 + 0u]; }
		if (row0 + 5u < M && cb0 + 1u < N4) { s5_1 = c[cbase + (row0 + 5u) * N4 + cb0 + 1u]; }
		if (row0 + 5u < M && cb0 + 2u < N4) { s5_2 = c[cbase + (row0 + 5u) * N4 + cb0 + 2u]; }
		if (row0 + 5u < M && cb0 + 3u < N4) { s5_3 = c[cbase + (row0 + 5u) * N4 + cb0 + 3u]; }
		if (row0 + 6u < M && cb0 + 0u < N4) { s6_0 = c[cbase + (row0 + 6u) * N4 + cb0 + 0u]; }
		if (row0 + 6u < M && cb0 + 1u < N4) { s6_1 = c[cbase + (row0 + 6u) * N4 + cb0 + 1u]; }
		if (row0 + 6u < M && cb0 + 2u < N4) { s6_2 = c[cbase + (row0 + 6u) * N4 + cb0 + 2u]; }
		if (row0 + 6u < M && cb0 + 3u < N4) { s6_3 = c[cbase + (row0 + 6u) * N4 + cb0 + 3u]; }
		if (row0 + 7u < M && cb0 + 0u < N4) { s7_0 = c[cbase + (row0 + 7u) * N4 + cb0 + 0u]; }
		if (row0 + 7u < M && cb0 + 1u < N4) { s7_1 = c[cbase + (row0 + 7u) * N4 + cb0 + 1u]; }
		if (row0 + 7u < M && cb0 + 2u < N4) { s7_2 = c[cbase + (row0 + 7u) * N4 + cb0 + 2u]; }
		if (row0 + 7u < M && cb0 + 3u < N4) { s7_3 = c[cbase + (row0 + 7u) * N4 + cb0 + 3u]; }
		if (row0 + 8u < M && cb0 + 0u < N4) { s8_0 = c[cbase + (row0 + 8u) * N4 + cb0 + 0u]; }
		if (row0 + 8u < M && cb0 + 1u < N4) { s8_1 = c[cbase + (row0 + 8u) * N4 + cb0 + 1u]; }
		if (row0 + 8u < M && cb0 + 2u < N4) { s8_2 = c[cbase + (row0 + 8u) * N4 + cb0 + 2u]; }
		if (row0 + 8u < M && cb0 + 3u < N4) { s8_3 = c[cbase + (row0 + 8u) * N4 + cb0 + 3u]; }
		if (row0 + 9u < M && cb0 + 0u < N4) { s9_0 = c[cbase + (row0 + 9u) * N4 + cb0 + 0u]; }
		if (row0 + 9u < M && cb0 + 1u < N4) { s9_1 = c[cbase + (row0 + 9u) * N4 + cb0 + 1u]; }
		if (row0 + 9u < M && cb0 + 2u < N4) { s9_2 = c[cbase + (row0 + 9u) * N4 + cb0 + 2u]; }
		if (row0 + 9u < M && cb0 + 3u < N4) { s9_3 = c[cbase + (row0 + 9u) * N4 + cb0 + 3u]; }
		if (row0 + 10u < M && cb0 + 0u < N4) { s10_0 = c[cbase + (row0 + 10u) * N4 + cb0 + 0u]; }
		if (row0 + 10u < M && cb0 + 1u < N4) { s10_1 = c[cbase + (row0 + 10u) * N4 + cb0 + 1u]; }
		if (row0 + 10u < M && cb0 + 2u < N4) { s10_2 = c[cbase + (row0 + 10u) * N4 + cb0 + 2u]; }
		if (row0 + 10u < M && cb0 + 3u < N4) { s10_3 = c[cbase + (row0 + 10u) * N4 + cb0 + 3u]; }
		if (row0 + 11u < M && cb0 + 0u < N4) { s11_0 = c[cbase + (row0 + 11u) * N4 + cb0 + 0u]; }
		if (row0 + 11u < M && cb0 + 1u < N4) { s11_1 = c[cbase + (row0 + 11u) * N4 + cb0 + 1u]; }
		if (row0 + 11u < M && cb0 + 2u < N4) { s11_2 = c[cbase + (row0 + 11u) * N4 + cb0 + 2u]; }
		if (row0 + 11u < M && cb0 + 3u < N4) { s11_3 = c[cbase + (row0 + 11u) * N4 + cb0 + 3u]; }
		if (row0 + 12u < M && cb0 + 0u < N4) { s12_0 = c[cbase + (row0 + 12u) * N4 + cb0 + 0u]; }
		if (row0 + 12u < M && cb0 + 1u < N4) { s12_1 = c[cbase + (row0 + 12u) * N4 + cb0 + 1u]; }
		if (row0 + 12u < M && cb0 + 2u < N4) { s12_2 = c[cbase + (row0 + 12u) * N4 + cb0 + 2u]; }
		if (row0 + 12u < M && cb0 + 3u < N4) { s12_3 = c[cbase + (row0 + 12u) * N4 + cb0 + 3u]; }
		if (row0 + 13u < M && cb0 + 0u < N4) { s13_0 = c[cbase + (row0 + 13u) * N4 + cb0 + 0u]; }
		if (row0 + 13u < M && cb0 + 1u < N4) { s13_1 = c[cbase + (row0 + 13u) * N4 + cb0 + 1u]; }
		if (row0 + 13u < M && cb0 + 2u < N4) { s13_2 = c[cbase + (row0 + 13u) * N4 + cb0 + 2u]; }
		if (row0 + 13u < M && cb0 + 3u < N4) { s13_3 = c[cbase + (row0 + 13u) * N4 + cb0 + 3u]; }
		if (row0 + 14u < M && cb0 + 0u < N4) { s14_0 = c[cbase + (row0 + 14u) * N4 + cb0 + 0u]; }
		if (row0 + 14u < M && cb0 + 1u < N4) { s14_1 = c[cbase + (row0 + 14u) * N4 + cb0 + 1u]; }
		if (row0 + 14u < M && cb0 + 2u < N4) { s14_2 = c[cbase + (row0 + 14u) * N4 + cb0 + 2u]; }
		if (row0 + 14u < M && cb0 + 3u < N4) { s14_3 = c[cbase + (row0 + 14u) * N4 + cb0 + 3u]; }
		if (row0 + 15u < M && cb0 + 0u < N4) { s15_0 = c[cbase + (row0 + 15u) * N4 + cb0 + 0u]; }
		if (row0 + 15u < M && cb0 + 1u < N4) { s15_1 = c[cbase + (row0 + 15u) * N4 + cb0 + 1u]; }
		if (row0 + 15u < M && cb0 + 2u < N4) { s15_2 = c[cbase + (row0 + 15u) * N4 + cb0 + 2u]; }
		if (row0 + 15u < M && cb0 + 3u < N4) { s15_3 = c[cbase + (row0 + 15u) * N4 + cb0 + 3u]; }
	}
	for (var kb = p.k_first / 4u; kb < p.k_end / 4u; kb++) {
		let a0 = load4_f16(a[2u * (ra0 + kb)], a[2u * (ra0 + kb) + 1u]);
		let a1 = load4_f16(a[2u * (ra1 + kb)], a[2u * (ra1 + kb) + 1u]);
		let a2 = load4_f16(a[2u * (ra2 + kb)], a[2u * (ra2 + kb) + 1u]);
		let a3 = load4_f16(a[2u * (ra3 + kb)], a[2u * (ra3 + kb) + 1u]);
		let a4 = load4_f16(a[2u * (ra4 + kb)], a[2u * (ra4 + kb) + 1u]);
		let a5 = load4_f16(a[2u * (ra5 + kb)], a[2u * (ra5 + kb) + 1u]);
		let a6 = load4_f16(a[2u * (ra6 + kb)], a[2u * (ra6 + kb) + 1u]);
		let a7 = load4_f16(a[2u * (ra7 + kb)], a[2u * (ra7 + kb) + 1u]);
		let a8 = load4_f16(a[2u * (ra8 + kb)], a[2u * (ra8 + kb) + 1u]);
		let a9 = load4_f16(a[2u * (ra9 + kb)], a[2u * (ra9 + kb) + 1u]);
		let a10 = load4_f16(a[2u * (ra10 + kb)], a[2u * (ra10 + kb) + 1u]);
		let a11 = load4_f16(a[2u * (ra11 + kb)], a[2u * (ra11 + kb) + 1u]);
		let a12 = load4_f16(a[2u * (ra12 + kb)], a[2u * (ra12 + kb) + 1u]);
		let a13 = load4_f16(a[2u * (ra13 + kb)], a[2u * (ra13 + kb) + 1u]);
		let a14 = load4_f16(a[2u * (ra14 + kb)], a[2u * (ra14 + kb) + 1u]);
		let a15 = load4_f16(a[2u * (ra15 + kb)], a[2u * (ra15 + kb) + 1u]);
		let bt0_0 = load4_f16(bm[2u * (bc0 + 0u * K4 + kb)], bm[2u * (bc0 + 0u * K4 + kb) + 1u]);
		let bt0_1 = load4_f16(bm[2u * (bc0 + 1u * K4 + kb)], bm[2u * (bc0 + 1u * K4 + kb) + 1u]);
		let bt0_2 = load4_f16(bm[2u * (bc0 + 2u * K4 + kb)], bm[2u * (bc0 + 2u * K4 + kb) + 1u]);
		let bt0_3 = load4_f16(bm[2u * (bc0 + 3u * K4 + kb)], bm[2u * (bc0 + 3u * K4 + kb) + 1u]);
		let b0_0 = vec4<f32>(bt0_0.x, bt0_1.x, bt0_2.x, bt0_3.x);
		s0_0 = fma(vec4<f32>(a0.x), b0_0, s0_0);
		s1_0 = fma(vec4<f32>(a1.x), b0_0, s1_0);
		s2_0 = fma(vec4<f32>(a2.x), b0_0, s2_0);
		s3_0 = fma(vec4<f32>(a3.x), b0_0, s3_0);
		s4_0 = fma(vec4<f32>(a4.x), b0_0, s4_0);
		s5_0 = fma(vec4<f32>(a5.x), b0_0, s5_0);
		s6_0 = fma(vec4<f32>(a6.x), b0_0, s6_0);
		s7_0 = fma(vec4<f32>(a7.x), b0_0, s7_0);
		s8_0 = fma(vec4<f32>(a8.x), b0_0, s8_0);
		s9_0 = fma(vec4<f32>(a9.x), b0_0, s9_0);
		s10_0 = fma(vec4<f32>(a10.x), b0_0, s10_0);
		s11_0 = fma(vec4<f32>(a11.x), b0_0, s11_0);
		s12_0 = fma(vec4<f32>(a12.x), b0_0, s12_0);
		s13_0 = fma(vec4<f32>(a13.x), b0_0, s13_0);
		s14_0 = fma(vec4<f32>(a14.x), b0_0, s14_0);
		s15_0 = fma(vec4<f32>(a15.x), b0_0, s15_0);
		let bt1_0 = load4_f16(bm[2u * (bc1 + 0u * K4 + kb)], bm[2u * (bc1 + 0u * K4 + kb) + 1u]);
		let bt1_1 = load4_f16(bm[2u * (bc1 + 1u * K4 + kb)], bm[2u * (bc1 + 1u * K4 + kb) + 1u]);
		let bt1_2 = load4_f16(bm[2u * (bc1 + 2u * K4 + kb)], bm[2u * (bc1 + 2u * K4 + kb) + 1u]);
		let bt1_3 = load4_f16(bm[2u * (bc1 + 3u * K4 + kb)], bm[2u * (bc1 + 3u * K4 + kb) + 1u]);
		let b0_1 = vec4<f32>(bt1_0.x, bt1_1.x, bt1_2.x, bt1_3.x);
		s0_1 = fma(vec4<f32>(a0.x), b0_1, s0_1);
		s1_1 = fma(vec4<f32>(a1.x), b0_1, s1_1);
		s2_1 = fma(vec4<f32>(a2.x), b0_1, s2_1);
		s3_1 = fma(vec4<f32>(a3.x), b0_1, s3_1);
		s4_1 = fma(vec4<f32>(a4.x), b0_1, s4_1);
		s5_1 = fma(vec4<f32>(a5.x), b0_1, s5_1);
		s6_1 = fma(vec4<f32>(a6.x), b0_1, s6_1);
		s7_1 = fma(vec4<f32>(a7.x), b0_1, s7_1);
		s8_1 = fma(vec4<f32>(a8.x), b0_1, s8_1);
		s9_1 = fma(vec4<f32>(a9.x), b0_1, s9_1);
		s10_1 = fma(vec4<f32>(a10.x), b0_1, s10_1);
		s11_1 = fma(vec4<f32>(a11.x), b0_1, s11_1);
		s12_1 = fma(vec4<f32>(a12.x), b0_1, s12_1);
		s13_1 = fma(vec4<f32>(a13.x), b0_1, s13_1);
		s14_1 = fma(vec4<f32>(a14.x), b0_1, s14_1);
		s15_1 = fma(vec4<f32>(a15.x), b0_1, s15_1);
		let bt2_0 = load4_f16(bm[2u * (bc2 + 0u * K4 + kb)], bm[2u * (bc2 + 0u * K4 + kb) + 1u]);
		let bt2_1 = load4_f16(bm[2u * (bc2 + 1u * K4 + kb)], bm[2u * (bc2 + 1u * K4 + kb) + 1u]);
		let bt2_2 = load4_f16(bm[2u * (bc2 + 2u * K4 + kb)], bm[2u * (bc2 + 2u * K4 + kb) + 1u]);
		let bt2_3 = load4_f16(bm[2u * (bc2 + 3u * K4 + kb)], bm[2u * (bc2 + 3u * K4 + kb) + 1u]);
		let b0_2 = vec4<f32>(bt2_0.x, bt2_1.x, bt2_2.x, bt2_3.x);
		s0_2 = fma(vec4<f32>(a0.x), b0_2, s0_2);
		s1_2 = fma(vec4<f32>(a1.x), b0_2, s1_2);
		s2_2 = fma(vec4<f32>(a2.x), b0_2, s2_2);
		s3_2 = fma(vec4<f32>(a3.x), b0_2, s3_2);
		s4_2 = fma(vec4<f32>(a4.x), b0_2, s4_2);
		s5_2 = fma(vec4<f32>(a5.x), b0_2, s5_2);
		s6_2 = fma(vec4<f32>(a6.x), b0_2, s6_2);
		s7_2 = fma(vec4<f32>(a7.x), b0_2, s7_2);
		s8_2 = fma(vec4<f32>(a8.x), b0_2, s8_2);
		s9_2 = fma(vec4<f32>(a9.x), b0_2, s9_2);
		s10_2 = fma(vec4<f32>(a10.x), b0_2, s10_2);
		s11_2 = fma(vec4<f32>(a11.x), b0_2, s11_2);
		s12_2 = fma(vec4<f32>(a12.x), b0_2, s12_2);
		s13_2 = fma(vec4<f32>(a13.x), b0_2, s13_2);
		s14_2 = fma(vec4<f32>(a14.x), b0_2, s14_2);
		s15_2 = fma(vec4<f32>(a15.x), b0_2, s15_2);
		let bt3_0 = load4_f16(bm[2u * (bc3 + 0u * K4 + kb)], bm[2u * (bc3 + 0u * K4 + kb) + 1u]);
		let bt3_1 = load4_f16(bm[2u * (bc3 + 1u * K4 + kb)], bm[2u * (bc3 + 1u * K4 + kb) + 1u]);
		let bt3_2 = load4_f16(bm[2u * (bc3 + 2u * K4 + kb)], bm[2u * (bc3 + 2u * K4 + kb) + 1u]);
		let bt3_3 = load4_f16(bm[2u * (bc3 + 3u * K4 + kb)], bm[2u * (bc3 + 3u * K4 + kb) + 1u]);
		let b0_3 = vec4<f32>(bt3_0.x, bt3_1.x, bt3_2.x, bt3_3.x);
		s0_3 = fma(vec4<f32>(a0.x), b0_3, s0_3);
		s1_3 = fma(vec4<f32>(a1.x), b0_3, s1_3);
		s2_3 = fma(vec4<f32>(a2.x), b0_3, s2_3);
		s3_3 = fma(vec4<f32>(a3.x), b0_3, s3_3);
		s4_3 = fma(vec4<f32>(a4.x), b0_3, s4_3);
		s5_3 = fma(vec4<f32>(a5.x), b0_3, s5_3);
		s6_3 = fma(vec4<f32>(a6.x), b0_3, s6_3);
		s7_3 = fma(vec4<f32>(a7.x), b0_3, s7_3);
		s8_3 = fma(vec4<f32>(a8.x), b0_3, s8_3);
		s9_3 = fma(vec4<f32>(a9.x), b0_3, s9_3);
		s10_3 = fma(vec4<f32>(a10.x), b0_3, s10_3);
		s11_3 = fma(vec4<f32>(a11.x), b0_3, s11_3);
		s12_3 = fma(vec4<f32>(a12.x), b0_3, s12_3);
		s13_3 = fma(vec4<f32>(a13.x), b0_3, s13_3);
		s14_3 = fma(vec4<f32>(a14.x), b0_3, s14_3);
		s15_3 = fma(vec4<f32>(a15.x), b0_3, s15_3);
		let b1_0 = vec4<f32>(bt0_0.y, bt0_1.y, bt0_2.y, bt0_3.y);
		s0_0 = fma(vec4<f32>(a0.y), b1_0, s0_0);
		s1_0 = fma(vec4<f32>(a1.y), b1_0, s1_0);
		s2_0 = fma(vec4<f32>(a2.y), b1_0, s2_0);
		s3_0 = fma(vec4<f32>(a3.y), b1_0, s3_0);
		s4_0 = fma(vec4<f32>(a4.y), b1_0, s4_0);
		s5_0 = fma(vec4<f32>(a5.y), b1_0, s5_0);
		s6_0 = fma(vec4<f32>(a6.y), b1_0, s6_0);
		s7_0 = fma(vec4<f32>(a7.y), b1_0, s7_0);
		s8_0 = fma(vec4<f32>(a8.y), b1_0, s8_0);
		s9_0 = fma(vec4<f32>(a9.y), b1_0, s9_0);
		s10_0 = fma(vec4<f32>(a10.y), b1_0, s10_0);
		s11_0 = fma(vec4<f32>(a11.y), b1_0, s11_0);
		s12_0 = fma(vec4<f32>(a12.y), b1_0, s12_0);
		s13_0 = fma(vec4<f32>(a13.y), b1_0, s13_0);
		s14_0 = fma(vec4<f32>(a14.y), b1_0, s14_0);
		s15_0 = fma(vec4<f32>(a15.y), b1_0, s15_0);
		let b1_1 = vec4<f32>(bt1_0.y, bt1_1.y, bt1_2.y, bt1_3.y);
		s0_1 = fma(vec4<f32>(a0.y), b1_1, s0_1);
		s1_1 = fma(vec4<f32>(a1.y), b1_1, s1_1);
		s2_1 = fma(vec4<f32>(a2.y), b1_1, s2_1);
		s3_1 = fma(vec4<f32>(a3.y), b1_1, s3_1);
		s4_1 = fma(vec4<f32>(a4.y), b1_1, s4_1);
		s5_1 = fma(vec4<f32>(a5.y), b1_1, s5_1);
		s6_1 = fma(vec4<f32>(a6.y), b1_1, s6_1);
		s7_1 = fma(vec4<f32>(a7.y), b1_1, s7_1);
		s8_1 = fma(vec4<f32>(a8.y), b1_1, s8_1);
		s9_1 = fma(vec4<f32>(a9.y), b1_1, s9_1);
		s10_1 = fma(vec4<f32>(a10.y), b1_1, s10_1);
		s11_1 = fma(vec4<f32>(a11.y), b1_1, s11_1);
		s12_1 = fma(vec4<f32>(a12.y), b1_1, s12_1);
		s13_1 = fma(vec4<f32>(a13.y), b1_1, s13_1);
		s14_1 = fma(vec4<f32>(a14.y), b1_1, s14_1);
		s15_1 = fma(vec4<f32>(a15.y), b1_1, s15_1);
		let b1_2 = vec4<f32>(bt2_0.y, bt2_1.y, bt2_2.y, bt2_3.y);
		s0_2 = fma(vec4<f32>(a0.y), b1_2, s0_2);
		s1_2 = fma(vec4<f32>(a1.y), b1_2, s1_2);
		s2_2 = fma(vec4<f32>(a2.y), b1_2, s2_2);
		s3_2 = fma(vec4<f32>(a3.y), b1_2, s3_2);
		s4_2 = fma(vec4<f32>(a4.y), b1_2, s4_2);
		s5_2 = fma(vec4<f32>(a5.y), b1_2, s5_2);
		s6_2 = fma(vec4<f32>(a6.y), b1_2, s6_2);
		s7_2 = fma(vec4<f32>(a7.y), b1_2, s7_2);
		s8_2 = fma(vec4<f32>(a8.y), b1_2, s8_2);
		s9_2 = fma(vec4<f32>(a9.y), b1_2, s9_2);
		s10_2 = fma(vec4<f32>(a10.y), b1_2, s10_2);
		s11_2 = fma(vec4<f32>(a11.y), b1_2, s11_2);
		s12_2 = fma(vec4<f32>(a12.y), b1_2, s12_2);
		s13_2 = fma(vec4<f32>(a13.y), b1_2, s13_2);
		s14_2 = fma(vec4<f32>(a14.y), b1_2, s14_2);
		s15_2 = fma(vec4<f32>(a15.y), b1_2, s15_2);
		let b1_3 = vec4<f32>(bt3_0.y, bt3_1.y, bt3_2.y, bt3_3.y);
		s0_3 = fma(vec4<f32>(a0.y), b1_3, s0_3);
		s1_3 = fma(vec4<f32>(a1.y), b1_3, s1_3);
		s2_3 = fma(vec4<f32>(a2.y), b1_3, s2_3);
		s3_3 = fma(vec4<f32>(a3.y), b1_3, s3_3);
		s4_3 = fma(vec4<f32>(a4.y), b1_3, s4_3);
		s5_3 = fma(vec4<f32>(a5.y), b1_3, s5_3);
		s6_3 = fma(vec4<f32>(a6.y), b1_3, s6_3);
		s7_3 = fma(vec4<f32>(a7.y), b1_3, s7_3);
		s8_3 = fma(vec4<f32>(a8.y), b1_3, s8_3);
		s9_3 = fma(vec4<f32>(a9.y), b1_3, s9_3);
		s10_3 = fma(vec4<f32>(a10.y), b1_3, s10_3);
		s11_3 = fma(vec4<f32>(a11.y), b1_3, s11_3);
		s12_3 = fma(vec4<f32>(a12.y), b1_3, s12_3);
		s13_3 = fma(vec4<f32>(a13.y), b1_3, s13_3);
		s14_3 = fma(vec4<f32>(a14.y), b1_3, s14_3);
		s15_3 = fma(vec4<f32>(a15.y), b1_3, s15_3);
		let b2_0 = vec4<f32>(bt0_0.z, bt0_1.z, bt0_2.z, bt0_3.z);
		s0_0 = fma(vec4<f32>(a0.z), b2_0, s0_0);
		s1_0 = fma(vec4<f32>(a1.z), b2_0, s1_0);
		s2_0 = fma(vec4<f32>(a2.z), b2_0, s2_0);
		s3_0 = fma(vec4<f32>(a3.z), b2_0, s3_0);
		s4_0 = fma(vec4<f32>(a4.z), b2_0, s4_0);
		s5_0 = fma(vec4<f32>(a5.z), b2_0, s5_0);
		s6_0 = fma(vec4<f32>(a6.z), b2_0, s6_0);
		s7_0 = fma(vec4<f32>(a7.z), b2_0, s7_0);
		s8_0 = fma(vec4<f32>(a8.z), b2_0, s8_0);
		s9_0 = fma(vec4<f32>(a9.z), b2_0, s9_0);
		s10_0 = fma(vec4<f32>(a10.z), b2_0, s10_0);
		s11_0 = fma(vec4<f32>(a11.z), b2_0, s11_0);
		s12_0 = fma(vec4<f32>(a12.z), b2_0, s12_0);
		s13_0 = fma(vec4<f32>(a13.z), b2_0, s13_0);
		s14_0 = fma(vec4<f32>(a14.z), b2_0, s14_0);
		s15_0 = fma(vec4<f32>(a15.z), b2_0, s15_0);
		let b2_1 = vec4<f32>(bt1_0.z, bt1_1.z, bt1_2.z, bt1_3.z);
		s0_1 = fma(vec4<f32>(a0.z), b2_1, s0_1);
		s1_1 = fma(vec4<f32>(a1.z), b2_1, s1_1);
		s2_1 = fma(vec4<f32>(a2.z), b2_1, s2_1);
		s3_1 = fma(vec4<f32>(a3.z), b2_1, s3_1);
		s4_1 = fma(vec4<f32>(a4.z), b2_1, s4_1);
		s5_1 = fma(vec4<f32>(a5.z), b2_1, s5_1);
		s6_1 = fma(vec4<f32>(a6.z), b2_1, s6_1);
		s7_1 = fma(vec4<f32>(a7.z), b2_1, s7_1);
		s8_1 = fma(vec4<f32>(a8.z), b2_1, s8_1);
		s9_1 = fma(vec4<f32>(a9.z), b2_1, s9_1);
		s10_1 = fma(vec4<f32>(a10.z), b2_1, s10_1);
		s11_1 = fma(vec4<f32>(a11.z), b2_1, s11_1);
		s12_1 = fma(vec4<f32>(a12.z), b2_1, s12_1);
		s13_1 = fma(vec4<f32>(a13.z), b2_1, s13_1);
		s14_1 = fma(vec4<f32>(a14.z), b2_1, s14_1);
		s15_1 = fma(vec4<f32>(a15.z), b2_1, s15_1);
		let b2_2 = vec4<f32>(bt2_0.z, bt2_1.z, bt2_2.z, bt2_3.z);
		s0_2 = fma(vec4<f32>(a0.z), b2_2, s0_2);
		s1_2 = fma(vec4<f32>(a1.z), b2_2, s1_2);
		s2_2 = fma(vec4<f32>(a2.z), b2_2, s2_2);
		s3_2 = fma(vec4<f32>(a3.z), b2_2, s3_2);
		s4_2 = fma(vec4<f32>(a4.z), b2_2, s4_2);
		s5_2 = fma(vec4<f32>(a5.z), b2_2, s5_2);
		s6_2 = fma(vec4<f32>(a6.z), b2_2, s6_2);
		s7_2 = fma(vec4<f32>(a7.z), b2_2, s7_2);
		s8_2 = fma(vec4<f32>(a8.z), b2_2, s8_2);
		s9_2 = fma(vec4<f32>(a9.z), b2_2, s9_2);
		s10_2 = fma(vec4<f32>(a10.z), b2_2, s10_2);
		s11_2 = fma(vec4<f32>(a11.z), b2_2, s11_2);
		s12_2 = fma(vec4<f32>(a12.z), b2_2, s12_2);
		s13_2 = fma(vec4<f32>(a13.z), b2_2, s13_2);
		s14_2 = fma(vec4<f32>(a14.z), b2_2, s14_2);
		s15_2 = fma(vec4<f32>(a15.z), b2_2, s15_2);
		let b2_3 = vec4<f32>(bt3_0.z, bt3_1.z, bt3_2.z, bt3_3.z);
		s0_3 = fma(vec4<f32>(a0.z), b2_3, s0_3);
		s1_3 = fma(vec4<f32>(a1.z), b2_3, s1_3);
		s2_3 = fma(vec4<f32>(a2.z), b2_3, s2_3);
		s3_3 = fma(vec4<f32>(a3.z), b2_3, s3_3);
		s4_3 = fma(vec4<f32>(a4.z), b2_3, s4_3);
		s5_3 = fma(vec4<f32>(a5.z), b2_3, s5_3);
		s6_3 = fma(vec4<f32>(a6.z), b2_3, s6_3);
		s7_3 = fma(vec4<f32>(a7.z), b2_3, s7_3);
		s8_3 = fma(vec4<f32>(a8.z), b2_3, s8_3);
		s9_3 = fma(vec4<f32>(a9.z), b2_3, s9_3);
		s10_3 = fma(vec4<f32>(a10.z), b2_3, s10_3);
		s11_3 = fma(vec4<f32>(a11.z), b2_3, s11_3);
		s12_3 = fma(vec4<f32>(a12.z), b2_3, s12_3);
		s13_3 = fma(vec4<f32>(a13.z), b2_3, s13_3);
		s14_3 = fma(vec4<f32>(a14.z), b2_3, s14_3);
		s15_3 = fma(vec4<f32>(a15.z), b2_3, s15_3);
		let b3_0 = vec4<f32>(bt0_0.w, bt0_1.w, bt0_2.w, bt0_3.w);
		s0_0 = fma(vec4<f32>(a0.w), b3_0, s0_0);
		s1_0 = fma(vec4<f32>(a1.w), b3_0, s1_0);
		s2_0 = fma(vec4<f32>(a2.w), b3_0, s2_0);
		s3_0 = fma(vec4<f32>(a3.w), b3_0, s3_0);
		s4_0 = fma(vec4<f32>(a4.w), b3_0, s4_0);
		s5_0 = fma(vec4<f32>(a5.w), b3_0, s5_0);
		s6_0 = fma(vec4<f32>(a6.w), b3_0, s6_0);
		s7_0 = fma(vec4<f32>(a7.w), b3_0, s7_0);
		s8_0 = fma(vec4<f32>(a8.w), b3_0, s8_0);
		s9_0 = fma(vec4<f32>(a9.w), b3_0, s9_0);
		s10_0 = fma(vec4<f32>(a10.w), b3_0, s10_0);
		s11_0 = fma(vec4<f32>(a11.w), b3_0, s11_0);
		s12_0 = fma(vec4<f32>(a12.w), b3_0, s12_0);
		s13_0 = fma(vec4<f32>(a13.w), b3_0, s13_0);
		s14_0 = fma(vec4<f32>(a14.w), b3_0, s14_0);
		s15_0 = fma(vec4<f32>(a15.w), b3_0, s15_0);
		let b3_1 = vec4<f32>(bt1_0.w, bt1_1.w, bt1_2.w, bt1_3.w);
		s0_1 = fma(vec4<f32>(a0.w), b3_1, s0_1);
		s1_1 = fma(vec4<f32>(a1.w), b3_1, s1_1);
		s2_1 = fma(vec4<f32>(a2.w), b3_1, s2_1);
		s3_1 = fma(vec4<f32>(a3.w), b3_1, s3_1);
		s4_1 = fma(vec4<f32>(a4.w), b3_1, s4_1);
		s5_1 = fma(vec4<f32>(a5.w), b3_1, s5_1);
		s6_1 = fma(vec4<f32>(a6.w), b3_1, s6_1);
		s7_1 = fma(vec4<f32>(a7.w), b3_1, s7_1);
		s8_1 = fma(vec4<f32>(a8.w), b3_1, s8_1);
		s9_1 = fma(vec4<f32>(a9.w), b3_1, s9_1);
		s10_1 = fma(vec4<f32>(a10.w), b3_1, s10_1);
		s11_1 = fma(vec4<f32>(a11.w), b3_1, s11_1);
		s12_1 = fma(vec4<f32>(a12.w), b3_1, s12_1);
		s13_1 = fma(vec4<f32>(a13.w), b3_1, s13_1);
		s14_1 = fma(vec4<f32>(a14.w), b3_1, s14_1);
		s15_1 = fma(vec4<f32>(a15.w), b3_1, s15_1);
		let b3_2 = vec4<f32>(bt2_0.w, bt2_1.w, bt2_2.w, bt2_3.w);
		s0_2 = fma(vec4<f32>(a0.w), b3_2, s0_2);
		s1_2 = fma(vec4<f32>(a1.w), b3_2, s1_2);
		s2_2 = fma(vec4<f32>(a2.w), b3_2, s2_2);
		s3_2 = fma(vec4<f32>(a3.w), b3_2, s3_2);
		s4_2 = fma(vec4<f32>(a4.w), b3_2, s4_2);
		s5_2 = fma(vec4<f32>(a5.w), b3_2, s5_2);
		s6_2 = fma(vec4<f32>(a6.w), b3_2, s6_2);
		s7_2 = fma(vec4<f32>(a7.w), b3_2, s7_2);
		s8_2 = fma(vec4<f32>(a8.w), b3_2, s8_2);
		s9_2 = fma(vec4<f32>(a9.w), b3_2, s9_2);
		s10_2 = fma(vec4<f32>(a10.w), b3_2, s10_2);
		s11_2 = fma(vec4<f32>(a11.w), b3_2, s11_2);
		s12_2 = fma(vec4<f32>(a12.w), b3_2, s12_2);
		s13_2 = fma(vec4<f32>(a13.w), b3_2, s13_2);
		s14_2 = fma(vec4<f32>(a14.w), b3_2, s14_2);
		s15_2 = fma(vec4<f32>(a15.w), b3_2, s15_2);
		let b3_3 = vec4<f32>(bt3_0.w, bt3_1.w, bt3_2.w, bt3_3.w);
		s0_3 = fma(vec4<f32>(a0.w), b3_3, s0_3);
		s1_3 = fma(vec4<f32>(a1.w), b3_3, s1_3);
		s2_3 = fma(vec4<f32>(a2.w), b3_3, s2_3);
		s3_3 = fma(vec4<f32>(a3.w), b3_3, s3_3);
		s4_3 = fma(vec4<f32>(a4.w), b3_3, s4_3);
		s5_3 = fma(vec4<f32>(a5.w), b3_3, s5_3);
		s6_3 = fma(vec4<f32>(a6.w), b3_3, s6_3);
		s7_3 = fma(vec4<f32>(a7.w), b3_3, s7_3);
		s8_3 = fma(vec4<f32>(a8.w), b3_3, s8_3);
		s9_3 = fma(vec4<f32>(a9.w), b3_3, s9_3);
		s10_3 = fma(vec4<f32>(a10.w), b3_3, s10_3);
		s11_3 = fma(vec4<f32>(a11.w), b3_3, s11_3);
		s12_3 = fma(vec4<f32>(a12.w), b3_3, s12_3);
		s13_3 = fma(vec4<f32>(a13.w), b3_3, s13_3);
		s14_3 = fma(vec4<f32>(a14.w), b3_3, s14_3);
		s15_3 = fma(vec4<f32>(a15.w), b3_3, s15_3);
	}
	if (row0 + 0u < M && cb0 + 0u < N4) { put(cbase + (row0 + 0u) * N4 + cb0 + 0u, z, row0 + 0u, 4u * (cb0 + 0u), s0_0); }
	if (row0 + 0u < M && cb0 + 1u < N4) { put(cbase + (row0 + 0u) * N4 + cb0 + 1u, z, row0 + 0u, 4u * (cb0 + 1u), s0_1); }
	if (row0 + 0u < M && cb0 + 2u < N4) { put(cbase + (row0 + 0u) * N4 + cb0 + 2u, z, row0 + 0u, 4u * (cb0 + 2u), s0_2); }
	if (row0 + 0u < M && cb0 + 3u < N4) { put(cbase + (row0 + 0u) * N4 + cb0 + 3u, z, row0 + 0u, 4u * (cb0 + 3u), s0_3); }
	if (row0 + 1u < M && cb0 + 0u < N4) { put(cbase + (row0 + 1u) * N4 + cb0 + 0u, z, row0 + 1u, 4u * (cb0 + 0u), s1_0); }
	if (row0 + 1u < M && cb0 + 1u < N4) { put(cbase + (row0 + 1u) * N4 + cb0 + 1u, z, row0 + 1u, 4u * (cb0 + 1u), s1_1); }
	if (row0 + 1u < M && cb0 + 2u < N4) { put(cbase + (row0 + 1u) * N4 + cb0 + 2u, z, row0 + 1u, 4u * (cb0 + 2u), s1_2); }
	if (row0 + 1u < M && cb0 + 3u < N4) { put(cbase + (row0 + 1u) * N4 + cb0 + 3u, z, row0 + 1u, 4u * (cb0 + 3u), s1_3); }
	if (row0 + 2u < M && cb0 + 0u < N4) { put(cbase + (row0 + 2u) * N4 + cb0 + 0u, z, row0 + 2u, 4u * (cb0 + 0u), s2_0); }
	if (row0 + 2u < M && cb0 + 1u < N4) { put(cbase + (row0 + 2u) * N4 + cb0 + 1u, z, row0 + 2u, 4u * (cb0 + 1u), s2_1); }
	if (row0 + 2u < M && cb0 + 2u < N4) { put(cbase + (row0 + 2u) * N4 + cb0 + 2u, z, row0 + 2u, 4u * (cb0 + 2u), s2_2); }
	if (row0 + 2u < M && cb0 + 3u < N4) { put(cbase + (row0 + 2u) * N4 + cb0 + 3u, z, row0 + 2u, 4u * (cb0 + 3u), s2_3); }
	if (row0 + 3u < M && cb0 + 0u < N4) { put(cbase + (row0 + 3u) * N4 + cb0 + 0u, z, row0 + 3u, 4u * (cb0 + 0u), s3_0); }
	if (row0 + 3u < M && cb0 + 1u < N4) { put(cbase + (row0 + 3u) * N4 + cb0 + 1u, z, row0 + 3u, 4u * (cb0 + 1u), s3_1); }
	if (row0 + 3u < M && cb0 + 2u < N4) { put(cbase + (row0 + 3u) * N4 + cb0 + 2u, z, row0 + 3u, 4u * (cb0 + 2u), s3_2); }
	if (row0 + 3u < M && cb0 + 3u < N4) { put(cbase + (row0 + 3u) * N4 + cb0 + 3u, z, row0 + 3u, 4u * (cb0 + 3u), s3_3); }
	if (row0 + 4u < M && cb0 + 0u < N4) { put(cbase + (row0 + 4u) * N4 + cb0 + 0u, z, row0 + 4u, 4u * (cb0 + 0u), s4_0); }
	if (row0 + 4u < M && cb0 + 1u < N4) { put(cbase + (row0 + 4u) * N4 + cb0 + 1u, z, row0 + 4u, 4u * (cb0 + 1u), s4_1); }
	if (row0 + 4u < M && cb0 + 2u < N4) { put(cbase + (row0 + 4u) * N4 + cb0 + 2u, z, row0 + 4u, 4u * (cb0 + 2u), s4_2); }
	if (row0 + 4u < M && cb0 + 3u < N4) { put(cbase + (row0 + 4u) * N4 + cb0 + 3u, z, row0 + 4u, 4u * (cb0 + 3u), s4_3); }
	if (row0 + 5u < M && cb0 + 0u < N4) { put(cbase + (row0 + 5u) * N4 + cb0 + 0u, z, row0 + 5u, 4u * (cb0 + 0u), s5_0); }
	if (row0 + 5u < M && cb0 + 1u < N4) { put(cbase + (row0 + 5u) * N4 + cb0 + 1u, z, row0 + 5u, 4u * (cb0 + 1u), s5_1); }
	if (row0 + 5u < M && cb0 + 2u < N4) { put(cbase + (row0 + 5u) * N4 + cb0 + 2u, z, row0 + 5u, 4u * (cb0 + 2u), s5_2); }
	if (row0 + 5u < M && cb0 + 3u < N4) { put(cbase + (row0 + 5u) * N4 + cb0 + 3u, z, row0 + 5u, 4u * (cb0 + 3u), s5_3); }
	if (row0 + 6u < M && cb0 + 0u < N4) { put(cbase + (row0 + 6u) * N4 + cb0 + 0u, z, row0 + 6u, 4u * (cb0 + 0u), s6_0); }
	if (row0 + 6u < M && cb0 + 1u < N4) { put(cbase + (row0 + 6u) * N4 + cb0 + 1u, z, row0 + 6u, 4u * (cb0 + 1u), s6_1); }
	if (row0 + 6u < M && cb0 + 2u < N4) { put(cbase + (row0 + 6u) * N4 + cb0 + 2u, z, row0 + 6u, 4u * (cb0 + 2u), s6_2); }
	if (row0 + 6u < M && cb0 + 3u < N4) { put(cbase + (row0 + 6u) * N4 + cb0 + 3u, z, row0 + 6u, 4u * (cb0 + 3u), s6_3); }
	if (row0 + 7u < M && cb0 + 0u < N4) { put(cbase + (row0 + 7u) * N4 + cb0 + 0u, z, row0 + 7u, 4u * (cb0 + 0u), s7_0); }
	if (row0 + 7u < M && cb0 + 1u < N4) { put(cbase + (row0 + 7u) * N4 + cb0 + 1u, z, row0 + 7u, 4u * (cb0 + 1u), s7_1); }
	if (row0 + 7u < M && cb0 + 2u < N4) { put(cbase + (row0 + 7u) * N4 + cb0 + 2u, z, row0 + 7u, 4u * (cb0 + 2u), s7_2); }
	if (row0 + 7u < M && cb0 + 3u < N4) { put(cbase + (row0 + 7u) * N4 + cb0 + 3u, z, row0 + 7u, 4u * (cb0 + 3u), s7_3); }
	if (row0 + 8u < M && cb0 + 0u < N4) { put(cbase + (row0 + 8u) * N4 + cb0 + 0u, z, row0 + 8u, 4u * (cb0 + 0u), s8_0); }
	if (row0 + 8u < M && cb0 + 1u < N4) { put(cbase + (row0 + 8u) * N4 + cb0 + 1u, z, row0 + 8u, 4u * (cb0 + 1u), s8_1); }
	if (row0 + 8u < M && cb0 + 2u < N4) { put(cbase + (row0 + 8u) * N4 + cb0 + 2u, z, row0 + 8u, 4u * (cb0 + 2u), s8_2); }
	if (row0 + 8u < M && cb0 + 3u < N4) { put(cbase + (row0 + 8u) * N4 + cb0 + 3u, z, row0 + 8u, 4u * (cb0 + 3u), s8_3); }
	if (row0 + 9u < M && cb0 + 0u < N4) { put(cbase + (row0 + 9u) * N4 + cb0 + 0u, z, row0 + 9u, 4u * (cb0 + 0u), s9_0); }
	if (row0 + 9u < M && cb0 + 1u < N4) { put(cbase + (row0 + 9u) * N4 + cb0 + 1u, z, row0 + 9u, 4u * (cb0 + 1u), s9_1); }
	if (row0 + 9u < M && cb0 + 2u < N4) { put(cbase + (row0 + 9u) * N4 + cb0 + 2u, z, row0 + 9u, 4u * (cb0 + 2u), s9_2); }
	if (row0 + 9u < M && cb0 + 3u < N4) { put(cbase + (row0 + 9u) * N4 + cb0 + 3u, z, row0 + 9u, 4u * (cb0 + 3u), s9_3); }
	if (row0 + 10u < M && cb0 + 0u < N4) { put(cbase + (row0 + 10u) * N4 + cb0 + 0u, z, row0 + 10u, 4u * (cb0 + 0u), s10_0); }
	if (row0 + 10u < M && cb0 + 1u < N4) { put(cbase + (row0 + 10u) * N4 + cb0 + 1u, z, row0 + 10u, 4u * (cb0 + 1u), s10_1); }
	if (row0 + 10u < M && cb0 + 2u < N4) { put(cbase + (row0 + 10u) * N4 + cb0 + 2u, z, row0 + 10u, 4u * (cb0 + 2u), s10_2); }
	if (row0 + 10u < M && cb0 + 3u < N4) { put(cbase + (row0 + 10u) * N4 + cb0 + 3u, z, row0 + 10u, 4u * (cb0 + 3u), s10_3); }
	if (row0 + 11u < M && cb0 + 0u < N4) { put(cbase + (row0 + 11u) * N4 + cb0 + 0u, z, row0 + 11u, 4u * (cb0 + 0u), s11_0); }
	if (row0 + 11u < M && cb0 + 1u < N4) { put(cbase + (row0 + 11u) * N4 + cb0 + 1u, z, row0 + 11u, 4u * (cb0 + 1u), s11_1); }
	if (row0 + 11u < M && cb0 + 2u < N4) { put(cbase + (row0 + 11u) * N4 + cb0 + 2u, z, row0 + 11u, 4u * (cb0 + 2u), s11_2); }
	if (row0 + 11u < M && cb0 + 3u < N4) { put(cbase + (row0 + 11u) * N4 + cb0 + 3u, z, row0 + 11u, 4u * (cb0 + 3u), s11_3); }
	if (row0 + 12u < M && cb0 + 0u < N4) { put(cbase + (row0 + 12u) * N4 + cb0 + 0u, z, row0 + 12u, 4u * (cb0 + 0u), s12_0); }
	if (row0 + 12u < M && cb0 + 1u < N4) { put(cbase + (row0 + 12u) * N4 + cb0 + 1u, z, row0 + 12u, 4u * (cb0 + 1u), s12_1); }
	if (row0 + 12u < M && cb0 + 2u < N4) { put(cbase + (row0 + 12u) * N4 + cb0 + 2u, z, row0 + 12u, 4u * (cb0 + 2u), s12_2); }
	if (row0 + 12u < M && cb0 + 3u < N4) { put(cbase + (row0 + 12u) * N4 + cb0 + 3u, z, row0 + 12u, 4u * (cb0 + 3u), s12_3); }
	if (row0 + 13u < M && cb0 + 0u < N4) { put(cbase + (row0 + 13u) * N4 + cb0 + 0u, z, row0 + 13u, 4u * (cb0 + 0u), s13_0); }
	if (row0 + 13u < M && cb0 + 1u < N4) { put(cbase + (row0 + 13u) * N4 + cb0 + 1u, z, row0 + 13u, 4u * (cb0 + 1u), s13_1); }
	if (row0 + 13u < M && cb0 + 2u < N4) { put(cbase + (row0 + 13u) * N4 + cb0 + 2u, z, row0 + 13u, 4u * (cb0 + 2u), s13_2); }
	if (row0 + 13u < M && cb0 + 3u < N4) { put(cbase + (row0 + 13u) * N4 + cb0 + 3u, z, row0 + 13u, 4u * (cb0 + 3u), s13_3); }
	if (row0 + 14u < M && cb0 + 0u < N4) { put(cbase + (row0 + 14u) * N4 + cb0 + 0u, z, row0 + 14u, 4u * (cb0 + 0u), s14_0); }
	if (row0 + 14u < M && cb0 + 1u < N4) { put(cbase + (row0 + 14u) * N4 + cb0 + 1u, z, row0 + 14u, 4u * (cb0 + 1u), s14_1); }
	if (row0 + 14u < M && cb0 + 2u < N4) { put(cbase + (row0 + 14u) * N4 + cb0 + 2u, z, row0 + 14u, 4u * (cb0 + 2u), s14_2); }
	if (row0 + 14u < M && cb0 + 3u < N4) { put(cbase + (row0 + 14u) * N4 + cb0 + 3u, z, row0 + 14u, 4u * (cb0 + 3u), s14_3); }
	if (row0 + 15u < M && cb0 + 0u < N4) { put(cbase + (row0 + 15u) * N4 + cb0 + 0u, z, row0 + 15u, 4u * (cb0 + 0u), s15_0); }
	if (row0 + 15u < M && cb0 + 1u < N4) { put(cbase + (row0 + 15u) * N4 + cb0 + 1u, z, row0 + 15u, 4u * (cb0 + 1u), s15_1); }
	if (row0 + 15u < M && cb0 + 2u < N4) { put(cbase + (row0 + 15u) * N4 + cb0 + 2u, z, row0 + 15u, 4u * (cb0 + 2u), s15_2); }
	if (row0 + 15u < M && cb0 + 3u < N4) { put(cbase + (row0 + 15u) * N4 + cb0 + 3u, z, row0 + 15u, 4u * (cb0 + 3u), s15_3); }
}
