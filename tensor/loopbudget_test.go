package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Issue 19, item 1: lavapipe and llvmpipe stop every loop of an invocation
// once its loops together have run 65,535 trips (kernels.LoopTrips), and
// the kernels that loop over a row or a window stopped well below the
// sizes their docs allow: LayerNorm from rows of 21,845 (three passes),
// SoftmaxCrossEntropy from 32,768 classes (its gradient from 21,845), the
// pooling kernels from windows of about 32,640 (MaxPool2DGrad's window and
// cell) or 65,280 elements. These tests run each family at, around and
// past its limit, on results first filled with NaN (dirty) so that an
// element a stopped loop leaves unwritten shows; each checks against a
// float64 (or, for the max pools, an exact float32) reference.

// budgetLimit is the documented limit of every family here: rows,
// classes and window elements.
const budgetLimit = kernels.MaxLoopTrips

// requireLimitErr checks that y failed with kind, naming the op and limit.
func requireLimitErr(t *testing.T, y *tensor.Tensor, kind error, op string) {
	t.Helper()
	err := y.Err()
	require.Error(t, err)
	assert.True(t, errors.Is(err, kind), "%v", err)
	assert.Contains(t, err.Error(), op)
	assert.Contains(t, err.Error(), fmt.Sprint(budgetLimit))
}

func TestLayerNormLongRowsWithinLoopBudget(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(19, 1))
	for _, n := range []int{21844, 21845, 32768, budgetLimit - 1, budgetLimit} {
		const rows = 2
		xv := randF32(r, rows*n, -3, 5)
		gv, bv := randF32(r, n, 0.5, 1.5), randF32(r, n, -1, 1)
		x, g, b := e.FromFloat32s(xv, rows, n), e.FromFloat32s(gv, n), e.FromFloat32s(bv, n)
		dirty(e, rows*n)
		y := e.LayerNorm(x, g, b, 1e-5)
		// One thread sums a row in order in float32: its mean is off by
		// about 1e-5 at 65,535 elements.
		closeTo(t, layerNormRef(xv, n, gv, bv, 1e-5), f32s(t, y), 2e-4, 2e-4, "rows of %d", n)
		tidy.Dispose([]*tensor.Tensor{x, g, b, y})
	}
	n := budgetLimit + 1
	x, g, b := e.Zeros(tensor.Float32, 1, n), e.Zeros(tensor.Float32, n), e.Zeros(tensor.Float32, n)
	y := e.LayerNorm(x, g, b, 1e-5)
	requireLimitErr(t, y, tensor.ErrShape, "layer_norm")
	tidy.Dispose([]*tensor.Tensor{x, g, b, y})
}

func TestSoftmaxCrossEntropyLongRowsWithinLoopBudget(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(19, 2))
	for _, c := range []int{16384, 21845, 32768, budgetLimit - 1, budgetLimit} {
		const rows = 2
		xv, pv, gv := randF32(r, rows*c, -3, 3), randF32(r, rows*c, 0, 1), []float32{0.75, -1.5}
		// The largest logit and the label last, where a stopped loop
		// would miss them.
		xv[c-1], xv[2*c-1] = 6, 5
		labels := []int32{int32(c - 1), int32(c / 3)}
		x, y, p, g := e.FromFloat32s(xv, rows, c), e.FromInt32s(labels, rows), e.FromFloat32s(pv, rows, c), e.FromFloat32s(gv, rows)
		x64, p64 := make([]float64, len(xv)), make([]float64, len(pv))
		for i := range xv {
			x64[i], p64[i] = float64(xv[i]), float64(pv[i])
		}
		for _, k := range []struct {
			name string
			t    *tensor.Tensor
			p    []float64
		}{{"labels", y, nil}, {"probabilities", p, p64}} {
			dirty(e, rows)
			loss := e.SoftmaxCrossEntropy(x, k.t)
			want := f32sOf(xentRef(x64, c, labels, k.p))
			closeTo(t, want, f32s(t, loss), 1e-3, 1e-4, "%d classes, %s: loss", c, k.name)
			loss.Dispose()

			dirty(e, rows*c)
			dx := e.SoftmaxCrossEntropyGrad(x, k.t, g)
			wantDx := make([]float32, rows*c)
			for row := range rows {
				xs := x64[row*c : (row+1)*c]
				m, s, mass := math.Inf(-1), 0.0, 0.0
				for j, v := range xs {
					m = math.Max(m, v)
					mass += p64[row*c+j]
				}
				for _, v := range xs {
					s += math.Exp(v - m)
				}
				for j, v := range xs {
					d := math.Exp(v-m) / s
					if k.p != nil {
						d = d*mass - p64[row*c+j]
					} else if j == int(labels[row]) {
						d--
					}
					wantDx[row*c+j] = float32(float64(gv[row]) * d)
				}
			}
			// With probabilities dx is softmax·Σt − t, a difference of
			// terms near 1 whose Σt one thread sums in float32 in order:
			// about 1e-5 off at 65,535 classes.
			abs := 1e-7
			if k.p != nil {
				abs = 3e-5
			}
			closeTo(t, wantDx, f32s(t, dx), abs, 1e-3, "%d classes, %s: gradient", c, k.name)
			dx.Dispose()
		}
		tidy.Dispose([]*tensor.Tensor{x, y, p, g})
	}
	c := budgetLimit + 1
	x, y, g := e.Zeros(tensor.Float32, 1, c), e.Zeros(tensor.Int32, 1), e.Zeros(tensor.Float32, 1)
	loss, dx := e.SoftmaxCrossEntropy(x, y), e.SoftmaxCrossEntropyGrad(x, y, g)
	requireLimitErr(t, loss, tensor.ErrShape, "softmax_cross_entropy")
	requireLimitErr(t, dx, tensor.ErrShape, "softmax_cross_entropy_grad")
	tidy.Dispose([]*tensor.Tensor{x, y, g, loss, dx})
}

// longPoolCases are windows at the limit (one row, one column, and
// 255x257), a cell (the gradient's) larger than its window, and
// overlapping 2-D windows whose gradient walks many windows per element.
var longPoolCases = []poolCase{
	{"1x65535", []int{1, 1, budgetLimit, 1}, tensor.Pool2DOptions{Window: [2]int{1, budgetLimit}}},
	{"65535x1, 4 channels (vec4)", []int{1, budgetLimit, 1, 4}, tensor.Pool2DOptions{Window: [2]int{budgetLimit, 1}}},
	{"255x257, 2 images", []int{2, 255, 257, 1}, tensor.Pool2DOptions{Window: [2]int{255, 257}}},
	{"255x257, 4 channels (vec4)", []int{1, 255, 257, 4}, tensor.Pool2DOptions{Window: [2]int{255, 257}}},
	{"1x65535 stride 1, three windows", []int{1, 1, budgetLimit + 2, 1}, tensor.Pool2DOptions{Window: [2]int{1, budgetLimit}, Stride: [2]int{1, 1}}},
	{"1x32768 window, 65535 cell", []int{1, 1, budgetLimit, 1}, tensor.Pool2DOptions{Window: [2]int{1, 32768}}},
	{"32640 window, two cells", []int{1, 2, 2 * 16320, 1}, tensor.Pool2DOptions{Window: [2]int{2, 16320}}},
	{"3x700 stride 1 same", []int{1, 5, 1400, 1}, tensor.Pool2DOptions{Window: [2]int{3, 700}, Stride: [2]int{1, 1}, Padding: tensor.Same()}},
	{"40x40 stride 1 explicit", []int{1, 50, 45, 1}, tensor.Pool2DOptions{Window: [2]int{40, 40}, Stride: [2]int{1, 1}, Padding: tensor.Explicit(3, 2, 1, 4)}},
}

func TestPool2DLongWindowsWithinLoopBudget(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(19, 3))
	for _, c := range longPoolCases {
		t.Run(c.name, func(t *testing.T) {
			s := c.shape
			xv := randF32(r, size(s), -1, 1)
			// Each window's maximum last: the element a stopped loop misses.
			for i := size(s) - s[3]; i < size(s); i++ {
				xv[i] = 2 + float32(i%s[3])
			}
			w, err := tensor.NewWindow2D(s[1], s[2], c.o.Window[0], c.o.Window[1], strideOf(c.o), [2]int{}, c.o.Padding)
			require.NoError(t, err)
			x := e.FromFloat32s(xv, s...)
			defer x.Dispose()
			ny := s[0] * w.OutH * w.OutW * s[3]
			dyv := randF32(r, ny, -1, 1)
			dy := e.FromFloat32s(dyv, s[0], w.OutH, w.OutW, s[3])
			defer dy.Dispose()

			maxRef, arg := poolRef(xv, s, w, true)
			avgRef, _ := poolRef(xv, s, w, false)
			dirty(e, ny)
			y := e.MaxPool2D(x, c.o)
			assert.Equal(t, maxRef, f32s(t, y), "MaxPool2D")
			y.Dispose()
			dirty(e, ny)
			y = e.AvgPool2D(x, c.o)
			closeTo(t, avgRef, f32s(t, y), 1e-6, 1e-5, "AvgPool2D")
			y.Dispose()

			dirty(e, size(s))
			dx := e.MaxPool2DGrad(x, dy, c.o)
			closeTo(t, maxPoolGradRef(size(s), arg, dyv), f32s(t, dx), 1e-6, 1e-5, "MaxPool2DGrad")
			dx.Dispose()
			dirty(e, size(s))
			dx = e.AvgPool2DGrad(dy, tensor.Shape(s), c.o)
			closeTo(t, avgPoolGradRef(s, w, dyv), f32s(t, dx), 1e-9, 1e-5, "AvgPool2DGrad")
			dx.Dispose()
		})
	}
	// One past the limit: windows of 65,536 elements.
	for _, win := range [][2]int{{1, budgetLimit + 1}, {256, 256}} {
		o := tensor.Pool2DOptions{Window: win}
		x := e.Zeros(tensor.Float32, 1, win[0], win[1], 1)
		dy := e.Zeros(tensor.Float32, 1, 1, 1, 1)
		for _, k := range []struct {
			name string
			y    *tensor.Tensor
		}{
			{"max_pool2d", e.MaxPool2D(x, o)}, {"avg_pool2d", e.AvgPool2D(x, o)},
			{"max_pool2d_grad", e.MaxPool2DGrad(x, dy, o)}, {"avg_pool2d_grad", e.AvgPool2DGrad(dy, x.Shape(), o)},
		} {
			requireLimitErr(t, k.y, tensor.ErrArgument, k.name)
			k.y.Dispose()
		}
		tidy.Dispose([]*tensor.Tensor{x, dy})
	}
}
