package grad

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Tolerances: checkGradient's (fdAtol, fdRtol in check_test.go). Max
// pooling and top-k take distinct inputs (0.1 apart at least, more than a
// step), so no window's maximum and no row's order changes within a step.

func TestPoolGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, c := range []struct {
		name  string
		shape []int
		o     tensor.Pool2DOptions
	}{
		{"2x2 valid", []int{1, 4, 5, 1}, tensor.Pool2DOptions{Window: [2]int{2, 2}}},
		{"3x3 stride 2 same, batch 2, 3 channels", []int{2, 5, 4, 3}, tensor.Pool2DOptions{Window: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: tensor.Same()}},
		{"3x2 stride 1 explicit", []int{1, 4, 4, 2}, tensor.Pool2DOptions{Window: [2]int{3, 2}, Stride: [2]int{1, 1}, Padding: tensor.Explicit(1, 2, 0, 1)}},
		{"stride above the window", []int{2, 5, 5, 1}, tensor.Pool2DOptions{Window: [2]int{2, 1}, Stride: [2]int{3, 2}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
				return e.MaxPool2D(x[0], c.o)
			}, distinct(rng, c.shape...))
			checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
				return e.Square(e.AvgPool2D(x[0], c.o))
			}, randIn(rng, -2, 2, c.shape...))
		})
	}
}

func TestCumsumGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, shape := range [][]int{{5}, {3, 4}, {2, 3, 2}} {
		for axis := range shape {
			for _, ex := range []bool{false, true} {
				for _, rev := range []bool{false, true} {
					checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
						return e.Square(e.Cumsum(x[0], axis-len(shape)*(axis%2), ex, rev))
					}, randIn(rng, -1, 1, shape...))
				}
			}
		}
	}
}

func TestTopKGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, c := range []struct {
		shape []int
		k     int
	}{{[]int{6}, 3}, {[]int{3, 5}, 5}, {[]int{2, 2, 4}, 1}, {[]int{2, 4}, 0}} {
		checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
			v, i := e.TopK(x[0], c.k)
			i.Dispose()
			return e.Square(v)
		}, distinct(rng, c.shape...))
	}
}

func TestLayerNormGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, s := range [][]int{{5}, {3, 4}, {2, 2, 6}} {
		n := s[len(s)-1]
		for _, eps := range []float32{1e-5, 0.3} {
			checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
				return e.LayerNorm(x[0], x[1], x[2], eps)
			}, randIn(rng, -2, 2, s...), randIn(rng, 0.5, 1.5, n), randIn(rng, -1, 1, n))
		}
	}
}

// Second derivatives of pooling have no gradient, and OneHot's input is
// int32: asking for a gradient through them says so.
func TestNoGradientThroughOneHotAndPoolGrads(t *testing.T) {
	e := testgpu.Engine(t)
	for _, op := range []string{"one_hot", "max_pool2d_grad", "avg_pool2d_grad"} {
		if r := ruleFor(op); r == nil || r.NoGrad == "" {
			t.Errorf("%s has no NoGrad rule", op)
		}
	}
	err := tidy.Do(e, func() error {
		x := e.FromFloat32s([]float32{1, 2, 3, 4}, 1, 2, 2, 1)
		o := tensor.Pool2DOptions{Window: [2]int{2, 2}}
		tape := NewTape(e)
		defer tape.Dispose()
		var y *tensor.Tensor
		if err := tape.Record(func() error {
			dy := e.MaxPool2D(x, o)
			y = e.Sum(e.MaxPool2DGrad(x, dy, o), false)
			return y.Err()
		}); err != nil {
			return err
		}
		_, err := tape.Gradients(y, []*tensor.Tensor{x}, nil)
		return err
	})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrNoGradient), "%v", err)
	assert.Contains(t, err.Error(), "max_pool2d_grad")
}
