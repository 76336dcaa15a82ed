package tensor

import (
	"math"

	"github.com/wgtensor/wgtensor/shaders"
	"github.com/wgtensor/wgtensor/wgpu"
)

// LayerNorm normalises x over its last axis and scales and shifts the
// result (tf.layers.layerNormalization, torch's layer_norm over the last
// dimension): for each row,
//
//	y = (x − mean) / sqrt(var + eps) · gamma + beta
//
// with var the biased variance (the mean of the squared deviations).
// x is float32 of rank 1 or more; gamma and beta are float32 of shape
// [n], n the last dimension, at most shaders.MaxLoopTrips; eps is finite
// and not negative. It runs as one kernel, a thread per row, where the
// same formula composed of Mean, Sub, Square, Rsqrt, Mul and Add takes
// four dispatches and reads x three times (BenchmarkLayerNorm, lavapipe:
// 1.4 to 3.7 times as fast over 64x256 to 4096x128). A row holding a NaN
// or an infinity normalises to NaN. Package grad differentiates it with
// respect to x, gamma and beta.
func (e *Engine) LayerNorm(x, gamma, beta *Tensor, eps float32) *Tensor {
	o, bad := e.begin("layer_norm", callerSite(), x, gamma, beta)
	if bad != nil {
		return bad
	}
	defer o.end()
	o.attrs.Eps = eps
	for i, t := range []*Tensor{x, gamma, beta} {
		if t.dtype != Float32 {
			return o.fail(ErrDType, "input %d is %s, not float32", i, t.dtype)
		}
	}
	if x.Rank() == 0 {
		return o.fail(ErrShape, "a scalar has no last axis")
	}
	n := x.shape[x.Rank()-1]
	if !gamma.shape.Equal(Shape{n}) || !beta.shape.Equal(Shape{n}) {
		return o.fail(ErrShape, "gamma and beta must be [%d], x's last dimension", n)
	}
	// The kernel's three passes take several elements a loop trip, so
	// that a row of shaders.MaxLoopTrips stays within the trips of an
	// invocation (shaders.LoopTrips).
	if n > shaders.MaxLoopTrips || (shaders.LayerNorm{}).Trips(n) > shaders.MaxLoopTrips {
		return o.fail(ErrShape, "rows of %d elements; at most %d", n, shaders.MaxLoopTrips)
	}
	if !(eps >= 0) || math.IsInf(float64(eps), 1) {
		return o.fail(ErrArgument, "eps %v is not finite and non-negative", eps)
	}
	out, err := o.alloc(x.shape.clone(), Float32)
	if err != nil {
		return o.e.errTensor(err)
	}
	if rows := x.Size() / max(n, 1); n > 0 && rows > 0 {
		k := shaders.LayerNorm{}
		p := &shaders.LayerNormParams{Length: uint32(n), Eps: eps}
		bufs := []*wgpu.Buffer{x.buf(), gamma.buf(), beta.buf(), out.buf()}
		if err := o.spread(k.Key(), k.Spec, shaders.LayerNormWorkgroup, rows, k.RowWork(n), p, bufs); err != nil {
			out.Dispose()
			return o.e.errTensor(err)
		}
	}
	return out
}
