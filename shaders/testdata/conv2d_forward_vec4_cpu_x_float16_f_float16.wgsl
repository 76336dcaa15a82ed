
struct Params {
	in_h: u32,
	in_w: u32,
	in_c: u32,
	out_h: u32,
	out_w: u32,
	out_c: u32,
	kernel_w: u32,
	stride_h: u32,
	stride_w: u32,
	dilation_h: u32,
	dilation_w: u32,
	pad_top: u32,
	pad_left: u32,
	group_in: u32,
	group_out: u32,
	m: u32,
	n: u32,
	k: u32,
	first_col: u32,
	first_row: u32,
	first_group: u32,
	k_first: u32,
	k_end: u32,
	groups: u32,
	k_slice: u32,
	slice_size: u32,
}
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read> bm: array<u32>;
@group(0) @binding(2) var<storage, read_write> c: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> p: Params;
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

fn la(i: u32) -> vec4<f32> { return load4_f16(a[2u * (i)], a[2u * (i) + 1u]); }
fn lbm(i: u32) -> vec4<f32> { return load4_f16(bm[2u * (i)], bm[2u * (i) + 1u]); }
@compute @workgroup_size(16)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let lx = li % 2u; let ly = li / 2u;
	let M = p.m; let N4 = p.n / 4u;
	let g = w.z + p.first_group;
	let k_first = p.k_first; let k_end = p.k_end; let out0 = 0u;
	let row0 = ((w.y + p.first_row) * 8u + ly) * 24u;
	let cb0 = ((w.x + p.first_col) * 2u + lx) * 4u;
	let C4 = p.in_c / 4u; let O4 = p.out_c / 4u;
	let cs = O4;
	let bc0 = g * N4 + min(cb0 + 0u, N4 - 1u);
	let bc1 = g * N4 + min(cb0 + 1u, N4 - 1u);
	let bc2 = g * N4 + min(cb0 + 2u, N4 - 1u);
	let bc3 = g * N4 + min(cb0 + 3u, N4 - 1u);
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
	var s16_0 = vec4<f32>(0.0);
	var s16_1 = vec4<f32>(0.0);
	var s16_2 = vec4<f32>(0.0);
	var s16_3 = vec4<f32>(0.0);
	var s17_0 = vec4<f32>(0.0);
	var s17_1 = vec4<f32>(0.0);
	var s17_2 = vec4<f32>(0.0);
	var s17_3 = vec4<f32>(0.0);
	var s18_0 = vec4<f32>(0.0);
	var s18_1 = vec4<f32>(0.0);
	var s18_2 = vec4<f32>(0.0);
	var s18_3 = vec4<f32>(0.0);
	var s19_0 = vec4<f32>(0.0);
	var s19_1 = vec4<f32>(0.0);
	var s19_2 = vec4<f32>(0.0);
	var s19_3 = vec4<f32>(0.0);
	var s20_0 = vec4<f32>(0.0);
	var s20_1 = vec4<f32>(0.0);
	var s20_2 = vec4<f32>(0.0);
	var s20_3 = vec4<f32>(0.0);
	var s21_0 = vec4<f32>(0.0);
	var s21_1 = vec4<f32>(0.0);
	var s21_2 = vec4<f32>(0.0);
	var s21_3 = vec4<f32>(0.0);
	var s22_0 = vec4<f32>(0.0);
	var s22_1 = vec4<f32>(0.0);
	var s22_2 = vec4<f32>(0.0);
	var s22_3 = vec4<f32>(0.0);
	var s23_0 = vec4<f32>(0.0);
	var s23_1 = vec4<f32>(0.0);
	var s23_2 = vec4<f32>(0.0);
	var s23_3 = vec4<f32>(0.0);
	if (p.k_first > 0u) {
		if (row0 + 0u < M && cb0 + 0u < N4) { s0_0 = c[out0 + (row0 + 0u) * cs + bc0]; }
		if (row0 + 0u < M && cb0 + 1u < N4) { s0_1 = c[out0 + (row0 + 0u) * cs + bc1]; }
		if (row0 + 0u < M && cb0 + 2u < N4) { s0_2 = c[out0 + (row0 + 0u) * cs + bc2]; }
		if (row0 + 0u < M && cb0 + 3u < N4) { s0_3 = c[out0 + (row0 + 0u) * cs + bc3]; }
		if (row0 + 1u < M && cb0 + 0u < N4) { s1_0 = c[out0 + (row0 + 1u) * cs + bc0]; }
		if (row0 + 1u < M && cb0 + 1u < N4) { s1_1 = c[out0 + (row0 + 1u) * cs + bc1]; }
		if (row0 + 1u < M && cb0 + 2u < N4) { s1_2 = c[out0 + (row0 + 1u) * cs + bc2]; }
		if (row0 + 1u < M && cb0 + 3u < N4) { s1_3 = c[out0 + (row0 + 1u) * cs + bc3]; }
		if (row0 + 2u < M && cb0 + 0u < N4) { s2_0 = c[out0 + (row0 + 2u) * cs + bc0]; }
		if (row0 + 2u < M && cb0 + 1u < N4) { s2_1 = c[out0 + (row0 + 2u) * cs + bc1]; }
		if (row0 + 2u < M && cb0 + 2u < N4) { s2_2 = c[out0 + (row0 + 2u) * cs + bc2]; }
		if (row0 + 2u < M && cb0 + 3u < N4) { s2_3 = c[out0 + (row0 + 2u) * cs + bc3]; }
		if (row0 + 3u < M && cb0 + 0u < N4) { s3_0 = c[out0 + (row0 + 3u) * cs + bc0]; }
		if (row0 + 3u < M && cb0 + 1u < N4) { s3_1 = c[out0 + (row0 + 3u) * cs + bc1]; }
		if (row0 + 3u < M && cb0 + 2u < N4) { s3_2 = c[out0 + (row0 + 3u) * cs + bc2]; }
		if (row0 + 3u < M && cb0 + 3u < N4) { s3_3 = c[out0 + (row0 + 3u) * cs + bc3]; }
		if (row0 + 4u < M && cb0 + 0u < N4) { s4_0 = c[out0 + (row0 + 4u) * cs + bc0]; }
		if (row0 + 4u < M && cb0 + 1u < N4) { s4_1 = c[out0 + (row0 + 4u) * cs + bc1]; }
		if (row0 + 4u < M && cb0 + 2u < N4) { s4_2 = c[out0 + (row0 + 4u) * cs + bc2]; }
		if (row0 + 4u < M && cb0 + 3u < N4) { s4_3 = c[out0 + (row0 + 4u) * cs + bc3]; }
		if (row0 + 5u < M && cb0 + 0u < N4) { s5_0 = c[out0 + (row0 + 5u) * cs + bc0]; }
		if (row0 + 5u < M && cb0 + 1u < N4) { s5_1 = c[out0 + (row0 + 5u) * cs + bc1]; }
		if (row0 + 5u < M && cb0 + 2u < N4) { s5_2 = c[out0 + (row0 + 5u) * cs + bc2]; }
		if (row0 + 5u < M && cb0 + 3u < N4) { s5_3 = c[out0 + (row0 + 5u) * cs + bc3]; }
		if (row0 + 6u < M && cb0 + 0u < N4) { s6_0 = c[out0 + (row0 + 6u) * cs + bc0]; }
		if (row0 + 6u < M && cb0 + 1u < N4) { s6_1 = c[out0 + (row0 + 6u) * cs + bc1]; }
		if (row0 + 6u < M && cb0 + 2u < N4) { s6_2 = c[out0 + (row0 + 6u) * cs + bc2]; }
		if (row0 + 6u < M && cb0 + 3u < N4) { s6_3 = c[out0 + (row0 + 6u) * cs + bc3]; }
		if (row0 + 7u < M && cb0 + 0u < N4) { s7_0 = c[out0 + (row0 + 7u) * cs + bc0]; }
		if (row0 + 7u < M && cb0 + 1u < N4) { s7_1 = c[out0 + (row0 + 7u) * cs + bc1]; }
		if (row0 + 7u < M && cb0 + 2u < N4) { s7_2 = c[out0 + (row0 + 7u) * cs + bc2]; }
		if (row0 + 7u < M && cb0 + 3u < N4) { s7_3 = c[out0 + (row0 + 7u) * cs + bc3]; }
		if (row0 + 8u < M && cb0 + 0u < N4) { s8_0 = c[out0 + (row0 + 8u) * cs + bc0]; }
		if (row0 + 8u < M && cb0 + 1u < N4) { s8_1 = c[out0 + (row0 + 8u) * cs + bc1]; }
		if (row0 + 8u < M && cb0 + 2u < N4) { s8_2 = c[out0 + (row0 + 8u) * cs + bc2]; }
		if (row0 + 8u < M && cb0 + 3u < N4) { s8_3 = c[out0 + (row0 + 8u) * cs + bc3]; }
		if (row0 + 9u < M && cb0 + 0u < N4) { s9_0 = c[out0 + (row0 + 9u) * cs + bc0]; }
		if (row0 + 9u < M && cb0 + 1u < N4) { s9_1 = c[out0 + (row0 + 9u) * cs + bc1]; }
		if (row0 + 9u < M && cb0 + 2u < N4) { s9_2 = c[out0 + (row0 + 9u) * cs + bc2]; }
		if (row0 + 9u < M && cb0 + 3u < N4) { s9_3 = c[out0 + (row0 + 9u) * cs + bc3]; }
		if (row0 + 10u < M && cb0 + 0u < N4) { s10_0 = c[out0 + (row0 + 10u) * cs + bc0]; }
		if (row0 + 10u < M && cb0 + 1u < N4) { s10_1 = c[out0 + (row0 + 10u) * cs + bc1]; }
		if (row0 + 10u < M && cb0 + 2u < N4) { s10_2 = c[out0 + (row0 + 10u) * cs + bc2]; }
		if (row0 + 10u < M && cb0 + 3u < N4) { s10_3 = c[out0 + (row0 + 10u) * cs + bc3]; }
		if (row0 + 11u < M && cb0 + 0u < N4) { s11_0 = c[out0 + (row0 + 11u) * cs + bc0]; }
		if (row0 + 11u < M && cb0 + 1u < N4) { s11_1 = c[out0 + (row0 + 11u) * cs + bc1]; }
		if (row0 + 11u < M && cb0 + 2u < N4) { s11_2 = c[out0 + (row0 + 11u) * cs + bc2]; }
		if (row0 + 11u < M && cb0 + 3u < N4) { s11_3 = c[out0 + (row0 + 11u) * cs + bc3]; }
		if (row0 + 12u < M && cb0 + 0u < N4) { s12_0 = c[out0 + (row0 + 12u) * cs + bc0]; }
		if (row0 + 12u < M && cb0 + 1u < N4) { s12_1 = c[out0 + (row0 + 12u) * cs + bc1]; }
		if (row0 + 12u < M && cb0 + 2u < N4) { s12_2 = c[out0 + (row0 + 12u) * cs + bc2]; }
		if (row0 + 12u < M && cb0 + 3u < N4) { s12_3 = c[out0 + (row0 + 12u) * cs + bc3]; }
		if (row0 + 13u < M && cb0 + 0u < N4) { s13_0 = c[out0 + (row0 + 13u) * cs + bc0]; }
		if (row0 + 13u < M && cb0 + 1u < N4) { s13_1 = c[out0 + (row0 + 13u) * cs + bc1]; }
		if (row0 + 13u < M && cb0 + 2u < N4) { s13_2 = c[out0 + (row0 + 13u) * cs + bc2]; }
		if (row0 + 13u < M && cb0 + 3u < N4) { s13_3 = c[out0 + (row0 + 13u) * cs + bc3]; }
		if (row0 + 14u < M && cb0 + 0u < N4) { s14_0 = c[out0 + (row0 + 14u) * cs + bc0]; }
		if (row0 + 14u < M && cb0 + 1u < N4) { s14_1 = c[out0 + (row0 + 14u) * cs + bc1]; }
		if (row0 + 14u < M && cb0 + 2u < N4) { s14_2 = c[out0 + (row0 + 14u) * cs + bc2]; }
		if (row0 + 14u < M && cb0 + 3u < N4) { s14_3 = c[out0 + (row0 + 14u) * cs + bc3]; }
		if (row0 + 15u < M && cb0 + 0u < N4) { s15_0 = c[out0 + (row0 + 15u) * cs + bc0]; }
		if (row0 + 15u < M && cb0 + 1u < N4) { s15_1 = c[out0 + (row0 + 15u) * cs + bc1]; }
		if (row0 + 15u < M && cb0 + 2u < N4) { s15_2 = c[out0 + (row0 + 15u) * cs + bc2]; }
		if (row0 + 15u < M && cb0 + 3u < N4) { s15_3 = c[out0 + (row0 + 15u) * cs + bc3]; }
		if (row0 + 16u < M && cb0 + 0u < N4) { s16_0 = c[out0 + (row0 + 16u) * cs + bc0]; }
		if (row0 + 16u < M && cb0 + 1u < N4) { s16_1 = c[out0 + (row0 + 16u) * cs + bc1]; }
		if (row0 + 16u < M && cb0 + 2u < N4) { s16_2 = c[out0 + (row0 + 16u) * cs + bc2]; }
		if (row0 + 16u < M && cb0 + 3u < N4) { s16_3 = c[out0 + (row0 + 16u) * cs + bc3]; }
		if (row0 + 17u < M && cb0 + 0u < N4) { s17_0 = c[out0 + (row0 + 17u) * cs + bc0]; }
		if (row0 + 17u < M && cb0 + 1u < N4) { s17_1 = c[out0 + (row0 + 17u) * cs + bc1]; }
		if (row0 + 17u < M && cb0 + 2u < N4) { s17_2 = c[out0 + (row0 + 17u) * cs + bc2]; }
		if (row0 + 17u < M && cb0 + 3u < N4) { s17_3 = c[out0 + (row0 + 17u) * cs + bc3]; }
		if (row0 + 18u < M && cb0 + 0u < N4) { s18_0 = c[out0 + (row0 + 18u) * cs + bc0]; }
		if (row0 + 18u < M && cb0 + 1u < N4) { s18_1 = c[out0 + (row0 + 18u) * cs + bc1]; }
		if (row0 + 18u < M && cb0 + 2u < N4) { s18_2 = c[out0 + (row0 + 18u) * cs + bc2]; }
		if (row0 + 18u < M && cb0 + 3u < N4) { s18_3 = c[out0 + (row0 + 18u) * cs + bc3]; }
		if (row0 + 19u < M && cb0 + 0u < N4) { s19_0 = c[out0 + (row0 + 19u) * cs + bc0]; }
		if (row0 + 19u < M && cb0 + 1u < N4) { s19_1 = c[out0 + (row0 + 19u) * cs + bc1]; }
		if (row0 + 19u < M && cb0 + 2u < N4) { s19_2 = c[out0 + (row0 + 19u) * cs + bc2]; }
		if (row0 + 19u < M && cb0 + 3u < N4) { s19_3 = c[out0 + (row0 + 19u) * cs + bc3]; }
		if (row0 + 20u < M && cb0 + 0u < N4) { s20_0 = c[out0 + (row0 + 20u) * cs + bc0]; }
		if (row0 + 20u < M && cb0 + 1u < N4) { s20_1 = c[out0 + (row0 + 20u) * cs + bc1]; }
		if (row0 + 20u < M && cb0 + 2u < N4) { s20_2 = c[out0 + (row0 + 20u) * cs + bc2]; }
		if (row0 + 20u < M && cb0 + 3u < N4) { s20_3 = c[out0 + (row0 + 20u) * cs + bc3]; }
		if (row0 + 21u < M && cb0 + 0u < N4) { s21_0 = c[out0 + (row0 + 21u) * cs + bc0]; }
		if (row0 + 21u < M && cb0 + 1u < N4) { s21_1 = c[out0 + (row0 + 21u) * cs + bc1]; }
		if (row0 + 21u < M && cb0 + 2u < N4) { s21_2 = c[out0 + (row0 + 21u) * cs + bc2]; }
		if (row0 + 21u < M && cb0 + 3u < N4) { s21_3 = c[out0 + (row0 + 21u) * cs + bc3]; }
		if (row0 + 22u < M && cb0 + 0u < N4) { s22_0 = c[out0 + (row0 + 22u) * cs + bc0]; }
		if (row0 + 22u < M && cb0 + 1u < N4) { s22_1 = c[out0 + (row0 + 22u) * cs + bc1]; }
		if (row0 + 22u < M && cb0 + 2u < N4) { s22_2 = c[out0 + (row0 + 22u) * cs + bc2]; }
		if (row0 + 22u < M && cb0 + 3u < N4) { s22_3 = c[out0 + (row0 + 22u) * cs + bc3]; }
		if (row0 + 23u < M && cb0 + 0u < N4) { s23_0 = c[out0 + (row0 + 23u) * cs + bc0]; }
		if (row0 + 23u < M && cb0 + 1u < N4) { s23_1 = c[out0 + (row0 + 23u) * cs + bc1]; }
		if (row0 + 23u < M && cb0 + 2u < N4) { s23_2 = c[out0 + (row0 + 23u) * cs + bc2]; }
		if (row0 + 23u < M && cb0 + 3u < N4) { s23_3 = c[out0 + (row0 + 23u) * cs + bc3]; }
	}
	let gin = g * (p.group_in / 4u);
	let m0 = min(row0, M - 1u);
	var cx = m0 % p.out_w;
	var cy = m0 / p.out_w % p.out_h;
	var cn = m0 / p.out_w / p.out_h;
	let px0 = cx; let py0 = cy; let pn0 = cn;
	let st1 = row0 + 1u < M;
	cx += select(0u, 1u, st1);
	let wx1 = cx == p.out_w;
	cx = select(cx, 0u, wx1);
	cy += select(0u, 1u, wx1);
	let wy1 = cy == p.out_h;
	cy = select(cy, 0u, wy1);
	cn += select(0u, 1u, wy1);
	let px1 = cx; let py1 = cy; let pn1 = cn;
	let st2 = row0 + 2u < M;
	cx += select(0u, 1u, st2);
	let wx2 = cx == p.out_w;
	cx = select(cx, 0u, wx2);
	cy += select(0u, 1u, wx2);
	let wy2 = cy == p.out_h;
	cy = select(cy, 0u, wy2);
	cn += select(0u, 1u, wy2);
	let px2 = cx; let py2 = cy; let pn2 = cn;
	let st3 = row0 + 3u < M;
	cx += select(0u, 1u, st3);
	let wx3 = cx == p.out_w;
	cx = select(cx, 0u, wx3);
	cy += select(0u, 1u, wx3);
	let wy3 = cy == p.out_h;
	cy = select(cy, 0u, wy3);
	cn += select(0u, 1u, wy3);
	let px3 = cx; let py3 = cy; let pn3 = cn;
	let st4 = row0 + 4u < M;
	cx += select(0u, 1u, st4);
	let wx4 = cx == p.out_w;
	cx = select(cx, 0u, wx4);
	cy += select(0u, 1u, wx4);
	let wy4 = cy == p.out_h;
	cy = select(cy, 0u, wy4);
	cn += select(0u, 1u, wy4);
	let px4 = cx; let py4 = cy; let pn4 = cn;
	let st5 = row0 + 5u < M;
	cx += select(0u, 1u, st5);
	let wx5 = cx == p.out_w;
	cx = select(cx, 0u, wx5);
	cy += select(0u, 1u, wx5);
	let wy5 = cy == p.out_h;
	cy = select(cy, 0u, wy5);
	cn += select(0u, 1u, wy5);
	let px5 = cx; let py5 = cy; let pn5 = cn;
	let st6 = row0 + 6u < M;
	cx += select(0u, 1u, st6);
	let wx6 = cx == p.out_w;
	cx = select(cx, 0u, wx6);
	cy += select(0u, 1u, wx6);
	let wy6 = cy == p.out_h;
	cy = select(cy, 0u, wy6);
	cn += select(0u, 1u, wy6);
	let px6 = cx; let py6 = cy; let pn6 = cn;
	let st7 = row0 + 7u < M;
	cx += select(0u, 1u, st7);
	let wx7 = cx == p.out_w;
	cx = select(cx, 0u, wx7);
	cy += select(0u, 1u, wx7);
	let wy7 = cy == p.out_h;
	cy = select(cy, 0u, wy7);
	cn += select(0u, 1u, wy7);
	let px7 = cx; let py7 = cy; let pn7 = cn;
	let st8 = row0 + 8u < M;
	cx += select(0u, 1u, st8);
	let wx8 = cx == p.out_w;
	cx = select(cx, 0u, wx8);
	cy += select(0u, 1u, wx8);
	let wy8 = cy == p.out_h;
	cy = select(cy, 0u, wy8);
	cn += select(0u, 1u, wy8);
	let px8 = cx; let py8 = cy; let pn8 = cn;
	let st9 = row0 + 9u < M;
	cx += select(0u, 1u, st9);
	let wx9 = cx == p.out_w;
	cx = select(cx, 0u, wx9);
	cy += select(0u, 1u, wx9);
	let wy9 = cy == p.out_h;
	cy = select(cy, 0u, wy9);
	cn += select(0u, 1u, wy9);
	let px9 = cx; let py9 = cy; let pn9 = cn;
	let st10 = row0 + 10u < M;
	cx += select(0u, 1u, st10);
	let wx10 = cx == p.out_w;
	cx = select(cx, 0u, wx10);
	cy += select(0u, 1u, wx10);
	let wy10 = cy == p.out_h;
	cy = select(cy, 0u, wy10);
	cn += select(0u, 1u, wy10);
	let px10 = cx; let py10 = cy; let pn10 = cn;
	let st11 = row0 + 11u < M;
	cx += select(0u, 1u, st11);
	let wx11 = cx == p.out_w;
	cx = select(cx, 0u, wx11);
	cy += select(0u, 1u, wx11);
	let wy11 = cy == p.out_h;
	cy = select(cy, 0u, wy11);
	cn += select(0u, 1u, wy11);
	let px11 = cx; let py11 = cy; let pn11 = cn;
	let st12 = row0 + 12u < M;
	cx += select(0u, 1u, st12);
	let wx12 = cx == p.out_w;
	cx = select(cx, 0u, wx12);
	cy += select(0u, 1u, wx12);
	let wy12 = cy == p.out_h;
	cy = select(cy, 0u, wy12);
	cn += select(0u, 1u, wy12);
	let px12 = cx; let py12 = cy; let pn12 = cn;
	let st13 = row0 + 13u < M;
	cx += select(0u, 1u, st13);
	let wx13 = cx == p.out_w;
	cx = select(cx, 0u, wx13);
	cy += select(0u, 1u, wx13);
	let wy13 = cy == p.out_h;
	cy = select(cy, 0u, wy13);
	cn += select(0u, 1u, wy13);
	let px13 = cx; let py13 = cy; let pn13 = cn;
	let st14 = row0 + 14u < M;
	cx += select(0u, 1u, st14);
	let wx14 = cx == p.out_w;
	cx = select(cx, 0u, wx14);
	cy += select(0u, 1u, wx14);
	let wy14 = cy == p.out_h;
	cy = select(cy, 0u, wy14);
	cn += select(0u, 1u, wy14);
	let px14 = cx; let py14 = cy; let pn14 = cn;
	let st15 = row0 + 15u < M;
	cx += select(0u, 1u, st15);
	let wx15 = cx == p.out_w;
	cx = select(cx, 0u, wx15);
	cy += select(0u, 1u, wx15);
	let wy15 = cy == p.out_h;
	cy = select(cy, 0u, wy15);
	cn += select(0u, 1u, wy15);
	let px15 = cx; let py15 = cy; let pn15 = cn;
	let st16 = row0 + 16u < M;
	cx += select(0u, 1u, st16);
	let wx16 = cx == p.out_w;
	cx = select(cx, 0u, wx16);
	cy += select(0u, 1u, wx16);
	let wy16 = cy == p.out_h;
	cy = select(cy, 0u, wy16);
	cn += select(0u, 1u, wy16);
	let px16 = cx; let py16 = cy; let pn16 = cn;
	let st17 = row0 + 17u < M;
	cx += select(0u, 1u, st17);
	let wx17 = cx == p.out_w;
	cx = select(cx, 0u, wx17);
	cy += select(0u, 1u, wx17);
	let wy17 = cy == p.out_h;
	cy = select(cy, 0u, wy17);
	cn += select(0u, 1u, wy17);
	let px17 = cx; let py17 = cy; let pn17 = cn;
	let st18 = row0 + 18u < M;
	cx += select(0u, 1u, st18);
	let wx18 = cx == p.out_w;
	cx = select(cx, 0u, wx18);
	cy += select(0u, 1u, wx18);
	let wy18 = cy == p.out_h;
	cy = select(cy, 0u, wy18);
	cn += select(0u, 1u, wy18);
	let px18 = cx; let py18 = cy; let pn18 = cn;
	let st19 = row0 + 19u < M;
	cx += select(0u, 1u, st19);
	let wx19 = cx == p.out_w;
	cx = select(cx, 0u, wx19);
	cy += select(0u, 1u, wx19);
	let wy19 = cy == p.out_h;
	cy = select(cy, 0u, wy19);
	cn += select(0u, 1u, wy19);
	let px19 = cx; let py19 = cy; let pn19 = cn;
	let st20 = row0 + 20u < M;
	cx += select(0u, 1u, st20);
	let wx20 = cx == p.out_w;
	cx = select(cx, 0u, wx20);
	cy += select(0u, 1u, wx20);
	let wy20 = cy == p.out_h;
	cy = select(cy, 0u, wy20);
	cn += select(0u, 1u, wy20);
	let px20 = cx; let py20 = cy; let pn20 = cn;
	let st21 = row0 + 21u < M;
	cx += select(0u, 1u, st21);
	let wx21 = cx == p.out_w;
	cx = select(cx, 0u, wx21);
	cy += select(0u, 1u, wx21);
	let wy21 = cy == p.out_h;
	cy = select(cy, 0u, wy21);
	cn += select(0u, 1u, wy21);
	let px21 = cx; let py21 = cy; let pn21 = cn;
	let st22 = row0 + 22u < M;
	cx += select(0u, 1u, st22);
	let wx22 = cx == p.out_w;
	cx = select(cx, 0u, wx22);
	cy += select(0u, 1u, wx22);
	let wy22 = cy == p.out_h;
	cy = select(cy, 0u, wy22);
	cn += select(0u, 1u, wy22);
	let px22 = cx; let py22 = cy; let pn22 = cn;
	let st23 = row0 + 23u < M;
	cx += select(0u, 1u, st23);
	let wx23 = cx == p.out_w;
	cx = select(cx, 0u, wx23);
	cy += select(0u, 1u, wx23);
	let wy23 = cy == p.out_h;
	cy = select(cy, 0u, wy23);
	cn += select(0u, 1u, wy23);
	let px23 = cx; let py23 = cy; let pn23 = cn;
	let ry0 = py0 * p.stride_h;
	let rx0 = px0 * p.stride_w;
	let rb0 = pn0 * p.in_h;
	let ry1 = py1 * p.stride_h;
	let rx1 = px1 * p.stride_w;
	let rb1 = pn1 * p.in_h;
	let ry2 = py2 * p.stride_h;
	let rx2 = px2 * p.stride_w;
	let rb2 = pn2 * p.in_h;
	let ry3 = py3 * p.stride_h;
	let rx3 = px3 * p.stride_w;
	let rb3 = pn3 * p.in_h;
	let ry4 = py4 * p.stride_h;
	let rx4 = px4 * p.stride_w;
	let rb4 = pn4 * p.in_h;
	let ry5 = py5 * p.stride_h;
	let rx5 = px5 * p.stride_w;
	let rb5 = pn5 * p.in_h;
	let ry6 = py6 * p.stride_h;
	let rx6 = px6 * p.stride_w;
	let rb6 = pn6 * p.in_h;
	let ry7 = py7 * p.stride_h;
	let rx7 = px7 * p.stride_w;
	let rb7 = pn7 * p.in_h;
	let ry8 = py8 * p.stride_h;
	let rx8 = px8 * p.stride_w;
	let rb8 = pn8 * p.in_h;
	let ry9 = py9 * p.stride_h;
	let rx9 = px9 * p.stride_w;
	let rb9 = pn9 * p.in_h;
	let ry10 = py10 * p.stride_h;
	let rx10 = px10 * p.stride_w;
	let rb10 = pn10 * p.in_h;
	let ry11 = py11 * p.stride_h;
	let rx11 = px11 * p.stride_w;
	let rb11 = pn11 * p.in_h;
	let ry12 = py12 * p.stride_h;
	let rx12 = px12 * p.stride_w;
	let rb12 = pn12 * p.in_h;
	let ry13 = py13 * p.stride_h;
	let rx13 = px13 * p.stride_w;
	let rb13 = pn13 * p.in_h;
	let ry14 = py14 * p.stride_h;
	let rx14 = px14 * p.stride_w;
	let rb14 = pn14 * p.in_h;
	let ry15 = py15 * p.stride_h;
	let rx15 = px15 * p.stride_w;
	let rb15 = pn15 * p.in_h;
	let ry16 = py16 * p.stride_h;
	let rx16 = px16 * p.stride_w;
	let rb16 = pn16 * p.in_h;
	let ry17 = py17 * p.stride_h;
	let rx17 = px17 * p.stride_w;
	let rb17 = pn17 * p.in_h;
	let ry18 = py18 * p.stride_h;
	let rx18 = px18 * p.stride_w;
	let rb18 = pn18 * p.in_h;
	let ry19 = py19 * p.stride_h;
	let rx19 = px19 * p.stride_w;
	let rb19 = pn19 * p.in_h;
	let ry20 = py20 * p.stride_h;
	let rx20 = px20 * p.stride_w;
	let rb20 = pn20 * p.in_h;
	let ry21 = py21 * p.stride_h;
	let rx21 = px21 * p.stride_w;
	let rb21 = pn21 * p.in_h;
	let ry22 = py22 * p.stride_h;
	let rx22 = px22 * p.stride_w;
	let rb22 = pn22 * p.in_h;
	let ry23 = py23 * p.stride_h;
	let rx23 = px23 * p.stride_w;
	let rb23 = pn23 * p.in_h;
	for (var tap = p.k_first / p.group_in; tap * p.group_in < p.k_end; tap++) {
		let ky = tap / p.kernel_w * p.dilation_h - p.pad_top;
		let kx = tap % p.kernel_w * p.dilation_w - p.pad_left;
		let ok0 = ry0 + ky < p.in_h && rx0 + kx < p.in_w;
		let o0 = select(0u, ((rb0 + ry0 + ky) * p.in_w + rx0 + kx) * C4 + gin, ok0);
		let ok1 = ry1 + ky < p.in_h && rx1 + kx < p.in_w;
		let o1 = select(0u, ((rb1 + ry1 + ky) * p.in_w + rx1 + kx) * C4 + gin, ok1);
		let ok2 = ry2 + ky < p.in_h && rx2 + kx < p.in_w;
		let o2 = select(0u, ((rb2 + ry2 + ky) * p.in_w + rx2 + kx) * C4 + gin, ok2);
		let ok3 = ry3 + ky < p.in_h && rx3 + kx < p.in_w;
		let o3 = select(0u, ((rb3 + ry3 + ky) * p.in_w + rx3 + kx) * C4 + gin, ok3);
		let ok4 = ry4 + ky < p.in_h && rx4 + kx < p.in_w;
		let o4 = select(0u, ((rb4 + ry4 + ky) * p.in_w + rx4 + kx) * C4 + gin, ok4);
		let ok5 = ry5 + ky < p.in_h && rx5 + kx < p.in_w;
		let o5 = select(0u, ((rb5 + ry5 + ky) * p.in_w + rx5 + kx) * C4 + gin, ok5);
		let ok6 = ry6 + ky < p.in_h && rx6 + kx < p.in_w;
		let o6 = select(0u, ((rb6 + ry6 + ky) * p.in_w + rx6 + kx) * C4 + gin, ok6);
		let ok7 = ry7 + ky < p.in_h && rx7 + kx < p.in_w;
		let o7 = select(0u, ((rb7 + ry7 + ky) * p.in_w + rx7 + kx) * C4 + gin, ok7);
		let ok8 = ry8 + ky < p.in_h && rx8 + kx < p.in_w;
		let o8 = select(0u, ((rb8 + ry8 + ky) * p.in_w + rx8 + kx) * C4 + gin, ok8);
		let ok9 = ry9 + ky < p.in_h && rx9 + kx < p.in_w;
		let o9 = select(0u, ((rb9 + ry9 + ky) * p.in_w + rx9 + kx) * C4 + gin, ok9);
		let ok10 = ry10 + ky < p.in_h && rx10 + kx < p.in_w;
		let o10 = select(0u, ((rb10 + ry10 + ky) * p.in_w + rx10 + kx) * C4 + gin, ok10);
		let ok11 = ry11 + ky < p.in_h && rx11 + kx < p.in_w;
		let o11 = select(0u, ((rb11 + ry11 + ky) * p.in_w + rx11 + kx) * C4 + gin, ok11);
		let ok12 = ry12 + ky < p.in_h && rx12 + kx < p.in_w;
		let o12 = select(0u, ((rb12 + ry12 + ky) * p.in_w + rx12 + kx) * C4 + gin, ok12);
		let ok13 = ry13 + ky < p.in_h && rx13 + kx < p.in_w;
		let o13 = select(0u, ((rb13 + ry13 + ky) * p.in_w + rx13 + kx) * C4 + gin, ok13);
		let ok14 = ry14 + ky < p.in_h && rx14 + kx < p.in_w;
		let o14 = select(0u, ((rb14 + ry14 + ky) * p.in_w + rx14 + kx) * C4 + gin, ok14);
		let ok15 = ry15 + ky < p.in_h && rx15 + kx < p.in_w;
		let o15 = select(0u, ((rb15 + ry15 + ky) * p.in_w + rx15 + kx) * C4 + gin, ok15);
		let ok16 = ry16 + ky < p.in_h && rx16 + kx < p.in_w;
		let o16 = select(0u, ((rb16 + ry16 + ky) * p.in_w + rx16 + kx) * C4 + gin, ok16);
		let ok17 = ry17 + ky < p.in_h && rx17 + kx < p.in_w;
		let o17 = select(0u, ((rb17 + ry17 + ky) * p.in_w + rx17 + kx) * C4 + gin, ok17);
		let ok18 = ry18 + ky < p.in_h && rx18 + kx < p.in_w;
		let o18 = select(0u, ((rb18 + ry18 + ky) * p.in_w + rx18 + kx) * C4 + gin, ok18);
		let ok19 = ry19 + ky < p.in_h && rx19 + kx < p.in_w;
		let o19 = select(0u, ((rb19 + ry19 + ky) * p.in_w + rx19 + kx) * C4 + gin, ok19);
		let ok20 = ry20 + ky < p.in_h && rx20 + kx < p.in_w;
		let o20 = select(0u, ((rb20 + ry20 + ky) * p.in_w + rx20 + kx) * C4 + gin, ok20);
		let ok21 = ry21 + ky < p.in_h && rx21 + kx < p.in_w;
		let o21 = select(0u, ((rb21 + ry21 + ky) * p.in_w + rx21 + kx) * C4 + gin, ok21);
		let ok22 = ry22 + ky < p.in_h && rx22 + kx < p.in_w;
		let o22 = select(0u, ((rb22 + ry22 + ky) * p.in_w + rx22 + kx) * C4 + gin, ok22);
		let ok23 = ry23 + ky < p.in_h && rx23 + kx < p.in_w;
		let o23 = select(0u, ((rb23 + ry23 + ky) * p.in_w + rx23 + kx) * C4 + gin, ok23);
		let kbase = tap * p.group_in;
		let cend = (min(p.k_end, kbase + p.group_in) - kbase) / 4u;
		for (var c4 = (max(p.k_first, kbase) - kbase) / 4u; c4 < cend; c4++) {
			let a0 = select(vec4<f32>(0.0), la(o0 + c4), ok0);
			let a1 = select(vec4<f32>(0.0), la(o1 + c4), ok1);
			let a2 = select(vec4<f32>(0.0), la(o2 + c4), ok2);
			let a3 = select(vec4<f32>(0.0), la(o3 + c4), ok3);
			let a4 = select(vec4<f32>(0.0), la(o4 + c4), ok4);
			let a5 = select(vec4<f32>(0.0), la(o5 + c4), ok5);
			let a6 = select(vec4<f32>(0.0), la(o6 + c4), ok6);
			let a7 = select(vec4<f32>(0.0), la(o7 + c4), ok7);
			let a8 = select(vec4<f32>(0.0), la(o8 + c4), ok8);
			let a9 = select(vec4<f32>(0.0), la(o9 + c4), ok9);
			let a10 = select(vec4<f32>(0.0), la(o10 + c4), ok10);
			let a11 = select(vec4<f32>(0.0), la(o11 + c4), ok11);
			let a12 = select(vec4<f32>(0.0), la(o12 + c4), ok12);
			let a13 = select(vec4<f32>(0.0), la(o13 + c4), ok13);
			let a14 = select(vec4<f32>(0.0), la(o14 + c4), ok14);
			let a15 = select(vec4<f32>(0.0), la(o15 + c4), ok15);
			let a16 = select(vec4<f32>(0.0), la(o16 + c4), ok16);
			let a17 = select(vec4<f32>(0.0), la(o17 + c4), ok17);
			let a18 = select(vec4<f32>(0.0), la(o18 + c4), ok18);
			let a19 = select(vec4<f32>(0.0), la(o19 + c4), ok19);
			let a20 = select(vec4<f32>(0.0), la(o20 + c4), ok20);
			let a21 = select(vec4<f32>(0.0), la(o21 + c4), ok21);
			let a22 = select(vec4<f32>(0.0), la(o22 + c4), ok22);
			let a23 = select(vec4<f32>(0.0), la(o23 + c4), ok23);
			let krow = (kbase + c4 * 4u) * O4;
			let b0_0 = lbm(krow + 0u * O4 + bc0);
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
			s16_0 = fma(vec4<f32>(a16.x), b0_0, s16_0);
			s17_0 = fma(vec4<f32>(a17.x), b0_0, s17_0);
			s18_0 = fma(vec4<f32>(a18.x), b0_0, s18_0);
			s19_0 = fma(vec4<f32>(a19.x), b0_0, s19_0);
			s20_0 = fma(vec4<f32>(a20.x), b0_0, s20_0);
			s21_0 = fma(vec4<f32>(a21.x), b0_0, s21_0);
			s22_0 = fma(vec4<f32>(a22.x), b0_0, s22_0);
			s23_0 = fma(vec4<f32>(a23.x), b0_0, s23_0);
			let b0_1 = lbm(krow + 0u * O4 + bc1);
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
			s16_1 = fma(vec4<f32>(a16.x), b0_1, s16_1);
			s17_1 = fma(vec4<f32>(a17.x), b0_1, s17_1);
			s18_1 = fma(vec4<f32>(a18.x), b0_1, s18_1);
			s19_1 = fma(vec4<f32>(a19.x), b0_1, s19_1);
			s20_1 = fma(vec4<f32>(a20.x), b0_1, s20_1);
			s21_1 = fma(vec4<f32>(a21.x), b0_1, s21_1);
			s22_1 = fma(vec4<f32>(a22.x), b0_1, s22_1);
			s23_1 = fma(vec4<f32>(a23.x), b0_1, s23_1);
			let b0_2 = lbm(krow + 0u * O4 + bc2);
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
			s16_2 = fma(vec4<f32>(a16.x), b0_2, s16_2);
			s17_2 = fma(vec4<f32>(a17.x), b0_2, s17_2);
			s18_2 = fma(vec4<f32>(a18.x), b0_2, s18_2);
			s19_2 = fma(vec4<f32>(a19.x), b0_2, s19_2);
			s20_2 = fma(vec4<f32>(a20.x), b0_2, s20_2);
			s21_2 = fma(vec4<f32>(a21.x), b0_2, s21_2);
			s22_2 = fma(vec4<f32>(a22.x), b0_2, s22_2);
			s23_2 = fma(vec4<f32>(a23.x), b0_2, s23_2);
			let b0_3 = lbm(krow + 0u * O4 + bc3);
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
			s16_3 = fma(vec4<f32>(a16.x), b0_3, s16_3);
			s17_3 = fma(vec4<f32>(a17.x), b0_3, s17_3);
			s18_3 = fma(vec4<f32>(a18.x), b0_3, s18_3);
			s19_3 = fma(vec4<f32>(a19.x), b0_3, s19_3);
			s20_3 = fma(vec4<f32>(a20.x), b0_3, s20_3);
			s21_3 = fma(vec4<f32>(a21.x), b0_3, s21_3);
			s22_3 = fma(vec4<f32>(a22.x), b0_3, s22_3);
			s23_3 = fma(vec4<f32>(a23.x), b0_3, s23_3);
			let b1_0 = lbm(krow + 1u * O4 + bc0);
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
			s16_0 = fma(vec4<f32>(a16.y), b1_0, s16_0);
			s17_0 = fma(vec4<f32>(a17.y), b1_0, s17_0);
			s18_0 = fma(vec4<f32>(a18.y), b1_0, s18_0);
			s19_0 = fma(vec4<f32>(a19.y), b1_0, s19_0);
			s20_0 = fma(vec4<f32>(a20.y), b1_0, s20_0);
			s21_0 = fma(vec4<f32>(a21.y), b1_0, s21_0);
			s22_0 = fma(vec4<f32>(a22.y), b1_0, s22_0);
			s23_0 = fma(vec4<f32>(a23.y), b1_0, s23_0);
			let b1_1 = lbm(krow + 1u * O4 + bc1);
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
			s16_1 = fma(vec4<f32>(a16.y), b1_1, s16_1);
			s17_1 = fma(vec4<f32>(a17.y), b1_1, s17_1);
			s18_1 = fma(vec4<f32>(a18.y), b1_1, s18_1);
			s19_1 = fma(vec4<f32>(a19.y), b1_1, s19_1);
			s20_1 = fma(vec4<f32>(a20.y), b1_1, s20_1);
			s21_1 = fma(vec4<f32>(a21.y), b1_1, s21_1);
			s22_1 = fma(vec4<f32>(a22.y), b1_1, s22_1);
			s23_1 = fma(vec4<f32>(a23.y), b1_1, s23_1);
			let b1_2 = lbm(krow + 1u * O4 + bc2);
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
			s16_2 = fma(vec4<f32>(a16.y), b1_2, s16_2);
			s17_2 = fma(vec4<f32>(a17.y), b1_2, s17_2);
			s18_2 = fma(vec4<f32>(a18.y), b1_2, s18_2);
			s19_2 = fma(vec4<f32>(a19.y), b1_2, s19_2);
			s20_2 = fma(vec4<f32>(a20.y), b1_2, s20_2);
			s21_2 = fma(vec4<f32>(a21.y), b1_2, s21_2);
			s22_2 = fma(vec4<f32>(a22.y), b1_2, s22_2);
			s23_2 = fma(vec4<f32>(a23.y), b1_2, s23_2);
			let b1_3 = lbm(krow + 1u * O4 + bc3);
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
			s16_3 = fma(vec4<f32>(a16.y), b1_3, s16_3);
			s17_3 = fma(vec4<f32>(a17.y), b1_3, s17_3);
			s18_3 = fma(vec4<f32>(a18.y), b1_3, s18_3);
			s19_3 = fma(vec4<f32>(a19.y), b1_3, s19_3);
			s20_3 = fma(vec4<f32>(a20.y), b1_3, s20_3);
			s21_3 = fma(vec4<f32>(a21.y), b1_3, s21_3);
			s22_3 = fma(vec4<f32>(a22.y), b1_3, s22_3);
			s23_3 = fma(vec4<f32>(a23.y), b1_3, s23_3);
			let b2_0 = lbm(krow + 2u * O4 + bc0);
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
			s16_0 = fma(vec4<f32>(a16.z), b2_0, s16_0);
			s17_0 = fma(vec4<f32>(a17.z), b2_0, s17_0);
			s18_0 = fma(vec4<f32>(a18.z), b2_0, s18_0);
			s19_0 = fma(vec4<f32>(a19.z), b2_0, s19_0);
			s20_0 = fma(vec4<f32>(a20.z), b2_0, s20_0);
			s21_0 = fma(vec4<f32>(a21.z), b2_0, s21_0);
			s22_0 = fma(vec4<f32>(a22.z), b2_0, s22_0);
			s23_0 = fma(vec4<f32>(a23.z), b2_0, s23_0);
			let b2_1 = lbm(krow + 2u * O4 + bc1);
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
			s16_1 = fma(vec4<f32>(a16.z), b2_1, s16_1);
			s17_1 = fma(vec4<f32>(a17.z), b2_1, s17_1);
			s18_1 = fma(vec4<f32>(a18.z), b2_1, s18_1);
			s19_1 = fma(vec4<f32>(a19.z), b2_1, s19_1);
			s20_1 = fma(vec4<f32>(a20.z), b2_1, s20_1);
			s21_1 = fma(vec4<f32>(a21.z), b2_1, s21_1);
			s22_1 = fma(vec4<f32>(a22.z), b2_1, s22_1);
			s23_1 = fma(vec4<f32>(a23.z), b2_1, s23_1);
			let b2_2 = lbm(krow + 2u * O4 + bc2);
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
			s16_2 = fma(vec4<f32>(a16.z), b2_2, s16_2);
			s17_2 = fma(vec4<f32>(a17.z), b2_2, s17_2);
			s18_2 = fma(vec4<f32>(a18.z), b2_2, s18_2);
			s19_2 = fma(vec4<f32>(a19.z), b2_2, s19_2);
			s20_2 = fma(vec4<f32>(a20.z), b2_2, s20_2);
			s21_2 = fma(vec4<f32>(a21.z), b2_2, s21_2);
			s22_2 = fma(vec4<f32>(a22.z), b2_2, s22_2);
			s23_2 = fma(vec4<f32>(a23.z), b2_2, s23_2);
			let b2_3 = lbm(krow + 2u * O4 + bc3);
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
			s16_3 = fma(vec4<f32>(a16.z), b2_3, s16_3);
			s17_3 = fma(vec4<f32>(a17.z), b2_3, s17_3);
			s18_3 = fma(vec4<f32>(a18.z), b2_3, s18_3);
			s19_3 = fma(vec4<f32>(a19.z), b2_3, s19_3);
			s20_3 = fma(vec4<f32>(a20.z), b2_3, s20_3);
			s21_3 = fma(vec4<f32>(a21.z), b2_3, s21_3);
			s22_3 = fma(vec4<f32>(a22.z), b2_3, s22_3);
			s23_3 = fma(vec4<f32>(a23.z), b2_3, s23_3);
			let b3_0 = lbm(krow + 3u * O4 + bc0);
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
			s16_0 = fma(vec4<f32>(a16.w), b3_0, s16_0);
			s17_0 = fma(vec4<f32>(a17.w), b3_0, s17_0);
			s18_0 = fma(vec4<f32>(a18.w), b3_0, s18_0);
			s19_0 = fma(vec4<f32>(a19.w), b3_0, s19_0);
			s20_0 = fma(vec4<f32>(a20.w), b3_0, s20_0);
			s21_0 = fma(vec4<f32>(a21.w), b3_0, s21_0);
			s22_0 = fma(vec4<f32>(a22.w), b3_0, s22_0);
			s23_0 = fma(vec4<f32>(a23.w), b3_0, s23_0);
			let b3_1 = lbm(krow + 3u * O4 + bc1);
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
			s16_1 = fma(vec4<f32>(a16.w), b3_1, s16_1);
			s17_1 = fma(vec4<f32>(a17.w), b3_1, s17_1);
			s18_1 = fma(vec4<f32>(a18.w), b3_1, s18_1);
			s19_1 = fma(vec4<f32>(a19.w), b3_1, s19_1);
			s20_1 = fma(vec4<f32>(a20.w), b3_1, s20_1);
			s21_1 = fma(vec4<f32>(a21.w), b3_1, s21_1);
			s22_1 = fma(vec4<f32>(a22.w), b3_1, s22_1);
			s23_1 = fma(vec4<f32>(a23.w), b3_1, s23_1);
			let b3_2 = lbm(krow + 3u * O4 + bc2);
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
			s16_2 = fma(vec4<f32>(a16.w), b3_2, s16_2);
			s17_2 = fma(vec4<f32>(a17.w), b3_2, s17_2);
			s18_2 = fma(vec4<f32>(a18.w), b3_2, s18_2);
			s19_2 = fma(vec4<f32>(a19.w), b3_2, s19_2);
			s20_2 = fma(vec4<f32>(a20.w), b3_2, s20_2);
			s21_2 = fma(vec4<f32>(a21.w), b3_2, s21_2);
			s22_2 = fma(vec4<f32>(a22.w), b3_2, s22_2);
			s23_2 = fma(vec4<f32>(a23.w), b3_2, s23_2);
			let b3_3 = lbm(krow + 3u * O4 + bc3);
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
			s16_3 = fma(vec4<f32>(a16.w), b3_3, s16_3);
			s17_3 = fma(vec4<f32>(a17.w), b3_3, s17_3);
			s18_3 = fma(vec4<f32>(a18.w), b3_3, s18_3);
			s19_3 = fma(vec4<f32>(a19.w), b3_3, s19_3);
			s20_3 = fma(vec4<f32>(a20.w), b3_3, s20_3);
			s21_3 = fma(vec4<f32>(a21.w), b3_3, s21_3);
			s22_3 = fma(vec4<f32>(a22.w), b3_3, s22_3);
			s23_3 = fma(vec4<f32>(a23.w), b3_3, s23_3);
		}
	}
	if (row0 + 0u < M && cb0 + 0u < N4) { c[out0 + (row0 + 0u) * cs + bc0] = s0_0; }
	if (row0 + 0u < M && cb0 + 1u < N4) { c[out0 + (row0 + 0u) * cs + bc1] = s0_1; }
	if (row0 + 0u < M && cb0 + 2u < N4) { c[out0 + (row0 + 0u) * cs + bc2] = s0_2; }
	if (row0 + 0u < M && cb0 + 3u < N4) { c[out0 + (row0 + 0u) * cs + bc3] = s0_3; }
	if (row0 + 1u < M && cb0 + 0u < N4) { c[out0 + (row0 + 1u) * cs + bc0] = s1_0; }
	if (row0 + 1u < M && cb0 + 1u < N4) { c[out0 + (row0 + 1u) * cs + bc1] = s1_1; }
	if (row0 + 1u < M && cb0 + 2u < N4) { c[out0 + (row0 + 1u) * cs + bc2] = s1_2; }
	if (row0 + 1u < M && cb0 + 3u < N4) { c[out0 + (row0 + 1u) * cs + bc3] = s1_3; }
	if (row0 + 2u < M && cb0 + 0u < N4) { c[out0 + (row0 + 2u) * cs + bc0] = s2_0; }
	if (row0 + 2u < M && cb0 + 1u < N4) { c[out0 + (row0 + 2u) * cs + bc1] = s2_1; }
	if (row0 + 2u < M && cb0 + 2u < N4) { c[out0 + (row0 + 2u) * cs + bc2] = s2_2; }
	if (row0 + 2u < M && cb0 + 3u < N4) { c[out0 + (row0 + 2u) * cs + bc3] = s2_3; }
	if (row0 + 3u < M && cb0 + 0u < N4) { c[out0 + (row0 + 3u) * cs + bc0] = s3_0; }
	if (row0 + 3u < M && cb0 + 1u < N4) { c[out0 + (row0 + 3u) * cs + bc1] = s3_1; }
	if (row0 + 3u < M && cb0 + 2u < N4) { c[out0 + (row0 + 3u) * cs + bc2] = s3_2; }
	if (row0 + 3u < M && cb0 + 3u < N4) { c[out0 + (row0 + 3u) * cs + bc3] = s3_3; }
	if (row0 + 4u < M && cb0 + 0u < N4) { c[out0 + (row0 + 4u) * cs + bc0] = s4_0; }
	if (row0 + 4u < M && cb0 + 1u < N4) { c[out0 + (row0 + 4u) * cs + bc1] = s4_1; }
	if (row0 + 4u < M && cb0 + 2u < N4) { c[out0 + (row0 + 4u) * cs + bc2] = s4_2; }
	if (row0 + 4u < M && cb0 + 3u < N4) { c[out0 + (row0 + 4u) * cs + bc3] = s4_3; }
	if (row0 + 5u < M && cb0 + 0u < N4) { c[out0 + (row0 + 5u) * cs + bc0] = s5_0; }
	if (row0 + 5u < M && cb0 + 1u < N4) { c[out0 + (row0 + 5u) * cs + bc1] = s5_1; }
	if (row0 + 5u < M && cb0 + 2u < N4) { c[out0 + (row0 + 5u) * cs + bc2] = s5_2; }
	if (row0 + 5u < M && cb0 + 3u < N4) { c[out0 + (row0 + 5u) * cs + bc3] = s5_3; }
	if (row0 + 6u < M && cb0 + 0u < N4) { c[out0 + (row0 + 6u) * cs + bc0] = s6_0; }
	if (row0 + 6u < M && cb0 + 1u < N4) { c[out0 + (row0 + 6u) * cs + bc1] = s6_1; }
	if (row0 + 6u < M && cb0 + 2u < N4) { c[out0 + (row0 + 6u) * cs + bc2] = s6_2; }
	if (row0 + 6u < M && cb0 + 3u < N4) { c[out0 + (row0 + 6u) * cs + bc3] = s6_3; }
	if (row0 + 7u < M && cb0 + 0u < N4) { c[out0 + (row0 + 7u) * cs + bc0] = s7_0; }
	if (row0 + 7u < M && cb0 + 1u < N4) { c[out0 + (row0 + 7u) * cs + bc1] = s7_1; }
	if (row0 + 7u < M && cb0 + 2u < N4) { c[out0 + (row0 + 7u) * cs + bc2] = s7_2; }
	if (row0 + 7u < M && cb0 + 3u < N4) { c[out0 + (row0 + 7u) * cs + bc3] = s7_3; }
	if (row0 + 8u < M && cb0 + 0u < N4) { c[out0 + (row0 + 8u) * cs + bc0] = s8_0; }
	if (row0 + 8u < M && cb0 + 1u < N4) { c[out0 + (row0 + 8u) * cs + bc1] = s8_1; }
	if (row0 + 8u < M && cb0 + 2u < N4) { c[out0 + (row0 + 8u) * cs + bc2] = s8_2; }
	if (row0 + 8u < M && cb0 + 3u < N4) { c[out0 + (row0 + 8u) * cs + bc3] = s8_3; }
	if (row0 + 9u < M && cb0 + 0u < N4) { c[out0 + (row0 + 9u) * cs + bc0] = s9_0; }
	if (row0 + 9u < M && cb0 + 1u < N4) { c[out0 + (row0 + 9u) * cs + bc1] = s9_1; }
	if (row0 + 9u < M && cb0 + 2u < N4) { c[out0 + (row0 + 9u) * cs + bc2] = s9_2; }
	if (row0 + 9u < M && cb0 + 3u < N4) { c[out0 + (row0 + 9u) * cs + bc3] = s9_3; }
	if (row0 + 10u < M && cb0 + 0u < N4) { c[out0 + (row0 + 10u) * cs + bc0] = s10_0; }
	if (row0 + 10u < M && cb0 + 1u < N4) { c[out0 + (row0 + 10u) * cs + bc1] = s10_1; }
	if (row0 + 10u < M && cb0 + 2u < N4) { c[out0 + (row0 + 10u) * cs + bc2] = s10_2; }
	if (row0 + 10u < M && cb0 + 3u < N4) { c[out0 + (row0 + 10u) * cs + bc3] = s10_3; }
	if (row0 + 11u < M && cb0 + 0u < N4) { c[out0 + (row0 + 11u) * cs + bc0] = s11_0; }
	if (row0 + 11u < M && cb0 + 1u < N4) { c[out0 + (row0 + 11u) * cs + bc1] = s11_1; }
	if (row0 + 11u < M && cb0 + 2u < N4) { c[out0 + (row0 + 11u) * cs + bc2] = s11_2; }
	if (row0 + 11u < M && cb0 + 3u < N4) { c[out0 + (row0 + 11u) * cs + bc3] = s11_3; }
	if (row0 + 12u < M && cb0 + 0u < N4) { c[out0 + (row0 + 12u) * cs + bc0] = s12_0; }
	if (row0 + 12u < M && cb0 + 1u < N4) { c[out0 + (row0 + 12u) * cs + bc1] = s12_1; }
	if (row0 + 12u < M && cb0 + 2u < N4) { c[out0 + (row0 + 12u) * cs + bc2] = s12_2; }
	if (row0 + 12u < M && cb0 + 3u < N4) { c[out0 + (row0 + 12u) * cs + bc3] = s12_3; }
	if (row0 + 13u < M && cb0 + 0u < N4) { c[out0 + (row0 + 13u) * cs + bc0] = s13_0; }
	if (row0 + 13u < M && cb0 + 1u < N4) { c[out0 + (row0 + 13u) * cs + bc1] = s13_1; }
	if (row0 + 13u < M && cb0 + 2u < N4) { c[out0 + (row0 + 13u) * cs + bc2] = s13_2; }
	if (row0 + 13u < M && cb0 + 3u < N4) { c[out0 + (row0 + 13u) * cs + bc3] = s13_3; }
	if (row0 + 14u < M && cb0 + 0u < N4) { c[out0 + (row0 + 14u) * cs + bc0] = s14_0; }
	if (row0 + 14u < M && cb0 + 1u < N4) { c[out0 + (row0 + 14u) * cs + bc1] = s14_1; }
	if (row0 + 14u < M && cb0 + 2u < N4) { c[out0 + (row0 + 14u) * cs + bc2] = s14_2; }
	if (row0 + 14u < M && cb0 + 3u < N4) { c[out0 + (row0 + 14u) * cs + bc3] = s14_3; }
	if (row0 + 15u < M && cb0 + 0u < N4) { c[out0 + (row0 + 15u) * cs + bc0] = s15_0; }
	if (row0 + 15u < M && cb0 + 1u < N4) { c[out0 + (row0 + 15u) * cs + bc1] = s15_1; }
	if (row0 + 15u < M && cb0 + 2u < N4) { c[out0 + (row0 + 15u) * cs + bc2] = s15_2; }
	if (row0 + 15u < M && cb0 + 3u < N4) { c[out0 + (row0 + 15u) * cs + bc3] = s15_3; }
	if (row0 + 16u < M && cb0 + 0u < N4) { c[out0 + (row0 + 16u) * cs + bc0] = s16_0; }
	if (row0 + 16u < M && cb0 + 1u < N4) { c[out0 + (row0 + 16u) * cs + bc1] = s16_1; }
	if (row0 + 16u < M && cb0 + 2u < N4) { c[out0 + (row0 + 16u) * cs + bc2] = s16_2; }
	if (row0 + 16u < M && cb0 + 3u < N4) { c[out0 + (row0 + 16u) * cs + bc3] = s16_3; }
	if (row0 + 17u < M && cb0 + 0u < N4) { c[out0 + (row0 + 17u) * cs + bc0] = s17_0; }
	if (row0 + 17u < M && cb0 + 1u < N4) { c[out0 + (row0 + 17u) * cs + bc1] = s17_1; }
	if (row0 + 17u < M && cb0 + 2u < N4) { c[out0 + (row0 + 17u) * cs + bc2] = s17_2; }
	if (row0 + 17u < M && cb0 + 3u < N4) { c[out0 + (row0 + 17u) * cs + bc3] = s17_3; }
	if (row0 + 18u < M && cb0 + 0u < N4) { c[out0 + (row0 + 18u) * cs + bc0] = s18_0; }
	if (row0 + 18u < M && cb0 + 1u < N4) { c[out0 + (row0 + 18u) * cs + bc1] = s18_1; }
	if (row0 + 18u < M && cb0 + 2u < N4) { c[out0 + (row0 + 18u) * cs + bc2] = s18_2; }
	if (row0 + 18u < M && cb0 + 3u < N4) { c[out0 + (row0 + 18u) * cs + bc3] = s18_3; }
	if (row0 + 19u < M && cb0 + 0u < N4) { c[out0 + (row0 + 19u) * cs + bc0] = s19_0; }
	if (row0 + 19u < M && cb0 + 1u < N4) { c[out0 + (row0 + 19u) * cs + bc1] = s19_1; }
	if (row0 + 19u < M && cb0 + 2u < N4) { c[out0 + (row0 + 19u) * cs + bc2] = s19_2; }
	if (row0 + 19u < M && cb0 + 3u < N4) { c[out0 + (row0 + 19u) * cs + bc3] = s19_3; }
	if (row0 + 20u < M && cb0 + 0u < N4) { c[out0 + (row0 + 20u) * cs + bc0] = s20_0; }
	if (row0 + 20u < M && cb0 + 1u < N4) { c[out0 + (row0 + 20u) * cs + bc1] = s20_1; }
	if (row0 + 20u < M && cb0 + 2u < N4) { c[out0 + (row0 + 20u) * cs + bc2] = s20_2; }
	if (row0 + 20u < M && cb0 + 3u < N4) { c[out0 + (row0 + 20u) * cs + bc3] = s20_3; }
	if (row0 + 21u < M && cb0 + 0u < N4) { c[out0 + (row0 + 21u) * cs + bc0] = s21_0; }
	if (row0 + 21u < M && cb0 + 1u < N4) { c[out0 + (row0 + 21u) * cs + bc1] = s21_1; }
	if (row0 + 21u < M && cb0 + 2u < N4) { c[out0 + (row0 + 21u) * cs + bc2] = s21_2; }
	if (row0 + 21u < M && cb0 + 3u < N4) { c[out0 + (row0 + 21u) * cs + bc3] = s21_3; }
	if (row0 + 22u < M && cb0 + 0u < N4) { c[out0 + (row0 + 22u) * cs + bc0] = s22_0; }
	if (row0 + 22u < M && cb0 + 1u < N4) { c[out0 + (row0 + 22u) * cs + bc1] = s22_1; }
	if (row0 + 22u < M && cb0 + 2u < N4) { c[out0 + (row0 + 22u) * cs + bc2] = s22_2; }
	if (row0 + 22u < M && cb0 + 3u < N4) { c[out0 + (row0 + 22u) * cs + bc3] = s22_3; }
	if (row0 + 23u < M && cb0 + 0u < N4) { c[out0 + (row0 + 23u) * cs + bc0] = s23_0; }
	if (row0 + 23u < M && cb0 + 1u < N4) { c[out0 + (row0 + 23u) * cs + bc1] = s23_1; }
	if (row0 + 23u < M && cb0 + 2u < N4) { c[out0 + (row0 + 23u) * cs + bc2] = s23_2; }
	if (row0 + 23u < M && cb0 + 3u < N4) { c[out0 + (row0 + 23u) * cs + bc3] = s23_3; }
}
