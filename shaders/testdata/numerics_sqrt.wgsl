
const nan_bits = 0x7fc00000u;
const inf_bits = 0x7f800000u;
fn isnan_(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > inf_bits; }
fn iszero_(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0u; }
fn signbit_(x: f32) -> bool { return bitcast<u32>(x) >= 0x80000000u; }
fn neg_(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) ^ 0x80000000u); }
fn abs_(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) & 0x7fffffffu); }
fn copysign_(x: f32, s: f32) -> f32 {
	return bitcast<f32>((bitcast<u32>(x) & 0x7fffffffu) | (bitcast<u32>(s) & 0x80000000u));
}

// key_ maps a float's bits to an i32 in the floats' order, -0 just below +0
// (NaN aside).
fn key_(x: f32) -> i32 { let b = bitcast<i32>(x); return select(b, b ^ 0x7fffffff, b < 0); }

// The comparisons: false when either operand is NaN, -0 == +0.
fn feq_(a: f32, b: f32) -> bool {
	let ua = bitcast<u32>(a);
	let ub = bitcast<u32>(b);
	return !isnan_(a) && !isnan_(b) && (ua == ub || ((ua | ub) & 0x7fffffffu) == 0u);
}
fn flt_(a: f32, b: f32) -> bool {
	return !isnan_(a) && !isnan_(b) && key_(a) < key_(b) && ((bitcast<u32>(a) | bitcast<u32>(b)) & 0x7fffffffu) != 0u;
}
fn fle_(a: f32, b: f32) -> bool { return flt_(a, b) || feq_(a, b); }

// fmax_ and fmin_ are IEEE 754-2019 maximum and minimum: NaN if either
// operand is NaN, and -0 < +0.
fn fmax_(a: f32, b: f32) -> f32 {
	if (isnan_(a) || isnan_(b)) { return a + b; }
	return select(b, a, key_(a) > key_(b));
}
fn fmin_(a: f32, b: f32) -> f32 {
	if (isnan_(a) || isnan_(b)) { return a + b; }
	return select(b, a, key_(a) < key_(b));
}

// Casts from f32 truncate toward zero and saturate; NaN gives 0.
fn toi32_(x: f32) -> i32 {
	if (isnan_(x)) { return 0; }
	if (x >= 2147483648.0) { return 2147483647; }
	if (x < -2147483648.0) { return -2147483647 - 1; }
	return i32(x);
}
fn tou32_(x: f32) -> u32 {
	if (isnan_(x) || signbit_(x) || x < 1.0) { return 0u; }
	if (x >= 4294967296.0) { return 0xffffffffu; }
	return u32(x);
}

// divmodi_ is floored division and modulo of i32 (the remainder has the
// divisor's sign), through magnitudes: unsigned / and % are defined on
// every backend. A zero divisor gives 0 and 0; INT_MIN / -1 wraps to
// INT_MIN with remainder 0.
fn divmodi_(a: i32, b: i32) -> vec2<i32> {
	if (b == 0) { return vec2<i32>(0, 0); }
	let ua = select(bitcast<u32>(a), 0u - bitcast<u32>(a), a < 0);
	let ub = select(bitcast<u32>(b), 0u - bitcast<u32>(b), b < 0);
	var q = ua / ub;
	var r = ua % ub;
	if ((a < 0) != (b < 0)) {
		if (r != 0u) { q = q + 1u; r = ub - r; }
		q = 0u - q;
	}
	if (b < 0) { r = 0u - r; }
	return vec2<i32>(bitcast<i32>(q), bitcast<i32>(r));
}
fn divu_(a: u32, b: u32) -> u32 { return select(a / max(b, 1u), 0u, b == 0u); }
fn modu_(a: u32, b: u32) -> u32 { return select(a % max(b, 1u), 0u, b == 0u); }

// fmod_ is C's fmod, exact: the long division of the mantissas, one bit
// per step, at most 277 steps (the exponents' span).
fn fmod_(x: f32, y: f32) -> f32 {
	let ux = bitcast<u32>(x);
	let uy = bitcast<u32>(y);
	let sx = ux & 0x80000000u;
	let ax = ux & 0x7fffffffu;
	let ay = uy & 0x7fffffffu;
	if (ay == 0u || ay > inf_bits || ax >= inf_bits) { return bitcast<f32>(nan_bits); }
	if (ax < ay) { return x; }
	if (ax == ay) { return bitcast<f32>(sx); }
	let nx = mant_(ax);
	let ny = mant_(ay);
	let my = u32(ny.x);
	var m = u32(nx.x);
	for (var e = nx.y; e > ny.y; e--) {
		if (m >= my) { m = m - my; }
		m = m << 1u;
	}
	if (m >= my) { m = m - my; }
	if (m == 0u) { return bitcast<f32>(sx); }
	let s = countLeadingZeros(m) - 8u;
	m = m << s;
	let e = ny.y - i32(s);
	if (e > 0) { return bitcast<f32>(sx | (u32(e) << 23u) | (m & 0x7fffffu)); }
	return bitcast<f32>(sx | (m >> u32(1 - e)));
}

// mant_ returns a finite nonzero magnitude's mantissa with its leading bit
// at bit 23, and its biased exponent (below 1 for subnormals).
fn mant_(a: u32) -> vec2<i32> {
	let e = i32(a >> 23u);
	if (e != 0) { return vec2<i32>(i32((a & 0x7fffffu) | 0x800000u), e); }
	let s = countLeadingZeros(a) - 8u;
	return vec2<i32>(i32(a << s), 1 - i32(s));
}

// fmodfloor_ is NumPy's floored modulo: fmod, then the divisor added when
// the signs differ; a zero result has the divisor's sign. fmod's exact
// remainder is built from bits, so it is flushed as arithmetic would be.
fn fmodfloor_(a: f32, b: f32) -> f32 {
	let r = ftz_(fmod_(a, b));
	if (isnan_(r)) { return r; }
	if (iszero_(r)) { return copysign_(0.0, b); }
	if (signbit_(r) != signbit_(b)) { return r + b; }
	return r;
}

// scalbn_ returns x * 2^n for x in [0.5, 4) and any n, rounding once: a
// subnormal result comes from one multiplication of a normal value, which
// every driver here rounds correctly.
fn scalbn_(x: f32, n: i32) -> f32 {
	var y = x;
	var k = n;
	if (k > 127) { y = y * bitcast<f32>(0x7f000000u); k = min(k - 127, 127); } // 2^127
	if (k < -126) { y = y * bitcast<f32>(0x0c800000u); k = k + 102; }           // 2^-102, exact
	if (k < -126) { y = 0.0; k = 0; }                                            // below half the smallest subnormal
	return y * bitcast<f32>(u32(127 + k) << 23u);
}

// exp_ is e^x within 1 ulp (fdlibm's expf): x = k ln2 + r with |r| <= ln2/2,
// e^r by a rational approximation, then scaled by 2^k exactly.
fn exp_(x: f32) -> f32 {
	let ax = bitcast<u32>(x) & 0x7fffffffu;
	if (ax > inf_bits) { return x; }
	if (ax >= 0x42b17218u && !signbit_(x)) { return bitcast<f32>(inf_bits); } // x > 88.72284
	if (ax >= 0x42cff1b5u && signbit_(x)) { return 0.0; }                   // x < -103.97208
	if (ax <= 0x39000000u) { return 1.0 + x; } // |x| <= 2^-14
	let k = toi32_(round(x * 1.442695));
	let fk = f32(k);
	let hi = x - fk * 0.69314575;  // ln2's high part: fk * it is exact
	let lo = fk * 1.4286068e-6;    // ln2's low part
	let r = hi - lo;
	let rr = r * r;
	let c = r - rr * (0.1666662544 + rr * -0.0027667333);
	let y = 1.0 + (r * c / (2.0 - c) - lo + hi);
	return scalbn_(y, k);
}

// log_ is the natural logarithm within 1 ulp (musl's logf): x = 2^k m with
// m in [sqrt(1/2), sqrt(2)), subnormals scaled by 2^25 first.
fn log_(x: f32) -> f32 {
	var ix = bitcast<u32>(x);
	var k = 0;
	if (ix < 0x00800000u || ix >= 0x80000000u) {
		if ((ix & 0x7fffffffu) == 0u) { return bitcast<f32>(0xff800000u); } // log(±0) = -Inf
		if (ix > 0xff800000u) { return x; }
		if (ix >= 0x80000000u) { return bitcast<f32>(nan_bits); }
		k = -25;
		ix = bitcast<u32>(x * 33554432.0); // 2^25: exact
	} else if (ix >= inf_bits) {
		return x;
	} else if (ix == 0x3f800000u) {
		return 0.0;
	}
	ix = ix + (0x3f800000u - 0x3f3504f3u);
	k = k + i32(ix >> 23u) - 0x7f;
	ix = (ix & 0x007fffffu) + 0x3f3504f3u;
	let f = bitcast<f32>(ix) - 1.0;
	let s = f / (2.0 + f);
	let z = s * s;
	let w = z * z;
	let t1 = w * (0.40000972152 + w * 0.24279078841);
	let t2 = z * (0.66666662693 + w * 0.28498786688);
	let r = t2 + t1;
	let hfsq = 0.5 * f * f;
	let dk = f32(k);
	return s * (hfsq + r) + dk * 9.0580006145e-06 - hfsq + f + dk * 0.69313812256;
}

// tanh_ is the hyperbolic tangent within 2 ulp (Cephes' tanhf): odd, a
// polynomial below 0.625, 1 - 2/(e^2|x| + 1) above.
fn tanh_(x: f32) -> f32 {
	if (isnan_(x)) { return x; }
	let a = abs_(x);
	var t: f32;
	if (a >= 0.625) {
		t = 1.0 - div_(2.0, exp_(2.0 * min(a, 20.0)) + 1.0);
	} else {
		let z = a * a;
		t = ((((-5.70498872745e-3 * z + 2.06390887954e-2) * z - 5.37397155531e-2) * z + 1.33314422036e-1) * z - 3.33332819422e-1) * z * a + a;
	}
	return copysign_(t, x);
}

// sigmoid_ is 1/(1 + e^-x), computed as e^x/(1 + e^x) for negative x so
// that tiny results keep their precision.
fn sigmoid_(x: f32) -> f32 {
	if (isnan_(x)) { return x; }
	if (signbit_(x)) {
		let e = exp_(x);
		return div_(e, 1.0 + e);
	}
	return div_(1.0, 1.0 + exp_(neg_(x)));
}

// opaque_ is x, passed through the elementwise kernel's uniform word that
// is always 0 (p.zero: the library runs only in kernels.Elementwise
// kernels), as values between nodes are: no compiler contracts a product
// before it with a sum after it into an fma, or reorders across it.
fn opaque_(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) ^ p.zero); }

// gelu_ is 0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3))), evaluated
// left to right as written with every product and sum rounded on its own:
// GL's compiler reordered the single expression (up to 387 ulp apart from
// Vulkan near x = -3). The cube overflows to ±Inf for |x| > 4e12, where
// tanh_ is ±1.
fn gelu_(x: f32) -> f32 {
	let cube = opaque_(opaque_(opaque_(0.044715 * x) * x) * x);
	let t = tanh_(opaque_(0.7978845608 * opaque_(x + cube)));
	return opaque_(0.5 * x) * opaque_(1.0 + t);
}

// gelu_grad_ is gelu_'s derivative, 0.5 (1 + t) + 0.5 x (1 - t^2) c
// (1 + 3k x^2) with t = tanh(u), u = c (x + k x^3), c = 0.7978845608 and
// k = 0.044715: the gradient of GELU as one op, where its eighteen ops
// each took a buffer the size of x. 1 + t and 1 - t^2 come from m =
// e^(-2|u|) (1 ± tanh|u| = 2/(1 + m) and 2m/(1 + m), 1 - t^2 = 4m/(1 +
// m)^2), not from tanh: near t = -1 the difference kept few of t's bits
// (80 ulp of the result at x = -3, all of them past -6). The terms still
// cancel near x = -0.75. ±Inf give 1 and 0; NaN stays NaN.
fn gelu_grad_(x: f32) -> f32 {
	let x2 = opaque_(x * x);
	let u = opaque_(0.7978845608 * opaque_(x + opaque_(0.044715 * opaque_(x2 * x))));
	let m = exp_(opaque_(-2.0 * abs(u)));
	let d = opaque_(1.0 + m);
	let near = div_(opaque_(2.0 * m), d); // 1 - tanh|u|
	let onePlusT = select(near, div_(2.0, d), u >= 0.0);
	let left = opaque_(0.5 * onePlusT);
	if (m == 0.0) { return left; }
	let s = div_(opaque_(4.0 * m), opaque_(d * d)); // 1 - t^2
	let du = opaque_(0.7978845608 * opaque_(1.0 + opaque_(0.134145 * x2)));
	return left + opaque_(opaque_(0.5 * x) * opaque_(s * du));
}

// erf_ and erfc_ are fdlibm's erff and erfcf (s_erff.c, Sun
// Microsystems 1993, freely distributable), with every quotient
// correctly rounded (div_) and exp_ for expf: odd rational
// approximations below 0.84375, erx + P/Q about 1 on [0.84375, 1.25),
// and beyond erfc(a) = e^(-z²)·e^((z - a)(z + a) + R/S - 0.5625)/a on
// [1.25, 28), z a's 12 leading bits, so that z² is exact. erf_ is within
// 2 ulp of erf (1 measured) and erfc_ within 4 of erfc (3 measured: see
// TestErfUlpBound), whose tail is subnormal past 9.2 and zero past 10.06.
// erf(±Inf) = ±1, erf(±0) = ±0, erfc(-Inf) = 2, erfc(+Inf) = +0, NaN for
// NaN.
fn erf_(x: f32) -> f32 {
	let ax = bitcast<u32>(x) & 0x7fffffffu;
	if (ax > inf_bits) { return x; }
	if (ax < 0x3f580000u) { // |x| < 0.84375
		if (ax < 0x31800000u) { // |x| < 2^-28: x + x 2/sqrt(pi)-1, scaled by 8 below 2^-119 so that no product underflows early
			if (ax < 0x04000000u) { return 0.125 * (8.0 * x + 1.0270333290 * x); }
			return x + 0.12837916613 * x;
		}
		return x + x * erfsmall_(x * x);
	}
	let a = abs_(x);
	if (ax < 0x3fa00000u) { return copysign_(0.84506291151 + erfmid_(a - 1.0), x); } // |x| < 1.25
	if (ax >= 0x40c00000u) { return copysign_(1.0, x); }                             // |x| >= 6, Inf included
	return copysign_(1.0 - erfctail_(a), x);
}
fn erfc_(x: f32) -> f32 {
	let ux = bitcast<u32>(x);
	let ax = ux & 0x7fffffffu;
	let neg = signbit_(x);
	if (ax > inf_bits) { return x; }
	if (ax < 0x3f580000u) { // |x| < 0.84375
		if (ax < 0x23800000u) { return 1.0 - x; } // |x| < 2^-56
		let y = erfsmall_(x * x);
		if (neg || ux < 0x3e800000u) { return 1.0 - (x + x * y); } // x < 1/4
		return 0.5 - (x * y + (x - 0.5));
	}
	let a = abs_(x);
	if (ax < 0x3fa00000u) { // |x| < 1.25
		let pq = erfmid_(a - 1.0);
		if (neg) { return 1.0 + (0.84506291151 + pq); }
		return 0.15493708849 - pq; // 1 - erx, exact
	}
	if (ax < 0x41e00000u) { // |x| < 28
		if (neg && ax >= 0x40c00000u) { return 2.0; }
		let t = erfctail_(a);
		return select(t, 2.0 - t, neg);
	}
	return select(0.0, 2.0, neg);
}

// erfsmall_ is fdlibm's R(z) on |x| < 0.84375, z = x²: erf(x) = x + x R(z).
fn erfsmall_(z: f32) -> f32 {
	let r = 1.2837916613e-01 + z * (-3.2504209876e-01 + z * (-2.8481749818e-02 + z * (-5.7702702470e-03 + z * -2.3763017452e-05)));
	let s = 1.0 + z * (3.9791721106e-01 + z * (6.5022252500e-02 + z * (5.0813062117e-03 + z * (1.3249473704e-04 + z * -3.9602282413e-06))));
	return div_(r, s);
}

// erfmid_ is fdlibm's P/Q on |x| in [0.84375, 1.25), s = |x| - 1:
// erf(|x|) = erx + P/Q.
fn erfmid_(s: f32) -> f32 {
	let P = -2.3621185683e-03 + s * (4.1485610604e-01 + s * (-3.7220788002e-01 + s * (3.1834661961e-01 + s * (-1.1089469492e-01 + s * (3.5478305072e-02 + s * -2.1663755178e-03)))));
	let Q = 1.0 + s * (1.0642088205e-01 + s * (5.4039794207e-01 + s * (7.1828655899e-02 + s * (1.2617121637e-01 + s * (1.3637083583e-02 + s * 1.1984500103e-02)))));
	return div_(P, Q);
}

// erfctail_ is erfc(a) for a in [1.25, 28).
fn erfctail_(a: f32) -> f32 {
	let ia = bitcast<u32>(a);
	let s = div_(1.0, a * a);
	var R: f32;
	var S: f32;
	if (ia < 0x4036db6eu) { // a < 1/0.35
		R = -9.8649440333e-03 + s * (-6.9385856390e-01 + s * (-1.0558626175e+01 + s * (-6.2375331879e+01 + s * (-1.6239666748e+02 + s * (-1.8460508728e+02 + s * (-8.1287437439e+01 + s * -9.8143291473e+00))))));
		S = 1.0 + s * (1.9651271820e+01 + s * (1.3765776062e+02 + s * (4.3456588745e+02 + s * (6.4538726807e+02 + s * (4.2900814819e+02 + s * (1.0863500214e+02 + s * (6.5702495575e+00 + s * -6.0424413532e-02)))))));
	} else {
		R = -9.8649431020e-03 + s * (-7.9928326607e-01 + s * (-1.7757955551e+01 + s * (-1.6063638306e+02 + s * (-6.3756646729e+02 + s * (-1.0250950928e+03 + s * -4.8351919556e+02)))));
		S = 1.0 + s * (3.0338060379e+01 + s * (3.2579251099e+02 + s * (1.5367296143e+03 + s * (3.1998581543e+03 + s * (2.5530502930e+03 + s * (4.7452853394e+02 + s * -2.2440952301e+01))))));
	}
	// e^(-z²) apart, its argument exact, so that only the small rest
	// rounds (fdlibm's float version adds -0.5625 to -z² first, which
	// costs up to 60 ulp past 5); the one rounding into the subnormals,
	// if any, is the last product.
	let z = bitcast<f32>(ia & 0xfffff000u);
	return exp_(-z * z) * div_(exp_(((z - a) * (z + a) + div_(R, S)) - 0.5625), a);
}

// gelu_erf_ is x Φ(x) = x/2 erfc(a), a = -x/sqrt 2: through erfc, so
// that negative x keep their precision where 1 + erf(x/sqrt 2) would
// cancel. a rounds to float32; its rounding error d, found from exact
// products of 12-bit halves (1/sqrt 2 = C1 + C2, C1 of 12 bits; xh·C1 -
// a is exact by Sterbenz's lemma), is taken back by erfc's derivative,
// erfc(a + d) = erfc(a) - d 2/sqrt(pi) e^(-a²): without it the far
// negative tail, where erfc(a) falls as e^(-a²), would lose 2a² ulp.
// GELU(-Inf) is its limit -0 (the formula's NaN is no value), GELU(+Inf)
// is +Inf, NaN stays NaN.
fn gelu_erf_(x: f32) -> f32 {
	if ((bitcast<u32>(x) & 0x7fffffffu) >= inf_bits) {
		return select(x, neg_(0.0), bitcast<u32>(x) == 0xff800000u);
	}
	let a = -0.70710678118 * x;
	let xh = hi12_(x);
	let xl = x - xh;
	let d = ((neg_(xh * 0.70703125) - a) - xl * 0.70703125) - x * 7.5531186548e-05;
	return 0.5 * x * (erfc_(a) - 1.1283791671 * exp_(-a * a) * d);
}

// gelu_erf_grad_ is gelu_erf_'s derivative, Φ(x) + x φ(x), with Φ(x) =
// erfc(-x/√2)/2 (no cancellation for negative x) and φ(x) =
// e^(-x²/2)/√(2π), every product and sum rounded on its own: one op.
// Where φ is 0 the second term is 0 (±Inf give 1 and 0); NaN stays NaN.
fn gelu_erf_grad_(x: f32) -> f32 {
	let cdf = opaque_(0.5 * erfc_(opaque_(-0.7071067811865476 * x)));
	// e^(-x²/2) with x² in two parts (x's 12 leading bits squared are
	// exact): the rounding of x² alone cost 50 ulp at |x| = 10.
	let xh = hi12_(x);
	let xl = opaque_(x - xh);
	let e2 = exp_(opaque_(-0.5 * opaque_(xh * xh))) * exp_(neg_(opaque_(opaque_(xh * xl) + opaque_(0.5 * opaque_(xl * xl)))));
	let pdf = opaque_(0.3989422804014327 * opaque_(e2));
	if (pdf == 0.0 || (bitcast<u32>(x) & 0x7fffffffu) >= inf_bits) { return cdf; }
	return cdf + opaque_(x * pdf);
}

// pow_ is C's pow (C99 Annex F.9.4.4) for every special case, and within
// 4 ulp elsewhere: y log2|x| in extra precision (log2x_ and exact
// 12-bit partial products), its integer part n and fraction g apart, then
// 2^g scaled by 2^n exactly.
fn pow_(x: f32, y: f32) -> f32 {
	let ux = bitcast<u32>(x);
	let uy = bitcast<u32>(y);
	let ax = ux & 0x7fffffffu;
	let ay = uy & 0x7fffffffu;
	if (ay == 0u || ux == 0x3f800000u) { return 1.0; } // pow(x, ±0), pow(1, y), even NaN
	if (ax > inf_bits || ay > inf_bits) { return bitcast<f32>(nan_bits); }
	if (uy == 0x3f800000u) { return x; }
	let inf = bitcast<f32>(inf_bits);
	let ypos = uy < 0x80000000u;
	if (ay == inf_bits) {
		if (ax == 0x3f800000u) { return 1.0; } // pow(-1, ±Inf)
		return select(0.0, inf, (ax > 0x3f800000u) == ypos);
	}
	let yint = floor(y) == y;
	let odd = yint && ay < 0x4b800000u && (toi32_(y) & 1) != 0; // |y| < 2^24
	let neg = ux >= 0x80000000u;
	if (ax == 0u || ax == inf_bits) {
		let r = select(0.0, inf, (ax == 0u) != ypos);
		return select(r, neg_(r), neg && odd);
	}
	if (neg && !yint) { return bitcast<f32>(nan_bits); }
	let l = log2x_(ax);
	let rough = y * (l.x + l.y + l.z);
	var r: f32;
	if (rough > 300.0) {
		r = inf;
	} else if (rough < -300.0) {
		r = 0.0;
	} else {
		// y (k + a + b) as exact products of 12-bit halves, each product's
		// integer part moved into n so the running fraction stays small.
		let yh = hi12_(y);
		let yl = y - yh;
		let ah = hi12_(l.y);
		let al = l.y - ah;
		var ng = addfrac_(vec2<f32>(0.0, 0.0), yh * l.x);
		ng = addfrac_(ng, yl * l.x);
		ng = addfrac_(ng, yh * ah);
		ng = addfrac_(ng, yh * al);
		ng = addfrac_(ng, yl * ah);
		ng = addfrac_(ng, yl * al);
		ng = addfrac_(ng, y * l.z);
		let n = ng.x;
		let g = ng.y;
		let gf = floor(g);
		r = scalbn_(exp_(0.6931472 * (g - gf)), i32(n + gf));
	}
	return select(r, neg_(r), neg && odd);
}

// addfrac_ adds p to the sum held as an integer ng.x and a fraction ng.y
// in [-0.5, 0.5]: the integer parts move exactly, so only fractions round.
fn addfrac_(ng: vec2<f32>, p: f32) -> vec2<f32> {
	let pn = round(p);
	let g = ng.y + (p - pn);
	let gn = round(g);
	return vec2<f32>(ng.x + pn + gn, g - gn);
}

// hi12_ is x with all but its 12 leading significant bits cleared: the
// product of two such halves is exact.
fn hi12_(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) & 0xfffff000u); }

// log2x_ is log2 of a finite positive magnitude's bits as k + a + b: k an
// integer, a with 24 significant bits, b a small correction. As musl's
// log2f it keeps log(m) in two parts, and it also keeps s in two, so
// that only the series' small tail rounds.
fn log2x_(ax: u32) -> vec3<f32> {
	var ix = ax;
	var k = 0;
	if (ix < 0x00800000u) {
		k = -25;
		ix = bitcast<u32>(bitcast<f32>(ix) * 33554432.0); // 2^25: exact
	}
	ix = ix + (0x3f800000u - 0x3f3504f3u);
	k = k + i32(ix >> 23u) - 0x7f;
	ix = (ix & 0x007fffffu) + 0x3f3504f3u;
	// log(1 + f) = 2 atanh(s), s = f/(2 + f) = sh + sl in two floats. The
	// residual f - 2 sh - sh f is exact: f - 2 sh by Sterbenz's lemma, sh f
	// as products of 12-bit halves. (No Fast2Sum: Mesa folds (a + b) - a
	// into b.)
	let f = bitcast<f32>(ix) - 1.0;
	let u = 2.0 + f;
	let sh = f / u;
	let s1 = hi12_(sh);
	let s2 = sh - s1;
	let f1 = hi12_(f);
	let f2 = f - f1;
	let sl = ((f - 2.0 * sh) - s1 * f1 - s1 * f2 - s2 * f1 - s2 * f2) / u;
	let z = sh * sh;
	let w = z * z;
	let r = z * (0.66666662693 + w * 0.28498786688) + w * (0.40000972152 + w * 0.24279078841);
	let hi = hi12_(2.0 * sh);
	let lo = (2.0 * sh - hi) + 2.0 * sl + sh * r;
	return vec3<f32>(f32(k), hi * 1.4428710938, (lo + hi) * -1.7605285393e-04 + lo * 1.4428710938);
}

// sin_ and cos_ reduce x by pi/2 exactly (Payne and Hanek: the mantissa
// times a 96-bit window of 2/pi's bits, in 32-bit integer arithmetic), so
// they stay within a few ulp for every finite x, then evaluate Cephes'
// polynomials on |r| <= pi/4.
fn sin_(x: f32) -> f32 {
	let ax = bitcast<u32>(x) & 0x7fffffffu;
	if (ax >= inf_bits) { return bitcast<f32>(nan_bits); }
	if (ax < 0x39800000u) { return x; }            // |x| < 2^-12: sin x rounds to x, ±0 kept
	if (ax <= 0x3f490fdbu) { return sinpoly_(x); } // |x| <= pi/4
	let q = reduce_(ax);
	let s = sincos_(q);
	let r = select(select(s.x, s.y, (q.z & 1u) != 0u), -select(s.x, s.y, (q.z & 1u) != 0u), (q.z & 2u) != 0u);
	return select(r, neg_(r), signbit_(x));
}
fn cos_(x: f32) -> f32 {
	let ax = bitcast<u32>(x) & 0x7fffffffu;
	if (ax >= inf_bits) { return bitcast<f32>(nan_bits); }
	if (ax <= 0x3f490fdbu) { return cospoly_(x); }
	let q = reduce_(ax);
	let s = sincos_(q);
	let k = q.z + 1u; // cos(x) = sin(x + pi/2)
	return select(select(s.x, s.y, (k & 1u) != 0u), -select(s.x, s.y, (k & 1u) != 0u), (k & 2u) != 0u);
}

// sincos_ is (sin r, cos r) for the reduced argument r = q.x + q.y.
fn sincos_(q: vec3<u32>) -> vec2<f32> {
	let r1 = bitcast<f32>(q.x);
	let r2 = bitcast<f32>(q.y);
	let s = sinpoly_(r1);
	let c = cospoly_(r1);
	return vec2<f32>(s + r2 * c, c - r2 * s);
}
fn sinpoly_(x: f32) -> f32 {
	let z = x * x;
	return x + x * z * ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1);
}
fn cospoly_(x: f32) -> f32 {
	let z = x * x;
	return 1.0 - 0.5 * z + z * z * ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2);
}

// 2/pi's fraction bits, after a word of zeros for arguments below 2^8.
var<private> two_over_pi_: array<u32, 10> = array<u32, 10>(0u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u,
	0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au);

// reduce_ returns |x| = (4j + q.z) pi/2 + r for a finite |x| > pi/4, with
// r = q.x + q.y (the bits of two f32s, |r| <= pi/4).
fn reduce_(ax: u32) -> vec3<u32> {
	let m = (ax & 0x7fffffu) | 0x800000u;      // |x| = m 2^s
	let s = i32(ax >> 23u) - 150;
	// The window of 2/pi from bit s - 1 (weight 2^(1-s)): earlier bits give
	// multiples of 4 in |x| 2/pi, later ones less than 2^-70.
	let p = u32(30 + s);
	let w = p / 32u;
	let b = p % 32u;
	var win: array<u32, 3>;
	for (var j = 0u; j < 3u; j++) {
		let next = select(two_over_pi_[w + j + 1u] >> (32u - b), 0u, b == 0u);
		win[j] = (two_over_pi_[w + j] << b) | next;
	}
	// m * window, 120 bits in four words, the binary point 94 bits up.
	let a0 = mul32_(m, win[0]);
	let a1 = mul32_(m, win[1]);
	let a2 = mul32_(m, win[2]);
	let p3 = a2.y;
	let p2 = a2.x + a1.y;
	let p1 = a1.x + a0.y + select(0u, 1u, p2 < a2.x);
	var quadrant = (p1 >> 30u) & 3u;
	var fh = (p1 << 2u) | (p2 >> 30u);
	var fl = (p2 << 2u) | (p3 >> 30u);
	// A fraction of a half or more is the next quadrant, less one.
	let negative = fh >= 0x80000000u;
	if (negative) {
		quadrant = quadrant + 1u;
		fl = 0u - fl;
		fh = ~fh + select(0u, 1u, fl == 0u);
	}
	// Normalise the fraction and split it into 24 bits and the next 32.
	var sh = 0;
	if (fh == 0u) { fh = fl; fl = 0u; sh = 32; }
	let n = countLeadingZeros(fh);
	if (n == 32u) { return vec3<u32>(0u, 0u, quadrant & 3u); }
	if (n > 0u) { fh = (fh << n) | (fl >> (32u - n)); fl = fl << n; }
	sh = sh + i32(n);
	let hi = f32(fh >> 8u) * pow2_(-24 - sh);
	let lo = f32(((fh & 0xffu) << 24u) | (fl >> 8u)) * pow2_(-56 - sh);
	// r = (hi + lo) pi/2, pi/2 = P1 + P2 + P3 with P1 of 12 bits: the
	// products with P1 of hi's 12-bit halves are exact. r1 is their sum cut
	// to 12 bits, r2 the rest, each term subtracted exactly or nearly so.
	// (No Fast2Sum: Mesa folds (a + b) - a into b.)
	let P1 = bitcast<f32>(0x3fc90000u);
	let P2 = bitcast<f32>(0x39fdaa22u);
	let P3 = bitcast<f32>(0x2c346000u);
	let h1 = hi12_(hi);
	let u = h1 * P1;
	let v = (hi - h1) * P1;
	var r1 = hi12_(u + v);
	var r2 = (u - r1) + v + hi * P2 + (hi * P3 + lo * 1.5707964);
	if (negative) { r1 = -r1; r2 = -r2; }
	return vec3<u32>(bitcast<u32>(r1), bitcast<u32>(r2), quadrant & 3u);
}

// mul32_ is the 64-bit product of a and b as (high word, low word).
fn mul32_(a: u32, b: u32) -> vec2<u32> {
	let al = a & 0xffffu; let ah = a >> 16u;
	let bl = b & 0xffffu; let bh = b >> 16u;
	let ll = al * bl; let lh = al * bh; let hl = ah * bl; let hh = ah * bh;
	let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
	return vec2<u32>(hh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u), (mid << 16u) | (ll & 0xffffu));
}

// pow2_ is 2^k for k in [-126, 127].
fn pow2_(k: i32) -> f32 { return bitcast<f32>(u32(127 + k) << 23u); }

fn daz_(x: f32) -> f32 { return x; }
fn ftz_(x: f32) -> f32 { return x; }

fn div_(a: f32, b: f32) -> f32 { return a / b; }

fn sqrt_(x: f32) -> f32 {
	let u = bitcast<u32>(x);
	if (u >= inf_bits || u == 0u) { return sqrt(x); } // NaN, +Inf, ±0 and negatives: IEEE's special results
	let n = normalize_(u);
	let odd = (n.y & 1) != 0;
	let m = select(bitcast<f32>(n.x), 2.0 * bitcast<f32>(n.x), odd);
	let s = roundsqrt_(m * inverseSqrt(m), mant24_(bitcast<u32>(n.x)), select(0u, 1u, odd));
	return s * pow2_((n.y - select(0, 1, odd)) / 2);
}

// roundsqrt_ steps s, within 4 ulp of sqrt(m) for m = M 2^(em-23) in
// [1, 4) (M its 24-bit mantissa), to the float nearest it. With
// s = S 2^(E-23), sqrt(m) passes the midpoint above s when
// M 2^(em+25-2E) > (2S+1)^2, and the one below when it is < (2S-1)^2
// (M 2^(em+27-2E) < (4S-1)^2 below a power of two): at most 54 bits.
fn roundsqrt_(s0: f32, M: u32, em: u32) -> f32 {
	var s = s0;
	for (var i = 0; i < 4; i++) {
		let u = bitcast<u32>(s);
		let S = mant24_(u);
		let sh = em + 25u - 2u * (u >> 23u) + 254u; // em + 25 - 2E
		let m = shl64_(M, sh);
		if (lt64_(mul32_(2u * S + 1u, 2u * S + 1u), m)) { s = bitcast<f32>(u + 1u); continue; }
		let pow2 = S == 0x800000u;
		let lo = select(mul32_(2u * S - 1u, 2u * S - 1u), mul32_(4u * S - 1u, 4u * S - 1u), pow2);
		if (lt64_(select(m, shl64_(M, sh + 2u), pow2), lo)) { s = bitcast<f32>(u - 1u); continue; }
		break;
	}
	return s;
}

fn normalize_(a: u32) -> vec2<i32> {
	let m = mant_(a);
	return vec2<i32>(bitcast<i32>((u32(m.x) & 0x7fffffu) | 0x3f800000u), m.y - 127);
}
fn mant24_(u: u32) -> u32 { return (u & 0x7fffffu) | 0x800000u; }
fn shl64_(m: u32, sh: u32) -> vec2<u32> { return vec2<u32>(m >> (32u - sh), m << sh); }
fn lt64_(a: vec2<u32>, b: vec2<u32>) -> bool { return a.x < b.x || (a.x == b.x && a.y < b.y); }
