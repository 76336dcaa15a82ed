package shaders

import (
	"fmt"

	"github.com/wgtensor/wgtensor/wgpu"
)

// SoftmaxXent computes softmax cross-entropy from logits, one thread per
// row of h2 classes: with m the row's maximum and s = Σ exp(x - m),
//
//	labels (Dense false): loss = (m - x[label]) + log(s)
//	probabilities (Dense): loss = Σ t·(m - x) + (Σ t)·log(s)
//
// so that no exp overflows and no large logit is subtracted from another
// after rounding: logits of ±1e4 give losses exact to float32's
// resolution of the loss, not of the logits. A label out of [0, h2) gives
// NaN. Rows are at most MaxXentClasses long, each loop within
// MaxLoopTrips.
//
// Bindings: logits, targets (i32 labels or f32 probabilities), the loss
// per row.
type SoftmaxXent struct{ Dense bool }

// MaxXentClasses is the longest row SoftmaxXent takes.
const MaxXentClasses = MaxLoopTrips

// Key identifies s's pipeline.
func (s SoftmaxXent) Key() string { return fmt.Sprintf("softmax_xent/%v", s.Dense) }

// Spec generates s's kernel.
func (s SoftmaxXent) Spec() wgpu.KernelSpec {
	targets, loss := "i32", `	let y = t[row];
	if (y < 0 || u32(y) >= len) { dst[row] = bitcast<f32>(0x7fc00000u); return; }
	dst[row] = (mx - src[base + u32(y)]) + log(total);`
	if s.Dense {
		targets, loss = "f32", `	var dot = 0.0;
	var mass = 0.0;
	for (var j = 0u; j < len; j++) { let q = t[base + j]; dot += q * (mx - src[base + j]); mass += q; }
	dst[row] = dot + mass * log(total);`
	}
	src := paramsStruct(0) + fmt.Sprintf(`@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read> t: array<%s>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;
@compute @workgroup_size(%d)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row + p.first.x;
	if (row >= p.n) { return; }
	let len = p.h2;
	let base = row * len;
	var mx = -3.4028234e38;
	for (var j = 0u; j < len; j++) { mx = max(mx, src[base + j]); }
	var total = 0.0;
	for (var j = 0u; j < len; j++) { total += exp(src[base + j] - mx); }
%s
}
`, targets, WorkgroupSize, loss)
	return wgpu.KernelSpec{Name: "softmax_xent", Key: s.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSize(0)}
}

// RowWork is the work of one row of length classes: two or three passes.
func (s SoftmaxXent) RowWork(length int) float64 { return 8 + 12*float64(length) }
