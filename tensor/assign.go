package tensor

import (
	"slices"
	"sync"
)

// In-place writes. Tensors are immutable to every op but three: Assign, a
// custom kernel's Launch.InOut and WriteBytes (bytes.go) write into the
// storage of an existing tensor, so that a parameter keeps its buffer for
// its whole life.
//
// Storage shared by views (Reshape, Clone, ExpandDims, Squeeze) is written
// through: every tensor sharing it sees the new values, as PyTorch's views
// do. Each storage counts its in-place writes (Tensor.Version), so that a
// reader that kept a tensor (a tape's saved tensor) can tell it was
// overwritten since.
//
// Ordering follows the order of the calls, as if every op ran at once:
// an op or a readback called before the write sees the old values, one
// called after sees the new ones. Elementwise ops held back for fusion
// that read or write the target are dispatched before the write.

// Assign writes src's values into dst's storage, as tfjs's
// variable.assign and PyTorch's copy_ do: dst keeps its buffer, its id
// and its site, and every tensor sharing that storage (a Reshape or Clone
// of dst, or the tensor dst is a view of) sees the new values. dst and src
// must have the same shape and dtype (no broadcasting: BroadcastTo src
// first). A successful Assign adds one to dst's Version; assigning a
// tensor into one that shares its storage (dst itself, or a view of it of
// the same shape) writes nothing and leaves the version as it was.
//
// An op or a readback of dst called before Assign sees the old values,
// one called after sees src's: Assign is recorded, not run, in order with
// every other op of the device.
//
// On failure it returns the error and writes nothing: an *OpError naming
// "assign" and both shapes for a shape or dtype mismatch, ErrDisposed for a
// disposed dst or src, the error dst or src carries, ErrArgument for a nil
// tensor. Like every op, Assign belongs to the Engine's goroutine.
func (e *Engine) Assign(dst, src *Tensor) error {
	o, bad := e.begin("assign", callerSite(), dst, src)
	if bad != nil {
		return bad.err
	}
	defer o.end()
	switch {
	case dst.dtype != src.dtype:
		return opErr(o.name, o.shapes(), ErrDType, "dst is %s, src is %s", dst.dtype, src.dtype)
	case !dst.shape.Equal(src.shape):
		return opErr(o.name, o.shapes(), ErrShape, "dst is %v, src is %v: shapes must be equal", dst.shape, src.shape)
	case dst.st == src.st:
		return nil
	}
	if err := o.beforeWrite(dst); err != nil {
		return err
	}
	n := dst.Size()
	if err := o.copyRegion(src, dst, []int{n}, 0, []int{1}, 0, []int{1}); err != nil {
		return err
	}
	dst.st.version.Add(1)
	return nil
}

// Version is the number of in-place writes (Assign, a kernel's
// Launch.InOut, WriteBytes) to t's storage since it was allocated; tensors that share
// storage (views) share the count. A reader that kept t can compare
// versions to tell whether t's values changed since, as PyTorch's
// autograd does. It is 0 for a nil tensor or one carrying an error, and
// stays readable after Dispose. Safe for concurrent use.
func (t *Tensor) Version() uint64 {
	if t == nil || t.st == nil {
		return 0
	}
	return t.st.version.Load()
}

// beforeWrite prepares an in-place write to t's storage (an input of o,
// held and materialized by begin): the fused ops still pending that read
// it are dispatched, so that they see the values it holds now.
func (o *op) beforeWrite(t *Tensor) error {
	t.st.dispatchReaders()
	return t.st.err()
}

// readerSet is the fusion groups not yet dispatched that read a storage,
// once per leaf (a group may read one storage with two broadcasts).
type readerSet struct {
	mu sync.Mutex // protects groups; taken after fuseMu, never before
	gs []*group
}

func (r *readerSet) add(g *group) {
	r.mu.Lock()
	r.gs = append(r.gs, g)
	r.mu.Unlock()
}

func (r *readerSet) remove(g *group) {
	r.mu.Lock()
	if i := slices.Index(r.gs, g); i >= 0 {
		r.gs = slices.Delete(r.gs, i, i+1)
	}
	r.mu.Unlock()
}

// dispatchReaders dispatches every pending fusion group, of any engine,
// that reads s.
func (s *storage) dispatchReaders() {
	s.readers.mu.Lock()
	gs := slices.Clone(s.readers.gs)
	s.readers.mu.Unlock()
	for _, g := range gs {
		e := g.e
		e.fuseMu.Lock()
		if e.group == g {
			_ = e.flushGroupLocked() // a failure is recorded on its results
		}
		e.fuseMu.Unlock()
	}
}
