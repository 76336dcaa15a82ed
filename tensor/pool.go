package tensor

import (
	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Pool2DOptions is the geometry of a 2-D pooling over the height and width
// of an NHWC tensor: the window's height and width, its stride (a zero
// entry means the window's extent along that dimension, as in tf.layers),
// its padding (the zero value is valid), its dilation, the rounding of
// the output's size and what an average counts. The zero value of each
// option keeps the behaviour the library had before it was added.
//
// Padded positions are left out of a maximum. An average divides by the
// number of positions inside the input (TensorFlow's rule; PyTorch's
// count_include_pad=False), unless CountIncludePad. A geometry where some
// window would hold no input position at all, such as an explicit
// padding as large as the window, is an error.
type Pool2DOptions struct {
	Window, Stride [2]int
	Padding        Padding
	// Dilation spaces a max pooling's taps (PyTorch's MaxPool2d
	// dilation): the window reads rows y0 + ky·Dilation[0] for ky in
	// [0, Window[0]), and columns likewise. Zero entries mean 1 (a dense
	// window). An average takes no dilation, as PyTorch's AvgPool2d: an
	// entry above 1 is an error of AvgPool2D.
	Dilation [2]int
	// CeilMode rounds the output's height and width up instead of down
	// (PyTorch's ceil_mode): a last window that runs past the padded
	// input is kept as long as it starts inside the input or its leading
	// padding, PyTorch's rule; it pools the positions it holds. Default
	// false: only windows that fit in the padded input.
	CeilMode bool
	// CountIncludePad makes an average divide by the count of the
	// window's positions inside the padded input, padding included
	// (PyTorch's count_include_pad=True, PyTorch's default; padded
	// positions add zero to the sum; a window that runs past the
	// trailing padding with CeilMode counts only what lies inside).
	// Default false, unlike PyTorch: the divisor is the count of
	// positions inside the input (TensorFlow's rule, and this library's
	// before the option existed). Only AvgPool2D reads it.
	CountIncludePad bool
}

// MaxPool2D returns the maximum of each window of the float32 NHWC tensor
// x ([batch, height, width, channels]), of shape [batch, outH, outW,
// channels] (see Pool2DOptions and Window2D for the output's size). A
// window holding a NaN pools to NaN, as in PyTorch; among equal values
// (-0 and +0 included) the first in row-major window order is the one
// MaxPool2DGrad credits. A float16 or bfloat16 x pools in float32 and
// gives a result of its dtype (the maximum exactly, the average rounded),
// as AvgPool2D's does.
//
// A window may hold at most kernels.MaxLoopTrips (65,535) elements (a
// larger one is an error: reduce with Max over the axes instead); the
// kernels take several positions per loop trip, so that every window up
// to that size, and its gradient, stays within the loop trips lavapipe
// and llvmpipe allow (see kernels.LoopTrips). With a dilation the
// gradient of an element walks every window whose dilated extent
// (Window−1)·Dilation+1 covers it, ceil(extent/stride) each way: more
// than 65,535 of them is an error too. It is safe to call as any op: the
// engine is used by one goroutine at a time.
func (e *Engine) MaxPool2D(x *Tensor, o Pool2DOptions) *Tensor {
	return e.pool2D("max_pool2d", callerSite(), x, o, kernels.Pool2D{Max: true})
}

// AvgPool2D returns the average of each window of the float32 NHWC tensor
// x: the sum of its positions inside the input over their count, or with
// o.CountIncludePad over the count of its positions inside the padded
// input (see Pool2DOptions and MaxPool2D for the shapes and limits). A
// dilation above 1 is an error (PyTorch's AvgPool2d has none).
func (e *Engine) AvgPool2D(x *Tensor, o Pool2DOptions) *Tensor {
	return e.pool2D("avg_pool2d", callerSite(), x, o, kernels.Pool2D{})
}

// MaxPool2DGrad returns the gradient of MaxPool2D(x, o) with respect to x,
// given dy, the gradient of its result: each window's gradient goes to
// the element MaxPool2D took, the window's first maximum in row-major
// order (as in PyTorch and TensorFlow), and an element gets the sum of
// the gradients of the windows that took it. In a window holding a NaN
// that element is the window's first NaN, which gets the window's whole
// gradient while the numbers of the window get none. The sums are
// gathered per element in a fixed order (or, where windows do not overlap,
// written by one thread per window, which finds its maximum itself), so
// the result is the same from
// run to run.
func (e *Engine) MaxPool2DGrad(x, dy *Tensor, o Pool2DOptions) *Tensor {
	op, bad := e.begin("max_pool2d_grad", callerSite(), x, dy)
	if bad != nil {
		return bad
	}
	defer op.end()
	op.attrs.Pool = o
	w, err := op.poolWindow(x.shape, x.dtype, o)
	if err != nil {
		return op.e.errTensor(err)
	}
	if err := op.checkPoolGrad(dy, x.shape, w); err != nil {
		return op.e.errTensor(err)
	}
	if scatters(w) {
		return op.poolGrad(x.shape, w, kernels.Pool2DGrad{Max: true, Scatter: true, Vec4: x.shape[3]%4 == 0}, x, dy)
	}
	arg, err := op.pool(x, w, kernels.Pool2D{Max: true, Arg: true})
	if err != nil {
		return op.e.errTensor(err)
	}
	// Safe to dispose once the gradient is recorded: the pool never hands
	// its storage to a later op before it (see reduce).
	defer arg.Dispose()
	return op.poolGrad(x.shape, w, kernels.Pool2DGrad{Max: true}, arg, dy)
}

// AvgPool2DGrad returns the gradient of AvgPool2D(x, o) with respect to x,
// of shape inputShape (x's), given dy, the gradient of its result: each
// element gets the sum, over the windows that contain it, of the window's
// gradient divided by the count its average divides by (see AvgPool2D).
func (e *Engine) AvgPool2DGrad(dy *Tensor, inputShape Shape, o Pool2DOptions) *Tensor {
	op, bad := e.begin("avg_pool2d_grad", callerSite(), dy)
	if bad != nil {
		return bad
	}
	defer op.end()
	op.attrs.Pool = o
	op.attrs.Shape = inputShape.clone()
	w, err := op.poolWindow(inputShape, dy.dtype, o)
	if err != nil {
		return op.e.errTensor(err)
	}
	if err := op.checkPoolGrad(dy, inputShape, w); err != nil {
		return op.e.errTensor(err)
	}
	scatter := scatters(w)
	return op.poolGrad(inputShape, w, kernels.Pool2DGrad{Scatter: scatter, Vec4: scatter && inputShape[3]%4 == 0}, dy)
}

// pool2D runs the forward pooling k on x.
func (e *Engine) pool2D(name string, site stack, x *Tensor, o Pool2DOptions, k kernels.Pool2D) *Tensor {
	op, bad := e.begin(name, site, x)
	if bad != nil {
		return bad
	}
	defer op.end()
	op.attrs.Pool = o
	w, err := op.poolWindow(x.shape, x.dtype, o)
	if err != nil {
		return op.e.errTensor(err)
	}
	out, err := op.pool(x, w, k)
	if err != nil {
		return op.e.errTensor(err)
	}
	return op.roundedTo(x.dtype, out)
}

// poolWindow checks a pooling of an input of shape and dtype and resolves
// its window.
func (o *op) poolWindow(shape Shape, dtype DType, p Pool2DOptions) (Window2D, error) {
	if forward := o.name == "max_pool2d" || o.name == "avg_pool2d"; dtype != Float32 && !(forward && dtype.half()) {
		return Window2D{}, opErr(o.name, o.shapes(), ErrDType, "input is %s, not float32 (or for a pooling, float16 or bfloat16)", dtype)
	}
	if len(shape) != 4 {
		return Window2D{}, opErr(o.name, o.shapes(), ErrShape, "input %v is not NHWC (rank 4)", shape)
	}
	stride := p.Stride
	for i, s := range stride {
		if s == 0 {
			stride[i] = p.Window[i]
		}
	}
	if !o.poolIsMax() && max(p.Dilation[0], p.Dilation[1]) > 1 {
		return Window2D{}, opErr(o.name, o.shapes(), ErrArgument, "dilation %v: an average pooling takes none (as PyTorch's AvgPool2d)", p.Dilation)
	}
	w, err := newWindow2D(shape[1], shape[2], p.Window[0], p.Window[1], stride, p.Dilation, p.Padding, p.CeilMode)
	if err != nil {
		return w, opErr(o.name, o.shapes(), ErrArgument, "window %v, stride %v, dilation %v, padding %v, ceil mode %v: %v", p.Window, p.Stride, p.Dilation, p.Padding, p.CeilMode, err)
	}
	// KernelH·KernelW, without overflow; a window's thread then stays
	// within the loop trips of an invocation (kernels.LoopTrips), and so
	// does the gradient's thread, whose windows are no more without
	// dilation (with it, the windows whose dilated extent covers an
	// element are counted apart).
	if w.KernelH > kernels.MaxLoopTrips/w.KernelW || (kernels.Pool2D{}).Trips(w.KernelH*w.KernelW) > kernels.MaxLoopTrips {
		return w, opErr(o.name, o.shapes(), ErrArgument, "window %v holds more than %d elements (reduce with Max or Mean over the axes instead)", p.Window, kernels.MaxLoopTrips)
	}
	if gh, gw := gatherWindows(w); gh > kernels.MaxLoopTrips/gw || (kernels.Pool2DGrad{}).Trips(gh*gw, 0) > kernels.MaxLoopTrips {
		return w, opErr(o.name, o.shapes(), ErrArgument, "dilation %v over stride %v: the gradient of an element would sum %dx%d windows, more than %d", p.Dilation, p.Stride, gh, gw, kernels.MaxLoopTrips)
	}
	if w.OutH > 0 && w.OutW > 0 && !windowsHoldInput(w) {
		return w, opErr(o.name, o.shapes(), ErrArgument, "padding %v and dilation %v leave a window of %v with no input element", p.Padding, p.Dilation, p.Window)
	}
	return w, nil
}

// poolIsMax reports whether o is a max pooling or its gradient.
func (o *op) poolIsMax() bool { return o.name == "max_pool2d" || o.name == "max_pool2d_grad" }

// gatherWindows is how many windows, along the height and the width, a
// thread of the gathered gradient walks: those whose dilated extent may
// cover its element.
func gatherWindows(w Window2D) (h, wide int) {
	return ceilDiv(extent(w.KernelH, w.DilationH), w.StrideH), ceilDiv(extent(w.KernelW, w.DilationW), w.StrideW)
}

// extent is the span of a window of kernel taps dil apart.
func extent(kernel, dil int) int { return (kernel-1)*dil + 1 }

// windowsHoldInput reports whether every window of w holds at least one
// position of the input. A window that starts inside the input holds its
// first tap; those that start in the leading padding (fewer than the
// gradient's windows per element, which poolWindow bounds) are checked
// one by one, and so is the last, which may start past the input.
func windowsHoldInput(w Window2D) bool {
	holds := func(in, kernel, dil, stride, pad, out int) bool {
		for o := 0; o < out; o++ {
			start := o*stride - pad
			if start >= 0 {
				break
			}
			lo := ceilDiv(-start, dil) // the first tap at 0 or after
			if lo >= kernel || start+lo*dil >= in {
				return false
			}
		}
		return (out-1)*stride-pad < in
	}
	return holds(w.InH, w.KernelH, w.DilationH, w.StrideH, w.PadTop, w.OutH) && holds(w.InW, w.KernelW, w.DilationW, w.StrideW, w.PadLeft, w.OutW)
}

// checkPoolGrad checks that dy is the gradient of a pooling of an input of
// shape in through window w.
func (o *op) checkPoolGrad(dy *Tensor, in Shape, w Window2D) error {
	if dy.dtype != Float32 {
		return opErr(o.name, o.shapes(), ErrDType, "dy is %s, not float32", dy.dtype)
	}
	if want := (Shape{in[0], w.OutH, w.OutW, in[3]}); !dy.shape.Equal(want) {
		return opErr(o.name, o.shapes(), ErrShape, "dy must be %v, the pooled shape of %v", want, in)
	}
	return nil
}

// poolParams is the kernels' parameter block for w over c channels; with
// countPad an average counts the padding (Pool2DOptions.CountIncludePad).
func poolParams(w Window2D, c int, countPad bool) *kernels.Pool2DParams {
	p := &kernels.Pool2DParams{C: uint32(c), InH: uint32(w.InH), InW: uint32(w.InW), OutH: uint32(w.OutH), OutW: uint32(w.OutW),
		KernelH: uint32(w.KernelH), KernelW: uint32(w.KernelW), StrideH: uint32(w.StrideH), StrideW: uint32(w.StrideW),
		PadTop: uint32(w.PadTop), PadLeft: uint32(w.PadLeft), DilationH: uint32(w.DilationH), DilationW: uint32(w.DilationW)}
	if countPad {
		p.CountTop, p.CountBottom, p.CountLeft, p.CountRight = uint32(w.PadTop), uint32(w.PadBottom), uint32(w.PadLeft), uint32(w.PadRight)
	}
	return p
}

// pool runs the forward kernel k over x through w into a new tensor.
func (o *op) pool(x *Tensor, w Window2D, k kernels.Pool2D) (*Tensor, error) {
	out, err := o.alloc(Shape{x.shape[0], w.OutH, w.OutW, x.shape[3]}, dtypeOf(k.Out()))
	if err != nil {
		return nil, err
	}
	k.Vec4 = !k.Arg && x.shape[3]%4 == 0
	k.Storage = x.dtype.storage() // half-width x unpacked; the result float32
	if n := out.Size(); n > 0 {
		if k.Vec4 { // a thread per four channels
			n /= 4
		}
		err = o.run(k.Key(), k.Spec, n, k.ThreadWork(w.KernelH*w.KernelW), poolParams(w, x.shape[3], o.attrs.Pool.CountIncludePad), x.buf(), out.buf())
	}
	if err != nil {
		out.Dispose()
		return nil, err
	}
	return out, nil
}

// scatters reports whether a pooling gradient through w takes the Scatter
// kernel: its windows (their dilated extents) do not overlap, there is at
// least one each way (so their cells tile the input), and a thread's
// window and cell together stay within kernels.MaxLoopTrips trips. One thread per window then
// writes its cell, instead of an argmax pass and a thread per input
// element.
func scatters(w Window2D) bool {
	if w.StrideH < extent(w.KernelH, w.DilationH) || w.StrideW < extent(w.KernelW, w.DilationW) || w.OutH == 0 || w.OutW == 0 {
		return false
	}
	// The tallest cell is a middle one (the stride) or the last (to the
	// input's end); likewise the widest.
	h := max(w.StrideH, w.InH-((w.OutH-1)*w.StrideH-w.PadTop))
	wide := max(w.StrideW, w.InW-((w.OutW-1)*w.StrideW-w.PadLeft))
	if h > kernels.MaxLoopTrips/wide {
		return false
	}
	return (kernels.Pool2DGrad{Max: true, Scatter: true}).Trips(w.KernelH*w.KernelW, h*wide) <= kernels.MaxLoopTrips
}

// poolGrad runs the gradient kernel k into a new tensor of shape in, from
// the tensors from (the argmax for Max, then dy; with Scatter x for Max,
// then dy).
func (o *op) poolGrad(in Shape, w Window2D, k kernels.Pool2DGrad, from ...*Tensor) *Tensor {
	out, err := o.alloc(in.clone(), Float32)
	if err != nil {
		return o.e.errTensor(err)
	}
	n := out.Size()
	if n == 0 { // then dy is empty too: an input of height, width, batch or channels 0
		return out
	}
	gh, gw := gatherWindows(w)
	trips := gh * gw
	if k.Scatter { // a thread per window (and four channels with Vec4), over its window and its cell
		n = from[len(from)-1].Size()
		if k.Vec4 {
			n /= 4
		}
		trips = w.KernelH*w.KernelW + w.StrideH*w.StrideW
	}
	// trips (the work estimate) counts elements; the loops take
	// kernels.PoolUnroll of them a trip, within kernels.MaxLoopTrips as
	// poolWindow and scatters check.
	bufs := make([]*wgpu.Buffer, 0, len(from)+1)
	for _, t := range from {
		bufs = append(bufs, t.buf())
	}
	if err := o.run(k.Key(), k.Spec, n, k.ThreadWork(trips), poolParams(w, in[3], o.attrs.Pool.CountIncludePad), append(bufs, out.buf())...); err != nil {
		out.Dispose()
		return o.e.errTensor(err)
	}
	return out
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
