package tensor

import "github.com/wgtensor/wgtensor/internal/kernels"

// OneHot returns a float32 tensor of indices' shape with a new last axis
// of depth: on at the position each int32 index names, off elsewhere (tf's
// oneHot). An index outside [0, depth), negative included, gives a row of
// off, as in TensorFlow (checking would need a readback). It has no
// gradient: its input is integer.
func (e *Engine) OneHot(indices *Tensor, depth int, on, off float32) *Tensor {
	o, bad := e.begin("one_hot", callerSite(), indices)
	if bad != nil {
		return bad
	}
	defer o.end()
	if indices.dtype != Int32 {
		return o.fail(ErrDType, "indices are %s, not int32", indices.dtype)
	}
	if depth < 0 {
		return o.fail(ErrArgument, "depth %d is negative", depth)
	}
	out, err := o.alloc(append(indices.shape.clone(), depth), Float32)
	if err != nil {
		return o.e.errTensor(err)
	}
	if n := out.Size(); n > 0 {
		k := kernels.OneHot{}
		p := &kernels.OneHotParams{Depth: uint32(depth), On: on, Off: off}
		if err := o.run(k.Key(), k.Spec, n, k.ThreadWork(), p, indices.buf(), out.buf()); err != nil {
			out.Dispose()
			return o.e.errTensor(err)
		}
	}
	return out
}
