package loss

import (
	"fmt"
	"math"
	"reflect"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// DefaultIgnoreIndex is the target class CrossEntropy ignores when
// CrossEntropyOptions.IgnoreIndex is nil: PyTorch's default, -100.
const DefaultIgnoreIndex = -100

// CrossEntropyOptions are the options of CrossEntropy, those of PyTorch's
// torch.nn.functional.cross_entropy. The zero value is PyTorch's
// defaults: mean reduction, no class weights, ignore_index -100, no label
// smoothing. An options value is read, never kept or written: share it
// freely.
type CrossEntropyOptions struct {
	// Reduction reduces the per-row losses (see CrossEntropy). nil or
	// Mean is PyTorch's "mean": with int32 labels, the sum of the losses
	// over the sum of the weights of the rows not ignored (their count,
	// without Weight); with probabilities, over the number of rows. Sum
	// and None (the losses per row, an ignored row's 0) and any other
	// Reduction get the per-row losses.
	Reduction Reduction
	// Weight, if not nil, is a float32 [classes] tensor rescaling each
	// class's term (PyTorch's weight): a row labelled c counts w[c] times,
	// in its loss and in the mean's denominator. It is the caller's: not
	// disposed, and differentiable like any input.
	Weight *tensor.Tensor
	// IgnoreIndex is the label whose rows count for nothing: their loss
	// is 0 and they leave the mean's denominator (PyTorch's
	// ignore_index). nil means DefaultIgnoreIndex, -100; a class in
	// [0, classes) may be ignored too. Probability targets have no labels
	// and ignore it, as PyTorch does.
	IgnoreIndex *int
	// LabelSmoothing, in [0, 1], mixes each target with the uniform
	// distribution over the classes (PyTorch's label_smoothing): the
	// target becomes (1 − ε)·target + ε/classes, each class's term still
	// scaled by its weight.
	LabelSmoothing float32
}

// Ignore returns a pointer to index, for CrossEntropyOptions.IgnoreIndex:
// loss.CrossEntropyOptions{IgnoreIndex: loss.Ignore(0)}. Each call
// returns a new pointer; safe for concurrent use.
func Ignore(index int) *int { return &index }

// CrossEntropy is torch.nn.functional.cross_entropy over the last axis of
// logits (the classes; PyTorch's class axis is 1, ours is last, as in
// NHWC layouts): the cross-entropy of softmax(row) against each row's
// target, with PyTorch's options (CrossEntropyOptions). targets are
// int32 class labels of logits' shape without the last axis, or float32
// probabilities of logits' shape. With labels, a row labelled y has
//
//	loss = w[y]·((1 − ε)·(lse(x) − x[y]) + ε/C·Σ_c (w[c]/w[y])·(lse(x) − x[c]))
//
// with lse the log-sum-exp of the row, C the classes, w the class weights
// (all 1 without Weight) and ε the label smoothing: PyTorch's value, term
// for term; a row labelled IgnoreIndex has loss 0, and a label out of
// [0, C) that is not IgnoreIndex gives NaN (checking labels would need a
// readback). With probabilities t, loss = Σ_c w[c]·t'[c]·(lse(x) − x[c]),
// t' = (1 − ε)·t + ε/C.
//
// It is the fused kernel of tensor.Engine.SoftmaxCrossEntropy (stable for
// logits of any finite size, never forming the softmax) on the labels,
// or, with label smoothing, on the dense targets the options make, and
// elementwise ops: a tape differentiates it through their rules, with
// respect to the logits, the probabilities and the weights. With labels,
// Mean or Sum and no label smoothing, the weighted losses and their sum
// are one op (tensor.Engine.SoftmaxCrossEntropyWeightedSum, bit for bit
// the sum of the products), whose gradient is one kernel: a step of the
// default options is six dispatches forward and backward (twelve
// composed); with probabilities and Mean the losses' mean is
// tensor.Engine.SoftmaxCrossEntropyMean. Bad
// arguments (a weight that is not float32 [C], a smoothing outside
// [0, 1], labels of the wrong shape or dtype) give a tensor carrying an
// error naming CrossEntropy and the shapes; nothing is left live. Like
// every loss it is safe for concurrent use on different Engines and
// follows its Engine's contract (one goroutine at a time) on one; it
// reads the options' tensors and leaves them the caller's.
func CrossEntropy(e *tensor.Engine, logits, targets *tensor.Tensor, o CrossEntropyOptions) *tensor.Tensor {
	if err := checkCrossEntropy(logits, targets, o); err != nil {
		return e.Failed(err)
	}
	classes := logits.Shape()[logits.Rank()-1]
	if targets.DType() == tensor.Float32 {
		return scoped(e, func() *tensor.Tensor {
			t := denseTargets(e, targets, o, classes)
			if isMean(o.Reduction) { // over the rows: the fused mean (see SoftmaxCrossEntropy)
				return e.SoftmaxCrossEntropyMean(logits, t)
			}
			return apply(e, e.SoftmaxCrossEntropy(logits, t), o.Reduction)
		})
	}
	ignore := DefaultIgnoreIndex
	if o.IgnoreIndex != nil {
		ignore = *o.IgnoreIndex
	}
	return scoped(e, func() *tensor.Tensor {
		kept, safe, scale := labelWeights(e, targets, o, int32(ignore))
		if o.LabelSmoothing == 0 && (isMean(o.Reduction) || isSum(o.Reduction)) {
			// Σ w[y]·loss in one op (the per-row products and their sum,
			// bit for bit Sum(Mul(losses, scale))), whose gradient is one
			// kernel; the labels kernel gives NaN for a label out of range.
			total := e.SoftmaxCrossEntropyWeightedSum(logits, safe, scale)
			if isSum(o.Reduction) {
				return total
			}
			return e.Div(total, e.Sum(scale, false))
		}
		per := labelLosses(e, logits, o, classes, kept, safe, scale)
		if !isMean(o.Reduction) {
			return apply(e, per, o.Reduction)
		}
		return e.Div(e.Sum(per, false), e.Sum(scale, false))
	})
}

// labelWeights returns, for int32 labels, which rows are kept (not
// ignored), the labels with ignored rows reading class 0 (they count for
// nothing), and each row's share of the mean's denominator (w[y], 0 where
// ignored).
func labelWeights(e *tensor.Engine, labels *tensor.Tensor, o CrossEntropyOptions, ignore int32) (kept, safe, scale *tensor.Tensor) {
	// The scalars are uploads, not fill kernels: no dispatch of their own.
	kept = e.NotEqual(labels, int32Scalar(e, ignore))
	safe = e.Where(kept, labels, int32Scalar(e, 0))
	scale = e.Cast(kept, tensor.Float32)
	if o.Weight != nil {
		// A label out of range gathers a weight of 0; its loss is NaN
		// (the kernels'), which 0 keeps.
		scale = e.Mul(scale, e.Gather(o.Weight, safe, 0))
	}
	return kept, safe, scale
}

// labelLosses returns CrossEntropy's loss per row for int32 labels, given
// labelWeights' results.
func labelLosses(e *tensor.Engine, logits *tensor.Tensor, o CrossEntropyOptions, classes int, kept, safe, scale *tensor.Tensor) *tensor.Tensor {
	if o.LabelSmoothing == 0 {
		// The labels kernel gives NaN for a label out of range.
		return e.Mul(e.SoftmaxCrossEntropy(logits, safe), scale)
	}
	eps := o.LabelSmoothing
	// q = (1 − ε)·w[y]·onehot(y) + ε/C·w, zero on ignored rows: the dense
	// kernel's Σ q·(lse − x) is the row's loss.
	hot := e.Mul(e.OneHot(safe, classes, 1, 0), e.ExpandDims(e.Mul(scale, e.Scalar(1-eps)), -1))
	var uniform *tensor.Tensor = e.Scalar(eps / float32(classes))
	if o.Weight != nil {
		uniform = e.Mul(uniform, o.Weight)
	}
	q := e.Add(hot, e.Mul(e.ExpandDims(e.Cast(kept, tensor.Float32), -1), uniform))
	per := e.SoftmaxCrossEntropy(logits, q)
	// OneHot gives a label out of range a row of zeros: NaN, as the
	// labels kernel gives.
	bad := e.Mul(kept, e.Maximum(e.Less(safe, int32Scalar(e, 0)), e.GreaterEqual(safe, int32Scalar(e, int32(classes)))))
	return e.Where(bad, e.Scalar(float32(math.NaN())), per)
}

// int32Scalar uploads v as an int32 scalar.
func int32Scalar(e *tensor.Engine, v int32) *tensor.Tensor {
	return e.FromInt32s([]int32{v}, []int{}...)
}

// denseTargets is the probabilities CrossEntropy's dense kernel takes for
// targets t: (1 − ε)·t + ε/C, times the class weights.
func denseTargets(e *tensor.Engine, t *tensor.Tensor, o CrossEntropyOptions, classes int) *tensor.Tensor {
	if eps := o.LabelSmoothing; eps != 0 {
		t = e.Add(e.Mul(t, e.Scalar(1-eps)), e.Scalar(eps/float32(classes)))
	}
	if o.Weight != nil {
		t = e.Mul(t, o.Weight)
	}
	return t
}

// checkCrossEntropy checks what CrossEntropy's ops would not: the
// options, and the labels' shape up front (so that the error names
// CrossEntropy).
func checkCrossEntropy(logits, targets *tensor.Tensor, o CrossEntropyOptions) error {
	for _, t := range []*tensor.Tensor{logits, targets, o.Weight} {
		if t != nil && t.Err() != nil {
			return t.Err()
		}
	}
	if logits == nil || targets == nil {
		return fmt.Errorf("loss: CrossEntropy: nil logits or targets: %w", tensor.ErrArgument)
	}
	shapes := fmt.Sprintf("logits %s %v, targets %s %v", logits.DType(), logits.Shape(), targets.DType(), targets.Shape())
	if logits.Rank() == 0 {
		return fmt.Errorf("loss: CrossEntropy: %s: logits need a class axis: %w", shapes, tensor.ErrShape)
	}
	classes := logits.Shape()[logits.Rank()-1]
	switch {
	case !(o.LabelSmoothing >= 0 && o.LabelSmoothing <= 1):
		return fmt.Errorf("loss: CrossEntropy: %s: label smoothing %g is outside [0, 1]: %w", shapes, o.LabelSmoothing, tensor.ErrArgument)
	case o.IgnoreIndex != nil && (*o.IgnoreIndex < math.MinInt32 || *o.IgnoreIndex > math.MaxInt32):
		return fmt.Errorf("loss: CrossEntropy: %s: ignore index %d is not an int32: %w", shapes, *o.IgnoreIndex, tensor.ErrArgument)
	case o.Weight != nil && o.Weight.DType() != tensor.Float32:
		return fmt.Errorf("loss: CrossEntropy: %s: weight is %s, not float32: %w", shapes, o.Weight.DType(), tensor.ErrDType)
	case o.Weight != nil && !o.Weight.Shape().Equal(tensor.Shape{classes}):
		return fmt.Errorf("loss: CrossEntropy: %s: weight %v is not [%d], one per class: %w", shapes, o.Weight.Shape(), classes, tensor.ErrShape)
	case targets.DType() == tensor.Int32 && !targets.Shape().Equal(logits.Shape()[:logits.Rank()-1]):
		return fmt.Errorf("loss: CrossEntropy: %s: int32 labels must be %v: %w", shapes, logits.Shape()[:logits.Rank()-1], tensor.ErrShape)
	case targets.DType() == tensor.Float32 && !targets.Shape().Equal(logits.Shape()):
		return fmt.Errorf("loss: CrossEntropy: %s: float32 probabilities must be %v: %w", shapes, logits.Shape(), tensor.ErrShape)
	case targets.DType() != tensor.Int32 && targets.DType() != tensor.Float32:
		return fmt.Errorf("loss: CrossEntropy: %s: targets must be int32 labels or float32 probabilities: %w", shapes, tensor.ErrDType)
	}
	return nil
}

// BinaryCrossEntropyOptions are the options of
// BinaryCrossEntropyWithLogits, those of PyTorch's
// binary_cross_entropy_with_logits. The zero value is PyTorch's
// defaults: mean reduction, no weights. An options value is read, never
// kept or written: share it freely.
type BinaryCrossEntropyOptions struct {
	// Reduction reduces the per-element losses: nil or Mean averages them
	// over every element (PyTorch's "mean", weights or not), Sum adds
	// them, None keeps them.
	Reduction Reduction
	// Weight, if not nil, is a float32 tensor that rescales each
	// element's loss, broadcasting against it (PyTorch's weight).
	Weight *tensor.Tensor
	// PosWeight, if not nil, is a float32 tensor that weighs the positive
	// term of each element, broadcasting against the losses along their
	// last axes: [classes] for one weight per class (PyTorch's
	// pos_weight; above 1 it raises recall, below it precision).
	PosWeight *tensor.Tensor
}

// BinaryCrossEntropyWithLogits is PyTorch's
// binary_cross_entropy_with_logits: for each element, with x the logit,
// z the target probability of the positive class, p the positive weight
// (PosWeight, 1 without) and w the weight (Weight, 1 without),
//
//	loss = w·(p·z·softplus(−x) + (1 − z)·softplus(x))
//	     = w·(SigmoidCrossEntropy(x, z) + (p − 1)·z·softplus(−x))
//
// the second form computed, softplus(−x) = SigmoidCrossEntropy(x, 1), so
// that it is finite for every finite logit and fuses into one elementwise
// kernel. Targets and weights broadcast against the logits. Bad
// arguments give a tensor carrying an error naming the op and the shapes;
// a tape differentiates it with respect to the logits, the targets and
// both weights. Like every loss it is safe for concurrent use on
// different Engines and follows its Engine's contract on one; the
// weights stay the caller's.
func BinaryCrossEntropyWithLogits(e *tensor.Engine, logits, targets *tensor.Tensor, o BinaryCrossEntropyOptions) *tensor.Tensor {
	if err := checkBCE(logits, targets, o); err != nil {
		return e.Failed(err)
	}
	return scoped(e, func() *tensor.Tensor {
		per := e.SigmoidCrossEntropy(logits, targets)
		if o.PosWeight != nil {
			softplusNeg := e.SigmoidCrossEntropy(logits, e.Scalar(1))
			per = e.Add(per, e.Mul(e.Mul(e.Sub(o.PosWeight, e.Scalar(1)), targets), softplusNeg))
		}
		if o.Weight != nil {
			per = e.Mul(per, o.Weight)
		}
		return apply(e, per, o.Reduction)
	})
}

// checkBCE checks what BinaryCrossEntropyWithLogits's ops would not say
// in its name: nil tensors and the weights' dtypes (their shapes are
// checked by the ops, as broadcasting).
func checkBCE(logits, targets *tensor.Tensor, o BinaryCrossEntropyOptions) error {
	for _, t := range []*tensor.Tensor{logits, targets, o.Weight, o.PosWeight} {
		if t != nil && t.Err() != nil {
			return t.Err()
		}
	}
	if logits == nil || targets == nil {
		return fmt.Errorf("loss: BinaryCrossEntropyWithLogits: nil logits or targets: %w", tensor.ErrArgument)
	}
	for _, w := range []struct {
		name string
		t    *tensor.Tensor
	}{{"weight", o.Weight}, {"pos_weight", o.PosWeight}} {
		if w.t != nil && w.t.DType() != tensor.Float32 {
			return fmt.Errorf("loss: BinaryCrossEntropyWithLogits: logits %v, targets %v: %s is %s %v, not float32: %w",
				logits.Shape(), targets.Shape(), w.name, w.t.DType(), w.t.Shape(), tensor.ErrDType)
		}
	}
	return nil
}

// isMean reports whether r is Mean (nil is Mean).
func isMean(r Reduction) bool {
	return r == nil || reflect.ValueOf(r).Pointer() == reflect.ValueOf(Mean).Pointer()
}

// isSum reports whether r is Sum.
func isSum(r Reduction) bool {
	return r != nil && reflect.ValueOf(r).Pointer() == reflect.ValueOf(Sum).Pointer()
}

// apply reduces losses by r (Mean when nil), inside a scope that frees
// losses.
func apply(e *tensor.Engine, losses *tensor.Tensor, r Reduction) *tensor.Tensor {
	if r == nil {
		r = Mean
	}
	return r(e, losses)
}

// scoped runs f in a tidy scope of its own and returns its result: every
// other tensor f made is disposed, also when the result carries an error.
func scoped(e *tensor.Engine, f func() *tensor.Tensor) *tensor.Tensor {
	y, err := tidy.Run(e, func() (*tensor.Tensor, error) { return f(), nil })
	if err != nil { // the scope was refused: e is another goroutine's
		y.Dispose()
		return e.Failed(err)
	}
	return y
}
