package grad

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Conv2D's gradients with respect to its input and its filter match
// finite differences over strides, paddings, dilations, groups and odd
// sizes, with each kernel.
func TestConv2DGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, c := range []struct {
		x, f []int
		o    tensor.Conv2DOptions
	}{
		{[]int{1, 4, 4, 1}, []int{3, 3, 1, 1}, tensor.Conv2DOptions{}},
		{[]int{2, 5, 4, 3}, []int{3, 2, 3, 2}, tensor.Conv2DOptions{Stride: [2]int{2, 1}, Padding: tensor.Same()}},
		{[]int{1, 7, 6, 2}, []int{2, 3, 2, 3}, tensor.Conv2DOptions{Stride: [2]int{3, 2}, Dilation: [2]int{2, 1}, Padding: tensor.Explicit(1, 2, 0, 1)}},
		{[]int{1, 5, 5, 4}, []int{3, 3, 2, 4}, tensor.Conv2DOptions{Padding: tensor.Same(), Groups: 2}},
		{[]int{2, 5, 6, 3}, []int{3, 3, 1, 6}, tensor.Conv2DOptions{Stride: [2]int{2, 2}, Padding: tensor.Same(), Groups: 3}},
		{[]int{1, 4, 5, 4}, []int{3, 3, 4, 4}, tensor.Conv2DOptions{Padding: tensor.Same()}}, // the Vec4 kernel
		{[]int{2, 3, 3, 2}, []int{1, 1, 2, 3}, tensor.Conv2DOptions{}},
	} {
		t.Run(fmt.Sprintf("%v*%v/%+v", c.x, c.f, c.o), func(t *testing.T) {
			checkGradient(t, e, func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
				return e.Conv2D(in[0], in[1], c.o)
			}, randIn(rng, -2, 2, c.x...), randIn(rng, -2, 2, c.f...))
		})
	}
}

// The gradient of a filter alone does not compute the input's: the input
// gradient's kernel does not run when no one needs it, nor the filter's
// when only the input's is asked for.
func TestConv2DGradientRunsOnlyWhatIsNeeded(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Ones(tensor.Float32, 1, 5, 5, 2)
	f := e.Ones(tensor.Float32, 3, 3, 2, 2)
	defer x.Dispose()
	defer f.Dispose()
	for _, c := range []struct {
		wrt       *tensor.Tensor
		ran, skip string
	}{
		{f, "conv2d_filter", "conv2d_input"},
		{x, "conv2d_input", "conv2d_filter"},
	} {
		var kernels []string
		var y *tensor.Tensor
		var gs []*tensor.Tensor
		p, err := e.Profile(context.Background(), func() error {
			var err error
			y, gs, err = ValueAndGrad(e, func(ps []*tensor.Tensor) (*tensor.Tensor, error) {
				l := e.Sum(e.Conv2D(x, f, tensor.Conv2DOptions{Padding: tensor.Same()}), false)
				return l, l.Err()
			}, []*tensor.Tensor{c.wrt}, nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range p.Dispatches {
			kernels = append(kernels, d.Kernel)
		}
		if !slices.Contains(kernels, c.ran) || slices.Contains(kernels, c.skip) {
			t.Errorf("gradient of %v ran %v; want %s and not %s", c.wrt.Shape(), kernels, c.ran, c.skip)
		}
		y.Dispose()
		tidy.Dispose(gs)
	}
}
