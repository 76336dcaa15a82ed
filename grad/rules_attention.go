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
// is composed only when asked for. Under autocast the output and
// logsumexp are recomputed from the rounded operands (Rule.Recompute).
// Wide heads, which tensor composes of
// ordinary ops, are differentiated through those ops. Attention over
// merged heads (AttentionOptions.Heads) and over a packed qkv differ only
// in layout: the same kernels write the gradients in the operands'
// layouts, a packed qkv's into the one gradient of qkv. Tril and Triu
// pass the gradient where they kept x; MaskedFill where it did not fill.

func init() {
	Register("scaled_dot_product_attention", Rule{Inputs: []int{0, 1, 2, 3, 4}, Outputs: []int{0, 1}, Recompute: true, Backward: attentionGrad})
	Register("scaled_dot_product_attention_packed", Rule{Inputs: []int{0, 1, 2}, Outputs: []int{0, 1}, Recompute: true, Backward: attentionPackedGrad})
	for _, op := range []string{"scaled_dot_product_attention_grad", "scaled_dot_product_attention_packed_grad",
		"scaled_dot_product_attention_mask_grad"} {
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
	opt, mask, grads, err := attentionGradSetUp(c, dy, 3)
	if err != nil || dy[0] == nil {
		return grads, err
	}
	e := c.E
	q, k, v, out, lse := c.Input(0), c.Input(1), c.Input(2), c.Output(0), c.Output(1)
	if out == nil {
		out, lse = e.ScaledDotProductAttentionLSE(q, k, v, opt)
	}
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

// attentionGradSetUp returns what a rule of attention needs besides its
// operands, the first masks input: the options with their masks, the
// index of a Mask among the inputs (-1: none), and the gradients to fill,
// one per input. A gradient reaching the logsumexp is an error.
func attentionGradSetUp(c *Context, dy []*tensor.Tensor, first int) (opt tensor.AttentionOptions, mask int, grads []*tensor.Tensor, err error) {
	if len(dy) > 1 && dy[1] != nil {
		return opt, -1, nil, fmt.Errorf("%w: the logsumexp of %s has no gradient rule", ErrNoGradient, c.Op)
	}
	opt = c.Attrs.Attention
	grads = make([]*tensor.Tensor, c.NumInputs())
	mask = -1
	next := first
	if c.Attrs.AttentionMask {
		opt.Mask, mask = c.Input(next), next
		next++
	}
	if c.Attrs.AttentionKeyPadding {
		opt.KeyPadding = c.Input(next)
	}
	return opt, mask, grads, nil
}

// attentionPackedGrad differentiates scaled_dot_product_attention_packed,
// whose inputs are qkv, then its Mask and KeyPadding where set, and whose
// outputs are out and the rows' logsumexp: the gradient of qkv is one
// tensor, which the fused kernels fill column range by column range. A
// float mask's gradient, when asked for, is composed from q, k and v
// sliced out of qkv.
func attentionPackedGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	opt, mask, grads, err := attentionGradSetUp(c, dy, 1)
	if err != nil || dy[0] == nil {
		return grads, err
	}
	e := c.E
	qkv, out, lse := c.Input(0), c.Output(0), c.Output(1)
	if out == nil {
		out, lse = e.ScaledDotProductAttentionPackedLSE(qkv, opt)
	}
	d := e.ScaledDotProductAttentionPackedGrad(qkv, out, lse, dy[0], opt)
	if err := d.Err(); err != nil {
		return nil, err
	}
	grads[0] = d
	if mask >= 0 && c.InputDType(mask) == tensor.Float32 && c.NeedsGradient(mask) {
		w := qkv.Shape()[2] / 3
		parts := e.Split(qkv, -1, w, w, w)
		dm := e.ScaledDotProductAttentionMaskGrad(parts[0], parts[1], parts[2], out, lse, dy[0], opt)
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
