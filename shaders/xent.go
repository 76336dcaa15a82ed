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
// NaN. Rows are at most MaxXentClasses long, each loop within
// MaxLoopTrips.
//
// Bindings: logits, targets (i32 labels or f32 probabilities), the loss
// per row. Its source is xent.wgsl; its parameters are RowParams (Length,
// the classes).
type SoftmaxXent struct{ Dense bool }

// MaxXentClasses is the longest row SoftmaxXent takes.
const MaxXentClasses = MaxLoopTrips

// Key identifies s's pipeline.
func (s SoftmaxXent) Key() string { return fmt.Sprintf("softmax_xent/%v", s.Dense) }

// Spec generates s's kernel.
func (s SoftmaxXent) Spec() wgpu.KernelSpec {
	p := &RowParams{}
	src := fill("xent.wgsl", map[string]any{"Params": declareParams(p), "WorkgroupSize": WorkgroupSize, "Dense": s.Dense})
	return wgpu.KernelSpec{Name: "softmax_xent", Key: s.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
}

// RowWork is the work of one row of length classes: two or three passes.
func (s SoftmaxXent) RowWork(length int) float64 { return 8 + 12*float64(length) }
