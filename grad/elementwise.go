package grad

import (
	"github.com/wgtensor/wgtensor/tensor"
)

// The rules of package tensor's elementwise ops. Intermediates are freed
// by the scope each rule runs in (see Rule.Backward).

func init() {
	registerUnary()
	registerBinary()
	for _, op := range []string{"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"} {
		Register(op, Rule{NoGrad: "comparisons return uint32, which has no gradient"})
	}
	Register("where", Rule{Inputs: []int{0}, Backward: whereGrad})
	Register("cast", Rule{Backward: castGrad})
	// Copy passes dy through, as Clone does: its result is its input's
	// values in storage of their own.
	Register("copy", Rule{Backward: func(_ *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) { return dy, nil }})
}

// unary registers a rule for a one-input op whose gradient is dy·d(x, y),
// d computed from the saved input x and, if useOut, output y.
func unary(op string, useIn, useOut bool, d func(e *tensor.Engine, a tensor.Attrs, x, y *tensor.Tensor) *tensor.Tensor) {
	r := Rule{Backward: func(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
		g := c.E.Mul(dy[0], d(c.E, c.Attrs, c.Input(0), c.Output(0)))
		return []*tensor.Tensor{g}, g.Err()
	}}
	if useIn {
		r.Inputs = []int{0}
	}
	if useOut {
		r.Outputs = []int{0}
	}
	Register(op, r)
}

// oneOp registers a rule for a one-input op whose gradient grad computes
// from the saved input x and dy as one op that takes x as the tape saved
// it: float32, or an autocast tape's narrow copy, not widened first.
func oneOp(op string, grad func(e *tensor.Engine, a tensor.Attrs, x, dy *tensor.Tensor) *tensor.Tensor) {
	Register(op, Rule{Inputs: []int{0}, Backward: func(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
		g := grad(c.E, c.Attrs, c.saved(0), dy[0])
		return []*tensor.Tensor{g}, g.Err()
	}})
}

// oneOpOfOutput is oneOp for an op whose gradient grad computes from its
// saved output y and dy.
func oneOpOfOutput(op string, grad func(e *tensor.Engine, y, dy *tensor.Tensor) *tensor.Tensor) {
	Register(op, Rule{Outputs: []int{0}, Backward: func(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
		g := grad(c.E, c.savedOutput(0), dy[0])
		return []*tensor.Tensor{g}, g.Err()
	}})
}

// zeroGrad registers a rule for a piecewise-constant op: its gradient is
// zero (almost everywhere), as TensorFlow and PyTorch define it.
func zeroGrad(op string) {
	Register(op, Rule{Backward: func(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
		z := c.E.Zeros(tensor.Float32, c.InputShape(0)...)
		return []*tensor.Tensor{z}, z.Err()
	}})
}

func registerUnary() {
	for _, op := range []string{"sign", "floor", "ceil", "round"} {
		zeroGrad(op)
	}
	Register("neg", Rule{Backward: func(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
		g := c.E.Neg(dy[0])
		return []*tensor.Tensor{g}, g.Err()
	}})
	// |x|' = sign(x), 0 at 0.
	unary("abs", true, false, func(e *tensor.Engine, _ tensor.Attrs, x, _ *tensor.Tensor) *tensor.Tensor { return e.Sign(x) })
	unary("square", true, false, func(e *tensor.Engine, _ tensor.Attrs, x, _ *tensor.Tensor) *tensor.Tensor {
		return e.Mul(x, e.Scalar(2))
	})
	// relu' = 1 where x > 0, 0 elsewhere (0 at 0, as PyTorch). These
	// gradients are one op each (tensor.Engine.ReluGrad and its kin), and
	// read an autocast tape's narrow copy of x as it is.
	oneOp("relu", func(e *tensor.Engine, _ tensor.Attrs, x, dy *tensor.Tensor) *tensor.Tensor { return e.ReluGrad(x, dy) })
	oneOp("leaky_relu", func(e *tensor.Engine, a tensor.Attrs, x, dy *tensor.Tensor) *tensor.Tensor {
		return e.LeakyReluGrad(x, dy, a.Alpha)
	})
	unary("exp", false, true, func(_ *tensor.Engine, _ tensor.Attrs, _, y *tensor.Tensor) *tensor.Tensor { return y })
	unary("log", true, false, func(e *tensor.Engine, _ tensor.Attrs, x, _ *tensor.Tensor) *tensor.Tensor {
		return e.Div(e.Scalar(1), x)
	})
	// sqrt' = 1/(2y)
	unary("sqrt", false, true, func(e *tensor.Engine, _ tensor.Attrs, _, y *tensor.Tensor) *tensor.Tensor {
		return e.Div(e.Scalar(0.5), y)
	})
	// rsqrt' = -y³/2
	unary("rsqrt", false, true, func(e *tensor.Engine, _ tensor.Attrs, _, y *tensor.Tensor) *tensor.Tensor {
		return e.Mul(e.Mul(y, e.Square(y)), e.Scalar(-0.5))
	})
	unary("sin", true, false, func(e *tensor.Engine, _ tensor.Attrs, x, _ *tensor.Tensor) *tensor.Tensor { return e.Cos(x) })
	unary("cos", true, false, func(e *tensor.Engine, _ tensor.Attrs, x, _ *tensor.Tensor) *tensor.Tensor {
		return e.Neg(e.Sin(x))
	})
	// tanh' = 1 - y², sigmoid' = y(1 - y): one op each, from the saved
	// output.
	oneOpOfOutput("tanh", (*tensor.Engine).TanhGrad)
	oneOpOfOutput("sigmoid", (*tensor.Engine).SigmoidGrad)
	oneOp("gelu", func(e *tensor.Engine, _ tensor.Attrs, x, dy *tensor.Tensor) *tensor.Tensor { return e.GeluGrad(x, dy) })
	// erf' = 2/√π·e^(−x²), erfc' = −erf'.
	unary("erf", true, false, func(e *tensor.Engine, _ tensor.Attrs, x, _ *tensor.Tensor) *tensor.Tensor {
		return e.Mul(e.Scalar(twoOverSqrtPi), e.Exp(e.Neg(e.Square(x))))
	})
	unary("erfc", true, false, func(e *tensor.Engine, _ tensor.Attrs, x, _ *tensor.Tensor) *tensor.Tensor {
		return e.Mul(e.Scalar(-twoOverSqrtPi), e.Exp(e.Neg(e.Square(x))))
	})
	oneOp("gelu_erf", func(e *tensor.Engine, _ tensor.Attrs, x, dy *tensor.Tensor) *tensor.Tensor {
		return e.GeluErfGrad(x, dy)
	})
	// Clip passes the gradient where lo <= x <= hi, bounds included (as
	// PyTorch's clamp), and nothing outside.
	unary("clip", true, false, func(e *tensor.Engine, a tensor.Attrs, x, _ *tensor.Tensor) *tensor.Tensor {
		inside := e.Mul(e.GreaterEqual(x, e.Scalar(a.Lo)), e.LessEqual(x, e.Scalar(a.Hi)))
		return e.Cast(inside, tensor.Float32)
	})
}

// twoOverSqrtPi is 2/√π, erf's slope at 0.
const twoOverSqrtPi = 1.1283791670955126

// castGrad passes dy through a cast from float32 to float32; a cast from
// an integer gives its input no gradient, and one to an integer passes
// none on (the tape never reaches it).
func castGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if c.InputDType(0) != tensor.Float32 {
		return []*tensor.Tensor{nil}, nil
	}
	return dy, nil
}

// whereGrad sends dy to a where the condition holds and to b elsewhere.
func whereGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	e, cond, zero := c.E, c.Input(0), c.E.Scalar(0)
	da, err := SumTo(e, e.Where(cond, dy[0], zero), c.InputShape(1))
	if err != nil {
		return nil, err
	}
	db, err := SumTo(e, e.Where(cond, zero, dy[0]), c.InputShape(2))
	if err != nil {
		return nil, err
	}
	return []*tensor.Tensor{nil, da, db}, nil
}

// binary registers a rule for a two-input broadcasting op: d returns the
// gradients of a and b at the result's shape, which the rule sums back to
// the inputs' shapes.
func binary(op string, inputs []int, useOut bool, d func(e *tensor.Engine, a, b, y, dy *tensor.Tensor) (da, db *tensor.Tensor)) {
	r := Rule{Inputs: inputs, Backward: func(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
		da, db := d(c.E, c.Input(0), c.Input(1), c.Output(0), dy[0])
		ga, err := SumTo(c.E, da, c.InputShape(0))
		if err != nil {
			return nil, err
		}
		gb, err := SumTo(c.E, db, c.InputShape(1))
		if err != nil {
			return nil, err
		}
		return []*tensor.Tensor{ga, gb}, nil
	}}
	if useOut {
		r.Outputs = []int{0}
	}
	Register(op, r)
}

func registerBinary() {
	both := []int{0, 1}
	binary("add", nil, false, func(_ *tensor.Engine, _, _, _, dy *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		return dy, dy
	})
	binary("sub", nil, false, func(e *tensor.Engine, _, _, _, dy *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		return dy, e.Neg(dy)
	})
	binary("mul", both, false, func(e *tensor.Engine, a, b, _, dy *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		return e.Mul(dy, b), e.Mul(dy, a)
	})
	// (a/b)' = 1/b and -a/b²
	binary("div", both, false, func(e *tensor.Engine, a, b, _, dy *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		return e.Div(dy, b), e.Neg(e.Div(e.Mul(dy, a), e.Square(b)))
	})
	// (a^b)' = b·a^(b-1) and a^b·ln a; the latter is 0 where a <= 0 (as
	// TensorFlow defines it), where ln a is not real.
	binary("pow", both, true, func(e *tensor.Engine, a, b, y, dy *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		da := e.Mul(dy, e.Mul(b, e.Pow(a, e.Sub(b, e.Scalar(1)))))
		zero := e.Scalar(0)
		positive := e.Greater(a, zero)
		lnA := e.Where(positive, e.Log(e.Where(positive, a, e.Scalar(1))), zero)
		return da, e.Mul(dy, e.Mul(y, lnA))
	})
	// a mod b = a - floor(a/b)·b: 1 and -floor(a/b), away from the jumps.
	binary("mod", both, false, func(e *tensor.Engine, a, b, _, dy *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		return dy, e.Neg(e.Mul(dy, e.Floor(e.Div(a, b))))
	})
	// Maximum and Minimum send dy to the larger (smaller) input, and half
	// to each at a tie (as PyTorch).
	binary("maximum", both, false, func(e *tensor.Engine, a, b, _, dy *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		return pick(e, e.Greater(a, b), a, b, dy)
	})
	binary("minimum", both, false, func(e *tensor.Engine, a, b, _, dy *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		return pick(e, e.Less(a, b), a, b, dy)
	})
}

// pick sends dy to a where aWins, half to each where a == b, and the rest
// to b.
func pick(e *tensor.Engine, aWins, a, b, dy *tensor.Tensor) (da, db *tensor.Tensor) {
	tie := e.Where(e.Equal(a, b), e.Mul(dy, e.Scalar(0.5)), e.Scalar(0))
	da = e.Where(aWins, dy, tie)
	return da, e.Sub(dy, da)
}
