package grad

import (
	"github.com/wgtensor/wgtensor/tensor"
)

// The rules of the losses' fused forward ops (package loss).

func init() {
	Register("softmax_cross_entropy", Rule{Inputs: []int{0, 1}, Backward: softmaxXentGrad})
	Register("softmax_cross_entropy_mean", Rule{Inputs: []int{0, 1}, Backward: softmaxXentMeanGrad})
	Register("softmax_cross_entropy_weighted_sum", Rule{Inputs: []int{0, 1, 2}, Backward: softmaxXentWeightedSumGrad})
	Register("sigmoid_cross_entropy", Rule{Inputs: []int{0, 1}, Backward: sigmoidXentGrad})
}

// softmaxXentGrad differentiates the loss per row, ℓ = Σ t·(lse(x) - x)
// (labels: t one-hot), with g = dℓ broadcast along the classes:
//
//	dx = g · (softmax(x)·Σt - t)                (one kernel)
//	dt = g · (lse(x) - x) = -g · logsoftmax(x)   (probabilities only)
//
// dt is computed only when needed (Context.NeedsGradient).
// Labels get no gradient; a label out of range, whose loss is NaN, gets
// the gradient of an all-zero target row.
func softmaxXentGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	e, x, t := c.E, c.Input(0), c.Input(1)
	dx := e.SoftmaxCrossEntropyGrad(x, t, dy[0])
	if t.DType() == tensor.Int32 || !c.NeedsGradient(1) { // targets are data, as a rule
		return []*tensor.Tensor{dx, nil}, dx.Err()
	}
	dt := e.Mul(e.ExpandDims(dy[0], -1), e.Neg(e.LogSoftmax(x, -1)))
	return []*tensor.Tensor{dx, dt}, firstErr(dx, dt)
}

// softmaxXentMeanGrad differentiates the mean of the rows' losses over N
// rows: each row's gradient is g = dy·(1/N), rounded to float32 as Mean's
// rule rounds it, so that
//
//	dx = g · (softmax(x)·Σt - t)                (one kernel, g folded in)
//	dt = g · (lse(x) - x) = -g · logsoftmax(x)   (probabilities only)
//
// bit for bit what the mean's rule followed by softmaxXentGrad computes,
// without the mean's fill and product (a dispatch).
func softmaxXentMeanGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	e, x, t := c.E, c.Input(0), c.Input(1)
	dx := e.SoftmaxCrossEntropyMeanGrad(x, t, dy[0])
	if t.DType() == tensor.Int32 || !c.NeedsGradient(1) { // targets are data, as a rule
		return []*tensor.Tensor{dx, nil}, dx.Err()
	}
	in := c.InputShape(0)
	rows := 1
	for _, d := range in[:len(in)-1] {
		rows *= d
	}
	g := e.Mul(dy[0], e.Scalar(1/float32(max(rows, 1))))
	dt := e.Mul(g, e.Neg(e.LogSoftmax(x, -1)))
	return []*tensor.Tensor{dx, dt}, firstErr(dx, dt)
}

// softmaxXentWeightedSumGrad differentiates Σ_r w_r·ℓ_r: each row's
// gradient is g_r = dy·w_r, rounded to float32 as Mul's rule rounds it
// after Sum's broadcast, so that
//
//	dx = g · (softmax(x)·Σt - t)                (one kernel, g folded in)
//	dt = g · (lse(x) - x) = -g · logsoftmax(x)   (probabilities only)
//	dw = dy · ℓ                                  (the losses, recomputed)
//
// bit for bit what the rules of Sum, Mul and softmax_cross_entropy
// compute; dt and dw only when needed (Context.NeedsGradient).
func softmaxXentWeightedSumGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	e, x, t, w := c.E, c.Input(0), c.Input(1), c.Input(2)
	out := []*tensor.Tensor{e.SoftmaxCrossEntropyWeightedSumGrad(x, t, w, dy[0]), nil, nil}
	if t.DType() == tensor.Float32 && c.NeedsGradient(1) { // targets are data, as a rule
		out[1] = e.Mul(e.ExpandDims(e.Mul(dy[0], w), -1), e.Neg(e.LogSoftmax(x, -1)))
	}
	if c.NeedsGradient(2) {
		out[2] = e.Mul(dy[0], e.SoftmaxCrossEntropy(x, t))
	}
	for _, g := range out {
		if g != nil && g.Err() != nil {
			return nil, g.Err()
		}
	}
	return out, nil
}

// sigmoidXentGrad differentiates max(x,0) - x·z + log1p(exp(-|x|)):
// dx = dy·(sigmoid(x) - z), dz = -dy·x, each summed back to its input's
// shape where it broadcast.
func sigmoidXentGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	e, x, z := c.E, c.Input(0), c.Input(1)
	dx, err := SumTo(e, e.Mul(dy[0], e.Sub(e.Sigmoid(x), z)), c.InputShape(0))
	if err != nil {
		return nil, err
	}
	dz, err := SumTo(e, e.Neg(e.Mul(dy[0], x)), c.InputShape(1))
	if err != nil {
		return nil, err
	}
	return []*tensor.Tensor{dx, dz}, nil
}

// firstErr returns the first error the tensors carry.
func firstErr(ts ...*tensor.Tensor) error {
	for _, t := range ts {
		if err := t.Err(); err != nil {
			return err
		}
	}
	return nil
}
