
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

fn la(i: u32) -> f32 { return load_bf16(a[i >> 1u], i & 1u); }
fn lbm(i: u32) -> vec4<f32> { return load4_bf16(bm[2u * (i)], bm[2u * (i) + 1u]); }
@compute @workgroup_size(8)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let lx = li % 1u; let ly = li / 1u;
	let M = p.m; let N = p.n;
	let g = w.z + p.first_group;
	let k_first = p.k_first; let k_end = p.k_end; let out0 = 0u;
	let row0 = ((w.y + p.first_row) * 8u + ly) * 16u;
	let col0 = ((w.x + p.first_col) * 1u + lx) * 16u;
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
	let ry8 = py8 * p.stride_h - p.pad_top;
	let rx8 = px8 * p.stride_w - p.pad_left;
	let rb8 = pn8 * p.in_h;
	let rc8 = g * p.group_in;
	let ry9 = py9 * p.stride_h - p.pad_top;
	let rx9 = px9 * p.stride_w - p.pad_left;
	let rb9 = pn9 * p.in_h;
	let rc9 = g * p.group_in;
	let ry10 = py10 * p.stride_h - p.pad_top;
	let rx10 = px10 * p.stride_w - p.pad_left;
	let rb10 = pn10 * p.in_h;
	let rc10 = g * p.group_in;
	let ry11 = py11 * p.stride_h - p.pad_top;
	let rx11 = px11 * p.stride_w - p.pad_left;
	let rb11 = pn11 * p.in_h;
	let rc11 = g * p.group_in;
	let ry12 = py12 * p.stride_h - p.pad_top;
	let rx12 = px12 * p.stride_w - p.pad_left;
	let rb12 = pn12 * p.in_h;
	let rc12 = g * p.group_in;
	let ry13 = py13 * p.stride_h - p.pad_top;
	let rx13 = px13 * p.stride_w - p.pad_left;
	let rb13 = pn13 * p.in_h;
	let rc13 = g * p.group_in;
	let ry14 = py14 * p.stride_h - p.pad_top;
	let rx14 = px14 * p.stride_w - p.pad_left;
	let rb14 = pn14 * p.in_h;
	let rc14 = g * p.group_in;
	let ry15 = py15 * p.stride_h - p.pad_top;
	let rx15 = px15 * p.stride_w - p.pad_left;
	let rb15 = pn15 * p.in_h;
	let rc15 = g * p.group_in;
	let c0 = min(col0 + 0u, N - 1u);
	let c1 = min(col0 + 1u, N - 1u);
	let c2 = min(col0 + 2u, N - 1u);
	let c3 = min(col0 + 3u, N - 1u);
	let c4 = min(col0 + 4u, N - 1u);
	let c5 = min(col0 + 5u, N - 1u);
	let c6 = min(col0 + 6u, N - 1u);
	let c7 = min(col0 + 7u, N - 1u);
	let c8 = min(col0 + 8u, N - 1u);
	let c9 = min(col0 + 9u, N - 1u);
	let c10 = min(col0 + 10u, N - 1u);
	let c11 = min(col0 + 11u, N - 1u);
	let c12 = min(col0 + 12u, N - 1u);
	let c13 = min(col0 + 13u, N - 1u);
	let c14 = min(col0 + 14u, N - 1u);
	let c15 = min(col0 + 15u, N - 1u);
	var s0_0 = 0.0;
	var s0_1 = 0.0;
	var s0_2 = 0.0;
	var s0_3 = 0.0;
	var s0_4 = 0.0;
	var s0_5 = 0.0;
	var s0_6 = 0.0;
	var s0_7 = 0.0;
	var s0_8 = 0.0;
	var s0_9 = 0.0;
	var s0_10 = 0.0;
	var s0_11 = 0.0;
	var s0_12 = 0.0;
	var s0_13 = 0.0;
	var s0_14 = 0.0;
	var s0_15 = 0.0;
	var s1_0 = 0.0;
	var s1_1 = 0.0;
	var s1_2 = 0.0;
	var s1_3 = 0.0;
	var s1_4 = 0.0;
	var s1_5 = 0.0;
	var s1_6 = 0.0;
	var s1_7 = 0.0;
	var s1_8 = 0.0;
	var s1_9 = 0.0;
	var s1_10 = 0.0;
	var s1_11 = 0.0;
	var s1_12 = 0.0;
	var s1_13 = 0.0;
	var s1_14 = 0.0;
	var s1_15 = 0.0;
	var s2_0 = 0.0;
	var s2_1 = 0.0;
	var s2_2 = 0.0;
	var s2_3 = 0.0;
	var s2_4 = 0.0;
	var s2_5 = 0.0;
	var s2_6 = 0.0;
	var s2_7 = 0.0;
	var s2_8 = 0.0;
	var s2_9 = 0.0;
	var s2_10 = 0.0;
	var s2_11 = 0.0;
	var s2_12 = 0.0;
	var s2_13 = 0.0;
	var s2_14 = 0.0;
	var s2_15 = 0.0;
	var s3_0 = 0.0;
	var s3_1 = 0.0;
	var s3_2 = 0.0;
	var s3_3 = 0.0;
	var s3_4 = 0.0;
	var s3_5 = 0.0;
	var s3_6 = 0.0;
	var s3_7 = 0.0;
	var s3_8 = 0.0;
	var s3_9 = 0.0;
	var s3_10 = 0.0;
	var s3_11 = 0.0;
	var s3_12 = 0.0;
	var s3_13 = 0.0;
	var s3_14 = 0.0;
	var s3_15 = 0.0;
	var s4_0 = 0.0;
	var s4_1 = 0.0;
	var s4_2 = 0.0;
	var s4_3 = 0.0;
	var s4_4 = 0.0;
	var s4_5 = 0.0;
	var s4_6 = 0.0;
	var s4_7 = 0.0;
	var s4_8 = 0.0;
	var s4_9 = 0.0;
	var s4_10 = 0.0;
	var s4_11 = 0.0;
	var s4_12 = 0.0;
	var s4_13 = 0.0;
	var s4_14 = 0.0;
	var s4_15 = 0.0;
	var s5_0 = 0.0;
	var s5_1 = 0.0;
	var s5_2 = 0.0;
	var s5_3 = 0.0;
	var s5_4 = 0.0;
	var s5_5 = 0.0;
	var s5_6 = 0.0;
	var s5_7 = 0.0;
	var s5_8 = 0.0;
	var s5_9 = 0.0;
	var s5_10 = 0.0;
	var s5_11 = 0.0;
	var s5_12 = 0.0;
	var s5_13 = 0.0;
	var s5_14 = 0.0;
	var s5_15 = 0.0;
	var s6_0 = 0.0;
	var s6_1 = 0.0;
	var s6_2 = 0.0;
	var s6_3 = 0.0;
	var s6_4 = 0.0;
	var s6_5 = 0.0;
	var s6_6 = 0.0;
	var s6_7 = 0.0;
	var s6_8 = 0.0;
	var s6_9 = 0.0;
	var s6_10 = 0.0;
	var s6_11 = 0.0;
	var s6_12 = 0.0;
	var s6_13 = 0.0;
	var s6_14 = 0.0;
	var s6_15 = 0.0;
	var s7_0 = 0.0;
	var s7_1 = 0.0;
	var s7_2 = 0.0;
	var s7_3 = 0.0;
	var s7_4 = 0.0;
	var s7_5 = 0.0;
	var s7_6 = 0.0;
	var s7_7 = 0.0;
	var s7_8 = 0.0;
	var s7_9 = 0.0;
	var s7_10 = 0.0;
	var s7_11 = 0.0;
	var s7_12 = 0.0;
	var s7_13 = 0.0;
	var s7_14 = 0.0;
	var s7_15 = 0.0;
	var s8_0 = 0.0;
	var s8_1 = 0.0;
	var s8_2 = 0.0;
	var s8_3 = 0.0;
	var s8_4 = 0.0;
	var s8_5 = 0.0;
	var s8_6 = 0.0;
	var s8_7 = 0.0;
	var s8_8 = 0.0;
	var s8_9 = 0.0;
	var s8_10 = 0.0;
	var s8_11 = 0.0;
	var s8_12 = 0.0;
	var s8_13 = 0.0;
	var s8_14 = 0.0;
	var s8_15 = 0.0;
	var s9_0 = 0.0;
	var s9_1 = 0.0;
	var s9_2 = 0.0;
	var s9_3 = 0.0;
	var s9_4 = 0.0;
	var s9_5 = 0.0;
	var s9_6 = 0.0;
	var s9_7 = 0.0;
	var s9_8 = 0.0;
	var s9_9 = 0.0;
	var s9_10 = 0.0;
	var s9_11 = 0.0;
	var s9_12 = 0.0;
	var s9_13 = 0.0;
	var s9_14 = 0.0;
	var s9_15 = 0.0;
	var s10_0 = 0.0;
	var s10_1 = 0.0;
	var s10_2 = 0.0;
	var s10_3 = 0.0;
	var s10_4 = 0.0;
	var s10_5 = 0.0;
	var s10_6 = 0.0;
	var s10_7 = 0.0;
	var s10_8 = 0.0;
	var s10_9 = 0.0;
	var s10_10 = 0.0;
	var s10_11 = 0.0;
	var s10_12 = 0.0;
	var s10_13 = 0.0;
	var s10_14 = 0.0;
	var s10_15 = 0.0;
	var s11_0 = 0.0;
	var s11_1 = 0.0;
	var s11_2 = 0.0;
	var s11_3 = 0.0;
	var s11_4 = 0.0;
	var s11_5 = 0.0;
	var s11_6 = 0.0;
	var s11_7 = 0.0;
	var s11_8 = 0.0;
	var s11_9 = 0.0;
	var s11_10 = 0.0;
	var s11_11 = 0.0;
	var s11_12 = 0.0;
	var s11_13 = 0.0;
	var s11_14 = 0.0;
	var s11_15 = 0.0;
	var s12_0 = 0.0;
	var s12_1 = 0.0;
	var s12_2 = 0.0;
	var s12_3 = 0.0;
	var s12_4 = 0.0;
	var s12_5 = 0.0;
	var s12_6 = 0.0;
	var s12_7 = 0.0;
	var s12_8 = 0.0;
	var s12_9 = 0.0;
	var s12_10 = 0.0;
	var s12_11 = 0.0;
	var s12_12 = 0.0;
	var s12_13 = 0.0;
	var s12_14 = 0.0;
	var s12_15 = 0.0;
	var s13_0 = 0.0;
	var s13_1 = 0.0;
	var s13_2 = 0.0;
	var s13_3 = 0.0;
	var s13_4 = 0.0;
	var s13_5 = 0.0;
	var s13_6 = 0.0;
	var s13_7 = 0.0;
	var s13_8 = 0.0;
	var s13_9 = 0.0;
	var s13_10 = 0.0;
	var s13_11 = 0.0;
	var s13_12 = 0.0;
	var s13_13 = 0.0;
	var s13_14 = 0.0;
	var s13_15 = 0.0;
	var s14_0 = 0.0;
	var s14_1 = 0.0;
	var s14_2 = 0.0;
	var s14_3 = 0.0;
	var s14_4 = 0.0;
	var s14_5 = 0.0;
	var s14_6 = 0.0;
	var s14_7 = 0.0;
	var s14_8 = 0.0;
	var s14_9 = 0.0;
	var s14_10 = 0.0;
	var s14_11 = 0.0;
	var s14_12 = 0.0;
	var s14_13 = 0.0;
	var s14_14 = 0.0;
	var s14_15 = 0.0;
	var s15_0 = 0.0;
	var s15_1 = 0.0;
	var s15_2 = 0.0;
	var s15_3 = 0.0;
	var s15_4 = 0.0;
	var s15_5 = 0.0;
	var s15_6 = 0.0;
	var s15_7 = 0.0;
	var s15_8 = 0.0;
	var s15_9 = 0.0;
	var s15_10 = 0.0;
	var s15_11 = 0.0;
	var s15_12 = 0.0;
	var s15_13 = 0.0;
	var s15_14 = 0.0;
	var s15_15 = 0.0;
	if (p.k_first > 0u) {
		if (row0 + 0u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 0u) * cstride + g * N + col0) / 4u + 0u];
			s0_0 = v0.x;
			s0_1 = v0.y;
			s0_2 = v0.z;
			s0_3 = v0.w;
			let v1 = c[(out0 + (row0 + 0u) * cstride + g * N + col0) / 4u + 1u];
			s0_4 = v1.x;
			s0_5 = v1.y;
			s0_6 = v1.z;
			s0_7 = v1.w;
			let v2 = c[(out0 + (row0 + 0u) * cstride + g * N + col0) / 4u + 2u];
			s0_8 = v2.x;
			s0_9 = v2.y;
			s0_10 = v2.z;
			s0_11 = v2.w;
			let v3 = c[(out0 + (row0 + 0u) * cstride + g * N + col0) / 4u + 3u];
			s0_12 = v3.x;
			s0_13 = v3.y;
			s0_14 = v3.z;
			s0_15 = v3.w;
		}
		if (row0 + 1u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 1u) * cstride + g * N + col0) / 4u + 0u];
			s1_0 = v0.x;
			s1_1 = v0.y;
			s1_2 = v0.z;
			s1_3 = v0.w;
			let v1 = c[(out0 + (row0 + 1u) * cstride + g * N + col0) / 4u + 1u];
			s1_4 = v1.x;
			s1_5 = v1.y;
			s1_6 = v1.z;
			s1_7 = v1.w;
			let v2 = c[(out0 + (row0 + 1u) * cstride + g * N + col0) / 4u + 2u];
			s1_8 = v2.x;
			s1_9 = v2.y;
			s1_10 = v2.z;
			s1_11 = v2.w;
			let v3 = c[(out0 + (row0 + 1u) * cstride + g * N + col0) / 4u + 3u];
			s1_12 = v3.x;
			s1_13 = v3.y;
			s1_14 = v3.z;
			s1_15 = v3.w;
		}
		if (row0 + 2u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 2u) * cstride + g * N + col0) / 4u + 0u];
			s2_0 = v0.x;
			s2_1 = v0.y;
			s2_2 = v0.z;
			s2_3 = v0.w;
			let v1 = c[(out0 + (row0 + 2u) * cstride + g * N + col0) / 4u + 1u];
			s2_4 = v1.x;
			s2_5 = v1.y;
			s2_6 = v1.z;
			s2_7 = v1.w;
			let v2 = c[(out0 + (row0 + 2u) * cstride + g * N + col0) / 4u + 2u];
			s2_8 = v2.x;
			s2_9 = v2.y;
			s2_10 = v2.z;
			s2_11 = v2.w;
			let v3 = c[(out0 + (row0 + 2u) * cstride + g * N + col0) / 4u + 3u];
			s2_12 = v3.x;
			s2_13 = v3.y;
			s2_14 = v3.z;
			s2_15 = v3.w;
		}
		if (row0 + 3u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 3u) * cstride + g * N + col0) / 4u + 0u];
			s3_0 = v0.x;
			s3_1 = v0.y;
			s3_2 = v0.z;
			s3_3 = v0.w;
			let v1 = c[(out0 + (row0 + 3u) * cstride + g * N + col0) / 4u + 1u];
			s3_4 = v1.x;
			s3_5 = v1.y;
			s3_6 = v1.z;
			s3_7 = v1.w;
			let v2 = c[(out0 + (row0 + 3u) * cstride + g * N + col0) / 4u + 2u];
			s3_8 = v2.x;
			s3_9 = v2.y;
			s3_10 = v2.z;
			s3_11 = v2.w;
			let v3 = c[(out0 + (row0 + 3u) * cstride + g * N + col0) / 4u + 3u];
			s3_12 = v3.x;
			s3_13 = v3.y;
			s3_14 = v3.z;
			s3_15 = v3.w;
		}
		if (row0 + 4u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 4u) * cstride + g * N + col0) / 4u + 0u];
			s4_0 = v0.x;
			s4_1 = v0.y;
			s4_2 = v0.z;
			s4_3 = v0.w;
			let v1 = c[(out0 + (row0 + 4u) * cstride + g * N + col0) / 4u + 1u];
			s4_4 = v1.x;
			s4_5 = v1.y;
			s4_6 = v1.z;
			s4_7 = v1.w;
			let v2 = c[(out0 + (row0 + 4u) * cstride + g * N + col0) / 4u + 2u];
			s4_8 = v2.x;
			s4_9 = v2.y;
			s4_10 = v2.z;
			s4_11 = v2.w;
			let v3 = c[(out0 + (row0 + 4u) * cstride + g * N + col0) / 4u + 3u];
			s4_12 = v3.x;
			s4_13 = v3.y;
			s4_14 = v3.z;
			s4_15 = v3.w;
		}
		if (row0 + 5u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 5u) * cstride + g * N + col0) / 4u + 0u];
			s5_0 = v0.x;
			s5_1 = v0.y;
			s5_2 = v0.z;
			s5_3 = v0.w;
			let v1 = c[(out0 + (row0 + 5u) * cstride + g * N + col0) / 4u + 1u];
			s5_4 = v1.x;
			s5_5 = v1.y;
			s5_6 = v1.z;
			s5_7 = v1.w;
			let v2 = c[(out0 + (row0 + 5u) * cstride + g * N + col0) / 4u + 2u];
			s5_8 = v2.x;
			s5_9 = v2.y;
			s5_10 = v2.z;
			s5_11 = v2.w;
			let v3 = c[(out0 + (row0 + 5u) * cstride + g * N + col0) / 4u + 3u];
			s5_12 = v3.x;
			s5_13 = v3.y;
			s5_14 = v3.z;
			s5_15 = v3.w;
		}
		if (row0 + 6u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 6u) * cstride + g * N + col0) / 4u + 0u];
			s6_0 = v0.x;
			s6_1 = v0.y;
			s6_2 = v0.z;
			s6_3 = v0.w;
			let v1 = c[(out0 + (row0 + 6u) * cstride + g * N + col0) / 4u + 1u];
			s6_4 = v1.x;
			s6_5 = v1.y;
			s6_6 = v1.z;
			s6_7 = v1.w;
			let v2 = c[(out0 + (row0 + 6u) * cstride + g * N + col0) / 4u + 2u];
			s6_8 = v2.x;
			s6_9 = v2.y;
			s6_10 = v2.z;
			s6_11 = v2.w;
			let v3 = c[(out0 + (row0 + 6u) * cstride + g * N + col0) / 4u + 3u];
			s6_12 = v3.x;
			s6_13 = v3.y;
			s6_14 = v3.z;
			s6_15 = v3.w;
		}
		if (row0 + 7u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 7u) * cstride + g * N + col0) / 4u + 0u];
			s7_0 = v0.x;
			s7_1 = v0.y;
			s7_2 = v0.z;
			s7_3 = v0.w;
			let v1 = c[(out0 + (row0 + 7u) * cstride + g * N + col0) / 4u + 1u];
			s7_4 = v1.x;
			s7_5 = v1.y;
			s7_6 = v1.z;
			s7_7 = v1.w;
			let v2 = c[(out0 + (row0 + 7u) * cstride + g * N + col0) / 4u + 2u];
			s7_8 = v2.x;
			s7_9 = v2.y;
			s7_10 = v2.z;
			s7_11 = v2.w;
			let v3 = c[(out0 + (row0 + 7u) * cstride + g * N + col0) / 4u + 3u];
			s7_12 = v3.x;
			s7_13 = v3.y;
			s7_14 = v3.z;
			s7_15 = v3.w;
		}
		if (row0 + 8u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 8u) * cstride + g * N + col0) / 4u + 0u];
			s8_0 = v0.x;
			s8_1 = v0.y;
			s8_2 = v0.z;
			s8_3 = v0.w;
			let v1 = c[(out0 + (row0 + 8u) * cstride + g * N + col0) / 4u + 1u];
			s8_4 = v1.x;
			s8_5 = v1.y;
			s8_6 = v1.z;
			s8_7 = v1.w;
			let v2 = c[(out0 + (row0 + 8u) * cstride + g * N + col0) / 4u + 2u];
			s8_8 = v2.x;
			s8_9 = v2.y;
			s8_10 = v2.z;
			s8_11 = v2.w;
			let v3 = c[(out0 + (row0 + 8u) * cstride + g * N + col0) / 4u + 3u];
			s8_12 = v3.x;
			s8_13 = v3.y;
			s8_14 = v3.z;
			s8_15 = v3.w;
		}
		if (row0 + 9u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 9u) * cstride + g * N + col0) / 4u + 0u];
			s9_0 = v0.x;
			s9_1 = v0.y;
			s9_2 = v0.z;
			s9_3 = v0.w;
			let v1 = c[(out0 + (row0 + 9u) * cstride + g * N + col0) / 4u + 1u];
			s9_4 = v1.x;
			s9_5 = v1.y;
			s9_6 = v1.z;
			s9_7 = v1.w;
			let v2 = c[(out0 + (row0 + 9u) * cstride + g * N + col0) / 4u + 2u];
			s9_8 = v2.x;
			s9_9 = v2.y;
			s9_10 = v2.z;
			s9_11 = v2.w;
			let v3 = c[(out0 + (row0 + 9u) * cstride + g * N + col0) / 4u + 3u];
			s9_12 = v3.x;
			s9_13 = v3.y;
			s9_14 = v3.z;
			s9_15 = v3.w;
		}
		if (row0 + 10u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 10u) * cstride + g * N + col0) / 4u + 0u];
			s10_0 = v0.x;
			s10_1 = v0.y;
			s10_2 = v0.z;
			s10_3 = v0.w;
			let v1 = c[(out0 + (row0 + 10u) * cstride + g * N + col0) / 4u + 1u];
			s10_4 = v1.x;
			s10_5 = v1.y;
			s10_6 = v1.z;
			s10_7 = v1.w;
			let v2 = c[(out0 + (row0 + 10u) * cstride + g * N + col0) / 4u + 2u];
			s10_8 = v2.x;
			s10_9 = v2.y;
			s10_10 = v2.z;
			s10_11 = v2.w;
			let v3 = c[(out0 + (row0 + 10u) * cstride + g * N + col0) / 4u + 3u];
			s10_12 = v3.x;
			s10_13 = v3.y;
			s10_14 = v3.z;
			s10_15 = v3.w;
		}
		if (row0 + 11u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 11u) * cstride + g * N + col0) / 4u + 0u];
			s11_0 = v0.x;
			s11_1 = v0.y;
			s11_2 = v0.z;
			s11_3 = v0.w;
			let v1 = c[(out0 + (row0 + 11u) * cstride + g * N + col0) / 4u + 1u];
			s11_4 = v1.x;
			s11_5 = v1.y;
			s11_6 = v1.z;
			s11_7 = v1.w;
			let v2 = c[(out0 + (row0 + 11u) * cstride + g * N + col0) / 4u + 2u];
			s11_8 = v2.x;
			s11_9 = v2.y;
			s11_10 = v2.z;
			s11_11 = v2.w;
			let v3 = c[(out0 + (row0 + 11u) * cstride + g * N + col0) / 4u + 3u];
			s11_12 = v3.x;
			s11_13 = v3.y;
			s11_14 = v3.z;
			s11_15 = v3.w;
		}
		if (row0 + 12u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 12u) * cstride + g * N + col0) / 4u + 0u];
			s12_0 = v0.x;
			s12_1 = v0.y;
			s12_2 = v0.z;
			s12_3 = v0.w;
			let v1 = c[(out0 + (row0 + 12u) * cstride + g * N + col0) / 4u + 1u];
			s12_4 = v1.x;
			s12_5 = v1.y;
			s12_6 = v1.z;
			s12_7 = v1.w;
			let v2 = c[(out0 + (row0 + 12u) * cstride + g * N + col0) / 4u + 2u];
			s12_8 = v2.x;
			s12_9 = v2.y;
			s12_10 = v2.z;
			s12_11 = v2.w;
			let v3 = c[(out0 + (row0 + 12u) * cstride + g * N + col0) / 4u + 3u];
			s12_12 = v3.x;
			s12_13 = v3.y;
			s12_14 = v3.z;
			s12_15 = v3.w;
		}
		if (row0 + 13u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 13u) * cstride + g * N + col0) / 4u + 0u];
			s13_0 = v0.x;
			s13_1 = v0.y;
			s13_2 = v0.z;
			s13_3 = v0.w;
			let v1 = c[(out0 + (row0 + 13u) * cstride + g * N + col0) / 4u + 1u];
			s13_4 = v1.x;
			s13_5 = v1.y;
			s13_6 = v1.z;
			s13_7 = v1.w;
			let v2 = c[(out0 + (row0 + 13u) * cstride + g * N + col0) / 4u + 2u];
			s13_8 = v2.x;
			s13_9 = v2.y;
			s13_10 = v2.z;
			s13_11 = v2.w;
			let v3 = c[(out0 + (row0 + 13u) * cstride + g * N + col0) / 4u + 3u];
			s13_12 = v3.x;
			s13_13 = v3.y;
			s13_14 = v3.z;
			s13_15 = v3.w;
		}
		if (row0 + 14u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 14u) * cstride + g * N + col0) / 4u + 0u];
			s14_0 = v0.x;
			s14_1 = v0.y;
			s14_2 = v0.z;
			s14_3 = v0.w;
			let v1 = c[(out0 + (row0 + 14u) * cstride + g * N + col0) / 4u + 1u];
			s14_4 = v1.x;
			s14_5 = v1.y;
			s14_6 = v1.z;
			s14_7 = v1.w;
			let v2 = c[(out0 + (row0 + 14u) * cstride + g * N + col0) / 4u + 2u];
			s14_8 = v2.x;
			s14_9 = v2.y;
			s14_10 = v2.z;
			s14_11 = v2.w;
			let v3 = c[(out0 + (row0 + 14u) * cstride + g * N + col0) / 4u + 3u];
			s14_12 = v3.x;
			s14_13 = v3.y;
			s14_14 = v3.z;
			s14_15 = v3.w;
		}
		if (row0 + 15u < M && col0 < N) {
			let v0 = c[(out0 + (row0 + 15u) * cstride + g * N + col0) / 4u + 0u];
			s15_0 = v0.x;
			s15_1 = v0.y;
			s15_2 = v0.z;
			s15_3 = v0.w;
			let v1 = c[(out0 + (row0 + 15u) * cstride + g * N + col0) / 4u + 1u];
			s15_4 = v1.x;
			s15_5 = v1.y;
			s15_6 = v1.z;
			s15_7 = v1.w;
			let v2 = c[(out0 + (row0 + 15u) * cstride + g * N + col0) / 4u + 2u];
			s15_8 = v2.x;
			s15_9 = v2.y;
			s15_10 = v2.z;
			s15_11 = v2.w;
			let v3 = c[(out0 + (row0 + 15u) * cstride + g * N + col0) / 4u + 3u];
			s15_12 = v3.x;
			s15_13 = v3.y;
			s15_14 = v3.z;
			s15_15 = v3.w;
		}
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
		let y8 = ry8 + ky;
		let x8 = rx8 + kx;
		let ok8 = y8 < p.in_h && x8 < p.in_w;
		let a8 = select(0.0, la(select(0u, ((rb8 + kb + y8) * p.in_w + x8) * p.in_c + rc8 + kc, ok8)), ok8);
		let y9 = ry9 + ky;
		let x9 = rx9 + kx;
		let ok9 = y9 < p.in_h && x9 < p.in_w;
		let a9 = select(0.0, la(select(0u, ((rb9 + kb + y9) * p.in_w + x9) * p.in_c + rc9 + kc, ok9)), ok9);
		let y10 = ry10 + ky;
		let x10 = rx10 + kx;
		let ok10 = y10 < p.in_h && x10 < p.in_w;
		let a10 = select(0.0, la(select(0u, ((rb10 + kb + y10) * p.in_w + x10) * p.in_c + rc10 + kc, ok10)), ok10);
		let y11 = ry11 + ky;
		let x11 = rx11 + kx;
		let ok11 = y11 < p.in_h && x11 < p.in_w;
		let a11 = select(0.0, la(select(0u, ((rb11 + kb + y11) * p.in_w + x11) * p.in_c + rc11 + kc, ok11)), ok11);
		let y12 = ry12 + ky;
		let x12 = rx12 + kx;
		let ok12 = y12 < p.in_h && x12 < p.in_w;
		let a12 = select(0.0, la(select(0u, ((rb12 + kb + y12) * p.in_w + x12) * p.in_c + rc12 + kc, ok12)), ok12);
		let y13 = ry13 + ky;
		let x13 = rx13 + kx;
		let ok13 = y13 < p.in_h && x13 < p.in_w;
		let a13 = select(0.0, la(select(0u, ((rb13 + kb + y13) * p.in_w + x13) * p.in_c + rc13 + kc, ok13)), ok13);
		let y14 = ry14 + ky;
		let x14 = rx14 + kx;
		let ok14 = y14 < p.in_h && x14 < p.in_w;
		let a14 = select(0.0, la(select(0u, ((rb14 + kb + y14) * p.in_w + x14) * p.in_c + rc14 + kc, ok14)), ok14);
		let y15 = ry15 + ky;
		let x15 = rx15 + kx;
		let ok15 = y15 < p.in_h && x15 < p.in_w;
		let a15 = select(0.0, la(select(0u, ((rb15 + kb + y15) * p.in_w + x15) * p.in_c + rc15 + kc, ok15)), ok15);
		let bq = (k * p.out_c + g * N + min(col0, N - 16u)) / 4u;
		let bv0 = lbm(bq + 0u);
		let b0 = bv0.x;
		let b1 = bv0.y;
		let b2 = bv0.z;
		let b3 = bv0.w;
		let bv1 = lbm(bq + 1u);
		let b4 = bv1.x;
		let b5 = bv1.y;
		let b6 = bv1.z;
		let b7 = bv1.w;
		let bv2 = lbm(bq + 2u);
		let b8 = bv2.x;
		let b9 = bv2.y;
		let b10 = bv2.z;
		let b11 = bv2.w;
		let bv3 = lbm(bq + 3u);
		let b12 = bv3.x;
		let b13 = bv3.y;
		let b14 = bv3.z;
		let b15 = bv3.w;
		s0_0 = fma(a0, b0, s0_0);
		s0_1 = fma(a0, b1, s0_1);
		s0_2 = fma(a0, b2, s0_2);
		s0_3 = fma(a0, b3, s0_3);
		s0_4 = fma(a0, b4, s0_4);
		s0_5 = fma(a0, b5, s0_5);
		s0_6 = fma(a0, b6, s0_6);
		s0_7 = fma(a0, b7, s0_7);
		s0_8 = fma(a0, b8, s0_8);
		s0_9 = fma(a0, b9, s0_9);
		s0_10 = fma(a0, b10, s0_10);
		s0_11 = fma(a0, b11, s0_11);
		s0_12 = fma(a0, b12, s0_12);
		s0_13 = fma(a0, b13, s0_13);
		s0_14 = fma(a0, b14, s0_14);
		s0_15 = fma(a0, b15, s0_15);
		s1_0 = fma(a1, b0, s1_0);
		s1_1 = fma(a1, b1, s1_1);
		s1_2 = fma(a1, b2, s1_2);
		s1_3 = fma(a1, b3, s1_3);
		s1_4 = fma(a1, b4, s1_4);
		s1_5 = fma(a1, b5, s1_5);
		s1_6 = fma(a1, b6, s1_6);
		s1_7 = fma(a1, b7, s1_7);
		s1_8 = fma(a1, b8, s1_8);
		s1_9 = fma(a1, b9, s1_9);
		s1_10 = fma(a1, b10, s1_10);
		s1_11 = fma(a1, b11, s1_11);
		s1_12 = fma(a1, b12, s1_12);
		s1_13 = fma(a1, b13, s1_13);
		s1_14 = fma(a1, b14, s1_14);
		s1_15 = fma(a1, b15, s1_15);
		s2_0 = fma(a2, b0, s2_0);
		s2_1 = fma(a2, b1, s2_1);
		s2_2 = fma(a2, b2, s2_2);
		s2_3 = fma(a2, b3, s2_3);
		s2_4 = fma(a2, b4, s2_4);
		s2_5 = fma(a2, b5, s2_5);
		s2_6 = fma(a2, b6, s2_6);
		s2_7 = fma(a2, b7, s2_7);
		s2_8 = fma(a2, b8, s2_8);
		s2_9 = fma(a2, b9, s2_9);
		s2_10 = fma(a2, b10, s2_10);
		s2_11 = fma(a2, b11, s2_11);
		s2_12 = fma(a2, b12, s2_12);
		s2_13 = fma(a2, b13, s2_13);
		s2_14 = fma(a2, b14, s2_14);
		s2_15 = fma(a2, b15, s2_15);
		s3_0 = fma(a3, b0, s3_0);
		s3_1 = fma(a3, b1, s3_1);
		s3_2 = fma(a3, b2, s3_2);
		s3_3 = fma(a3, b3, s3_3);
		s3_4 = fma(a3, b4, s3_4);
		s3_5 = fma(a3, b5, s3_5);
		s3_6 = fma(a3, b6, s3_6);
		s3_7 = fma(a3, b7, s3_7);
		s3_8 = fma(a3, b8, s3_8);
		s3_9 = fma(a3, b9, s3_9);
		s3_10 = fma(a3, b10, s3_10);
		s3_11 = fma(a3, b11, s3_11);
		s3_12 = fma(a3, b12, s3_12);
		s3_13 = fma(a3, b13, s3_13);
		s3_14 = fma(a3, b14, s3_14);
		s3_15 = fma(a3, b15, s3_15);
		s4_0 = fma(a4, b0, s4_0);
		s4_1 = fma(a4, b1, s4_1);
		s4_2 = fma(a4, b2, s4_2);
		s4_3 = fma(a4, b3, s4_3);
		s4_4 = fma(a4, b4, s4_4);
		s4_5 = fma(a4, b5, s4_5);
		s4_6 = fma(a4, b6, s4_6);
		s4_7 = fma(a4, b7, s4_7);
		s4_8 = fma(a4, b8, s4_8);
		s4_9 = fma(a4, b9, s4_9);
		s4_10 = fma(a4, b10, s4_10);
		s4_11 = fma(a4, b11, s4_11);
		s4_12 = fma(a4, b12, s4_12);
		s4_13 = fma(a4, b13, s4_13);
		s4_14 = fma(a4, b14, s4_14);
		s4_15 = fma(a4, b15, s4_15);
		s5_0 = fma(a5, b0, s5_0);
		s5_1 = fma(a5, b1, s5_1);
		s5_2 = fma(a5, b2, s5_2);
		s5_3 = fma(a5, b3, s5_3);
		s5_4 = fma(a5, b4, s5_4);
		s5_5 = fma(a5, b5, s5_5);
		s5_6 = fma(a5, b6, s5_6);
		s5_7 = fma(a5, b7, s5_7);
		s5_8 = fma(a5, b8, s5_8);
		s5_9 = fma(a5, b9, s5_9);
		s5_10 = fma(a5, b10, s5_10);
		s5_11 = fma(a5, b11, s5_11);
		s5_12 = fma(a5, b12, s5_12);
		s5_13 = fma(a5, b13, s5_13);
		s5_14 = fma(a5, b14, s5_14);
		s5_15 = fma(a5, b15, s5_15);
		s6_0 = fma(a6, b0, s6_0);
		s6_1 = fma(a6, b1, s6_1);
		s6_2 = fma(a6, b2, s6_2);
		s6_3 = fma(a6, b3, s6_3);
		s6_4 = fma(a6, b4, s6_4);
		s6_5 = fma(a6, b5, s6_5);
		s6_6 = fma(a6, b6, s6_6);
		s6_7 = fma(a6, b7, s6_7);
		s6_8 = fma(a6, b8, s6_8);
		s6_9 = fma(a6, b9, s6_9);
		s6_10 = fma(a6, b10, s6_10);
		s6_11 = fma(a6, b11, s6_11);
		s6_12 = fma(a6, b12, s6_12);
		s6_13 = fma(a6, b13, s6_13);
		s6_14 = fma(a6, b14, s6_14);
		s6_15 = fma(a6, b15, s6_15);
		s7_0 = fma(a7, b0, s7_0);
		s7_1 = fma(a7, b1, s7_1);
		s7_2 = fma(a7, b2, s7_2);
		s7_3 = fma(a7, b3, s7_3);
		s7_4 = fma(a7, b4, s7_4);
		s7_5 = fma(a7, b5, s7_5);
		s7_6 = fma(a7, b6, s7_6);
		s7_7 = fma(a7, b7, s7_7);
		s7_8 = fma(a7, b8, s7_8);
		s7_9 = fma(a7, b9, s7_9);
		s7_10 = fma(a7, b10, s7_10);
		s7_11 = fma(a7, b11, s7_11);
		s7_12 = fma(a7, b12, s7_12);
		s7_13 = fma(a7, b13, s7_13);
		s7_14 = fma(a7, b14, s7_14);
		s7_15 = fma(a7, b15, s7_15);
		s8_0 = fma(a8, b0, s8_0);
		s8_1 = fma(a8, b1, s8_1);
		s8_2 = fma(a8, b2, s8_2);
		s8_3 = fma(a8, b3, s8_3);
		s8_4 = fma(a8, b4, s8_4);
		s8_5 = fma(a8, b5, s8_5);
		s8_6 = fma(a8, b6, s8_6);
		s8_7 = fma(a8, b7, s8_7);
		s8_8 = fma(a8, b8, s8_8);
		s8_9 = fma(a8, b9, s8_9);
		s8_10 = fma(a8, b10, s8_10);
		s8_11 = fma(a8, b11, s8_11);
		s8_12 = fma(a8, b12, s8_12);
		s8_13 = fma(a8, b13, s8_13);
		s8_14 = fma(a8, b14, s8_14);
		s8_15 = fma(a8, b15, s8_15);
		s9_0 = fma(a9, b0, s9_0);
		s9_1 = fma(a9, b1, s9_1);
		s9_2 = fma(a9, b2, s9_2);
		s9_3 = fma(a9, b3, s9_3);
		s9_4 = fma(a9, b4, s9_4);
		s9_5 = fma(a9, b5, s9_5);
		s9_6 = fma(a9, b6, s9_6);
		s9_7 = fma(a9, b7, s9_7);
		s9_8 = fma(a9, b8, s9_8);
		s9_9 = fma(a9, b9, s9_9);
		s9_10 = fma(a9, b10, s9_10);
		s9_11 = fma(a9, b11, s9_11);
		s9_12 = fma(a9, b12, s9_12);
		s9_13 = fma(a9, b13, s9_13);
		s9_14 = fma(a9, b14, s9_14);
		s9_15 = fma(a9, b15, s9_15);
		s10_0 = fma(a10, b0, s10_0);
		s10_1 = fma(a10, b1, s10_1);
		s10_2 = fma(a10, b2, s10_2);
		s10_3 = fma(a10, b3, s10_3);
		s10_4 = fma(a10, b4, s10_4);
		s10_5 = fma(a10, b5, s10_5);
		s10_6 = fma(a10, b6, s10_6);
		s10_7 = fma(a10, b7, s10_7);
		s10_8 = fma(a10, b8, s10_8);
		s10_9 = fma(a10, b9, s10_9);
		s10_10 = fma(a10, b10, s10_10);
		s10_11 = fma(a10, b11, s10_11);
		s10_12 = fma(a10, b12, s10_12);
		s10_13 = fma(a10, b13, s10_13);
		s10_14 = fma(a10, b14, s10_14);
		s10_15 = fma(a10, b15, s10_15);
		s11_0 = fma(a11, b0, s11_0);
		s11_1 = fma(a11, b1, s11_1);
		s11_2 = fma(a11, b2, s11_2);
		s11_3 = fma(a11, b3, s11_3);
		s11_4 = fma(a11, b4, s11_4);
		s11_5 = fma(a11, b5, s11_5);
		s11_6 = fma(a11, b6, s11_6);
		s11_7 = fma(a11, b7, s11_7);
		s11_8 = fma(a11, b8, s11_8);
		s11_9 = fma(a11, b9, s11_9);
		s11_10 = fma(a11, b10, s11_10);
		s11_11 = fma(a11, b11, s11_11);
		s11_12 = fma(a11, b12, s11_12);
		s11_13 = fma(a11, b13, s11_13);
		s11_14 = fma(a11, b14, s11_14);
		s11_15 = fma(a11, b15, s11_15);
		s12_0 = fma(a12, b0, s12_0);
		s12_1 = fma(a12, b1, s12_1);
		s12_2 = fma(a12, b2, s12_2);
		s12_3 = fma(a12, b3, s12_3);
		s12_4 = fma(a12, b4, s12_4);
		s12_5 = fma(a12, b5, s12_5);
		s12_6 = fma(a12, b6, s12_6);
		s12_7 = fma(a12, b7, s12_7);
		s12_8 = fma(a12, b8, s12_8);
		s12_9 = fma(a12, b9, s12_9);
		s12_10 = fma(a12, b10, s12_10);
		s12_11 = fma(a12, b11, s12_11);
		s12_12 = fma(a12, b12, s12_12);
		s12_13 = fma(a12, b13, s12_13);
		s12_14 = fma(a12, b14, s12_14);
		s12_15 = fma(a12, b15, s12_15);
		s13_0 = fma(a13, b0, s13_0);
		s13_1 = fma(a13, b1, s13_1);
		s13_2 = fma(a13, b2, s13_2);
		s13_3 = fma(a13, b3, s13_3);
		s13_4 = fma(a13, b4, s13_4);
		s13_5 = fma(a13, b5, s13_5);
		s13_6 = fma(a13, b6, s13_6);
		s13_7 = fma(a13, b7, s13_7);
		s13_8 = fma(a13, b8, s13_8);
		s13_9 = fma(a13, b9, s13_9);
		s13_10 = fma(a13, b10, s13_10);
		s13_11 = fma(a13, b11, s13_11);
		s13_12 = fma(a13, b12, s13_12);
		s13_13 = fma(a13, b13, s13_13);
		s13_14 = fma(a13, b14, s13_14);
		s13_15 = fma(a13, b15, s13_15);
		s14_0 = fma(a14, b0, s14_0);
		s14_1 = fma(a14, b1, s14_1);
		s14_2 = fma(a14, b2, s14_2);
		s14_3 = fma(a14, b3, s14_3);
		s14_4 = fma(a14, b4, s14_4);
		s14_5 = fma(a14, b5, s14_5);
		s14_6 = fma(a14, b6, s14_6);
		s14_7 = fma(a14, b7, s14_7);
		s14_8 = fma(a14, b8, s14_8);
		s14_9 = fma(a14, b9, s14_9);
		s14_10 = fma(a14, b10, s14_10);
		s14_11 = fma(a14, b11, s14_11);
		s14_12 = fma(a14, b12, s14_12);
		s14_13 = fma(a14, b13, s14_13);
		s14_14 = fma(a14, b14, s14_14);
		s14_15 = fma(a14, b15, s14_15);
		s15_0 = fma(a15, b0, s15_0);
		s15_1 = fma(a15, b1, s15_1);
		s15_2 = fma(a15, b2, s15_2);
		s15_3 = fma(a15, b3, s15_3);
		s15_4 = fma(a15, b4, s15_4);
		s15_5 = fma(a15, b5, s15_5);
		s15_6 = fma(a15, b6, s15_6);
		s15_7 = fma(a15, b7, s15_7);
		s15_8 = fma(a15, b8, s15_8);
		s15_9 = fma(a15, b9, s15_9);
		s15_10 = fma(a15, b10, s15_10);
		s15_11 = fma(a15, b11, s15_11);
		s15_12 = fma(a15, b12, s15_12);
		s15_13 = fma(a15, b13, s15_13);
		s15_14 = fma(a15, b14, s15_14);
		s15_15 = fma(a15, b15, s15_15);
		k0 += 1u;
		let wrap0 = k0 == lim0;
		k0 = select(k0, 0u, wrap0);
		k1 += select(0u, 1u, wrap0);
		let wrap1 = k1 == lim1;
		k1 = select(k1, 0u, wrap1);
		k2 += select(0u, 1u, wrap1);
	}
	if (row0 + 0u < M && col0 < N) {
		c[(out0 + (row0 + 0u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s0_0, s0_1, s0_2, s0_3);
		c[(out0 + (row0 + 0u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s0_4, s0_5, s0_6, s0_7);
		c[(out0 + (row0 + 0u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s0_8, s0_9, s0_10, s0_11);
		c[(out0 + (row0 + 0u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s0_12, s0_13, s0_14, s0_15);
	}
	if (row0 + 1u < M && col0 < N) {
		c[(out0 + (row0 + 1u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s1_0, s1_1, s1_2, s1_3);
		c[(out0 + (row0 + 1u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s1_4, s1_5, s1_6, s1_7);
		c[(out0 + (row0 + 1u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s1_8, s1_9, s1_10, s1_11);
		c[(out0 + (row0 + 1u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s1_12, s1_13, s1_14, s1_15);
	}
	if (row0 + 2u < M && col0 < N) {
		c[(out0 + (row0 + 2u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s2_0, s2_1, s2_2, s2_3);
		c[(out0 + (row0 + 2u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s2_4, s2_5, s2_6, s2_7);
		c[(out0 + (row0 + 2u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s2_8, s2_9, s2_10, s2_11);
		c[(out0 + (row0 + 2u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s2_12, s2_13, s2_14, s2_15);
	}
	if (row0 + 3u < M && col0 < N) {
		c[(out0 + (row0 + 3u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s3_0, s3_1, s3_2, s3_3);
		c[(out0 + (row0 + 3u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s3_4, s3_5, s3_6, s3_7);
		c[(out0 + (row0 + 3u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s3_8, s3_9, s3_10, s3_11);
		c[(out0 + (row0 + 3u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s3_12, s3_13, s3_14, s3_15);
	}
	if (row0 + 4u < M && col0 < N) {
		c[(out0 + (row0 + 4u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s4_0, s4_1, s4_2, s4_3);
		c[(out0 + (row0 + 4u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s4_4, s4_5, s4_6, s4_7);
		c[(out0 + (row0 + 4u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s4_8, s4_9, s4_10, s4_11);
		c[(out0 + (row0 + 4u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s4_12, s4_13, s4_14, s4_15);
	}
	if (row0 + 5u < M && col0 < N) {
		c[(out0 + (row0 + 5u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s5_0, s5_1, s5_2, s5_3);
		c[(out0 + (row0 + 5u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s5_4, s5_5, s5_6, s5_7);
		c[(out0 + (row0 + 5u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s5_8, s5_9, s5_10, s5_11);
		c[(out0 + (row0 + 5u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s5_12, s5_13, s5_14, s5_15);
	}
	if (row0 + 6u < M && col0 < N) {
		c[(out0 + (row0 + 6u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s6_0, s6_1, s6_2, s6_3);
		c[(out0 + (row0 + 6u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s6_4, s6_5, s6_6, s6_7);
		c[(out0 + (row0 + 6u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s6_8, s6_9, s6_10, s6_11);
		c[(out0 + (row0 + 6u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s6_12, s6_13, s6_14, s6_15);
	}
	if (row0 + 7u < M && col0 < N) {
		c[(out0 + (row0 + 7u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s7_0, s7_1, s7_2, s7_3);
		c[(out0 + (row0 + 7u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s7_4, s7_5, s7_6, s7_7);
		c[(out0 + (row0 + 7u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s7_8, s7_9, s7_10, s7_11);
		c[(out0 + (row0 + 7u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s7_12, s7_13, s7_14, s7_15);
	}
	if (row0 + 8u < M && col0 < N) {
		c[(out0 + (row0 + 8u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s8_0, s8_1, s8_2, s8_3);
		c[(out0 + (row0 + 8u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s8_4, s8_5, s8_6, s8_7);
		c[(out0 + (row0 + 8u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s8_8, s8_9, s8_10, s8_11);
		c[(out0 + (row0 + 8u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s8_12, s8_13, s8_14, s8_15);
	}
	if (row0 + 9u < M && col0 < N) {
		c[(out0 + (row0 + 9u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s9_0, s9_1, s9_2, s9_3);
		c[(out0 + (row0 + 9u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s9_4, s9_5, s9_6, s9_7);
		c[(out0 + (row0 + 9u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s9_8, s9_9, s9_10, s9_11);
		c[(out0 + (row0 + 9u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s9_12, s9_13, s9_14, s9_15);
	}
	if (row0 + 10u < M && col0 < N) {
		c[(out0 + (row0 + 10u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s10_0, s10_1, s10_2, s10_3);
		c[(out0 + (row0 + 10u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s10_4, s10_5, s10_6, s10_7);
		c[(out0 + (row0 + 10u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s10_8, s10_9, s10_10, s10_11);
		c[(out0 + (row0 + 10u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s10_12, s10_13, s10_14, s10_15);
	}
	if (row0 + 11u < M && col0 < N) {
		c[(out0 + (row0 + 11u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s11_0, s11_1, s11_2, s11_3);
		c[(out0 + (row0 + 11u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s11_4, s11_5, s11_6, s11_7);
		c[(out0 + (row0 + 11u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s11_8, s11_9, s11_10, s11_11);
		c[(out0 + (row0 + 11u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s11_12, s11_13, s11_14, s11_15);
	}
	if (row0 + 12u < M && col0 < N) {
		c[(out0 + (row0 + 12u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s12_0, s12_1, s12_2, s12_3);
		c[(out0 + (row0 + 12u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s12_4, s12_5, s12_6, s12_7);
		c[(out0 + (row0 + 12u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s12_8, s12_9, s12_10, s12_11);
		c[(out0 + (row0 + 12u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s12_12, s12_13, s12_14, s12_15);
	}
	if (row0 + 13u < M && col0 < N) {
		c[(out0 + (row0 + 13u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s13_0, s13_1, s13_2, s13_3);
		c[(out0 + (row0 + 13u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s13_4, s13_5, s13_6, s13_7);
		c[(out0 + (row0 + 13u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s13_8, s13_9, s13_10, s13_11);
		c[(out0 + (row0 + 13u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s13_12, s13_13, s13_14, s13_15);
	}
	if (row0 + 14u < M && col0 < N) {
		c[(out0 + (row0 + 14u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s14_0, s14_1, s14_2, s14_3);
		c[(out0 + (row0 + 14u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s14_4, s14_5, s14_6, s14_7);
		c[(out0 + (row0 + 14u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s14_8, s14_9, s14_10, s14_11);
		c[(out0 + (row0 + 14u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s14_12, s14_13, s14_14, s14_15);
	}
	if (row0 + 15u < M && col0 < N) {
		c[(out0 + (row0 + 15u) * cstride + g * N + col0) / 4u + 0u] = vec4<f32>(s15_0, s15_1, s15_2, s15_3);
		c[(out0 + (row0 + 15u) * cstride + g * N + col0) / 4u + 1u] = vec4<f32>(s15_4, s15_5, s15_6, s15_7);
		c[(out0 + (row0 + 15u) * cstride + g * N + col0) / 4u + 2u] = vec4<f32>(s15_8, s15_9, s15_10, s15_11);
		c[(out0 + (row0 + 15u) * cstride + g * N + col0) / 4u + 3u] = vec4<f32>(s15_12, s15_13, s15_14, s15_15);
	}
}
