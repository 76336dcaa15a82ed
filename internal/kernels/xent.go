package kernels

import (
	"fmt"

	"github.com/wgtensor/wgtensor/wgpu"
)

// SoftmaxXent computes softmax cross-entropy from logits, one thread per
// row of Length classes: with m the row's maximum and s = Σ exp(x - m),
//
//	labels (Dense false): loss = (m - x[label]) + log(s)
//	probabilities (Dense): loss = Σ t·(m - x) + (Σ t)·log(s)
//
// so that no exp overflows and no large logit is subtracted from another
// after rounding: logits of ±1e4 give losses exact to float32's
// resolution of the loss, not of the logits. A label out of [0, Length) gives
// NaN. Rows are at most MaxXentClasses long. Each pass over a row
// takes RowUnroll classes per trip, in order, so that a thread's passes
// together stay within the trips gallivm allows an invocation (Trips; see
// LoopTrips).
//
// Bindings: logits, targets (i32 labels or f32 probabilities), the loss
// per row. Its source is xent.wgsl; its parameters are RowParams (Length,
// the classes).
//
// With Grad it computes the gradient with respect to the logits instead,
// in one pass over the row after the two above, with g the row's
// gradient of the loss (a third input, before the result):
//
//	labels:        dx_j = g · (softmax(x)_j - [j = label])
//	probabilities: dx_j = g · (softmax(x)_j · Σt - t_j)
//
// softmax(x)_j being exp(x_j - m) / s as Softmax computes it; a label out
// of range matches no class. The result has the logits' shape.
//
// With Grad and Mean, g is the same for every row: the gradient of the
// rows' mean, dy[0]·RowParams.Scale (Scale 1/rows), rounded to float32
// before it scales the row, as Mean's gradient rounds it.
//
// With Weighted a float32 weight per row, w (an input after the targets),
// scales each row: the result is loss·w[row], one rounded product of the
// loss as the unweighted kernel stores it and the weight (a label out of
// range still gives NaN); with Grad, g is dy[0]·w[row], the gradient of
// Σ w·loss over the rows given dy, that sum's scalar gradient. Mean does
// not apply then (nor without Grad).
type SoftmaxXent struct{ Dense, Grad, Mean, Weighted bool }

// MaxXentClasses is the longest row SoftmaxXent takes.
const MaxXentClasses = MaxLoopTrips

// Key identifies s's pipeline.
func (s SoftmaxXent) Key() string { return s.name() + "/" + fmt.Sprint(s.Dense) }

// name is the kernel's name: softmax_xent, then _grad, then _weighted or
// _mean.
func (s SoftmaxXent) name() string {
	n := "softmax_xent"
	if s.Grad {
		n += "_grad"
	}
	switch {
	case s.Weighted:
		n += "_weighted"
	case s.Grad && s.Mean:
		n += "_mean"
	}
	return n
}

// Spec generates s's kernel.
func (s SoftmaxXent) Spec() wgpu.KernelSpec {
	p := &RowParams{}
	access := []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly} // logits, targets
	if s.Weighted {
		access = append(access, wgpu.ReadOnly)
	}
	if s.Grad {
		access = append(access, wgpu.ReadOnly)
	}
	access = append(access, wgpu.ReadWrite)
	n := len(access)
	src := fill("xent.wgsl", map[string]any{"Params": declareParams(p), "WorkgroupSize": WorkgroupSize, "Dense": s.Dense, "Grad": s.Grad,
		"Mean": s.Grad && s.Mean && !s.Weighted, "Weighted": s.Weighted, "Unroll": RowUnroll,
		"Bindings": []int{n - 2, n - 1, n}}) // dy's (with Grad), the result's, the parameters'
	return wgpu.KernelSpec{Name: s.name(), Key: s.Key(), Source: src, Bindings: access, Params: true, ParamsSize: paramsSizeOf(p)}
}

// RowWork is the work of one row of length classes: two or three passes
// (four with Grad).
func (s SoftmaxXent) RowWork(length int) float64 {
	if s.Grad {
		return 8 + 20*float64(length)
	}
	return 8 + 12*float64(length)
}

// Trips is the loop trips a thread of s spends on a row of length
// classes: two passes, and one more for probabilities (Dense), or with
// Grad one more for labels and two for probabilities.
func (s SoftmaxXent) Trips(length int) int {
	passes := 2
	if s.Dense {
		passes++
	}
	if s.Grad {
		passes++
	}
	return passes * LoopTrips(length, RowUnroll)
}
