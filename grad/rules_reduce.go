package grad

import (
	"github.com/wgtensor/wgtensor/tensor"
)

// The rules of the reductions and of Softmax and LogSoftmax. Each reduced
// gradient dy is first reshaped to the input's rank with the reduced axes
// kept as 1 (keptShape), whether or not the op kept them, so that it
// broadcasts against the input.

func init() {
	Register("sum", Rule{Backward: sumGrad})
	Register("mean", Rule{Backward: meanGrad})
	Register("max", Rule{Inputs: []int{0}, Outputs: []int{0}, Backward: extremumGrad})
	Register("min", Rule{Inputs: []int{0}, Outputs: []int{0}, Backward: extremumGrad})
	Register("prod", Rule{Inputs: []int{0}, Backward: prodGrad})
	for _, op := range []string{"argmax", "argmin"} {
		Register(op, Rule{NoGrad: "it returns int32 indices, which have no gradient"})
	}
	Register("softmax", Rule{Outputs: []int{0}, Backward: softmaxGrad})
	Register("log_softmax", Rule{Outputs: []int{0}, Backward: logSoftmaxGrad})
}

// keptShape is in with the reduced axes as 1: the shape of the op's result
// with keepDims.
func keptShape(in tensor.Shape, axes []int) []int {
	s := append([]int{}, in...)
	for _, a := range axes {
		s[a] = 1
	}
	return s
}

// one returns g as the single gradient of a one-input op.
func one(g *tensor.Tensor) ([]*tensor.Tensor, error) { return []*tensor.Tensor{g}, g.Err() }

// floatInput reports whether the op's input 0 is float32: a reduction of
// integers passes no gradient to them.
func floatInput(c *Context) bool { return c.InputDType(0) == tensor.Float32 }

// sumGrad: every element contributed once, dx = dy broadcast back.
func sumGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if !floatInput(c) {
		return []*tensor.Tensor{nil}, nil
	}
	in := c.InputShape(0)
	return one(c.E.BroadcastTo(c.E.Reshape(dy[0], keptShape(in, c.Attrs.Axes)...), in...))
}

// meanGrad: dx = dy / n broadcast back, n the count of elements averaged:
// one fused fill+mul, where a scale then BroadcastTo's copy took two
// dispatches (the product is the same: dy · (1/n)).
func meanGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if !floatInput(c) {
		return []*tensor.Tensor{nil}, nil
	}
	in := c.InputShape(0)
	n := 1
	for _, a := range c.Attrs.Axes {
		n *= in[a]
	}
	e := c.E
	return one(e.Mul(e.Reshape(dy[0], keptShape(in, c.Attrs.Axes)...), e.Fill(tensor.Float32, float64(1/float32(max(n, 1))), in...)))
}

// extremumGrad differentiates Max and Min: the gradient goes to the
// elements equal to the result, split evenly among ties (as TensorFlow's
// reduce_max and PyTorch's amax do): dx = dy · [x = y] / #{x = y}.
func extremumGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if !floatInput(c) {
		return []*tensor.Tensor{nil}, nil
	}
	e, axes := c.E, c.Attrs.Axes
	kept := keptShape(c.InputShape(0), axes)
	hit := e.Cast(e.Equal(c.Input(0), e.Reshape(c.Output(0), kept...)), tensor.Float32)
	ties := e.Sum(hit, true, axes...)
	return one(e.Div(e.Mul(hit, e.Reshape(dy[0], kept...)), ties))
}

// prodGrad differentiates Prod, zeros included: with p the product of the
// nonzero elements of a reduced group and z the count of its zeros,
//
//	z = 0: dx = dy · p / x
//	z = 1: dx = dy · p at the zero, 0 elsewhere
//	z ≥ 2: dx = 0
func prodGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if !floatInput(c) {
		return []*tensor.Tensor{nil}, nil
	}
	e, axes, x := c.E, c.Attrs.Axes, c.Input(0)
	zero, one1 := e.Scalar(0), e.Scalar(1)
	isZero := e.Equal(x, zero)
	p := e.Prod(e.Where(isZero, one1, x), true, axes...)
	z := e.Sum(e.Cast(isZero, tensor.Float32), true, axes...)
	lone := e.Where(isZero, e.Where(e.Equal(z, one1), p, zero), zero)
	d := e.Where(e.Equal(z, zero), e.Div(p, e.Where(isZero, one1, x)), lone)
	return one(e.Mul(d, e.Reshape(dy[0], keptShape(c.InputShape(0), axes)...)))
}

// softmaxGrad: dx = y · (dy - Σ dy·y) along the axis.
func softmaxGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	e, y := c.E, c.Output(0)
	dot := e.Sum(e.Mul(dy[0], y), true, c.Attrs.Axis)
	return one(e.Mul(y, e.Sub(dy[0], dot)))
}

// logSoftmaxGrad: dx = dy - exp(y) · Σ dy along the axis.
func logSoftmaxGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	e := c.E
	return one(e.Sub(dy[0], e.Mul(e.Exp(c.Output(0)), e.Sum(dy[0], true, c.Attrs.Axis))))
}
