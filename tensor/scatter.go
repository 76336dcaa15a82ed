package tensor

import (
	"slices"

	"github.com/wgtensor/wgtensor/internal/kernels"
)

// ScatterAdd returns a copy of x to which the slices of updates are added
// along axis at the positions the int32 indices name (PyTorch's
// index_add): for each position j of indices,
//
//	out[..., indices[j], ...] += updates[..., j, ...]
//
// updates has the shape Gather(x, indices, axis) has: x's with dimension
// axis replaced by indices' shape, and x's dtype (float32, int32 or
// uint32). ScatterAdd is the adjoint of Gather: the gradient of a Gather
// is a ScatterAdd into zeros. Each update is added to the running value of
// its position, in the order the indices appear (as PyTorch's index_add
// on the CPU: ScatterAdd([1e8, 5], [0 0 0 1], [1 -1e8 1 2]) is [1 7]), so
// the result is the same from run to run. As in
// Gather, negative indices count from the end and indices out of range
// add nothing (checking them would need a readback).
//
// Its cost is a pass over the indices per element of updates when there
// are fewer indices than positions along axis (up to
// kernels.ScatterChunk of them: an embedding's gradient), else per
// element of x: suited to gradients of lookups, not to scattering
// millions of indices into a large x.
func (e *Engine) ScatterAdd(x, indices, updates *Tensor, axis int) *Tensor {
	o, bad := e.begin("scatter_add", callerSite(), x, indices, updates)
	if bad != nil {
		return bad
	}
	defer o.end()
	if indices.dtype != Int32 {
		return o.fail(ErrDType, "indices are %s, not int32", indices.dtype)
	}
	if updates.dtype != x.dtype {
		return o.fail(ErrDType, "updates are %s, x %s", updates.dtype, x.dtype)
	}
	ax, ok := normAxis(axis, x.Rank())
	if !ok {
		return o.fail(ErrAxis, "axis %d", axis)
	}
	o.attrs.Axis = ax
	want := Shape(slices.Concat(x.shape[:ax], indices.shape, x.shape[ax+1:]))
	if !updates.shape.Equal(want) {
		return o.fail(ErrShape, "updates must be %v along axis %d", want, ax)
	}
	out, err := o.alloc(x.shape.clone(), x.dtype)
	if err != nil {
		return o.e.errTensor(err)
	}
	if err := o.scatterAdd(x, indices, updates, out, ax); err != nil {
		out.Dispose()
		return o.e.errTensor(err)
	}
	return out
}

// scatterAdd copies x into out, then adds updates to it one by one in
// index order: with a thread per update element when the indices are
// fewer than the positions along the axis and fit one dispatch
// (count·updates rather than count·x), else with a thread per element of
// out, ScatterChunk indices per dispatch, in order. Both add the same
// values in the same order.
func (o *op) scatterAdd(x, indices, updates, out *Tensor, ax int) error {
	if err := o.copyRegion(x, out, x.shape, 0, x.shape.strides(), 0, x.shape.strides()); err != nil {
		return err
	}
	n, count := x.Size(), indices.Size()
	if n == 0 || count == 0 {
		return nil
	}
	inner := Shape(x.shape[ax+1:]).Size()
	k := kernels.ScatterAdd{T: x.dtype.wgsl(), ByIndex: count <= kernels.ScatterChunk && count < x.shape[ax], Vec4: inner%4 == 0}
	params := func(begin, end int) *kernels.ScatterAddParams {
		return &kernels.ScatterAddParams{Inner: uint32(inner), Count: uint32(count), Axis: uint32(x.shape[ax]), Begin: uint32(begin), Stop: uint32(end)}
	}
	per := 1 // elements a thread owns
	if k.Vec4 {
		per = 4
	}
	if k.ByIndex {
		return o.run(k.Key(), k.Spec, updates.Size()/per, k.ThreadWork(count), params(0, count), indices.buf(), updates.buf(), out.buf())
	}
	for begin := 0; begin < count; begin += kernels.ScatterChunk {
		end := min(begin+kernels.ScatterChunk, count)
		if err := o.run(k.Key(), k.Spec, n/per, k.ThreadWork(end-begin), params(begin, end), indices.buf(), updates.buf(), out.buf()); err != nil {
			return err
		}
	}
	return nil
}
