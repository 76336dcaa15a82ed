package tensor_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// poolRef pools x, of NHWC shape s, through w in float32 as the kernels
// define it: the max (NaN beats every number, the first NaN and the
// first of equal numbers win) or the average over the window's positions
// inside the input. For the max, arg holds the flat index into x of each
// window's winner.
func poolRef(x []float32, s []int, w tensor.Window2D, isMax bool) (y []float32, arg []int) {
	nb, c := s[0], s[3]
	for n := range nb {
		for oy := range w.OutH {
			for ox := range w.OutW {
				for ch := range c {
					best, at, sum, count := float32(0), -1, float32(0), 0
					for ky := range w.KernelH {
						for kx := range w.KernelW {
							iy, ix := oy*w.StrideH-w.PadTop+ky, ox*w.StrideW-w.PadLeft+kx
							if iy < 0 || iy >= w.InH || ix < 0 || ix >= w.InW {
								continue
							}
							i := ((n*w.InH+iy)*w.InW+ix)*c + ch
							v := x[i]
							sum += v
							count++
							if at < 0 || !isNaN32(best) && (v > best || isNaN32(v)) {
								best, at = v, i
							}
						}
					}
					if isMax {
						y, arg = append(y, best), append(arg, at)
					} else {
						y = append(y, sum/float32(count))
					}
				}
			}
		}
	}
	return y, arg
}

// maxPoolGradRef sends each window's gradient to its winner, summing in
// the order of the windows.
func maxPoolGradRef(nx int, arg []int, dy []float32) []float32 {
	dx := make([]float32, nx)
	for o, i := range arg {
		dx[i] += dy[o]
	}
	return dx
}

// avgPoolGradRef spreads each window's gradient over its positions inside
// the input, summing in the order of the windows.
func avgPoolGradRef(s []int, w tensor.Window2D, dy []float32) []float32 {
	dx := make([]float32, size(s))
	nb, c := s[0], s[3]
	o := 0
	for n := range nb {
		for oy := range w.OutH {
			for ox := range w.OutW {
				for ch := range c {
					ylo, yhi := max(oy*w.StrideH-w.PadTop, 0), min(oy*w.StrideH-w.PadTop+w.KernelH, w.InH)
					xlo, xhi := max(ox*w.StrideW-w.PadLeft, 0), min(ox*w.StrideW-w.PadLeft+w.KernelW, w.InW)
					g := dy[o] / float32((yhi-ylo)*(xhi-xlo))
					for iy := ylo; iy < yhi; iy++ {
						for ix := xlo; ix < xhi; ix++ {
							dx[((n*w.InH+iy)*w.InW+ix)*c+ch] += g
						}
					}
					o++
				}
			}
		}
	}
	return dx
}

type poolCase struct {
	name  string
	shape []int
	o     tensor.Pool2DOptions
}

// poolCases cover odd sizes, strides below, at and above the window, every
// padding mode, batches and channels of 1 and many.
var poolCases = []poolCase{
	{"2x2 default stride, valid", []int{1, 5, 7, 1}, tensor.Pool2DOptions{Window: [2]int{2, 2}}},
	{"3x3 stride 2 same, batch 2, 3 channels", []int{2, 7, 6, 3}, tensor.Pool2DOptions{Window: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: tensor.Same()}},
	{"3x2 stride 1x2 explicit", []int{2, 6, 9, 5}, tensor.Pool2DOptions{Window: [2]int{3, 2}, Stride: [2]int{1, 2}, Padding: tensor.Explicit(1, 0, 1, 1)}},
	{"4x4 stride 1 explicit, large padding", []int{3, 5, 5, 2}, tensor.Pool2DOptions{Window: [2]int{4, 4}, Stride: [2]int{1, 1}, Padding: tensor.Explicit(2, 2, 3, 1)}},
	{"1x1", []int{1, 1, 1, 1}, tensor.Pool2DOptions{Window: [2]int{1, 1}}},
	{"stride above the window, 17 channels", []int{2, 7, 7, 17}, tensor.Pool2DOptions{Window: [2]int{2, 3}, Stride: [2]int{3, 1}, Padding: tensor.Same()}},
	{"window larger than the input, same", []int{1, 3, 3, 1}, tensor.Pool2DOptions{Window: [2]int{5, 5}, Stride: [2]int{1, 1}, Padding: tensor.Same()}},
	{"window of the whole input, valid", []int{2, 4, 3, 2}, tensor.Pool2DOptions{Window: [2]int{4, 3}}},
	// Windows that do not overlap: their gradient is written a window's
	// cell at a time (the remainder past the last window, the padding and
	// the gaps between windows get zeros).
	{"2x2 stride 2 same, odd sizes", []int{2, 7, 9, 3}, tensor.Pool2DOptions{Window: [2]int{2, 2}, Padding: tensor.Same()}},
	{"2x2 stride 3 explicit, gaps", []int{1, 8, 10, 2}, tensor.Pool2DOptions{Window: [2]int{2, 2}, Stride: [2]int{3, 3}, Padding: tensor.Explicit(1, 0, 1, 0)}},
	{"1x3 stride 2x4 valid, remainders", []int{2, 5, 11, 4}, tensor.Pool2DOptions{Window: [2]int{1, 3}, Stride: [2]int{2, 4}}},
	{"the CNN's 2x2 over 28x28x16", []int{2, 28, 28, 16}, tensor.Pool2DOptions{Window: [2]int{2, 2}}},
	{"2x2 stride 2 same, 4 channels (vec4)", []int{2, 7, 9, 4}, tensor.Pool2DOptions{Window: [2]int{2, 2}, Padding: tensor.Same()}},
	{"3x3 stride 3 explicit, 8 channels (vec4)", []int{1, 10, 8, 8}, tensor.Pool2DOptions{Window: [2]int{3, 3}, Padding: tensor.Explicit(1, 1, 0, 1)}},
}

// poolInput draws n values from a few levels, so that windows hold ties.
func poolInput(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.IntN(9)-4) / 2
	}
	return x
}

// dirty frees a tensor of n NaNs, so that the next op's result of n
// elements reuses its storage.
func dirty(e *tensor.Engine, n int) {
	nan := make([]float32, n)
	for i := range nan {
		nan[i] = float32(math.NaN())
	}
	e.FromFloat32s(nan, n).Dispose()
}

func TestPool2DAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(14, 2))
	for _, c := range poolCases {
		w, err := tensor.NewWindow2D(c.shape[1], c.shape[2], c.o.Window[0], c.o.Window[1], strideOf(c.o), [2]int{}, c.o.Padding)
		require.NoError(t, err, c.name)
		xv := poolInput(r, size(c.shape))
		x := e.FromFloat32s(xv, c.shape...)
		outShape := tensor.Shape{c.shape[0], w.OutH, w.OutW, c.shape[3]}
		dyv := randF32(r, outShape.Size(), -1, 1)
		dy := e.FromFloat32s(dyv, outShape...)

		wantMax, arg := poolRef(xv, c.shape, w, true)
		wantAvg, _ := poolRef(xv, c.shape, w, false)
		mx, avg := e.MaxPool2D(x, c.o), e.AvgPool2D(x, c.o)
		// The gradients take storage freed full of NaN: an element they
		// leave unwritten shows.
		dirty(e, len(xv))
		gmx := e.MaxPool2DGrad(x, dy, c.o)
		dirty(e, len(xv))
		gavg := e.AvgPool2DGrad(dy, x.Shape(), c.o)
		assert.Equal(t, outShape, mx.Shape(), c.name)
		assert.Equal(t, wantMax, f32s(t, mx), "%s: max", c.name)
		closeTo(t, wantAvg, f32s(t, avg), 0, 1e-6, "%s: avg", c.name)
		assert.Equal(t, maxPoolGradRef(len(xv), arg, dyv), f32s(t, gmx), "%s: max grad", c.name)
		closeTo(t, avgPoolGradRef(c.shape, w, dyv), f32s(t, gavg), 1e-7, 1e-6, "%s: avg grad", c.name)
		for _, v := range []*tensor.Tensor{x, dy, mx, avg, gmx, gavg} {
			v.Dispose()
		}
	}
}

func strideOf(o tensor.Pool2DOptions) [2]int {
	s := o.Stride
	for i := range s {
		if s[i] == 0 {
			s[i] = o.Window[i]
		}
	}
	return s
}

// A window holding a NaN pools to NaN, and its whole gradient goes to
// its first NaN; infinities and signed zeros pool as numbers.
func TestMaxPool2DEdgeValues(t *testing.T) {
	e := testgpu.Engine(t)
	nan, inf, negZero := float32(math.NaN()), float32(math.Inf(1)), float32(math.Copysign(0, -1))
	// One image, 2x6, 1 channel, windows 2x2: [nan, 1 | 2, nan], [-inf, -inf], [-0, 0 | 0, -0].
	xv := []float32{
		nan, 1, -inf, -inf, negZero, 0,
		2, nan, -inf, -inf, 0, negZero,
	}
	x := e.FromFloat32s(xv, 1, 2, 6, 1)
	defer x.Dispose()
	o := tensor.Pool2DOptions{Window: [2]int{2, 2}}
	mx := e.MaxPool2D(x, o)
	defer mx.Dispose()
	got := f32s(t, mx)
	require.Len(t, got, 3)
	assert.True(t, isNaN32(got[0]), "a window with NaN pools to NaN, got %v", got[0])
	assert.Equal(t, -inf, got[1])
	assert.Equal(t, uint32(0x80000000), math.Float32bits(got[2]), "-0 comes first and ties keep the first")

	dy := e.FromFloat32s([]float32{10, 20, 30}, 1, 1, 3, 1)
	defer dy.Dispose()
	g := e.MaxPool2DGrad(x, dy, o)
	defer g.Dispose()
	assert.Equal(t, []float32{10, 0, 20, 0, 30, 0, 0, 0, 0, 0, 0, 0}, f32s(t, g),
		"the first NaN, the first -inf and the first zero get their window's gradient")

	// Four channels, each its own element of a vec4, one 2x2 window each
	// (row-major): [NaN 1 2 NaN] takes the first NaN, [1 NaN 2 3] the NaN
	// after a number, [1 3 3 2] the first of tied maxima, [-0 0 -inf 0]
	// the first zero.
	win := [4][4]float32{{nan, 1, 2, nan}, {1, nan, 2, 3}, {1, 3, 3, 2}, {negZero, 0, -inf, 0}}
	took := [4]int{0, 1, 1, 0}
	x4v, want4 := make([]float32, 16), make([]float32, 16)
	for c := range 4 {
		for pos := range 4 {
			x4v[4*pos+c] = win[c][pos]
		}
		want4[4*took[c]+c] = float32(10 * (c + 1))
	}
	x4, dy4 := e.FromFloat32s(x4v, 1, 2, 2, 4), e.FromFloat32s([]float32{10, 20, 30, 40}, 1, 1, 1, 4)
	defer x4.Dispose()
	defer dy4.Dispose()
	m4 := e.MaxPool2D(x4, o)
	defer m4.Dispose()
	got4 := f32s(t, m4)
	require.Len(t, got4, 4)
	assert.True(t, isNaN32(got4[0]) && isNaN32(got4[1]), "windows with a NaN pool to NaN, got %v", got4)
	assert.Equal(t, []uint32{math.Float32bits(3), 0x80000000}, []uint32{math.Float32bits(got4[2]), math.Float32bits(got4[3])}, "four channels")
	g4 := e.MaxPool2DGrad(x4, dy4, o)
	defer g4.Dispose()
	assert.Equal(t, want4, f32s(t, g4), "four channels")

	avg := e.AvgPool2D(x, o)
	defer avg.Dispose()
	a := f32s(t, avg)
	assert.True(t, isNaN32(a[0]))
	assert.Equal(t, -inf, a[1])
	assert.Equal(t, float32(0), a[2])
}

// Pooling an input with a zero dimension returns an empty result and an
// empty gradient.
func TestPool2DEmpty(t *testing.T) {
	e := testgpu.Engine(t)
	o := tensor.Pool2DOptions{Window: [2]int{2, 2}, Padding: tensor.Same()}
	for _, s := range [][]int{{0, 4, 4, 2}, {2, 4, 4, 0}, {1, 0, 4, 1}} {
		x := e.Zeros(tensor.Float32, s...)
		mx := e.MaxPool2D(x, o)
		require.NoError(t, mx.Err(), "%v", s)
		assert.Zero(t, mx.Size())
		g := e.MaxPool2DGrad(x, mx, o)
		ga := e.AvgPool2DGrad(mx, x.Shape(), o)
		require.NoError(t, g.Err(), "%v", s)
		require.NoError(t, ga.Err(), "%v", s)
		assert.Equal(t, x.Shape(), g.Shape())
		for _, v := range []*tensor.Tensor{x, mx, g, ga} {
			v.Dispose()
		}
	}
}

// Bad geometry and bad inputs give an *OpError naming the op and the
// shapes, and leave no tensor behind.
func TestPool2DErrors(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 1, 4, 4, 1)
	defer x.Dispose()
	xi := e.Zeros(tensor.Int32, 1, 4, 4, 1)
	defer xi.Dispose()
	x3 := e.Zeros(tensor.Float32, 4, 4, 1)
	defer x3.Dispose()
	big := e.Zeros(tensor.Float32, 1, 256, 257, 1)
	defer big.Dispose()
	dy := e.Zeros(tensor.Float32, 1, 2, 2, 1)
	defer dy.Dispose()
	w2 := [2]int{2, 2}
	for _, c := range []struct {
		name string
		kind error
		want string
		f    func() *tensor.Tensor
	}{
		{"padding leaves the first window empty", tensor.ErrArgument, "no input element", func() *tensor.Tensor {
			return e.MaxPool2D(x, tensor.Pool2DOptions{Window: w2, Padding: tensor.Explicit(2, 0, 0, 0)})
		}},
		{"padding leaves the last window empty", tensor.ErrArgument, "no input element", func() *tensor.Tensor {
			return e.AvgPool2D(x, tensor.Pool2DOptions{Window: [2]int{3, 3}, Stride: [2]int{1, 1}, Padding: tensor.Explicit(0, 0, 0, 3)})
		}},
		{"empty window", tensor.ErrArgument, "empty", func() *tensor.Tensor { return e.MaxPool2D(x, tensor.Pool2DOptions{}) }},
		{"negative stride", tensor.ErrArgument, "stride", func() *tensor.Tensor {
			return e.AvgPool2D(x, tensor.Pool2DOptions{Window: w2, Stride: [2]int{-1, 1}})
		}},
		{"negative padding", tensor.ErrArgument, "negative", func() *tensor.Tensor {
			return e.AvgPool2D(x, tensor.Pool2DOptions{Window: w2, Padding: tensor.Explicit(-1, 0, 0, 0)})
		}},
		{"window larger than the input", tensor.ErrArgument, "larger", func() *tensor.Tensor {
			return e.MaxPool2D(x, tensor.Pool2DOptions{Window: [2]int{5, 1}})
		}},
		{"window past the loop limit", tensor.ErrArgument, "more than 65535", func() *tensor.Tensor {
			return e.MaxPool2D(big, tensor.Pool2DOptions{Window: [2]int{256, 257}})
		}},
		{"a window past 32 bits, whose element count overflows", tensor.ErrArgument, "past 2^31-1", func() *tensor.Tensor {
			return e.MaxPool2D(x, tensor.Pool2DOptions{Window: [2]int{1 << 32, 1 << 32}, Padding: tensor.Explicit(0, 1<<32, 0, 1<<32)})
		}},
		{"a tall window past the loop limit", tensor.ErrArgument, "more than 65535", func() *tensor.Tensor {
			return e.MaxPool2D(x, tensor.Pool2DOptions{Window: [2]int{65536, 2}, Padding: tensor.Explicit(0, 65536, 0, 0)})
		}},
		{"stride past 32 bits", tensor.ErrArgument, "past 2^31-1", func() *tensor.Tensor {
			return e.MaxPool2D(x, tensor.Pool2DOptions{Window: w2, Stride: [2]int{1 << 33, 1}})
		}},
		{"padding past 32 bits", tensor.ErrArgument, "past 2^31-1", func() *tensor.Tensor {
			return e.AvgPool2D(x, tensor.Pool2DOptions{Window: w2, Padding: tensor.Explicit(0, 1<<40, 0, 0)})
		}},
		{"padded span past 31 bits", tensor.ErrArgument, "past 2^31-1", func() *tensor.Tensor {
			return e.MaxPool2D(x, tensor.Pool2DOptions{Window: w2, Stride: [2]int{1 << 30, 1}, Padding: tensor.Explicit(1<<30, 1<<30, 0, 0)})
		}},
		{"grad: stride past 32 bits", tensor.ErrArgument, "past 2^31-1", func() *tensor.Tensor {
			return e.AvgPool2DGrad(dy, tensor.Shape{1, 4, 4, 1}, tensor.Pool2DOptions{Window: w2, Stride: [2]int{1 << 32, 1}})
		}},
		{"rank 3", tensor.ErrShape, "NHWC", func() *tensor.Tensor { return e.MaxPool2D(x3, tensor.Pool2DOptions{Window: w2}) }},
		{"int32", tensor.ErrDType, "int32", func() *tensor.Tensor { return e.AvgPool2D(xi, tensor.Pool2DOptions{Window: w2}) }},
		{"max grad, dy of the wrong shape", tensor.ErrShape, "[1 2 2 1]", func() *tensor.Tensor {
			return e.MaxPool2DGrad(x, dy, tensor.Pool2DOptions{Window: w2, Stride: [2]int{1, 1}})
		}},
		{"max grad, int32 dy", tensor.ErrDType, "dy", func() *tensor.Tensor { return e.MaxPool2DGrad(x, xi, tensor.Pool2DOptions{Window: w2}) }},
		{"avg grad, input shape of rank 3", tensor.ErrShape, "NHWC", func() *tensor.Tensor {
			return e.AvgPool2DGrad(dy, tensor.Shape{4, 4, 1}, tensor.Pool2DOptions{Window: w2})
		}},
		{"avg grad, dy of the wrong shape", tensor.ErrShape, "pooled shape", func() *tensor.Tensor {
			return e.AvgPool2DGrad(dy, tensor.Shape{1, 6, 6, 1}, tensor.Pool2DOptions{Window: w2})
		}},
	} {
		live := e.NumTensors()
		y := c.f()
		err := y.Err()
		var oe *tensor.OpError
		require.True(t, errors.As(err, &oe), "%s: %v is not an *OpError", c.name, err)
		assert.ErrorIs(t, err, c.kind, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
		assert.Equal(t, live, e.NumTensors(), "%s: a tensor was left behind", c.name)
	}
	assert.Greater(t, 256*257, kernels.MaxLoopTrips, "the window past the limit")
}

// Under a small work budget, pooling, its gradients, Cumsum and TopK are
// cut into many dispatches, each within the budget, with results bit for
// bit those of a device with the default budget.
func TestPoolScanTopKSplitByWorkBudget(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.WorkBudget = 20_000
	small := testgpu.EngineOn(t, testgpu.OpenWith(t, opts))
	def := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(14, 5))
	xs := []int{2, 9, 11, 3}
	xv := poolInput(r, size(xs))
	sv := randF32(r, 3*2500, -1, 1)
	o := tensor.Pool2DOptions{Window: [2]int{3, 3}, Stride: [2]int{1, 2}, Padding: tensor.Same()}
	run := func(e *tensor.Engine) [][]float32 {
		x := e.FromFloat32s(xv, xs...)
		s := e.FromFloat32s(sv, 3, 2500)
		mx := e.MaxPool2D(x, o)
		avg := e.AvgPool2D(x, o)
		gm := e.MaxPool2DGrad(x, avg, o)
		ga := e.AvgPool2DGrad(mx, x.Shape(), o)
		cs := e.Cumsum(s, 1, false, true)
		tv, ti := e.TopK(s, 7)
		tif := e.Cast(ti, tensor.Float32)
		var out [][]float32
		for _, y := range []*tensor.Tensor{mx, avg, gm, ga, cs, tv, tif} {
			out = append(out, f32s(t, y))
		}
		for _, y := range []*tensor.Tensor{x, s, mx, avg, gm, ga, cs, tv, ti, tif} {
			y.Dispose()
		}
		return out
	}
	before := small.Device().Stats()
	got := run(small)
	assert.Equal(t, run(def), got)
	st := small.Device().Stats()
	assert.Greater(t, st.Dispatches-before.Dispatches, uint64(20), "the ops were cut into dispatches")
	assert.LessOrEqual(t, st.PeakBatchWork, small.Device().WorkBudget())
}

// Every op of this file's family fails with ErrDisposed on a disposed
// input, naming the op, and leaves nothing live.
func TestPoolFamilyRejectsDisposedInputs(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 1, 4, 4, 2)
	dy := e.Zeros(tensor.Float32, 1, 2, 2, 2)
	idx := e.Zeros(tensor.Int32, 3)
	g := e.Ones(tensor.Float32, 2)
	dead := e.Zeros(tensor.Float32, 1, 4, 4, 2)
	deadIdx := e.Zeros(tensor.Int32, 3)
	dead.Dispose()
	deadIdx.Dispose()
	defer func() {
		for _, v := range []*tensor.Tensor{x, dy, idx, g} {
			v.Dispose()
		}
	}()
	o := tensor.Pool2DOptions{Window: [2]int{2, 2}}
	topK := func(x *tensor.Tensor) *tensor.Tensor { v, i := e.TopK(x, 1); i.Dispose(); return v }
	for name, f := range map[string]func() *tensor.Tensor{
		"max_pool2d":      func() *tensor.Tensor { return e.MaxPool2D(dead, o) },
		"avg_pool2d":      func() *tensor.Tensor { return e.AvgPool2D(dead, o) },
		"max_pool2d_grad": func() *tensor.Tensor { return e.MaxPool2DGrad(x, dead, o) },
		"avg_pool2d_grad": func() *tensor.Tensor { return e.AvgPool2DGrad(dead, x.Shape(), o) },
		"one_hot":         func() *tensor.Tensor { return e.OneHot(deadIdx, 3, 1, 0) },
		"cumsum":          func() *tensor.Tensor { return e.Cumsum(dead, 1, false, false) },
		"top_k":           func() *tensor.Tensor { return topK(dead) },
		"layer_norm":      func() *tensor.Tensor { return e.LayerNorm(dead, g, g, 1e-5) },
	} {
		live := e.NumTensors()
		err := f().Err()
		assert.ErrorIs(t, err, tensor.ErrDisposed, name)
		assert.ErrorContains(t, err, name, name)
		assert.Equal(t, live, e.NumTensors(), name)
	}
}
