package tensor_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

var unaryShapes = [][]int{{}, {0}, {1}, {257}, {3, 5, 7}, {2, 0, 3}}

func TestUnaryFloatOps(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(1, 2))
	gelu := func(x float64) float64 {
		return 0.5 * x * (1 + math.Tanh(0.7978845608*(x+0.044715*x*x*x)))
	}
	sigmoid := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	cases := []struct {
		name     string
		op       func(*tensor.Tensor) *tensor.Tensor
		ref      func(float64) float64
		lo, hi   float32
		abs, rel float64 // tolerance
	}{
		{"neg", e.Neg, func(x float64) float64 { return -x }, -10, 10, 0, 0},
		{"abs", e.Abs, math.Abs, -10, 10, 0, 0},
		{"sign", e.Sign, func(x float64) float64 { return float64(sign(x)) }, -2, 2, 0, 0},
		{"square", e.Square, func(x float64) float64 { return x * x }, -10, 10, 0, 1e-6},
		{"relu", e.Relu, func(x float64) float64 { return math.Max(x, 0) }, -10, 10, 0, 0},
		{"floor", e.Floor, math.Floor, -10, 10, 0, 0},
		{"ceil", e.Ceil, math.Ceil, -10, 10, 0, 0},
		{"round", e.Round, math.RoundToEven, -10, 10, 0, 0},
		{"exp", e.Exp, math.Exp, -20, 20, 1e-30, 1e-5},
		{"log", e.Log, math.Log, 1e-3, 100, 1e-5, 1e-5},
		{"sqrt", e.Sqrt, math.Sqrt, 0, 100, 1e-6, 1e-6},
		{"rsqrt", e.Rsqrt, func(x float64) float64 { return 1 / math.Sqrt(x) }, 1e-2, 100, 1e-6, 1e-5},
		{"sin", e.Sin, math.Sin, -10, 10, 1e-5, 0},
		{"cos", e.Cos, math.Cos, -10, 10, 1e-5, 0},
		{"tanh", e.Tanh, math.Tanh, -30, 30, 1e-6, 1e-5},
		{"sigmoid", e.Sigmoid, sigmoid, -100, 100, 1e-7, 1e-5},
		{"gelu", e.Gelu, gelu, -10, 10, 1e-6, 1e-5},
		{"leaky_relu", func(x *tensor.Tensor) *tensor.Tensor { return e.LeakyRelu(x, 0.1) },
			func(x float64) float64 { return math.Max(x, 0.1*x) }, -10, 10, 1e-7, 1e-6},
		{"clip", func(x *tensor.Tensor) *tensor.Tensor { return e.Clip(x, -1, 2.5) },
			func(x float64) float64 { return math.Min(math.Max(x, -1), 2.5) }, -10, 10, 0, 0},
	}
	for _, c := range cases {
		for _, s := range unaryShapes {
			in := randF32(r, size(s), c.lo, c.hi)
			x := e.FromFloat32s(in, s...)
			y := c.op(x)
			want := make([]float32, len(in))
			for i, v := range in {
				want[i] = float32(c.ref(float64(v)))
			}
			assert.Equal(t, tensor.Shape(s), y.Shape(), c.name)
			closeTo(t, want, f32s(t, y), c.abs, c.rel, "%s %v", c.name, s)
			x.Dispose()
			y.Dispose()
		}
	}
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func TestUnaryIntOps(t *testing.T) {
	e := testgpu.Engine(t)
	in := []int32{-7, -1, 0, 1, 5, math.MaxInt32, math.MinInt32 + 1}
	x := e.FromInt32s(in)
	defer x.Dispose()
	for _, c := range []struct {
		name string
		op   func(*tensor.Tensor) *tensor.Tensor
		ref  func(int32) int32
	}{
		{"neg", e.Neg, func(v int32) int32 { return -v }},
		{"abs", e.Abs, func(v int32) int32 { return max(v, -v) }},
		{"sign", e.Sign, func(v int32) int32 { return int32(sign(float64(v))) }},
		{"relu", e.Relu, func(v int32) int32 { return max(v, 0) }},
		{"square", e.Square, func(v int32) int32 { return v * v }},
		{"floor", e.Floor, func(v int32) int32 { return v }},
		{"clip", func(x *tensor.Tensor) *tensor.Tensor { return e.Clip(x, -2, 3) }, func(v int32) int32 { return min(max(v, -2), 3) }},
	} {
		y := c.op(x)
		want := make([]int32, len(in))
		for i, v := range in {
			want[i] = c.ref(v)
		}
		assert.Equal(t, want, i32s(t, y), c.name)
		y.Dispose()
	}
	y := e.Exp(x)
	assert.ErrorIs(t, y.Err(), tensor.ErrDType, "exp of int32")
	assert.Contains(t, y.Err().Error(), "exp [7]")
}

func TestBinaryOpsBroadcast(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(3, 4))
	pairs := [][2][]int{
		{{2, 3}, {3}}, {{3}, {2, 3}}, {{4, 1, 5}, {3, 1}}, {{}, {2, 2}}, {{2, 2}, {}},
		{{0, 3}, {3}}, {{1}, {1}}, {{257}, {257}}, {{2, 1, 3, 1}, {1, 4, 1, 5}}, {{5, 1}, {1, 7}},
	}
	pow := func(a, b float64) float64 { return math.Pow(a, b) }
	mod := func(a, b float64) float64 { return a - b*math.Floor(a/b) }
	fops := []struct {
		name     string
		op       func(a, b *tensor.Tensor) *tensor.Tensor
		ref      func(a, b float64) float64
		abs, rel float64
		intB     bool // b is drawn as small integers (pow's exponents)
	}{
		{"add", e.Add, func(a, b float64) float64 { return a + b }, 1e-6, 1e-6, false},
		{"sub", e.Sub, func(a, b float64) float64 { return a - b }, 1e-6, 1e-6, false},
		{"mul", e.Mul, func(a, b float64) float64 { return a * b }, 1e-6, 1e-6, false},
		{"div", e.Div, func(a, b float64) float64 { return a / b }, 1e-6, 1e-6, false},
		{"maximum", e.Maximum, math.Max, 0, 0, false},
		{"minimum", e.Minimum, math.Min, 0, 0, false},
		{"pow", e.Pow, pow, 1e-5, 1e-5, true},
		{"mod", e.Mod, mod, 1e-4, 1e-5, false},
	}
	for _, pr := range pairs {
		as, bs := pr[0], pr[1]
		av := randF32(r, size(as), -4, 4)
		bv := randF32(r, size(bs), 0.5, 3)
		for i := range bv {
			if r.IntN(2) == 0 {
				bv[i] = -bv[i]
			}
		}
		a, b := e.FromFloat32s(av, as...), e.FromFloat32s(bv, bs...)
		for _, c := range fops {
			bb, bvv := b, bv
			if c.intB {
				bvv = make([]float32, len(bv))
				for i, v := range bv {
					bvv[i] = float32(math.Round(float64(v)))
				}
				bb = e.FromFloat32s(bvv, bs...)
			}
			want, shape := refBinary(av, as, bvv, bs, func(x, y float32) float32 { return float32(c.ref(float64(x), float64(y))) })
			y := c.op(a, bb)
			assert.Equal(t, tensor.Shape(shape), y.Shape(), "%s %v %v", c.name, as, bs)
			closeTo(t, want, f32s(t, y), c.abs, c.rel, "%s %v %v", c.name, as, bs)
			y.Dispose()
			if c.intB {
				bb.Dispose()
			}
		}
		for name, c := range map[string]struct {
			op  func(a, b *tensor.Tensor) *tensor.Tensor
			ref func(a, b float32) bool
		}{
			"equal":         {e.Equal, func(a, b float32) bool { return a == b }},
			"not_equal":     {e.NotEqual, func(a, b float32) bool { return a != b }},
			"less":          {e.Less, func(a, b float32) bool { return a < b }},
			"less_equal":    {e.LessEqual, func(a, b float32) bool { return a <= b }},
			"greater":       {e.Greater, func(a, b float32) bool { return a > b }},
			"greater_equal": {e.GreaterEqual, func(a, b float32) bool { return a >= b }},
		} {
			want, _ := refBinary(av, as, bv, bs, func(x, y float32) uint32 {
				if c.ref(x, y) {
					return 1
				}
				return 0
			})
			y := c.op(a, b)
			assert.Equal(t, want, u32s(t, y), "%s %v %v", name, as, bs)
			// Where picks from a and b by the comparison's result.
			w := e.Where(y, a, b)
			wantW, _ := refBinary(av, as, bv, bs, func(x, y float32) float32 {
				if c.ref(x, y) {
					return x
				}
				return y
			})
			assert.Equal(t, wantW, f32s(t, w), "where(%s) %v %v", name, as, bs)
			y.Dispose()
			w.Dispose()
		}
		a.Dispose()
		b.Dispose()
	}
}

func TestIntBinaryOps(t *testing.T) {
	e := testgpu.Engine(t)
	av := []int32{-7, -7, 7, 7, 0, 100, math.MaxInt32}
	bv := []int32{2, -2, 2, -2, 3, 7, 1}
	a, b := e.FromInt32s(av), e.FromInt32s(bv)
	defer a.Dispose()
	defer b.Dispose()
	for _, c := range []struct {
		name string
		op   func(a, b *tensor.Tensor) *tensor.Tensor
		ref  func(a, b int32) int32
	}{
		{"add", e.Add, func(a, b int32) int32 { return a + b }},
		{"sub", e.Sub, func(a, b int32) int32 { return a - b }},
		{"mul", e.Mul, func(a, b int32) int32 { return a * b }},
		{"div", e.Div, func(a, b int32) int32 { // floored, as NumPy's //
			q := a / b
			if q*b != a && (a < 0) != (b < 0) {
				q--
			}
			return q
		}},
		{"mod", e.Mod, func(a, b int32) int32 {
			m := a % b
			if m != 0 && (m < 0) != (b < 0) {
				m += b
			}
			return m
		}},
		{"maximum", e.Maximum, func(a, b int32) int32 { return max(a, b) }},
	} {
		y := c.op(a, b)
		want := make([]int32, len(av))
		for i := range av {
			want[i] = c.ref(av[i], bv[i])
		}
		assert.Equal(t, want, i32s(t, y), c.name)
		y.Dispose()
	}
}

func TestCast(t *testing.T) {
	e := testgpu.Engine(t)
	f := e.FromFloat32s([]float32{-2.7, -0.5, 0, 0.5, 2.7, 1e6})
	defer f.Dispose()
	i := e.Cast(f, tensor.Int32)
	defer i.Dispose()
	assert.Equal(t, []int32{-2, 0, 0, 0, 2, 1000000}, i32s(t, i))
	u := e.Cast(i, tensor.Uint32)
	defer u.Dispose()
	assert.Equal(t, []uint32{math.MaxUint32 - 1, 0, 0, 0, 2, 1000000}, u32s(t, u), "int32 to uint32 keeps the bits")
	back := e.Cast(i, tensor.Float32)
	defer back.Dispose()
	assert.Equal(t, []float32{-2, 0, 0, 0, 2, 1e6}, f32s(t, back))
}

func TestLargeElementwise(t *testing.T) {
	e := testgpu.Engine(t)
	n := 1 << 22
	r := rand.New(rand.NewPCG(5, 6))
	av, bv := randF32(r, n, -1, 1), randF32(r, n, -1, 1)
	a, b := e.FromFloat32s(av), e.FromFloat32s(bv)
	defer a.Dispose()
	defer b.Dispose()
	y := e.Mul(a, b)
	defer y.Dispose()
	z := e.Exp(y)
	defer z.Dispose()
	want := make([]float32, n)
	for i := range want {
		want[i] = float32(math.Exp(float64(av[i] * bv[i])))
	}
	closeTo(t, want, f32s(t, z), 1e-6, 1e-5, "exp(a*b) over 2^22")
}

func TestOpErrorsPropagate(t *testing.T) {
	e := testgpu.Engine(t)
	a := e.FromFloat32s([]float32{1, 2, 3}, 3)
	b := e.FromFloat32s([]float32{1, 2}, 2)
	defer a.Dispose()
	defer b.Dispose()
	bad := e.Add(a, b)
	require.ErrorIs(t, bad.Err(), tensor.ErrShape)
	assert.Contains(t, bad.Err().Error(), "add [3] [2]")
	worse := e.Exp(e.Mul(bad, a))
	assert.Same(t, bad.Err(), worse.Err(), "errors propagate through ops unchanged")
	_, err := worse.Float32s(ctxT(t))
	assert.Equal(t, bad.Err(), err, "and through readbacks")
	worse.Dispose()
	worse.Dispose()

	gone := e.FromFloat32s([]float32{1})
	gone.Dispose()
	gone.Dispose() // harmless
	assert.ErrorIs(t, e.Neg(gone).Err(), tensor.ErrDisposed)
	assert.ErrorIs(t, e.FromFloat32s([]float32{1, 2}, 3).Err(), tensor.ErrShape)
	ints := e.FromInt32s([]int32{1})
	defer ints.Dispose()
	assert.ErrorIs(t, e.Add(a, ints).Err(), tensor.ErrDType)
}

func TestOutOfMemoryIsAnOpError(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.MemoryLimit = 1 << 20
	e := testgpu.EngineOn(t, testgpu.OpenWith(t, opts))
	a := e.Zeros(tensor.Float32, 128<<10) // 512 KiB
	defer a.Dispose()
	b := e.Add(a, a) // another 512 KiB: over the limit with the op's parameters
	defer b.Dispose()
	c := e.Mul(a, a)
	if b.Err() == nil {
		require.Error(t, c.Err(), "a third 512 KiB tensor cannot fit in 1 MiB")
		b, c = c, b
	}
	require.ErrorIs(t, b.Err(), wgpu.ErrOutOfMemory)
	assert.Contains(t, b.Err().Error(), "tensor: ")
	assert.Contains(t, b.Err().Error(), "[131072]", "the error names the shapes")
	assert.Contains(t, b.Err().Error(), "elementwise_test.go:", "and where live memory was allocated")
}
