package grad

import (
	"github.com/wgtensor/wgtensor/tensor"
)

func init() {
	Register("matmul", Rule{Inputs: []int{0, 1}, Backward: matmulGrad})
}

// matmulGrad differentiates C = op(A)·op(B), op transposing the last two
// dimensions or not, with transposed products (no copies):
//
//	A·B:   dA = dC·Bᵀ,   dB = Aᵀ·dC
//	A·Bᵀ:  dA = dC·B,    dB = dCᵀ·A
//	Aᵀ·B:  dA = B·dCᵀ,   dB = A·dC
//	Aᵀ·Bᵀ: dA = Bᵀ·dCᵀ,  dB = dCᵀ·Aᵀ
//
// Broadcast batch dimensions are summed back to each input's. An input
// whose gradient no one needs (Context.NeedsGradient) gets none: its
// product is not computed. B's gradient (a weight's, mostly) is computed
// first: A's is mostly an activation's, which the next rule takes at once,
// and a product its elementwise ops follow runs them in its own kernel
// (see tensor.Engine.MatMul). Each product multiplies dC by one operand,
// so an operand an autocast tape saved in bfloat16 is read as it is (a
// mixed product): no widened float32 copy, no dispatch to make one.
func matmulGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	e, a, b, dc := c.E, c.saved(0), c.saved(1), dy[0]
	var da, db func() *tensor.Tensor
	switch ta, tb := c.Attrs.TransA, c.Attrs.TransB; {
	case !ta && !tb:
		da, db = func() *tensor.Tensor { return e.MatMulT(dc, b, false, true) }, func() *tensor.Tensor { return e.MatMulT(a, dc, true, false) }
	case !ta && tb:
		da, db = func() *tensor.Tensor { return e.MatMul(dc, b) }, func() *tensor.Tensor { return e.MatMulT(dc, a, true, false) }
	case ta && !tb:
		da, db = func() *tensor.Tensor { return e.MatMulT(b, dc, false, true) }, func() *tensor.Tensor { return e.MatMul(a, dc) }
	default:
		da, db = func() *tensor.Tensor { return e.MatMulT(b, dc, true, true) }, func() *tensor.Tensor { return e.MatMulT(dc, a, true, true) }
	}
	gs := make([]*tensor.Tensor, 2)
	for _, i := range []int{1, 0} {
		if !c.NeedsGradient(i) {
			continue
		}
		g, err := SumTo(e, []func() *tensor.Tensor{da, db}[i](), c.InputShape(i))
		if err != nil {
			return nil, err
		}
		gs[i] = g
	}
	return gs, nil
}
