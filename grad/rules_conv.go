package grad

import (
	"github.com/wgtensor/wgtensor/tensor"
)

func init() {
	Register("conv2d", Rule{Inputs: []int{0, 1}, Backward: conv2DGrad})
}

// conv2DGrad differentiates y = Conv2D(x, f) with the convolution's
// gradient kernels, with the options of the forward op:
//
//	dx = Conv2DBackpropInput(dy, f, x's shape)
//	df = Conv2DBackpropFilter(x, dy, f's shape)
//
// An input whose gradient no one needs (Context.NeedsGradient) gets none:
// its kernel does not run (the image's gradient in a network's first
// layer, say).
func conv2DGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	e, x, f, o := c.E, c.Input(0), c.Input(1), c.Attrs.Conv
	gs := make([]*tensor.Tensor, 2)
	if c.NeedsGradient(0) {
		gs[0] = e.Conv2DBackpropInput(dy[0], f, c.InputShape(0), o)
	}
	if c.NeedsGradient(1) {
		gs[1] = e.Conv2DBackpropFilter(x, dy[0], c.InputShape(1), o)
	}
	for _, g := range gs {
		if g != nil && g.Err() != nil {
			return nil, g.Err()
		}
	}
	return gs, nil
}
