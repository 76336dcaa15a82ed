
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
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
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

fn la(i: u32) -> f32 { return load_f16(a[i >> 1u], i & 1u); }
fn lbm(i: u32) -> f32 { return load_f16(bm[i >> 1u], i & 1u); }
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let lx = li % 8u; let ly = li / 8u;
	let M = p.m; let N = p.n;
	let g = w.z + p.first_group;
	let k_first = p.k_first; let k_end = p.k_end; let out0 = 0u;
	let row0 = ((w.y + p.first_row) * 8u + ly) * 8u;
	let col0 = ((w.x + p.first_col) * 8u + lx) * 8u;
	let cstride = p.out_c;
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
	let ry0 = py0 * p.stride_h - p.pad_top;
	let rx0 = px0 * p.stride_w - p.pad_left;
	let rb0 = pn0 * p.in_h;
	let rc0 = g * p.group_in;
	let ry1 = py1 * p.stride_h - p.pad_top;
	let rx1 = px1 * p.stride_w - p.pad_left;
	let rb1 = pn1 * p.in_h;
	let rc1 = g * p.group_in;
	let ry2 = py2 * p.stride_h - p.pad_top;
	let rx2 = px2 * p.stride_w - p.pad_left;
	let rb2 = pn2 * p.in_h;
	let rc2 = g * p.group_in;
	let ry3 = py3 * p.stride_h - p.pad_top;
	let rx3 = px3 * p.stride_w - p.pad_left;
	let rb3 = pn3 * p.in_h;
	let rc3 = g * p.group_in;
	let ry4 = py4 * p.stride_h - p.pad_top;
	let rx4 = px4 * p.stride_w - p.pad_left;
	let rb4 = pn4 * p.in_h;
	let rc4 = g * p.group_in;
	let ry5 = py5 * p.stride_h - p.pad_top;
	let rx5 = px5 * p.stride_w - p.pad_left;
	let rb5 = pn5 * p.in_h;
	let rc5 = g * p.group_in;
	let ry6 = py6 * p.stride_h - p.pad_top;
	let rx6 = px6 * p.stride_w - p.pad_left;
	let rb6 = pn6 * p.in_h;
	let rc6 = g * p.group_in;
	let ry7 = py7 * p.stride_h - p.pad_top;
	let rx7 = px7 * p.stride_w - p.pad_left;
	let rb7 = pn7 * p.in_h;
	let rc7 = g * p.group_in;
	let c0 = min(col0 + 0u, N - 1u);
	let c1 = min(col0 + 1u, N - 1u);
	let c2 = min(col0 + 2u, N - 1u);
	let c3 = min(col0 + 3u, N - 1u);
	let c4 = min(col0 + 4u, N - 1u);
	let c5 = min(col0 + 5u, N - 1u);
	let c6 = min(col0 + 6u, N - 1u);
	let c7 = min(col0 + 7u, N - 1u);
	var s0_0 = 0.0;
	var s0_1 = 0.0;
	var s0_2 = 0.0;
	var s0_3 = 0.0;
	var s0_4 = 0.0;
	var s0_5 = 0.0;
	var s0_6 = 0.0;
	var s0_7 = 0.0;
	var s1_0 = 0.0;
	var s1_1 = 0.0;
	var s1_2 = 0.0;
	var s1_3 = 0.0;
	var s1_4 = 0.0;
	var s1_5 = 0.0;
	var s1_6 = 0.0;
	var s1_7 = 0.0;
	var s2_0 = 0.0;
	var s2_1 = 0.0;
	var s2_2 = 0.0;
	var s2_3 = 0.0;
	var s2_4 = 0.0;
	var s2_5 = 0.0;
	var s2_6 = 0.0;
	var s2_7 = 0.0;
	var s3_0 = 0.0;
	var s3_1 = 0.0;
	var s3_2 = 0.0;
	var s3_3 = 0.0;
	var s3_4 = 0.0;
	var s3_5 = 0.0;
	var s3_6 = 0.0;
	var s3_7 = 0.0;
	var s4_0 = 0.0;
	var s4_1 = 0.0;
	var s4_2 = 0.0;
	var s4_3 = 0.0;
	var s4_4 = 0.0;
	var s4_5 = 0.0;
	var s4_6 = 0.0;
	var s4_7 = 0.0;
	var s5_0 = 0.0;
	var s5_1 = 0.0;
	var s5_2 = 0.0;
	var s5_3 = 0.0;
	var s5_4 = 0.0;
	var s5_5 = 0.0;
	var s5_6 = 0.0;
	var s5_7 = 0.0;
	var s6_0 = 0.0;
	var s6_1 = 0.0;
	var s6_2 = 0.0;
	var s6_3 = 0.0;
	var s6_4 = 0.0;
	var s6_5 = 0.0;
	var s6_6 = 0.0;
	var s6_7 = 0.0;
	var s7_0 = 0.0;
	var s7_1 = 0.0;
	var s7_2 = 0.0;
	var s7_3 = 0.0;
	var s7_4 = 0.0;
	var s7_5 = 0.0;
	var s7_6 = 0.0;
	var s7_7 = 0.0;
	if (p.k_first > 0u) {
		if (row0 + 0u < M && col0 + 0u < N) { s0_0 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 0u < M && col0 + 1u < N) { s0_1 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 0u < M && col0 + 2u < N) { s0_2 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 0u < M && col0 + 3u < N) { s0_3 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 0u < M && col0 + 4u < N) { s0_4 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 0u < M && col0 + 5u < N) { s0_5 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 0u < M && col0 + 6u < N) { s0_6 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 0u < M && col0 + 7u < N) { s0_7 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 1u < M && col0 + 0u < N) { s1_0 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 1u < M && col0 + 1u < N) { s1_1 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 1u < M && col0 + 2u < N) { s1_2 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 1u < M && col0 + 3u < N) { s1_3 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 1u < M && col0 + 4u < N) { s1_4 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 1u < M && col0 + 5u < N) { s1_5 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 1u < M && col0 + 6u < N) { s1_6 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 1u < M && col0 + 7u < N) { s1_7 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 2u < M && col0 + 0u < N) { s2_0 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 2u < M && col0 + 1u < N) { s2_1 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 2u < M && col0 + 2u < N) { s2_2 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 2u < M && col0 + 3u < N) { s2_3 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 2u < M && col0 + 4u < N) { s2_4 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 2u < M && col0 + 5u < N) { s2_5 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 2u < M && col0 + 6u < N) { s2_6 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 2u < M && col0 + 7u < N) { s2_7 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 3u < M && col0 + 0u < N) { s3_0 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 3u < M && col0 + 1u < N) { s3_1 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 3u < M && col0 + 2u < N) { s3_2 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 3u < M && col0 + 3u < N) { s3_3 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 3u < M && col0 + 4u < N) { s3_4 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 3u < M && col0 + 5u < N) { s3_5 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 3u < M && col0 + 6u < N) { s3_6 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 3u < M && col0 + 7u < N) { s3_7 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 4u < M && col0 + 0u < N) { s4_0 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 4u < M && col0 + 1u < N) { s4_1 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 4u < M && col0 + 2u < N) { s4_2 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 4u < M && col0 + 3u < N) { s4_3 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 4u < M && col0 + 4u < N) { s4_4 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 4u < M && col0 + 5u < N) { s4_5 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 4u < M && col0 + 6u < N) { s4_6 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 4u < M && col0 + 7u < N) { s4_7 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 5u < M && col0 + 0u < N) { s5_0 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 5u < M && col0 + 1u < N) { s5_1 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 5u < M && col0 + 2u < N) { s5_2 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 5u < M && col0 + 3u < N) { s5_3 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 5u < M && col0 + 4u < N) { s5_4 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 5u < M && col0 + 5u < N) { s5_5 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 5u < M && col0 + 6u < N) { s5_6 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 5u < M && col0 + 7u < N) { s5_7 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 6u < M && col0 + 0u < N) { s6_0 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 6u < M && col0 + 1u < N) { s6_1 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 6u < M && col0 + 2u < N) { s6_2 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 6u < M && col0 + 3u < N) { s6_3 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 6u < M && col0 + 4u < N) { s6_4 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 6u < M && col0 + 5u < N) { s6_5 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 6u < M && col0 + 6u < N) { s6_6 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 6u < M && col0 + 7u < N) { s6_7 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 7u < M && col0 + 0u < N) { s7_0 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 7u < M && col0 + 1u < N) { s7_1 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 7u < M && col0 + 2u < N) { s7_2 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 7u < M && col0 + 3u < N) { s7_3 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 7u < M && col0 + 4u < N) { s7_4 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 7u < M && col0 + 5u < N) { s7_5 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 7u < M && col0 + 6u < N) { s7_6 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 7u < M && col0 + 7u < N) { s7_7 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 7u]; }
	}
	let lim0 = p.group_in; let lim1 = p.kernel_w;
	var k0 = k_first % lim0;
	var k1 = k_first / lim0 % lim1;
	var k2 = k_first / lim0 / lim1;
	for (var k = k_first; k < k_end; k++) {
		let ky = k2 * p.dilation_h;
		let kx = k1 * p.dilation_w;
		let kb = 0u;
		let kc = k0;
		let y0 = ry0 + ky;
		let x0 = rx0 + kx;
		let ok0 = y0 < p.in_h && x0 < p.in_w;
		let a0 = select(0.0, la(select(0u, ((rb0 + kb + y0) * p.in_w + x0) * p.in_c + rc0 + kc, ok0)), ok0);
		let y1 = ry1 + ky;
		let x1 = rx1 + kx;
		let ok1 = y1 < p.in_h && x1 < p.in_w;
		let a1 = select(0.0, la(select(0u, ((rb1 + kb + y1) * p.in_w + x1) * p.in_c + rc1 + kc, ok1)), ok1);
		let y2 = ry2 + ky;
		let x2 = rx2 + kx;
		let ok2 = y2 < p.in_h && x2 < p.in_w;
		let a2 = select(0.0, la(select(0u, ((rb2 + kb + y2) * p.in_w + x2) * p.in_c + rc2 + kc, ok2)), ok2);
		let y3 = ry3 + ky;
		let x3 = rx3 + kx;
		let ok3 = y3 < p.in_h && x3 < p.in_w;
		let a3 = select(0.0, la(select(0u, ((rb3 + kb + y3) * p.in_w + x3) * p.in_c + rc3 + kc, ok3)), ok3);
		let y4 = ry4 + ky;
		let x4 = rx4 + kx;
		let ok4 = y4 < p.in_h && x4 < p.in_w;
		let a4 = select(0.0, la(select(0u, ((rb4 + kb + y4) * p.in_w + x4) * p.in_c + rc4 + kc, ok4)), ok4);
		let y5 = ry5 + ky;
		let x5 = rx5 + kx;
		let ok5 = y5 < p.in_h && x5 < p.in_w;
		let a5 = select(0.0, la(select(0u, ((rb5 + kb + y5) * p.in_w + x5) * p.in_c + rc5 + kc, ok5)), ok5);
		let y6 = ry6 + ky;
		let x6 = rx6 + kx;
		let ok6 = y6 < p.in_h && x6 < p.in_w;
		let a6 = select(0.0, la(select(0u, ((rb6 + kb + y6) * p.in_w + x6) * p.in_c + rc6 + kc, ok6)), ok6);
		let y7 = ry7 + ky;
		let x7 = rx7 + kx;
		let ok7 = y7 < p.in_h && x7 < p.in_w;
		let a7 = select(0.0, la(select(0u, ((rb7 + kb + y7) * p.in_w + x7) * p.in_c + rc7 + kc, ok7)), ok7);
		let b0 = lbm(k * p.out_c + g * N + c0);
		let b1 = lbm(k * p.out_c + g * N + c1);
		let b2 = lbm(k * p.out_c + g * N + c2);
		let b3 = lbm(k * p.out_c + g * N + c3);
		let b4 = lbm(k * p.out_c + g * N + c4);
		let b5 = lbm(k * p.out_c + g * N + c5);
		let b6 = lbm(k * p.out_c + g * N + c6);
		let b7 = lbm(k * p.out_c + g * N + c7);
		s0_0 = fma(a0, b0, s0_0);
		s0_1 = fma(a0, b1, s0_1);
		s0_2 = fma(a0, b2, s0_2);
		s0_3 = fma(a0, b3, s0_3);
		s0_4 = fma(a0, b4, s0_4);
		s0_5 = fma(a0, b5, s0_5);
		s0_6 = fma(a0, b6, s0_6);
		s0_7 = fma(a0, b7, s0_7);
		s1_0 = fma(a1, b0, s1_0);
		s1_1 = fma(a1, b1, s1_1);
		s1_2 = fma(a1, b2, s1_2);
		s1_3 = fma(a1, b3, s1_3);
		s1_4 = fma(a1, b4, s1_4);
		s1_5 = fma(a1, b5, s1_5);
		s1_6 = fma(a1, b6, s1_6);
		s1_7 = fma(a1, b7, s1_7);
		s2_0 = fma(a2, b0, s2_0);
		s2_1 = fma(a2, b1, s2_1);
		s2_2 = fma(a2, b2, s2_2);
		s2_3 = fma(a2, b3, s2_3);
		s2_4 = fma(a2, b4, s2_4);
		s2_5 = fma(a2, b5, s2_5);
		s2_6 = fma(a2, b6, s2_6);
		s2_7 = fma(a2, b7, s2_7);
		s3_0 = fma(a3, b0, s3_0);
		s3_1 = fma(a3, b1, s3_1);
		s3_2 = fma(a3, b2, s3_2);
		s3_3 = fma(a3, b3, s3_3);
		s3_4 = fma(a3, b4, s3_4);
		s3_5 = fma(a3, b5, s3_5);
		s3_6 = fma(a3, b6, s3_6);
		s3_7 = fma(a3, b7, s3_7);
		s4_0 = fma(a4, b0, s4_0);
		s4_1 = fma(a4, b1, s4_1);
		s4_2 = fma(a4, b2, s4_2);
		s4_3 = fma(a4, b3, s4_3);
		s4_4 = fma(a4, b4, s4_4);
		s4_5 = fma(a4, b5, s4_5);
		s4_6 = fma(a4, b6, s4_6);
		s4_7 = fma(a4, b7, s4_7);
		s5_0 = fma(a5, b0, s5_0);
		s5_1 = fma(a5, b1, s5_1);
		s5_2 = fma(a5, b2, s5_2);
		s5_3 = fma(a5, b3, s5_3);
		s5_4 = fma(a5, b4, s5_4);
		s5_5 = fma(a5, b5, s5_5);
		s5_6 = fma(a5, b6, s5_6);
		s5_7 = fma(a5, b7, s5_7);
		s6_0 = fma(a6, b0, s6_0);
		s6_1 = fma(a6, b1, s6_1);
		s6_2 = fma(a6, b2, s6_2);
		s6_3 = fma(a6, b3, s6_3);
		s6_4 = fma(a6, b4, s6_4);
		s6_5 = fma(a6, b5, s6_5);
		s6_6 = fma(a6, b6, s6_6);
		s6_7 = fma(a6, b7, s6_7);
		s7_0 = fma(a7, b0, s7_0);
		s7_1 = fma(a7, b1, s7_1);
		s7_2 = fma(a7, b2, s7_2);
		s7_3 = fma(a7, b3, s7_3);
		s7_4 = fma(a7, b4, s7_4);
		s7_5 = fma(a7, b5, s7_5);
		s7_6 = fma(a7, b6, s7_6);
		s7_7 = fma(a7, b7, s7_7);
		k0 += 1u;
		let wrap0 = k0 == lim0;
		k0 = select(k0, 0u, wrap0);
		k1 += select(0u, 1u, wrap0);
		let wrap1 = k1 == lim1;
		k1 = select(k1, 0u, wrap1);
		k2 += select(0u, 1u, wrap1);
	}
	if (row0 + 0u < M && col0 + 0u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 0u] = s0_0; }
	if (row0 + 0u < M && col0 + 1u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 1u] = s0_1; }
	if (row0 + 0u < M && col0 + 2u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 2u] = s0_2; }
	if (row0 + 0u < M && col0 + 3u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 3u] = s0_3; }
	if (row0 + 0u < M && col0 + 4u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 4u] = s0_4; }
	if (row0 + 0u < M && col0 + 5u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 5u] = s0_5; }
	if (row0 + 0u < M && col0 + 6u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 6u] = s0_6; }
	if (row0 + 0u < M && col0 + 7u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 7u] = s0_7; }
	if (row0 + 1u < M && col0 + 0u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 0u] = s1_0; }
	if (row0 + 1u < M && col0 + 1u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 1u] = s1_1; }
	if (row0 + 1u < M && col0 + 2u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 2u] = s1_2; }
	if (row0 + 1u < M && col0 + 3u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 3u] = s1_3; }
	if (row0 + 1u < M && col0 + 4u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 4u] = s1_4; }
	if (row0 + 1u < M && col0 + 5u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 5u] = s1_5; }
	if (row0 + 1u < M && col0 + 6u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 6u] = s1_6; }
	if (row0 + 1u < M && col0 + 7u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 7u] = s1_7; }
	if (row0 + 2u < M && col0 + 0u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 0u] = s2_0; }
	if (row0 + 2u < M && col0 + 1u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 1u] = s2_1; }
	if (row0 + 2u < M && col0 + 2u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 2u] = s2_2; }
	if (row0 + 2u < M && col0 + 3u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 3u] = s2_3; }
	if (row0 + 2u < M && col0 + 4u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 4u] = s2_4; }
	if (row0 + 2u < M && col0 + 5u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 5u] = s2_5; }
	if (row0 + 2u < M && col0 + 6u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 6u] = s2_6; }
	if (row0 + 2u < M && col0 + 7u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 7u] = s2_7; }
	if (row0 + 3u < M && col0 + 0u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 0u] = s3_0; }
	if (row0 + 3u < M && col0 + 1u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 1u] = s3_1; }
	if (row0 + 3u < M && col0 + 2u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 2u] = s3_2; }
	if (row0 + 3u < M && col0 + 3u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 3u] = s3_3; }
	if (row0 + 3u < M && col0 + 4u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 4u] = s3_4; }
	if (row0 + 3u < M && col0 + 5u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 5u] = s3_5; }
	if (row0 + 3u < M && col0 + 6u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 6u] = s3_6; }
	if (row0 + 3u < M && col0 + 7u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 7u] = s3_7; }
	if (row0 + 4u < M && col0 + 0u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 0u] = s4_0; }
	if (row0 + 4u < M && col0 + 1u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 1u] = s4_1; }
	if (row0 + 4u < M && col0 + 2u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 2u] = s4_2; }
	if (row0 + 4u < M && col0 + 3u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 3u] = s4_3; }
	if (row0 + 4u < M && col0 + 4u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 4u] = s4_4; }
	if (row0 + 4u < M && col0 + 5u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 5u] = s4_5; }
	if (row0 + 4u < M && col0 + 6u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 6u] = s4_6; }
	if (row0 + 4u < M && col0 + 7u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 7u] = s4_7; }
	if (row0 + 5u < M && col0 + 0u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 0u] = s5_0; }
	if (row0 + 5u < M && col0 + 1u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 1u] = s5_1; }
	if (row0 + 5u < M && col0 + 2u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 2u] = s5_2; }
	if (row0 + 5u < M && col0 + 3u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 3u] = s5_3; }
	if (row0 + 5u < M && col0 + 4u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 4u] = s5_4; }
	if (row0 + 5u < M && col0 + 5u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 5u] = s5_5; }
	if (row0 + 5u < M && col0 + 6u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 6u] = s5_6; }
	if (row0 + 5u < M && col0 + 7u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 7u] = s5_7; }
	if (row0 + 6u < M && col0 + 0u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 0u] = s6_0; }
	if (row0 + 6u < M && col0 + 1u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 1u] = s6_1; }
	if (row0 + 6u < M && col0 + 2u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 2u] = s6_2; }
	if (row0 + 6u < M && col0 + 3u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 3u] = s6_3; }
	if (row0 + 6u < M && col0 + 4u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 4u] = s6_4; }
	if (row0 + 6u < M && col0 + 5u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 5u] = s6_5; }
	if (row0 + 6u < M && col0 + 6u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 6u] = s6_6; }
	if (row0 + 6u < M && col0 + 7u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 7u] = s6_7; }
	if (row0 + 7u < M && col0 + 0u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 0u] = s7_0; }
	if (row0 + 7u < M && col0 + 1u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 1u] = s7_1; }
	if (row0 + 7u < M && col0 + 2u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 2u] = s7_2; }
	if (row0 + 7u < M && col0 + 3u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 3u] = s7_3; }
	if (row0 + 7u < M && col0 + 4u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 4u] = s7_4; }
	if (row0 + 7u < M && col0 + 5u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 5u] = s7_5; }
	if (row0 + 7u < M && col0 + 6u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 6u] = s7_6; }
	if (row0 + 7u < M && col0 + 7u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 7u] = s7_7; }
}
