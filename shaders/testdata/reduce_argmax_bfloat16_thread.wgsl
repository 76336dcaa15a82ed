struct Params {
	first: u32,
	end: u32,
	row: u32,
	length: u32,
	segments: u32,
	scale: f32,
	stride: u32,
}
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<i32>;
@group(0) @binding(2) var<uniform> p: Params;
const none = 0xffffffffu;
fn row_base(r: u32) -> u32 { let st = max(p.stride, 1u); return (r / st) * p.length * st + r % st; }
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
fn load(i: u32) -> f32 { return load_bf16(src[i >> 1u], i & 1u); }
fn is_nan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn ord(x: f32) -> i32 {
	let b = bitcast<i32>(x);
	return select(select(b, b ^ 0x7fffffff, b < 0), 0, (bitcast<u32>(x) & 0x7fffffffu) == 0u);
}
fn beats(v: f32, j: u32, w: f32, k: u32) -> bool {
	if (k == none) { return true; }
	if (is_nan(w)) { return is_nan(v) && j < k; }
	if (is_nan(v)) { return true; }
	return ord(v) > ord(w) || (ord(v) == ord(w) && j < k);
}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row + p.first;
	if (row >= p.end) { return; }
	let len = p.length;
	let base = row_base(row);
	let st = max(p.stride, 1u);
	var acc = f32(0);
	var ai = none;
	for (var s = 0u; s < len; s++) {
		let j = s; let v = load(base + j * st);
		if (beats(v, j, acc, ai)) { acc = v; ai = j; }
	}
	dst[row] = i32(ai);
}
