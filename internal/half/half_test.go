package half_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/half"
	"github.com/wgtensor/wgtensor/internal/testgpu"
)

// f16Value decodes a float16 from its definition, in float64: the
// reference the conversions are checked against.
func f16Value(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	}
	return sign * math.Ldexp(1+frac/1024, e-15)
}

// positives are the finite non-negative float16 values, ascending: the
// patterns 0x0000 to 0x7bff.
var positives = func() []float64 {
	v := make([]float64, 0x7c00)
	for h := range v {
		v[h] = f16Value(uint16(h))
	}
	return v
}()

// refFloat16 rounds x to float16 by search: the nearest value, ties to
// the even pattern, ±Inf from 65,520 on (where the next value, 2^16,
// would be), and PyTorch's NaN.
func refFloat16(x float32) uint16 {
	var sign uint16
	if math.Signbit(float64(x)) {
		sign = 0x8000
	}
	a := math.Abs(float64(x))
	switch {
	case math.IsNaN(a):
		return sign | 0x7e00
	case a >= 65520:
		return sign | 0x7c00
	}
	i := sort.SearchFloat64s(positives, a) // positives[i] >= a
	if i == len(positives) {               // between 65,504 and 65,520: nearer the largest
		return sign | 0x7bff
	}
	if positives[i] == a {
		return sign | uint16(i)
	}
	lo, hi := positives[i-1], positives[i]
	switch {
	case a-lo < hi-a:
		return sign | uint16(i-1)
	case a-lo > hi-a:
		return sign | uint16(i)
	case (i-1)%2 == 0:
		return sign | uint16(i-1)
	}
	return sign | uint16(i)
}

// refBFloat16 rounds x to bfloat16: the nearer of the two bfloat16s
// around it, ties to the even pattern; PyTorch's NaN.
func refBFloat16(x float32) uint16 {
	b := math.Float32bits(x)
	if math.IsNaN(float64(x)) {
		return 0x7fc0
	}
	lo := uint16(b >> 16)
	if b&0xffff == 0 {
		return lo
	}
	// Magnitudes: lo toward zero, lo+1 away from it (past the largest
	// finite value, +1 is Inf).
	a := math.Abs(float64(x))
	dl := a - math.Abs(float64(math.Float32frombits(uint32(lo)<<16)))
	up := math.Abs(float64(math.Float32frombits(uint32(lo+1) << 16)))
	du := up - a
	if math.IsInf(up, 0) {
		// Halfway to 2^128, as if the exponent went on.
		du = math.Ldexp(1, 128) - a
	}
	switch {
	case dl < du, dl == du && lo%2 == 0:
		return lo
	}
	return lo + 1
}

// narrowingCases are float32s that probe every float16 rounding boundary
// and bfloat16's: each float16 value and its neighbours' midpoints, one
// float32 step either side of them, the same for bfloat16, the edges of
// both ranges, NaNs with payloads, and random bit patterns.
func narrowingCases() []float32 {
	var out []float32
	add := func(f float32) { out = append(out, f, -f) }
	for i := range len(positives) - 1 {
		v := float32(positives[i])
		mid := float32((positives[i] + positives[i+1]) / 2) // 12 significant bits: exact
		add(v)
		add(mid)
		add(math.Nextafter32(mid, 0))
		add(math.Nextafter32(mid, float32(math.Inf(1))))
	}
	for _, v := range []float32{65504, 65519.996, 65520, 65536, 1e10, math.MaxFloat32, float32(math.Inf(1)),
		float32(math.Ldexp(1, -25)), math.Nextafter32(float32(math.Ldexp(1, -25)), 1), math.Nextafter32(float32(math.Ldexp(1, -25)), 0),
		math.SmallestNonzeroFloat32, 1e-40, 0} {
		add(v)
	}
	for h := range uint32(1 << 15) { // bfloat16: each value, the midpoint after it, and either side of that
		b := h << 16
		for _, bits := range []uint32{b, b | 0x8000, b | 0x7fff, b | 0x8001, b | 1, b | 0xffff} {
			if f := math.Float32frombits(bits); !math.IsNaN(float64(f)) {
				add(f)
			}
		}
	}
	for _, bits := range []uint32{0x7f800001, 0x7fc00000, 0x7fffffff, 0x7fa00000} {
		add(math.Float32frombits(bits))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		out = append(out, math.Float32frombits(rng.Uint32()))
	}
	return out
}

func TestFloat16To32IsExactOverEveryPattern(t *testing.T) {
	for h := range 1 << 16 {
		got := half.Float16To32(uint16(h))
		want := f16Value(uint16(h))
		if math.IsNaN(want) {
			bits := math.Float32bits(got)
			require.True(t, math.IsNaN(float64(got)), "%#04x", h)
			require.Equal(t, uint32(h&0x8000)<<16, bits&0x80000000, "%#04x keeps its sign", h)
			require.Equal(t, uint32(h&0x3ff), bits>>13&0x3ff, "%#04x keeps its payload", h)
			continue
		}
		require.Equal(t, want, float64(got), "%#04x", h)
		require.Equal(t, math.Signbit(want), math.Signbit(float64(got)), "%#04x: the sign of zero", h)
		if h&0x7c00 != 0x7c00 {
			require.Equal(t, uint16(h), half.Float16From32(got), "%#04x round-trips", h)
		}
	}
}

func TestBFloat16To32IsExactOverEveryPattern(t *testing.T) {
	for h := range 1 << 16 {
		got := half.BFloat16To32(uint16(h))
		require.Equal(t, uint32(h)<<16, math.Float32bits(got), "%#04x", h)
		if !math.IsNaN(float64(got)) {
			require.Equal(t, uint16(h), half.BFloat16From32(got), "%#04x round-trips", h)
		}
	}
}

func TestNarrowingRoundsToNearestEven(t *testing.T) {
	for _, f := range narrowingCases() {
		if got, want := half.Float16From32(f), refFloat16(f); got != want {
			t.Fatalf("float16 of %g (%#08x): %#04x, want %#04x", f, math.Float32bits(f), got, want)
		}
		if got, want := half.BFloat16From32(f), refBFloat16(f); got != want {
			t.Fatalf("bfloat16 of %g (%#08x): %#04x, want %#04x", f, math.Float32bits(f), got, want)
		}
	}
}

// PyTorch, where it is installed, converts the same way: every float16
// and bfloat16 pattern widened, and every narrowing case narrowed, bit
// for bit.
func TestConversionsAgreeWithPyTorch(t *testing.T) {
	py := testgpu.Torch(t)
	dir := t.TempDir()
	cases := narrowingCases()
	in := make([]byte, 4*len(cases))
	for i, f := range cases {
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(f))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f32"), in, 0o644))
	script := `
import sys, torch
d = sys.argv[1]
pat = torch.arange(0, 1 << 16, dtype=torch.int32).to(torch.int16)
for name, dt in (("f16", torch.float16), ("bf16", torch.bfloat16)):
    wide = pat.view(dt).float().view(torch.int32)
    open(d + "/" + name + "_wide", "wb").write(wide.numpy().tobytes())
    x = torch.frombuffer(bytearray(open(d + "/f32", "rb").read()), dtype=torch.float32)
    narrow = x.to(dt).view(torch.int16)
    open(d + "/" + name + "_narrow", "wb").write(narrow.numpy().tobytes())
`
	out, err := exec.Command(py, "-c", script, dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return b
	}
	for _, c := range []struct {
		name   string
		widen  func(uint16) float32
		narrow func(float32) uint16
	}{{"f16", half.Float16To32, half.Float16From32}, {"bf16", half.BFloat16To32, half.BFloat16From32}} {
		wide := read(c.name + "_wide")
		require.Len(t, wide, 4<<16)
		for h := range 1 << 16 {
			want := binary.LittleEndian.Uint32(wide[4*h:])
			got := math.Float32bits(c.widen(uint16(h)))
			if math.IsNaN(float64(math.Float32frombits(want))) {
				require.True(t, math.IsNaN(float64(math.Float32frombits(got))), "%s %#04x widened", c.name, h)
				continue
			}
			require.Equal(t, want, got, "%s %#04x widened", c.name, h)
		}
		narrow := read(c.name + "_narrow")
		require.Len(t, narrow, 2*len(cases))
		for i, f := range cases {
			want, got := binary.LittleEndian.Uint16(narrow[2*i:]), c.narrow(f)
			if math.IsNaN(float64(f)) {
				// PyTorch's NaN depends on its code path (bfloat16: 0x7fc0
				// from scalar code, 0xffff from vectorised code): NaN it is.
				require.True(t, math.IsNaN(float64(c.widen(want))) && math.IsNaN(float64(c.widen(got))), "%s of NaN %#08x: %#04x and %#04x", c.name, math.Float32bits(f), want, got)
				continue
			}
			require.Equal(t, want, got, "%s of %g (%#08x)", c.name, f, math.Float32bits(f))
		}
	}
}
