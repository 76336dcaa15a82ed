package grad

import (
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
)

// The rules of attention and of the mask ops. Fused attention's gradient
// is its two backward kernels (tensor.ScaledDotProductAttentionGrad),
// which recompute the weights from q, k and the forward's logsumexp (its
// second output) and regenerate dropout's mask from the seed; a float
// mask's gradient, the gradient of the scores summed to the mask's shape,
// is composed only when asked for. Wide heads, which tensor composes of
// ordinary ops, are differentiated through those ops. Tril and Triu pass
// the gradient where they kept x; MaskedFill where it did not fill.

func init() {
	Register("scaled_dot_product_attention", Rule{Inputs: []int{0, 1, 2, 3, 4}, Outputs: []int{0, 1}, Backward: attentionGrad})
	for _, op := range []string{"scaled_dot_product_attention_grad", "scaled_dot_product_attention_mask_grad"} {
		Register(op, Rule{NoGrad: "second derivatives of attention are not implemented"})
	}
	Register("tril", Rule{Backward: func(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
		return one(c.E.Tril(dy[0], c.Attrs.Diagonal))
	}})
	Register("triu", Rule{Backward: func(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
		return one(c.E.Triu(dy[0], c.Attrs.Diagonal))
	}})
	Register("masked_fill", Rule{Inputs: []int{1}, Backward: maskedFillGrad})
}

// attentionGrad differentiates scaled_dot_product_attention, whose
// inputs are q, k, v, then its Mask and KeyPadding where set
// (Attrs.AttentionMask, Attrs.AttentionKeyPadding), and whose outputs are
// out and the rows' logsumexp. The logsumexp has no gradient rule: a
// gradient reaching it is an error.
func attentionGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if len(dy) > 1 && dy[1] != nil {
		return nil, fmt.Errorf("%w: the logsumexp of scaled_dot_product_attention has no gradient rule", ErrNoGradient)
	}
	e := c.E
	opt := c.Attrs.Attention
	grads := make([]*tensor.Tensor, c.NumInputs())
	if dy[0] == nil {
		return grads, nil
	}
	mask := -1
	next := 3
	if c.Attrs.AttentionMask {
		opt.Mask, mask = c.Input(next), next
		next++
	}
	if c.Attrs.AttentionKeyPadding {
		opt.KeyPadding = c.Input(next)
	}
	q, k, v, out, lse := c.Input(0), c.Input(1), c.Input(2), c.Output(0), c.Output(1)
	dq, dk, dv := e.ScaledDotProductAttentionGrad(q, k, v, out, lse, dy[0], opt)
	if err := firstErr(dq, dk, dv); err != nil {
		return nil, err
	}
	grads[0], grads[1], grads[2] = dq, dk, dv
	if mask >= 0 && c.InputDType(mask) == tensor.Float32 && c.NeedsGradient(mask) {
		dm := e.ScaledDotProductAttentionMaskGrad(q, k, v, out, lse, dy[0], opt)
		if err := dm.Err(); err != nil {
			return nil, err
		}
		grads[mask] = dm
	}
	return grads, nil
}

// maskedFillGrad passes dy to x where the mask did not fill, zero where
// it did, summed back to x's shape; the mask gets none.
func maskedFillGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	g, err := SumTo(c.E, c.E.MaskedFill(dy[0], c.Input(1), 0), c.InputShape(0))
	if err != nil {
		return nil, err
	}
	return []*tensor.Tensor{g, nil}, nil
}
