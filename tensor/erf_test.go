package tensor_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Issue 20, item 4: Erf, Erfc and the exact GELU, checked against Go's
// float64 math.Erf and math.Erfc rounded to float32, over a dense sweep of
// every float32 (one bit pattern in 509, both signs, every binade from the
// subnormals to the largest finite values), every float32 around the
// boundaries of the approximations' intervals, and the edge values.

// The ulp bounds the docs state (Erf, Erfc and GeluErf), measured on
// lavapipe and llvmpipe's GL: see TestErfUlpBound's log.
const (
	erfUlps     = 2
	erfcUlps    = 4
	geluErfUlps = 8
)

// sweepBits is one float32 bit pattern in every stride, from 0 through
// the negative NaNs, so that every binade of both signs is sampled.
func sweepBits(stride uint32) bits {
	var w []uint32
	for u := uint64(0); u < 1<<32; u += uint64(stride) {
		w = append(w, uint32(u))
	}
	return bits{tensor.Float32, w}
}

// around returns the float32s within n ulp of each of vs, both signs.
func around(n int, vs ...float32) bits {
	var w []uint32
	for _, v := range vs {
		c := math.Float32bits(v)
		for d := -n; d <= n; d++ {
			u := uint32(int64(c) + int64(d))
			w = append(w, u, u|0x80000000)
		}
	}
	return bits{tensor.Float32, w}
}

// ulpStats runs op over in (unfused) and returns the largest distance in
// ulp from ref among the finite results and where it is, failing t on a
// result that is NaN or infinite where ref's is not (or the reverse).
func ulpStats(t *testing.T, e *tensor.Engine, op func(*tensor.Engine, ...*tensor.Tensor) *tensor.Tensor, ref func(x ...uint32) uint32, in bits, skip func(x float64) bool) (worst uint64, at float32) {
	t.Helper()
	got := runElementwise(t, e, elemCase{op: op}, false, []bits{in})
	require.Len(t, got.w, len(in.w))
	if e.Device().Float32().FlushesSubnormals {
		ref = flushedRef(ref, []bits{in})
	}
	for i, x := range in.w {
		xf := float64(math.Float32frombits(x))
		if skip != nil && skip(xf) {
			continue
		}
		want, g := ref(x), got.w[i]
		d := f32Ulps(want, g)
		if want&0x7fffffff == 0 && g&0x7fffffff == 0 {
			d = 0 // the sign of a zero result is checked by the edge cases
		}
		if d == math.MaxUint64 {
			t.Errorf("f(%g): got %s, want %s", xf, show(tensor.Float32, g), show(tensor.Float32, want))
			continue
		}
		if d > worst {
			worst, at = d, float32(xf)
		}
	}
	return worst, at
}

// erfBoundaries are where fdlibm's erff and erfcf change approximations.
var erfBoundaries = []float32{0.84375, 1.25, 1 / 0.35, 6, 28, 0.25, 1.0 / (1 << 28), 1.0 / (1 << 56), 0x1p-119, 9.2, 10.0546875, 3.9}

func geluErfRef(x float64) float64 {
	if math.IsInf(x, -1) {
		return math.Copysign(0, -1)
	}
	return x / 2 * math.Erfc(-x/math.Sqrt2)
}

func TestErfUlpBound(t *testing.T) {
	e := testgpu.Engine(t)
	sweep := sweepBits(509)
	edges := around(4, erfBoundaries...)
	for _, c := range []struct {
		name  string
		op    func(*tensor.Engine, ...*tensor.Tensor) *tensor.Tensor
		ref   func(float64) float64
		bound uint64
	}{
		{"erf", unaryOp((*tensor.Engine).Erf), math.Erf, erfUlps},
		{"erfc", unaryOp((*tensor.Engine).Erfc), math.Erfc, erfcUlps},
	} {
		for _, in := range []struct {
			name string
			b    bits
		}{{"sweep", sweep}, {"boundaries", edges}} {
			worst, at := ulpStats(t, e, c.op, f32Unary(c.ref), in.b, nil)
			t.Logf("%s over the %s (%d values): at most %d ulp (at %g)", c.name, in.name, len(in.b.w), worst, at)
			assert.LessOrEqual(t, worst, c.bound, "%s over the %s: %d ulp at %g", c.name, in.name, worst, at)
		}
	}
}

// GeluErf is within geluErfUlps of x/2·erfc(-x/√2) in float64 over every
// float32, the far negative tail included: there the rounding of x/√2
// would cost 2a² ulp (a = x/√2) were it not taken back (see gelu_erf_).
func TestGeluErfUlpBound(t *testing.T) {
	e := testgpu.Engine(t)
	op := unaryOp((*tensor.Engine).GeluErf)
	for _, in := range []struct {
		name string
		b    bits
	}{
		{"sweep", sweepBits(509)},
		{"boundaries", around(4, erfBoundaries...)},
		{"dense [-8, 8]", randRange(rand.New(rand.NewPCG(7, 20)), 1<<16, -8, 8, false)},
		{"tail [-15, -7]", randRange(rand.New(rand.NewPCG(8, 20)), 1<<16, -15, -7, false)},
	} {
		worst, at := ulpStats(t, e, op, f32Unary(geluErfRef), in.b, nil)
		t.Logf("gelu_erf over the %s: at most %d ulp (at %g)", in.name, worst, at)
		assert.LessOrEqual(t, worst, uint64(geluErfUlps), "gelu_erf over the %s: %d ulp at %g", in.name, worst, at)
	}
}

// The edge values, exact: NaN stays NaN, ±0 keep their sign where erf
// does, the infinities give the limits, subnormals are exact or within a
// unit of the smallest subnormal; the fused path gives the same bits.
func TestErfEdges(t *testing.T) {
	e := testgpu.Engine(t)
	in := edges(tensor.Float32)
	checkElementwise(t, e, elemCase{name: "erf", op: unaryOp((*tensor.Engine).Erf), ref: f32Unary(math.Erf), ulps: erfUlps}, in)
	checkElementwise(t, e, elemCase{name: "erfc", op: unaryOp((*tensor.Engine).Erfc), ref: f32Unary(math.Erfc), ulps: erfcUlps}, in)
	checkElementwise(t, e, elemCase{name: "gelu_erf", op: unaryOp((*tensor.Engine).GeluErf), ref: f32Unary(geluErfRef), ulps: geluErfUlps}, in)
	// Signs and limits, bit for bit.
	args := []float32{negZero, 0, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	x := e.FromFloat32s(args, len(args))
	defer x.Dispose()
	for _, c := range []struct {
		name string
		f    func(*tensor.Tensor) *tensor.Tensor
		want []float32
	}{
		{"erf", e.Erf, []float32{negZero, 0, 1, -1, float32(math.NaN())}},
		{"erfc", e.Erfc, []float32{1, 1, 0, 2, float32(math.NaN())}},
		{"gelu_erf", e.GeluErf, []float32{negZero, 0, float32(math.Inf(1)), negZero, float32(math.NaN())}},
	} {
		y := c.f(x)
		got := f32s(t, y)
		y.Dispose()
		for i, w := range c.want {
			if w != w {
				assert.True(t, got[i] != got[i], "%s(NaN): got %g", c.name, got[i])
				continue
			}
			assert.Equal(t, math.Float32bits(w), math.Float32bits(got[i]), "%s(%g): got %g, want %g", c.name, args[i], got[i], w)
		}
	}
}

// Erf, Erfc and GeluErf take float32 only, and say so.
func TestErfRefusesIntegers(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromInt32s([]int32{1, 2}, 2)
	defer x.Dispose()
	for name, f := range map[string]func(*tensor.Tensor) *tensor.Tensor{"erf": e.Erf, "erfc": e.Erfc, "gelu_erf": e.GeluErf} {
		y := f(x)
		assert.ErrorIs(t, y.Err(), tensor.ErrDType, name)
		assert.Contains(t, y.Err().Error(), name, name)
		y.Dispose()
	}
}

// geluGradRef is the derivative of Gelu's tanh form in float64, 1 at +Inf
// and 0 at -Inf.
func geluGradRef(x float64) float64 {
	if math.IsInf(x, 0) {
		return map[bool]float64{true: 1}[x > 0]
	}
	const c, k = 0.7978845608, 0.044715
	u := c * (x + k*x*x*x)
	m := math.Exp(-2 * math.Abs(u)) // 1 + tanh(u) and 1 - tanh², without cancelling
	onePlusT := 2 * m / (1 + m)
	if u >= 0 {
		onePlusT = 2 / (1 + m)
	}
	return 0.5*onePlusT + 0.5*x*(4*m/((1+m)*(1+m)))*c*(1+3*k*x*x)
}

// geluErfGradRef is GeluErf's derivative, Φ(x) + xφ(x), in float64.
func geluErfGradRef(x float64) float64 {
	if math.IsInf(x, 0) {
		return map[bool]float64{true: 1}[x > 0]
	}
	return 0.5*math.Erfc(-x/math.Sqrt2) + x*math.Exp(-x*x/2)/math.Sqrt(2*math.Pi)
}

// GeluGrad and GeluErfGrad are dy times the derivative, one op each:
// within 16 ulp of float64's, or 2e-6 where the derivative's terms
// cancel (near x = -0.75), over the edge values paired with every dy
// (NaN, ±Inf, ±0, subnormals) and over [-2, 10] with dy = 1; over the
// tail [-8, -2], where the derivative falls to 1e-21, within 16 ulp, or
// 128 for the tanh form, whose argument's roundings (each 2^-24 of u,
// |u| up to 25) the exponential there multiplies by 2|u|; the infinities
// give the limits 1 and 0.
func TestGeluGradEdges(t *testing.T) {
	e := testgpu.Engine(t)
	x, dy := pairs(edges(tensor.Float32))
	r := randRange(rand.New(rand.NewPCG(8, 21)), 1<<14, -2, 10, false)
	tail := randRange(rand.New(rand.NewPCG(8, 22)), 1<<14, -8, -2, false)
	ones := make([]float32, len(r.w))
	for i := range ones {
		ones[i] = 1
	}
	for _, c := range []struct {
		name     string
		op       func(*tensor.Engine, *tensor.Tensor, *tensor.Tensor) *tensor.Tensor
		ref      func(float64) float64
		tailUlps uint64
	}{{"gelu_grad", (*tensor.Engine).GeluGrad, geluGradRef, 128}, {"gelu_erf_grad", (*tensor.Engine).GeluErfGrad, geluErfGradRef, 16}} {
		ec := elemCase{name: c.name, op: binaryOp(c.op), ulps: 16, abs: 2e-6, ref: f32Ref(func(v ...float64) float64 {
			return v[1] * float64(float32(c.ref(v[0])))
		})}
		checkElementwise(t, e, ec, x, dy)
		checkElementwise(t, e, ec, r, f32Bits(ones))
		ec.abs, ec.ulps = 0, c.tailUlps // the tail's small values, relatively: no cancellation there
		checkElementwise(t, e, ec, tail, f32Bits(ones))
		lim, one := e.FromFloat32s([]float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}), e.Scalar(1)
		y := c.op(e, lim, one)
		got, err := y.Float32s(context.Background())
		tidy.Dispose([]*tensor.Tensor{lim, one, y})
		require.NoError(t, err)
		assert.Equal(t, float32(1), got[0], c.name)
		assert.Equal(t, float32(0), got[1], c.name)
		assert.True(t, math.IsNaN(float64(got[2])), c.name)
	}
}

// ReluGrad, LeakyReluGrad, TanhGrad and SigmoidGrad give the bits of
// their composed formulas (dy·where(x > 0, 1, 0 or alpha), dy·(1 - y²),
// dy·y·(1 - y)) over the edge values paired with every dy (NaN, ±Inf, ±0,
// subnormals); and every gradient op reads a bfloat16 or float16 x as its
// float32 widening does.
func TestActivationGradOps(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	x, dy := pairs(edges(tensor.Float32))
	check := func(name string, op func(*tensor.Engine, ...*tensor.Tensor) *tensor.Tensor, composed func(*tensor.Engine, ...*tensor.Tensor) *tensor.Tensor) {
		err := tidy.Do(e, func() error {
			a, b := upload(e, x), upload(e, dy)
			got, err := op(e, a, b).Float32s(ctx)
			require.NoError(t, err)
			want, err := composed(e, a, b).Float32s(ctx)
			require.NoError(t, err)
			for i := range got {
				require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "%s(%g, %g)", name, math.Float32frombits(x.w[i]), math.Float32frombits(dy.w[i]))
			}
			return nil
		})
		require.NoError(t, err)
	}
	check("relu_grad", func(e *tensor.Engine, in ...*tensor.Tensor) *tensor.Tensor { return e.ReluGrad(in[0], in[1]) },
		func(e *tensor.Engine, in ...*tensor.Tensor) *tensor.Tensor {
			return e.Mul(in[1], e.Where(e.Greater(in[0], e.Scalar(0)), e.Scalar(1), e.Scalar(0)))
		})
	check("leaky_relu_grad", func(e *tensor.Engine, in ...*tensor.Tensor) *tensor.Tensor {
		return e.LeakyReluGrad(in[0], in[1], 0.125)
	},
		func(e *tensor.Engine, in ...*tensor.Tensor) *tensor.Tensor {
			return e.Mul(in[1], e.Where(e.Greater(in[0], e.Scalar(0)), e.Scalar(1), e.Scalar(0.125)))
		})

	check("tanh_grad", func(e *tensor.Engine, in ...*tensor.Tensor) *tensor.Tensor { return e.TanhGrad(in[0], in[1]) },
		func(e *tensor.Engine, in ...*tensor.Tensor) *tensor.Tensor {
			return e.Mul(in[1], e.Sub(e.Scalar(1), e.Square(in[0])))
		})
	check("sigmoid_grad", func(e *tensor.Engine, in ...*tensor.Tensor) *tensor.Tensor { return e.SigmoidGrad(in[0], in[1]) },
		func(e *tensor.Engine, in ...*tensor.Tensor) *tensor.Tensor {
			return e.Mul(in[1], e.Mul(in[0], e.Sub(e.Scalar(1), in[0])))
		})

	// Narrow x: as its widening.
	rng := rand.New(rand.NewPCG(8, 23))
	xs := make([]float32, 4099)
	ones := make([]float32, len(xs))
	for i := range xs {
		xs[i], ones[i] = float32(rng.NormFloat64()*3), float32(rng.NormFloat64())
	}
	for _, d := range []tensor.DType{tensor.BFloat16, tensor.Float16} {
		err := tidy.Do(e, func() error {
			xn, g := e.Cast(e.FromFloat32s(xs), d), e.FromFloat32s(ones)
			wide := e.Cast(xn, tensor.Float32)
			for name, op := range map[string]func(x, dy *tensor.Tensor) *tensor.Tensor{
				"gelu_grad": e.GeluGrad, "gelu_erf_grad": e.GeluErfGrad, "relu_grad": e.ReluGrad, "tanh_grad": e.TanhGrad, "sigmoid_grad": e.SigmoidGrad,
				"leaky_relu_grad": func(x, dy *tensor.Tensor) *tensor.Tensor { return e.LeakyReluGrad(x, dy, 0.01) },
			} {
				got, err := op(xn, g).Float32s(ctx)
				require.NoError(t, err, name)
				want, err := op(wide, g).Float32s(ctx)
				require.NoError(t, err, name)
				require.Equal(t, want, got, "%s of %s x", name, d)
			}
			bad := e.ReluGrad(g, xn)
			require.ErrorIs(t, bad.Err(), tensor.ErrDType, "dy of %s", d)
			return nil
		})
		require.NoError(t, err)
	}
}
