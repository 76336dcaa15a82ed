struct Params {
	first: u32,
	end: u32,
	row: u32,
	c: u32,
	in_h: u32,
	in_w: u32,
	out_h: u32,
	out_w: u32,
	kernel_h: u32,
	kernel_w: u32,
	stride_h: u32,
	stride_w: u32,
	pad_top: u32,
	pad_left: u32,
	dilation_h: u32,
	dilation_w: u32,
	count_top: u32,
	count_bottom: u32,
	count_left: u32,
	count_right: u32,
}
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> p: Params;
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

fn lx(i: u32) -> vec4<f32> { return load4_bf16(x[2u * (i)], x[2u * (i) + 1u]); }

// taps is the first position inside [0, size) of the taps start + k·dil,
// k in [0, kernel), and how many lie inside: the taps before 0 are the
// first lo, those from size on the last ones. The first is computed in
// u32, where start (negative in the padding) wraps and lo·dil brings it
// back to its place.
fn taps(start: i32, kernel: u32, dil: u32, size: u32) -> vec2<u32> {
	let lo = select(0u, (u32(-start) + dil - 1u) / dil, start < 0);
	let hi = select(0u, min(kernel, (u32(i32(size) - start) + dil - 1u) / dil), start < i32(size));
	return vec2<u32>(bitcast<u32>(start) + lo * dil, select(0u, hi - lo, hi > lo));
}

// divisor is the count of the positions of the window of kernel from
// start that lie inside [-before, size + after): the input and the padding
// an average counts (Pool2DParams' Count fields).
fn divisor(start: i32, kernel: u32, size: u32, before: u32, after: u32) -> u32 {
	let lo = max(start, -i32(before));
	let hi = min(start + i32(kernel), i32(size + after));
	return u32(hi - lo);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	let C = p.c / 4u;
	let c = i % C;
	var t = i / C;
	let ox = t % p.out_w;
	t = t / p.out_w;
	let oy = t % p.out_h;
	let n = t / p.out_h;
	let y0 = i32(oy * p.stride_h) - i32(p.pad_top);
	let x0 = i32(ox * p.stride_w) - i32(p.pad_left);
	let ty = taps(y0, p.kernel_h, p.dilation_h, p.in_h);
	let tx = taps(x0, p.kernel_w, p.dilation_w, p.in_w);
	let base = n * p.in_h;
	let img = base * p.in_w;
	let ww = tx.y;
	let count = ty.y * ww;
	let step = p.dilation_w;
	let skip = p.dilation_h * p.in_w - (ww - 1u) * p.dilation_w;
	var pos = ty.x * p.in_w + tx.x;
	var col = 0u;
	var k = 0u;
	var sum = vec4<f32>(0.0);
	for (; k + 4u <= count; k += 4u) {
		{
			let v = lx((img + pos) * C + c);
			sum += v;
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let v = lx((img + pos) * C + c);
			sum += v;
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let v = lx((img + pos) * C + c);
			sum += v;
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
		{
			let v = lx((img + pos) * C + c);
			sum += v;
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
	}
	for (; k < count; k++)
		{
			let v = lx((img + pos) * C + c);
			sum += v;
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
			pos += select(step, skip, wrap);
		}
	y[i] = sum / f32(divisor(y0, p.kernel_h, p.in_h, p.count_top, p.count_bottom) * divisor(x0, p.kernel_w, p.in_w, p.count_left, p.count_right));
}
