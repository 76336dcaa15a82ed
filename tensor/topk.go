package tensor

import "github.com/wgtensor/wgtensor/internal/kernels"

// TopK returns the k largest elements of each row of x along its last
// axis, sorted in descending order, and their int32 positions in the row
// (tf.topk, torch.topk): values and indices have x's shape with the last
// dimension k. Equal elements, -0 and +0 included, come in the order of
// their positions; a NaN counts as larger than everything, +Inf included,
// as in TensorFlow and PyTorch, and NaNs among themselves come in the order
// of their positions. k may be 0 (empty results) up to the row's length.
// x is float32, int32 or uint32, of rank 1 or more.
//
// Each element is ranked by comparing it with its whole row (in chunks of
// kernels.TopKChunk columns per dispatch): the cost grows as the square of
// the row's length, suited to rows of up to some thousands. On an error
// both results carry it.
func (e *Engine) TopK(x *Tensor, k int) (values, indices *Tensor) {
	o, bad := e.begin("top_k", callerSite(), x)
	if bad != nil {
		return bad, e.errTensor(bad.err)
	}
	defer o.end()
	fail := func(kind error, format string, args ...any) (*Tensor, *Tensor) {
		t := o.fail(kind, format, args...)
		return t, o.e.errTensor(t.err)
	}
	if x.Rank() == 0 {
		return fail(ErrShape, "a scalar has no last axis")
	}
	n := x.shape[x.Rank()-1]
	if k < 0 || k > n {
		return fail(ErrArgument, "k %d is outside [0, %d]", k, n)
	}
	o.attrs.K = k
	shape := append(x.shape[:x.Rank()-1].clone(), k)
	values, err := o.alloc(shape, x.dtype)
	if err != nil {
		return o.e.errTensor(err), o.e.errTensor(err)
	}
	indices, err = o.alloc(shape.clone(), Int32)
	if err == nil && values.Size() > 0 {
		err = o.topK(x, k, values, indices)
	}
	if err != nil {
		values.Dispose()
		indices.Dispose()
		return o.e.errTensor(err), o.e.errTensor(err)
	}
	return values, indices
}

// topK ranks every element of x in its row, TopKChunk columns per
// dispatch, then writes those ranked below k.
func (o *op) topK(x *Tensor, k int, values, indices *Tensor) error {
	n := x.shape[x.Rank()-1]
	rank, err := o.alloc(x.shape.clone(), Uint32)
	if err != nil {
		return err
	}
	// Safe to dispose once the write is recorded (see reduce).
	defer rank.Dispose()
	count := kernels.TopK{T: x.dtype.wgsl()}
	for begin := 0; begin < n; begin += kernels.TopKChunk {
		stop := min(begin+kernels.TopKChunk, n)
		p := &kernels.TopKParams{Length: uint32(n), Begin: uint32(begin), Stop: uint32(stop), K: uint32(k)}
		if err := o.run(count.Key(), count.Spec, x.Size(), count.ThreadWork(stop-begin), p, x.buf(), rank.buf()); err != nil {
			return err
		}
	}
	write := kernels.TopK{T: x.dtype.wgsl(), Write: true}
	p := &kernels.TopKParams{Length: uint32(n), K: uint32(k)}
	return o.run(write.Key(), write.Spec, x.Size(), write.ThreadWork(0), p, x.buf(), rank.buf(), values.buf(), indices.buf())
}
