package grad

import (
	"github.com/wgtensor/wgtensor/tensor"
)

// The rules of pooling and of the ops models need besides: each pooling's
// gradient is its own gathered kernel (tensor.MaxPool2DGrad,
// tensor.AvgPool2DGrad), a cumulative sum's is the cumulative sum of dy
// the other way, TopK's values send dy back to the positions their
// indices name, and LayerNorm's is its fused backward
// (tensor.Engine.LayerNormGrad).

func init() {
	Register("max_pool2d", Rule{Inputs: []int{0}, Backward: maxPoolGrad})
	Register("avg_pool2d", Rule{Backward: avgPoolGrad})
	for _, op := range []string{"max_pool2d_grad", "avg_pool2d_grad"} {
		Register(op, Rule{NoGrad: "second derivatives of pooling are not implemented"})
	}
	Register("cumsum", Rule{Backward: cumsumGrad})
	Register("top_k", Rule{Outputs: []int{1}, Backward: topKGrad})
	Register("one_hot", Rule{NoGrad: "its input is int32 indices, which have no gradient"})
	Register("layer_norm", Rule{Inputs: []int{0, 1}, Backward: layerNormGrad})
	Register("layer_norm_grad", Rule{NoGrad: "second derivatives of layer_norm are not implemented"})
}

// maxPoolGrad sends each window's gradient to the element it took.
func maxPoolGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	return one(c.E.MaxPool2DGrad(c.Input(0), dy[0], c.Attrs.Pool))
}

// avgPoolGrad spreads each window's gradient over its input positions.
func avgPoolGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	return one(c.E.AvgPool2DGrad(dy[0], c.InputShape(0), c.Attrs.Pool))
}

// cumsumGrad: an element of x adds to every sum from its own on (after it,
// when exclusive), so its gradient is the sum of dy over those: dy's
// cumulative sum in the other direction, exclusive alike.
func cumsumGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	return one(c.E.Cumsum(dy[0], c.Attrs.Axis, c.Attrs.Exclusive, !c.Attrs.Reverse))
}

// topKGrad adds each value's gradient at the position its index names in
// its row, zero elsewhere: dy[..., j] times the one-hot row of
// indices[..., j], summed over j (the indices of a row are distinct, so
// each sum has one term). The indices have no gradient.
func topKGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if dy[0] == nil {
		return []*tensor.Tensor{nil}, nil
	}
	in := c.InputShape(0)
	hot := c.E.OneHot(c.Output(1), in[len(in)-1], 1, 0)
	return one(c.E.Sum(c.E.Mul(c.E.ExpandDims(dy[0], -1), hot), false, -2))
}

// layerNormGrad differentiates y = x̂·γ + β, x̂ = (x − mean)·rstd, over
// each row of n (the mean and rstd recomputed from x):
//
//	dβ = Σ dy,  dγ = Σ dy·x̂  (over the rows)
//	dx = rstd · (g − mean(g) − x̂·mean(g·x̂)),  g = dy·γ
//
// in one fused kernel for up to 64 rows, two beyond
// (tensor.Engine.LayerNormGrad), where the same formulas composed of
// ordinary ops took eleven dispatches. The three come together; those no
// one needs are disposed by the scope the rule runs in.
func layerNormGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	dx, dgamma, dbeta := c.E.LayerNormGrad(c.Input(0), c.Input(1), dy[0], c.Attrs.Eps)
	if err := dx.Err(); err != nil {
		return nil, err
	}
	out := []*tensor.Tensor{dx, dgamma, dbeta}
	for i := range out {
		if !c.NeedsGradient(i) {
			out[i] = nil
		}
	}
	return out, nil
}
