package tensor

import (
	"context"
)

// Byte ranges: streaming a tensor to or from a file, a piece at a time,
// so that neither side holds a second copy of the whole tensor on the
// host (package checkpoint loads and saves weights so).

// WriteBytes writes data, the little-endian bytes of whole elements, into
// dst's storage from byte offset on, as a piece of a larger upload: a
// loader streams a tensor from a file into its storage chunk by chunk.
// Writes of 1 MiB or more go through the device's pooled staging buffers;
// the device copies data before WriteBytes returns, so the caller may
// reuse it at once.
//
// It is an in-place write with Assign's semantics: dst keeps its buffer,
// every tensor sharing the storage sees the new bytes, ops and readbacks
// called before see the old ones, and Version goes up by one per call
// that writes. offset and len(data) must be multiples of 4 (whole words:
// one element, or two of float16 and bfloat16) and the range must lie
// within dst's storage; writing no bytes does nothing.
//
// On failure it returns the error and writes nothing: an *OpError naming
// "write bytes" and dst's shape, wrapping ErrArgument for a bad range,
// ErrDisposed for a disposed dst, or the device's error. Like every op,
// WriteBytes belongs to the Engine's goroutine.
func (e *Engine) WriteBytes(dst *Tensor, offset int, data []byte) error {
	o, bad := e.begin("write bytes", callerSite(), dst)
	if bad != nil {
		return bad.err
	}
	defer o.end()
	if err := checkByteRange(o.name, dst, offset, len(data)); err != nil {
		return err
	}
	if offset%4 != 0 || len(data)%4 != 0 {
		return opErr(o.name, o.shapes(), ErrArgument, "%d bytes at %d: offset and length must be whole elements (multiples of 4)", len(data), offset)
	}
	if len(data) == 0 {
		return nil
	}
	if err := o.beforeWrite(dst); err != nil {
		return err
	}
	if err := e.dev.Write(dst.st.buf, uint64(offset), data); err != nil {
		return &OpError{Op: o.name, Shapes: o.shapes(), Err: err}
	}
	dst.st.version.Add(1)
	return nil
}

// ReadBytes reads len(dst) bytes of t's storage from byte offset on (the
// little-endian bytes Data returns, any offset and length within them)
// straight into dst, blocking until they arrive or ctx ends: a saver
// streams a large tensor to a file through one reused chunk of memory.
// Like every readback it is safe from any goroutine and sees every op
// called before it. If it fails, dst's contents are unspecified; the
// errors are an *OpError naming "read bytes" (ErrArgument for a range
// outside t), t's error, ErrDisposed, the device's, or ctx's.
func (t *Tensor) ReadBytes(ctx context.Context, offset int, dst []byte) error {
	switch {
	case !t.made():
		return notMade("read bytes")
	case t.err != nil:
		return t.err
	}
	if err := checkByteRange("read bytes", t, offset, len(dst)); err != nil {
		return err
	}
	if err := t.holdForRead(); err != nil {
		return err
	}
	p := t.eng.dev.ReadAsyncInto(t.st.buf, uint64(offset), dst)
	t.st.release() // the copy is recorded: the buffer may go
	_, err := p.Await(ctx)
	return err
}

// checkByteRange returns the error of op on n bytes of t from offset on
// if they do not lie within t's storage.
func checkByteRange(op string, t *Tensor, offset, n int) error {
	if offset < 0 || n < 0 || uint64(offset)+uint64(n) > t.bytes() {
		return opErr(op, []Shape{t.shape}, ErrArgument, "bytes [%d, %d) outside the tensor's %d", offset, offset+n, t.bytes())
	}
	return nil
}
