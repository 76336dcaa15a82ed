package tensor

import (
	"strings"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Fused forward ops of the losses (package loss reduces them; package grad
// differentiates them).

// SoftmaxCrossEntropy returns, for each row of logits along its last axis
// (the classes), the cross-entropy of softmax(row) against the row's
// target, in one kernel that never forms the softmax: the result has
// logits' shape without the last axis. targets are either int32 class
// labels of that shape, or float32 probabilities of logits' shape:
//
//	labels:        loss = logsumexp(x) - x[label]
//	probabilities: loss = Σ_j t_j · (logsumexp(x) - x_j)
//
// It subtracts each row's maximum first, so logits of any finite size
// (±1e4 and beyond) give finite, accurate losses. A label out of
// [0, classes) gives NaN (checking labels would need a readback). Rows
// hold at most kernels.MaxXentClasses (65,535) classes; each is summed by
// one thread in order, several classes a loop trip (so that its passes
// stay within the loop trips lavapipe and llvmpipe allow an invocation:
// see kernels.LoopTrips).
func (e *Engine) SoftmaxCrossEntropy(logits, targets *Tensor) *Tensor {
	o, bad := e.begin("softmax_cross_entropy", callerSite(), logits, targets)
	if bad != nil {
		return bad
	}
	defer o.end()
	rowShape, bad := o.checkXent(logits, targets)
	if bad != nil {
		return bad
	}
	return o.xent(kernels.SoftmaxXent{Dense: targets.dtype == Float32}, rowShape, 0, logits, targets)
}

// SoftmaxCrossEntropyMean returns the mean of SoftmaxCrossEntropy's
// losses over every row, a float32 scalar (NaN when there are no rows, as
// Mean of nothing), bit for bit Mean(SoftmaxCrossEntropy(logits,
// targets), false): it runs the same two kernels, the per-row losses and
// Mean's reduction, as one op, so that its gradient
// (SoftmaxCrossEntropyMeanGrad) is one kernel where the mean's own
// backward added a fill and a product (loss.SoftmaxCrossEntropy with
// Mean, and loss.CrossEntropy with probabilities and Mean, use it).
// logits and targets are as SoftmaxCrossEntropy takes them; bad arguments
// give a tensor carrying an *OpError naming softmax_cross_entropy_mean and
// the shapes, and the per-row losses never outlive the op. Like every op
// it belongs to the Engine's goroutine.
func (e *Engine) SoftmaxCrossEntropyMean(logits, targets *Tensor) *Tensor {
	o, bad := e.begin("softmax_cross_entropy_mean", callerSite(), logits, targets)
	if bad != nil {
		return bad
	}
	defer o.end()
	rowShape, bad := o.checkXent(logits, targets)
	if bad != nil {
		return bad
	}
	losses := o.xent(kernels.SoftmaxXent{Dense: targets.dtype == Float32}, rowShape, 0, logits, targets)
	if losses.err != nil {
		return losses
	}
	// Safe to dispose once the mean is recorded: the pool never hands its
	// storage to a later op before it (see reduce).
	defer losses.Dispose()
	return o.reduce(kernels.Mean, losses, false, nil)
}

// SoftmaxCrossEntropyMeanGrad returns the gradient of
// SoftmaxCrossEntropyMean with respect to logits, given dy, the gradient
// of the mean (a float32 scalar), in one kernel: with g = dy·(1/rows)
// rounded to float32,
//
//	labels:        dx = g · (softmax(x) - onehot(label))
//	probabilities: dx = g · (softmax(x)·Σt - t)
//
// bit for bit SoftmaxCrossEntropyGrad(logits, targets, g broadcast over
// the rows), which is what Mean's gradient followed by
// SoftmaxCrossEntropyGrad computes, in one dispatch instead of two. The
// result has logits' shape; targets are as SoftmaxCrossEntropy takes
// them. Bad arguments give a tensor carrying an *OpError naming
// softmax_cross_entropy_mean_grad and the shapes. Like every op it
// belongs to the Engine's goroutine.
func (e *Engine) SoftmaxCrossEntropyMeanGrad(logits, targets, dy *Tensor) *Tensor {
	o, bad := e.begin("softmax_cross_entropy_mean_grad", callerSite(), logits, targets, dy)
	if bad != nil {
		return bad
	}
	defer o.end()
	rowShape, bad := o.checkXent(logits, targets)
	if bad != nil {
		return bad
	}
	if dy.dtype != Float32 {
		return o.fail(ErrDType, "dy is %s, not float32", dy.dtype)
	}
	if dy.Rank() != 0 {
		return o.fail(ErrShape, "dy must be a scalar, the gradient of the mean")
	}
	// Mean's gradient scales dy by 1/n, rounded to float32 (grad's rule).
	scale := 1 / float32(max(rowShape.Size(), 1))
	k := kernels.SoftmaxXent{Dense: targets.dtype == Float32, Grad: true, Mean: true}
	return o.xent(k, logits.shape.clone(), scale, logits, targets, dy)
}

// SoftmaxCrossEntropyWeightedSum returns Σ_r w_r·loss_r over the rows of
// SoftmaxCrossEntropy(logits, targets), a float32 scalar, given weights
// w, float32 of the losses' shape: bit for bit Sum(Mul(
// SoftmaxCrossEntropy(logits, targets), weights), false) (each product
// rounded once, then Sum's reduction), in two dispatches where those ops
// take three, and with a gradient of one kernel where theirs took three
// (SoftmaxCrossEntropyWeightedSumGrad). loss.CrossEntropy computes its
// weighted, ignore-aware losses with it. A label out of range gives NaN
// whatever its weight. (Bit for bit on the device's own arithmetic: a
// device that flushes subnormal products flushes both forms alike, but
// WGT_FLOAT32's emulation of one, on a device that does not, applies to
// the elementwise ops and not to this kernel, so that a subnormal weight
// or product may differ there; so for SoftmaxCrossEntropyMeanGrad's
// dy·(1/rows).) Bad arguments give a tensor carrying an *OpError
// naming softmax_cross_entropy_weighted_sum and the shapes, and the
// per-row losses never outlive the op. Like every op it belongs to the
// Engine's goroutine.
func (e *Engine) SoftmaxCrossEntropyWeightedSum(logits, targets, weights *Tensor) *Tensor {
	o, bad := e.begin("softmax_cross_entropy_weighted_sum", callerSite(), logits, targets, weights)
	if bad != nil {
		return bad
	}
	defer o.end()
	rowShape, bad := o.checkXentWeights(logits, targets, weights)
	if bad != nil {
		return bad
	}
	losses := o.xent(kernels.SoftmaxXent{Dense: targets.dtype == Float32, Weighted: true}, rowShape, 0, logits, targets, weights)
	if losses.err != nil {
		return losses
	}
	// Safe to dispose once the sum is recorded (see SoftmaxCrossEntropyMean).
	defer losses.Dispose()
	return o.reduce(kernels.Sum, losses, false, nil)
}

// SoftmaxCrossEntropyWeightedSumGrad returns the gradient of
// SoftmaxCrossEntropyWeightedSum with respect to logits, given dy, the
// gradient of the sum (a float32 scalar), in one kernel: with g_r =
// dy·w_r rounded to float32, each row's gradient is
// SoftmaxCrossEntropyGrad's with dy_r = g_r, bit for bit what the
// gradients of Sum, Mul and SoftmaxCrossEntropy compute (a copy, a
// product and that kernel). The result has logits' shape. Bad arguments
// give a tensor carrying an *OpError naming
// softmax_cross_entropy_weighted_sum_grad and the shapes. Like every op
// it belongs to the Engine's goroutine.
func (e *Engine) SoftmaxCrossEntropyWeightedSumGrad(logits, targets, weights, dy *Tensor) *Tensor {
	o, bad := e.begin("softmax_cross_entropy_weighted_sum_grad", callerSite(), logits, targets, weights, dy)
	if bad != nil {
		return bad
	}
	defer o.end()
	if _, bad := o.checkXentWeights(logits, targets, weights); bad != nil {
		return bad
	}
	if dy.dtype != Float32 {
		return o.fail(ErrDType, "dy is %s, not float32", dy.dtype)
	}
	if dy.Rank() != 0 {
		return o.fail(ErrShape, "dy must be a scalar, the gradient of the sum")
	}
	k := kernels.SoftmaxXent{Dense: targets.dtype == Float32, Grad: true, Weighted: true}
	return o.xent(k, logits.shape.clone(), 0, logits, targets, weights, dy)
}

// checkXentWeights checks the logits, targets and row weights of a
// weighted softmax cross-entropy and returns the losses' shape.
func (o *op) checkXentWeights(logits, targets, weights *Tensor) (Shape, *Tensor) {
	rowShape, bad := o.checkXent(logits, targets)
	if bad != nil {
		return nil, bad
	}
	if weights.dtype != Float32 {
		return nil, o.fail(ErrDType, "weights are %s, not float32", weights.dtype)
	}
	if !weights.shape.Equal(rowShape) {
		return nil, o.fail(ErrShape, "weights must be %v, one per row", rowShape)
	}
	return rowShape, nil
}

// SoftmaxCrossEntropyGrad returns the gradient of SoftmaxCrossEntropy's
// losses with respect to logits, given dy, the gradient of each row's
// loss (float32, of the losses' shape), in one kernel:
//
//	labels:        dx = dy · (softmax(x) - onehot(label))
//	probabilities: dx = dy · (softmax(x)·Σt - t)
//
// along the last axis, with softmax(x) as Softmax computes it; the result
// has logits' shape. A label out of range gets the gradient of an
// all-zero target row. targets are as SoftmaxCrossEntropy takes them.
func (e *Engine) SoftmaxCrossEntropyGrad(logits, targets, dy *Tensor) *Tensor {
	o, bad := e.begin("softmax_cross_entropy_grad", callerSite(), logits, targets, dy)
	if bad != nil {
		return bad
	}
	defer o.end()
	rowShape, bad := o.checkXent(logits, targets)
	if bad != nil {
		return bad
	}
	if dy.dtype != Float32 {
		return o.fail(ErrDType, "dy is %s, not float32", dy.dtype)
	}
	if !dy.shape.Equal(rowShape) {
		return o.fail(ErrShape, "dy must be %v", rowShape)
	}
	return o.xent(kernels.SoftmaxXent{Dense: targets.dtype == Float32, Grad: true}, logits.shape.clone(), 0, logits, targets, dy)
}

// checkXent checks the logits and targets of a softmax cross-entropy and
// returns the shape of its losses.
func (o *op) checkXent(logits, targets *Tensor) (Shape, *Tensor) {
	if logits.dtype != Float32 {
		return nil, o.fail(ErrDType, "logits are %s, not float32", logits.dtype)
	}
	if logits.Rank() == 0 {
		return nil, o.fail(ErrShape, "logits need a class axis")
	}
	rowShape := logits.shape[:logits.Rank()-1].clone()
	classes := logits.shape[logits.Rank()-1]
	switch {
	case targets.dtype == Int32 && !targets.shape.Equal(rowShape):
		return nil, o.fail(ErrShape, "int32 labels must be %v", rowShape)
	case targets.dtype == Float32 && !targets.shape.Equal(logits.shape):
		return nil, o.fail(ErrShape, "float32 probabilities must be %v", logits.shape)
	case targets.dtype != Int32 && targets.dtype != Float32:
		return nil, o.fail(ErrDType, "targets are %s: int32 labels or float32 probabilities", targets.dtype)
	case classes > kernels.MaxXentClasses || (kernels.SoftmaxXent{Dense: true, Grad: true}).Trips(classes) > kernels.MaxLoopTrips:
		return nil, o.fail(ErrShape, "%d classes; at most %d", classes, kernels.MaxXentClasses)
	case classes == 0 && rowShape.Size() > 0:
		return nil, o.fail(ErrShape, "rows of no classes")
	}
	return rowShape, nil
}

// xent runs kernel k, a thread per row of logits, on the inputs in (the
// logits first) into a new tensor of shape out; scale is the kernel's
// RowParams.Scale (the gradient of a mean's 1/rows).
func (o *op) xent(k kernels.SoftmaxXent, out Shape, scale float32, in ...*Tensor) *Tensor {
	res, err := o.alloc(out, Float32)
	if err != nil {
		return o.e.errTensor(err)
	}
	logits := in[0]
	classes := logits.shape[logits.Rank()-1]
	if rows := logits.shape[:logits.Rank()-1].Size(); rows > 0 && classes > 0 {
		bufs := make([]*wgpu.Buffer, 0, len(in)+1)
		for _, t := range in {
			bufs = append(bufs, t.buf())
		}
		if err := o.rows(k.Key(), k.Spec, false, rows, k.RowWork(classes), rowParams(classes, scale), append(bufs, res.buf())...); err != nil {
			res.Dispose()
			return o.e.errTensor(err)
		}
	}
	return res
}

// sigmoidXentExpr is max(x, 0) - x·z + log1p(exp(-|x|)) for logits a0 and
// targets a1. WGSL has no log1p, and compilers may fold the usual
// log(1+u)·u/((1+u)-1) (llvmpipe's GL does): below 1/16 log1p(u) is its
// series to u^7 (relative error under 1e-9), above it log(1+u), whose
// rounding of 1+u costs at most 2^-24/log1p(1/16), about 1e-6 relative.
var sigmoidXentExpr = strings.ReplaceAll("fmax_(a0, 0.0) - a0 * a1 + select(log_(1.0 + U), "+
	"U * (1.0 - U * (1.0 / 2.0 - U * (1.0 / 3.0 - U * (1.0 / 4.0 - U * (1.0 / 5.0 - U * (1.0 / 6.0 - U / 7.0)))))), U < 0.0625)",
	"U", "exp_(neg_(abs_(a0)))")

// SigmoidCrossEntropy returns the binary cross-entropy of sigmoid(logits)
// against targets (probabilities of the positive class), elementwise with
// broadcasting, in the stable form
//
//	max(x, 0) - x·z + log1p(exp(-|x|))
//
// which is finite for every finite logit. It is an elementwise op and
// fuses with its neighbours.
func (e *Engine) SigmoidCrossEntropy(logits, targets *Tensor) *Tensor {
	o, bad := e.beginLazy("sigmoid_cross_entropy", callerSite(), logits, targets)
	if bad != nil {
		return bad
	}
	defer o.end()
	if logits.dtype != Float32 || targets.dtype != Float32 {
		return o.fail(ErrDType, "%s logits and %s targets; both must be float32", logits.dtype, targets.dtype)
	}
	return o.mapOp("sigmoid_cross_entropy", sigmoidXentExpr, Float32, []*Tensor{logits, targets}, [4]float32{})
}
