package tensor

import (
	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Cumsum returns the cumulative sums of x along axis (negative counts from
// the end), of x's shape and dtype (float32, int32 or uint32; integers
// wrap): element i is the sum of the elements 0..i along the axis, of
// 0..i-1 with exclusive (0 at i = 0), and of those from i (after i with
// exclusive) to the end with reverse, as tf.cumsum.
//
// Float32 sums are added in order along the axis within segments of
// kernels.ScanSegment elements, then the segments' sums are added (scanned
// the same way, so an axis of any length takes a few passes and no
// thread loops long): the rounding is that of a sequential sum per
// segment, the same from run to run.
func (e *Engine) Cumsum(x *Tensor, axis int, exclusive, reverse bool) *Tensor {
	o, bad := e.begin("cumsum", callerSite(), x)
	if bad != nil {
		return bad
	}
	defer o.end()
	ax, ok := normAxis(axis, x.Rank())
	if !ok {
		return o.fail(ErrAxis, "axis %d of a rank-%d tensor", axis, x.Rank())
	}
	o.attrs.Axis, o.attrs.Exclusive, o.attrs.Reverse = ax, exclusive, reverse
	out, err := o.alloc(x.shape.clone(), x.dtype)
	if err != nil {
		return o.e.errTensor(err)
	}
	if x.Size() > 0 {
		outer, inner := x.shape[:ax].Size(), x.shape[ax+1:].Size()
		s := scanOf{T: x.dtype.wgsl(), outer: outer, length: x.shape[ax], inner: inner}
		if err := o.scan(s, x.buf(), out.buf(), exclusive, reverse); err != nil {
			out.Dispose()
			return o.e.errTensor(err)
		}
	}
	return out
}

// scanOf is a scan's tensor viewed as [outer, length, inner] of type T.
type scanOf struct {
	T                    kernels.Type
	outer, length, inner int
}

// scan writes the cumulative sums of src into dst (see Cumsum): in one
// pass when the axis is one segment; else the segments' totals, their
// exclusive scan (recursively), and the segments' scans from those
// offsets.
func (o *op) scan(s scanOf, src, dst *wgpu.Buffer, exclusive, reverse bool) error {
	segs := ceilDiv(s.length, kernels.ScanSegment)
	p := &kernels.ScanParams{Inner: uint32(s.inner), Length: uint32(s.length), Segment: kernels.ScanSegment, Segs: uint32(segs)}
	k := kernels.Scan{T: s.T, Exclusive: exclusive, Reverse: reverse}
	threads := s.outer * segs * s.inner
	each := k.ThreadWork(min(s.length, kernels.ScanSegment))
	if segs == 1 {
		return o.run(k.Key(), k.Spec, threads, each, p, src, dst)
	}
	dt := dtypeOf(s.T)
	totals, err := o.alloc(Shape{s.outer, segs, s.inner}, dt)
	if err != nil {
		return err
	}
	// Safe to dispose once the passes that read it are recorded (see reduce).
	defer totals.Dispose()
	offsets, err := o.alloc(Shape{s.outer, segs, s.inner}, dt)
	if err != nil {
		return err
	}
	defer offsets.Dispose()
	sum := kernels.Scan{T: s.T, Totals: true}
	if err := o.run(sum.Key(), sum.Spec, threads, each, p, src, totals.buf()); err != nil {
		return err
	}
	if err := o.scan(scanOf{T: s.T, outer: s.outer, length: segs, inner: s.inner}, totals.buf(), offsets.buf(), true, reverse); err != nil {
		return err
	}
	k.Offset = true
	return o.run(k.Key(), k.Spec, threads, each, p, src, dst, offsets.buf())
}
