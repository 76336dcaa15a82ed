package tensor_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// matmulCase multiplies random matrices on the GPU and in Go.
func matmulCase(t *testing.T, e *tensor.Engine, r *rand.Rand, as, bs []int, ta, tb bool) {
	t.Helper()
	av, bv := randF32(r, size(as), -1, 1), randF32(r, size(bs), -1, 1)
	a, b := e.FromFloat32s(av, as...), e.FromFloat32s(bv, bs...)
	defer a.Dispose()
	defer b.Dispose()
	c := e.MatMulT(a, b, ta, tb)
	defer c.Dispose()
	want, shape := refMatMul(av, as, bv, bs, ta, tb)
	require.NoError(t, c.Err(), "%v·%v", as, bs)
	assert.Equal(t, tensor.Shape(shape), c.Shape())
	// Each output sums K products of values in [-1, 1).
	k := as[len(as)-1]
	if ta {
		k = as[len(as)-2]
	}
	closeTo(t, want, f32s(t, c), 1e-6*float64(k+1), 1e-5, "matmul %v·%v T(%v,%v)", as, bs, ta, tb)
}

// Every matmul kernel is checked on every device: vec4 (with register for
// the shapes it does not take) is the default on CPU adapters, tiled on
// GPUs.
func TestMatMulShapes(t *testing.T) {
	for _, kernel := range []string{"tiled", "register", "vec4", "small"} {
		t.Run(kernel, func(t *testing.T) {
			t.Setenv("WGT_MATMUL", kernel)
			e := testgpu.Engine(t)
			require.Equal(t, kernel, tensor.MatMulKernel(e))
			matmulShapes(t, e)
		})
	}
}

func matmulShapes(t *testing.T, e *tensor.Engine) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ a, b []int }{
		{[]int{1, 1}, []int{1, 1}},
		{[]int{2, 3}, []int{3, 4}},
		{[]int{64, 64}, []int{64, 64}},
		{[]int{65, 17}, []int{17, 63}},
		{[]int{1, 100}, []int{100, 1}},
		{[]int{130, 1}, []int{1, 70}},
		{[]int{3, 0}, []int{0, 5}}, // K = 0: zeros
		{[]int{0, 4}, []int{4, 5}},
		{[]int{3, 7, 9}, []int{9, 5}},        // batch on one side
		{[]int{2, 1, 7, 9}, []int{3, 9, 5}},  // batches broadcast both ways
		{[]int{4, 33, 20}, []int{4, 20, 31}}, // batched, odd sizes
		{[]int{200, 129}, []int{129, 190}},   // several tiles, ragged edges
		// Shapes the vec4 kernel takes (K and N multiples of four), with
		// ragged 128-row and 32-vec4 tiles:
		{[]int{1, 4}, []int{4, 4}},
		{[]int{130, 12}, []int{12, 36}},
		{[]int{257, 260}, []int{260, 132}},
		{[]int{3, 5, 8}, []int{2, 1, 8, 12}},
		{[]int{3, 0}, []int{0, 8}},
		// and with A transposed (M a multiple of four too):
		{[]int{132, 20}, []int{20, 68}},
		{[]int{2, 1, 36, 8}, []int{3, 8, 12}},
	} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			as, bs := append([]int{}, c.a...), append([]int{}, c.b...)
			if tr[0] {
				n := len(as)
				as[n-2], as[n-1] = as[n-1], as[n-2]
			}
			if tr[1] {
				n := len(bs)
				bs[n-2], bs[n-1] = bs[n-1], bs[n-2]
			}
			matmulCase(t, e, r, as, bs, tr[0], tr[1])
		}
	}
}

func TestMatMulLarge(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(9, 10))
	matmulCase(t, e, r, []int{2048, 2048}, []int{2048, 4}, false, false) // 2^22 elements in A
}

func TestMatMulErrors(t *testing.T) {
	e := testgpu.Engine(t)
	a := e.Zeros(tensor.Float32, 2, 3)
	b := e.Zeros(tensor.Float32, 4, 5)
	v := e.Zeros(tensor.Float32, 3)
	i := e.Zeros(tensor.Int32, 3, 3)
	defer a.Dispose()
	defer b.Dispose()
	defer v.Dispose()
	defer i.Dispose()
	err := e.MatMul(a, b).Err()
	require.ErrorIs(t, err, tensor.ErrShape)
	assert.Contains(t, err.Error(), "matmul [2 3] [4 5]: inner dimensions 3 and 4 differ")
	assert.ErrorIs(t, e.MatMul(a, v).Err(), tensor.ErrShape)
	assert.ErrorIs(t, e.MatMul(i, i).Err(), tensor.ErrDType)
}

// refReduce reduces x (shape s) over the axes in mask.
func refReduce(x []float64, s []int, mask []bool, init float64, f func(acc, v float64, j int) float64) []float64 {
	var outShape []int
	for d := range s {
		if !mask[d] {
			outShape = append(outShape, s[d])
		}
	}
	out := make([]float64, size(outShape))
	for i := range out {
		out[i] = init
	}
	counters := make([]int, size(outShape))
	idx := make([]int, len(s))
	for i, v := range x {
		unravel(i, s, idx)
		o, j := 0, 0
		for d := range s {
			if !mask[d] {
				o = o*s[d] + idx[d]
			} else {
				j = j*s[d] + idx[d]
			}
		}
		out[o] = f(out[o], v, j)
		counters[o]++
	}
	return out
}

func TestReductions(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(11, 12))
	cases := []struct {
		shape []int
		axes  []int
	}{
		{[]int{}, nil}, {[]int{1}, nil}, {[]int{7}, []int{0}}, {[]int{1000}, nil},
		{[]int{3, 4}, []int{1}}, {[]int{3, 4}, []int{0}}, {[]int{3, 4}, []int{-1, 0}},
		{[]int{2, 3, 5}, []int{0, 2}}, {[]int{2, 3, 5}, []int{1}}, {[]int{5, 300}, []int{1}},
		{[]int{20000, 3}, []int{1}}, {[]int{0, 4}, []int{1}}, {[]int{4, 0}, []int{0}},
		{[]int{1 << 22}, nil}, {[]int{2048, 2048}, []int{0}},
	}
	for _, c := range cases {
		xv := randF32(r, size(c.shape), -1, 1)
		x := e.FromFloat32s(xv, c.shape...)
		mask := make([]bool, len(c.shape))
		for i := range mask {
			mask[i] = len(c.axes) == 0
		}
		for _, a := range c.axes {
			if a < 0 {
				a += len(c.shape)
			}
			mask[a] = true
		}
		red := 1
		for d, m := range mask {
			if m {
				red *= c.shape[d]
			}
		}
		x64 := make([]float64, len(xv))
		for i, v := range xv {
			x64[i] = float64(v)
		}
		ops := []struct {
			name string
			op   func(*tensor.Tensor, bool, ...int) *tensor.Tensor
			init float64
			f    func(acc, v float64, j int) float64
			post func(float64) float64
		}{
			{"sum", e.Sum, 0, func(a, v float64, _ int) float64 { return a + v }, nil},
			{"mean", e.Mean, 0, func(a, v float64, _ int) float64 { return a + v }, func(s float64) float64 { return s / float64(red) }},
			{"prod", e.Prod, 1, func(a, v float64, _ int) float64 { return a * (v + 1.5) }, nil},
			{"max", e.Max, math.Inf(-1), func(a, v float64, _ int) float64 { return math.Max(a, v) }, nil},
			{"min", e.Min, math.Inf(1), func(a, v float64, _ int) float64 { return math.Min(a, v) }, nil},
		}
		for _, op := range ops {
			in := x
			if op.name == "prod" { // keep products near 1
				shift := e.Fill(tensor.Float32, 1.5)
				in = e.Add(x, shift)
				shift.Dispose()
			}
			y := op.op(in, false, c.axes...)
			if (op.name == "max" || op.name == "min") && red == 0 && size(c.shape) > 0 {
				assert.ErrorIs(t, y.Err(), tensor.ErrShape, "%s over empty", op.name)
				continue
			}
			want64 := refReduce(x64, c.shape, mask, op.init, op.f)
			want := make([]float32, len(want64))
			for i, v := range want64 {
				if op.post != nil {
					v = op.post(v)
				}
				want[i] = float32(v)
			}
			tol := 1e-5 * float64(red+1) // float32 sums drift with their length
			if op.name == "mean" {
				tol = 1e-5
			}
			closeTo(t, want, f32s(t, y), tol, 1e-5, "%s %v axes %v", op.name, c.shape, c.axes)
			kd := op.op(in, true, c.axes...)
			assert.Equal(t, len(c.shape), kd.Rank(), "keepDims")
			assert.Equal(t, y.Size(), kd.Size())
			y.Dispose()
			kd.Dispose()
			if in != x {
				in.Dispose()
			}
		}
		x.Dispose()
	}
}

func TestArgMaxArgMin(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(13, 14))
	for _, s := range [][]int{{5}, {3, 7}, {4, 200}, {200, 4}, {2, 3, 70}} {
		xv := make([]float32, size(s))
		for i := range xv {
			xv[i] = float32(r.IntN(5)) // many ties: the first index wins
		}
		x := e.FromFloat32s(xv, s...)
		for axis := range s {
			for _, arg := range []string{"argmax", "argmin"} {
				var y *tensor.Tensor
				if arg == "argmax" {
					y = e.ArgMax(x, axis)
				} else {
					y = e.ArgMin(x, axis)
				}
				mask := make([]bool, len(s))
				mask[axis] = true
				x64 := make([]float64, len(xv))
				for i, v := range xv {
					x64[i] = float64(v)
				}
				// Encode (value, index) so that a plain max/min picks the first best.
				best := refReduce(x64, s, mask, math.NaN(), argFold(arg))
				want := make([]int32, len(best))
				for i, b := range best {
					want[i] = int32(b - math.Round(b/1e6)*1e6)
				}
				assert.Equal(t, want, i32s(t, y), "%s %v axis %d", arg, s, axis)
				y.Dispose()
			}
		}
		x.Dispose()
	}
}

// argFold returns a fold that tracks the index of the first best value; the
// accumulator holds index + value*1e6 to keep both (values are small
// integers, indices below 1e5).
func argFold(arg string) func(acc, v float64, j int) float64 {
	return func(acc, v float64, j int) float64 {
		if math.IsNaN(acc) {
			return float64(j) + v*1e6
		}
		bestV := math.Round(acc / 1e6)
		if (arg == "argmax" && v > bestV) || (arg == "argmin" && v < bestV) {
			return float64(j) + v*1e6
		}
		return acc
	}
}

func TestSoftmax(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(15, 16))
	for _, c := range []struct {
		shape []int
		axis  int
	}{{[]int{1}, 0}, {[]int{5}, 0}, {[]int{3, 1000}, 1}, {[]int{3, 7}, 0}, {[]int{2, 3, 4}, 1}, {[]int{0, 3}, 1}} {
		xv := randF32(r, size(c.shape), -50, 50) // large enough to overflow a naive exp
		xv = append(xv[:0:0], xv...)
		for i := range xv {
			xv[i] *= 3
		}
		x := e.FromFloat32s(xv, c.shape...)
		sm, lsm := e.Softmax(x, c.axis), e.LogSoftmax(x, c.axis)
		// Reference: along axis, in float64.
		s := c.shape
		want, wantLog := make([]float32, len(xv)), make([]float32, len(xv))
		st := strides(s)
		idx := make([]int, len(s))
		for i := range xv {
			unravel(i, s, idx)
			base := i - idx[c.axis]*st[c.axis]
			mx := math.Inf(-1)
			for j := range s[c.axis] {
				mx = math.Max(mx, float64(xv[base+j*st[c.axis]]))
			}
			var sum float64
			for j := range s[c.axis] {
				sum += math.Exp(float64(xv[base+j*st[c.axis]]) - mx)
			}
			want[i] = float32(math.Exp(float64(xv[i])-mx) / sum)
			wantLog[i] = float32(float64(xv[i]) - mx - math.Log(sum))
		}
		closeTo(t, want, f32s(t, sm), 1e-6, 1e-4, "softmax %v axis %d", s, c.axis)
		closeTo(t, wantLog, f32s(t, lsm), 1e-4, 1e-5, "log_softmax %v axis %d", s, c.axis)
		x.Dispose()
		sm.Dispose()
		lsm.Dispose()
	}
}

// On lavapipe a WGSL loop stops silently after 65,535 trips; rows longer
// than 64 threads × 65,535 must still be reduced whole.
func TestLongRowsAreReducedWhole(t *testing.T) {
	e := testgpu.Engine(t)
	for _, n := range []int{1<<22 + 3, 1 << 24} {
		x := e.Ones(tensor.Float32, n)
		s := e.Sum(x, false)
		assert.Equal(t, []float32{float32(n)}, f32s(t, s), "sum of %d ones", n)
		am := e.ArgMax(x, 0)
		assert.Equal(t, []int32{0}, i32s(t, am), "argmax of equal values is the first")
		x.Dispose()
		s.Dispose()
		am.Dispose()
	}
	z := e.Zeros(tensor.Float32, 1<<22)
	sm := e.Softmax(z, 0)
	v := f32s(t, sm)
	assert.Equal(t, float32(1)/(1<<22), v[0])
	assert.Equal(t, float32(1)/(1<<22), v[len(v)-1])
	z.Dispose()
	sm.Dispose()
}
