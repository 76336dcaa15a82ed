package grad

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/tensor"
)

// Issue 20, item 4: the gradients of the options PyTorch users rely on —
// cross-entropy's class weights, ignore_index and label smoothing, binary
// cross-entropy's weight and pos_weight, pooling's ceil mode,
// count_include_pad and dilation — and of Erf, Erfc, GeluErf and Copy,
// against central finite differences in float64 (checkGradient's
// tolerances: fdAtol, fdRtol in check_test.go).

func TestCrossEntropyOptionGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, shape := range [][]int{{6, 4}, {2, 3, 5}, {4}} {
		rowShape := shape[:len(shape)-1]
		rows, classes := size(rowShape), shape[len(shape)-1]
		labels := make([]int32, rows)
		for i := range labels {
			labels[i] = int32(rng.IntN(classes))
			if i%3 == 1 {
				labels[i] = loss.DefaultIgnoreIndex
			}
		}
		// The same rows, ignoring the first row's class instead.
		byClass := make([]int32, rows)
		for i, y := range labels {
			byClass[i] = y
			if y == loss.DefaultIgnoreIndex {
				byClass[i] = labels[0]
			}
		}
		probs := randIn(rng, 0, 1, shape...)
		weight := randIn(rng, 0.5, 2, classes)
		for name, r := range lossReductions {
			for _, eps := range []float32{0, 0.2} {
				o := loss.CrossEntropyOptions{Reduction: r, LabelSmoothing: eps}
				t.Run(fmt.Sprintf("%v labels %s smoothing %g", shape, name, eps), func(t *testing.T) {
					// With respect to the logits and the class weights.
					checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
						o := o
						o.Weight = x[1]
						return loss.CrossEntropy(e, x[0], e.FromInt32s(labels, rowShape...), o)
					}, randIn(rng, -3, 3, shape...), weight)
					if rows == 1 {
						return // ignoring its one row, the mean is 0/0
					}
					// Ignoring a class that occurs, without weights.
					checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
						o := o
						o.IgnoreIndex = Ignore(int(labels[0]))
						return loss.CrossEntropy(e, x[0], e.FromInt32s(byClass, rowShape...), o)
					}, randIn(rng, -3, 3, shape...))
				})
				t.Run(fmt.Sprintf("%v probabilities %s smoothing %g", shape, name, eps), func(t *testing.T) {
					checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
						o := o
						o.Weight = x[2]
						return loss.CrossEntropy(e, x[0], x[1], o)
					}, randIn(rng, -3, 3, shape...), probs, weight)
				})
			}
		}
	}
}

// Ignore is loss.Ignore, here so that a case reads as the option.
func Ignore(i int) *int { return loss.Ignore(i) }

func TestBinaryCrossEntropyOptionGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for name, r := range lossReductions {
		t.Run(name, func(t *testing.T) {
			// Logits, targets, weight [3, 1] and pos_weight [4] of
			// logits [2, 3, 4], each broadcast.
			checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
				return loss.BinaryCrossEntropyWithLogits(e, x[0], x[1], loss.BinaryCrossEntropyOptions{Reduction: r, Weight: x[2], PosWeight: x[3]})
			}, randIn(rng, -3, 3, 2, 3, 4), randIn(rng, 0, 1, 2, 3, 4), randIn(rng, 0.5, 2, 3, 1), randIn(rng, 0.2, 3, 4))
			checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
				return loss.BinaryCrossEntropyWithLogits(e, x[0], x[1], loss.BinaryCrossEntropyOptions{Reduction: r, PosWeight: x[2]})
			}, randIn(rng, -3, 3, 5, 2), randIn(rng, 0, 1, 5, 2), randIn(rng, 0.2, 3, 2))
		})
	}
}

func TestPoolOptionGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, c := range []struct {
		name  string
		shape []int
		o     tensor.Pool2DOptions
		avg   bool
	}{
		{"ceil, 3x3 stride 2 explicit", []int{1, 6, 5, 2}, tensor.Pool2DOptions{Window: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: tensor.Explicit(1, 1, 1, 0), CeilMode: true}, true},
		{"ceil, counting the padding", []int{2, 5, 4, 1}, tensor.Pool2DOptions{Window: [2]int{2, 3}, Stride: [2]int{2, 2}, Padding: tensor.Explicit(1, 1, 1, 1), CeilMode: true, CountIncludePad: true}, true},
		{"counting the padding, scatter, vec4", []int{1, 5, 5, 4}, tensor.Pool2DOptions{Window: [2]int{2, 2}, Padding: tensor.Explicit(1, 0, 0, 1), CountIncludePad: true}, true},
		{"dilation 2, stride 1", []int{1, 6, 5, 2}, tensor.Pool2DOptions{Window: [2]int{2, 2}, Stride: [2]int{1, 1}, Padding: tensor.Explicit(1, 1, 1, 1), Dilation: [2]int{2, 2}}, false},
		{"dilation 2x3, ceil, scatter", []int{1, 7, 8, 1}, tensor.Pool2DOptions{Window: [2]int{2, 2}, Stride: [2]int{3, 4}, Dilation: [2]int{2, 3}, CeilMode: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
				return e.MaxPool2D(x[0], c.o)
			}, distinct(rng, c.shape...))
			if c.avg {
				checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
					return e.Square(e.AvgPool2D(x[0], c.o))
				}, randIn(rng, -2, 2, c.shape...))
			}
		})
	}
}

func TestErfGeluErfCopyGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, c := range []struct {
		name string
		f    func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor
		lo   float64
		hi   float64
	}{
		{"erf", (*tensor.Engine).Erf, -2.5, 2.5},
		{"erfc", (*tensor.Engine).Erfc, -2.5, 2.5},
		{"gelu_erf", (*tensor.Engine).GeluErf, -4, 4},
		{"copy", func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Square(e.Copy(x)) }, -2, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
				return c.f(e, x[0])
			}, randIn(rng, c.lo, c.hi, 3, 7))
		})
	}
}

// Copy's gradient reaches its input once: a later Assign into the input
// changes neither the copy nor the gradient a tape computes from it.
func TestCopyIsNotAView(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2, 3}, 3)
	defer x.Dispose()
	tape := NewTape(e)
	defer tape.Dispose()
	two := e.Scalar(2)
	defer two.Dispose()
	var y, c, m *tensor.Tensor
	require.NoError(t, tape.Record(func() error {
		c = e.Copy(x)
		m = e.Mul(c, two)
		y = e.Sum(m, false)
		return y.Err()
	}))
	defer y.Dispose()
	defer m.Dispose()
	defer c.Dispose()
	other := e.FromFloat32s([]float32{7, 8, 9}, 3)
	defer other.Dispose()
	require.NoError(t, e.Assign(x, other))
	v, err := c.Float32s(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3}, v, "the copy keeps the values it was made with")
	gs, err := tape.Gradients(y, []*tensor.Tensor{x}, nil)
	require.NoError(t, err)
	defer gs[0].Dispose()
	g, err := gs[0].Float32s(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []float32{2, 2, 2}, g)
}
