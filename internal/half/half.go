// Package half converts between float32 and the two 16-bit floats
// wgtensor stores: IEEE 754 binary16 ("float16", 1 sign bit, 5 exponent
// bits, 10 fraction bits) and bfloat16 (the upper half of a float32: 8
// exponent bits, 7 fraction bits). Values are handled as their bits, a
// uint16, as they sit in memory.
//
// Widening to float32 is exact for both. Narrowing rounds to nearest,
// ties to even, as IEEE 754 and PyTorch do: a float16 too large for the
// format (65,520 and above in magnitude) becomes ±Inf, a float16 too
// small becomes a subnormal or ±0, and bfloat16, whose range is
// float32's, overflows only where rounding carries past its largest
// value. NaN stays NaN: float16 keeps the sign and gives the quiet NaN
// 0x7e00, bfloat16 gives 0x7fc0 whatever the sign, as PyTorch's scalar
// code does (its vectorised code gives bfloat16 0xffff, another NaN).
//
// The functions are pure and safe for concurrent use.
package half

import "math"

// Float16To32 widens a float16 to float32, exactly; a NaN keeps its sign
// and payload.
func Float16To32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h & 0x3ff)
	switch exp {
	case 0: // zero or subnormal: frac · 2^-24, exact in float32
		f := float32(frac) * (1.0 / (1 << 24))
		return math.Float32frombits(sign | math.Float32bits(f))
	case 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// The boundaries of float16's range, as float32 bits of a magnitude.
const (
	f16Overflow   = 0x477ff000 // 65,520: halfway from 65,504 to 2^16; rounds (to even) to Inf
	f16MinNormal  = 0x38800000 // 2^-14
	f16Underflow  = 0x33000000 // 2^-25: halfway from 0 to 2^-24; rounds (to even) to 0
	f32ExpBiasGap = (127 - 15) << 23
)

// Float16From32 narrows a float32 to float16, rounding to nearest, ties
// to even; see the package doc for overflow and NaN.
func Float16From32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	abs := b & 0x7fffffff
	switch {
	case abs > 0x7f800000: // NaN
		return sign | 0x7e00
	case abs >= f16Overflow: // Inf, or rounds to it
		return sign | 0x7c00
	case abs >= f16MinNormal: // normal: rebias, round 23 fraction bits to 10
		v := abs - f32ExpBiasGap
		v += 0xfff + (v>>13)&1
		return sign | uint16(v>>13)
	case abs <= f16Underflow:
		return sign
	}
	// Subnormal: the value in units of 2^-24, rounded. The significand m
	// (with its leading bit) is the value in units of 2^(e-150).
	e := abs >> 23
	m := abs&0x7fffff | 0x800000
	shift := 126 - e // 14 to 24
	q := m >> shift
	rem, halfway := m&(1<<shift-1), uint32(1)<<(shift-1)
	if rem > halfway || rem == halfway && q&1 == 1 {
		q++ // may carry into the smallest normal, 0x0400: still right
	}
	return sign | uint16(q)
}

// BFloat16To32 widens a bfloat16 to float32, exactly.
func BFloat16To32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// BFloat16From32 narrows a float32 to bfloat16, rounding to nearest,
// ties to even; a NaN becomes 0x7fc0.
func BFloat16From32(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return 0x7fc0
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}
