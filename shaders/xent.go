package shaders

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
type SoftmaxXent struct{ Dense, Grad bool }

// MaxXentClasses is the longest row SoftmaxXent takes.
const MaxXentClasses = MaxLoopTrips

// Key identifies s's pipeline.
func (s SoftmaxXent) Key() string {
	if s.Grad {
		return fmt.Sprintf("softmax_xent_grad/%v", s.Dense)
	}
	return fmt.Sprintf("softmax_xent/%v", s.Dense)
}

// Spec generates s's kernel.
func (s SoftmaxXent) Spec() wgpu.KernelSpec {
	p := &RowParams{}
	src := fill("xent.wgsl", map[string]any{"Params": declareParams(p), "WorkgroupSize": WorkgroupSize, "Dense": s.Dense, "Grad": s.Grad, "Unroll": RowUnroll})
	name, access := "softmax_xent", []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}
	if s.Grad {
		name, access = "softmax_xent_grad", []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}
	}
	return wgpu.KernelSpec{Name: name, Key: s.Key(), Source: src, Bindings: access, Params: true, ParamsSize: paramsSizeOf(p)}
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
