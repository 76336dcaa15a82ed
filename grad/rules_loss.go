package grad

import (
	"github.com/wgtensor/wgtensor/tensor"
)

// The rules of the losses' fused forward ops (package loss).

func init() {
	Register("softmax_cross_entropy", Rule{Inputs: []int{0, 1}, Backward: softmaxXentGrad})
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
