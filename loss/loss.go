package loss

import "github.com/wgtensor/wgtensor/tensor"

// Reduction turns a tensor of per-element losses into the loss the caller
// gets: Mean (the default: a nil Reduction means Mean), Sum or None. It
// must not dispose losses.
type Reduction func(e *tensor.Engine, losses *tensor.Tensor) *tensor.Tensor

// Mean averages the losses over every element (PyTorch's "mean": over the
// batch for cross-entropy, over every element for squared error); the
// mean of no losses is NaN.
func Mean(e *tensor.Engine, losses *tensor.Tensor) *tensor.Tensor { return e.Mean(losses, false) }

// Sum adds the losses over every element.
func Sum(e *tensor.Engine, losses *tensor.Tensor) *tensor.Tensor { return e.Sum(losses, false) }

// None returns the losses per element, as a view sharing their storage.
func None(e *tensor.Engine, losses *tensor.Tensor) *tensor.Tensor { return e.Clone(losses) }

// reduce applies r (Mean when nil) to losses, which it disposes.
func reduce(e *tensor.Engine, losses *tensor.Tensor, r Reduction) *tensor.Tensor {
	defer losses.Dispose()
	if losses.Err() != nil {
		return losses
	}
	if r == nil {
		r = Mean
	}
	return r(e, losses)
}

// SoftmaxCrossEntropy is the cross-entropy of softmax(logits) along the
// last axis (the classes) against targets: int32 class labels of logits'
// shape without the last axis, or float32 probabilities of logits' shape.
// The per-row losses, of the labels' shape, are reduced by r. It is one
// fused kernel, stable for logits of any finite size (see
// tensor.Engine.SoftmaxCrossEntropy); a label out of range gives NaN.
// With Mean (or nil) it is tensor.Engine.SoftmaxCrossEntropyMean, bit for
// bit the same value: two dispatches forward (the losses and their mean)
// and one backward, the mean's 1/N folded into the gradient's kernel.
func SoftmaxCrossEntropy(e *tensor.Engine, logits, targets *tensor.Tensor, r Reduction) *tensor.Tensor {
	if isMean(r) {
		return e.SoftmaxCrossEntropyMean(logits, targets)
	}
	return reduce(e, e.SoftmaxCrossEntropy(logits, targets), r)
}

// SigmoidCrossEntropy is binary cross-entropy from logits (PyTorch's
// binary_cross_entropy_with_logits): for each element, with z the target
// probability of the positive class, max(x, 0) - x·z + log1p(exp(-|x|)),
// targets broadcasting against logits; the per-element losses are
// reduced by r.
func SigmoidCrossEntropy(e *tensor.Engine, logits, targets *tensor.Tensor, r Reduction) *tensor.Tensor {
	return reduce(e, e.SigmoidCrossEntropy(logits, targets), r)
}

// MeanSquaredError is (predictions - targets)², elementwise with
// broadcasting, reduced by r (with Mean, PyTorch's mse_loss).
func MeanSquaredError(e *tensor.Engine, predictions, targets *tensor.Tensor, r Reduction) *tensor.Tensor {
	d := e.Sub(predictions, targets)
	defer d.Dispose()
	return reduce(e, e.Square(d), r)
}
