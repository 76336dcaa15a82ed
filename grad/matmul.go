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
// Broadcast batch dimensions are summed back to each input's.
func matmulGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	e, a, b, dc := c.E, c.Input(0), c.Input(1), dy[0]
	var da, db *tensor.Tensor
	switch ta, tb := c.Attrs.TransA, c.Attrs.TransB; {
	case !ta && !tb:
		da, db = e.MatMulT(dc, b, false, true), e.MatMulT(a, dc, true, false)
	case !ta && tb:
		da, db = e.MatMul(dc, b), e.MatMulT(dc, a, true, false)
	case ta && !tb:
		da, db = e.MatMulT(b, dc, false, true), e.MatMul(a, dc)
	default:
		da, db = e.MatMulT(b, dc, true, true), e.MatMulT(dc, a, true, true)
	}
	ga, err := SumTo(e, da, c.InputShape(0))
	if err != nil {
		return nil, err
	}
	gb, err := SumTo(e, db, c.InputShape(1))
	if err != nil {
		return nil, err
	}
	return []*tensor.Tensor{ga, gb}, nil
}
