package tensor

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Conv2DOptions configure a 2-D convolution (Conv2D and its gradients).
// The zero value is a stride of 1, no dilation, valid padding and one
// group.
type Conv2DOptions struct {
	// Stride and Dilation are the window's step and the spacing of its
	// taps, height then width; 0 means 1.
	Stride, Dilation [2]int
	// Padding pads the input's height and width (see Padding).
	Padding Padding
	// Groups splits the channels into Groups independent convolutions
	// (0 means 1): output channel o reads the input channels of group
	// o / (outC/Groups). Groups equal to the input channels with a filter
	// of one input channel per group is a depthwise convolution.
	Groups int
}

// Conv2D returns the 2-D convolution (a cross-correlation, as in
// TensorFlow and PyTorch) of x, a float32 NHWC batch of images [batch,
// inH, inW, inC], with filter, a float32 HWIO filter [kh, kw, inC/groups,
// outC]: a tensor [batch, outH, outW, outC] with
//
//	out[n, oy, ox, o] = Σ x[n, oy·sh + ky·dh - top, ox·sw + kx·dw - left, g·inC/groups + i] · filter[ky, kx, i, o]
//
// summed over ky, kx and the i of group g = o / (outC/groups), where the
// stride sh, sw, the dilation dh, dw and the padding top, left are o's
// (resolved as NewWindow2D does). Padded positions read as zero. inC and
// outC must be multiples of the groups. There is no bias: add one. The
// filter may be int8 (quantized weights, see QuantizeInt8 with axis 3):
// the result is the convolution with its integer values, unpacked four to
// a word in the kernel; multiply by the scales for the dequantized
// filter's. Float16 or bfloat16 x and filter (one dtype) are summed in
// float32 and the result rounded to their dtype.
//
// It runs as one kernel, an implicit matrix product (see kernels.Conv2D),
// split in dispatches by the device's work budget like MatMul. On CPU
// adapters (lavapipe, llvmpipe) the kernel's tiles take the shapes
// measured fastest there (kernels.Conv2D's CPU), on GPUs the others: the
// results are the same bits.
func (e *Engine) Conv2D(x, filter *Tensor, o Conv2DOptions) *Tensor {
	op, bad := e.begin("conv2d", callerSite(), x, filter)
	if bad != nil {
		return bad
	}
	defer op.end()
	op.attrs.Conv = o
	switch {
	case x.dtype == Float32 && (filter.dtype == Float32 || filter.dtype == Int8):
	case x.dtype.half() && filter.dtype == x.dtype:
	default:
		return op.fail(ErrDType, "x is %s and the filter %s; the op takes float32 ones, float16 or bfloat16 ones of one dtype, or float32 x with an int8 filter (quantized weights)", x.dtype, filter.dtype)
	}
	g, wrong := newConvGeometry(x.shape, filter.shape, o)
	if wrong != nil {
		return op.fail(wrong.kind, "%s", wrong.detail)
	}
	return op.roundedTo(x.dtype, op.conv(kernels.ConvForward, g, g.outShape(), x, filter))
}

// Conv2DBackpropInput returns the gradient of Conv2D's input x, of shape
// inputShape, given dy, the gradient of its result, and its filter, with
// the options of that Conv2D: dx[n, y, x, i] sums dy·filter over every
// output position and tap that read input position (y, x), none where
// none did (a stride that skips it, say). It is Conv2D's transpose
// (tf.nn.conv2d_transpose), computed by one gather kernel.
func (e *Engine) Conv2DBackpropInput(dy, filter *Tensor, inputShape Shape, o Conv2DOptions) *Tensor {
	op, bad := e.begin("conv2d_backprop_input", callerSite(), dy, filter)
	if bad != nil {
		return bad
	}
	defer op.end()
	op.attrs.Conv, op.attrs.Shape = o, inputShape.clone()
	if err := checkFloat32(dy, filter); err != nil {
		return op.fail(ErrDType, "%s", err)
	}
	g, wrong := newConvGeometry(inputShape, filter.shape, o)
	if wrong == nil {
		wrong = g.checkDy(dy.shape)
	}
	if wrong != nil {
		return op.fail(wrong.kind, "input shape %v: %s", inputShape, wrong.detail)
	}
	return op.conv(kernels.ConvInput, g, inputShape.clone(), dy, filter)
}

// Conv2DBackpropFilter returns the gradient of Conv2D's filter, of shape
// filterShape, given x, that Conv2D's input, and dy, the gradient of its
// result, with the options of that Conv2D: df[ky, kx, i, o] sums x·dy over
// the batch and every output position (padded positions of x read as
// zero). It is one kernel, a product whose inner dimension is
// batch·outH·outW, summed in ranges of kernels.MatMulKRange; a long one
// is summed in up to 64 slices in parallel, then a sum adds the slices
// (in an order fixed by the shapes, so the result is the same from run
// to run).
func (e *Engine) Conv2DBackpropFilter(x, dy *Tensor, filterShape Shape, o Conv2DOptions) *Tensor {
	op, bad := e.begin("conv2d_backprop_filter", callerSite(), x, dy)
	if bad != nil {
		return bad
	}
	defer op.end()
	op.attrs.Conv, op.attrs.Shape = o, filterShape.clone()
	if err := checkFloat32(x, dy); err != nil {
		return op.fail(ErrDType, "%s", err)
	}
	g, wrong := newConvGeometry(x.shape, filterShape, o)
	if wrong == nil {
		wrong = g.checkDy(dy.shape)
	}
	if wrong != nil {
		return op.fail(wrong.kind, "filter shape %v: %s", filterShape, wrong.detail)
	}
	return op.conv(kernels.ConvFilter, g, filterShape.clone(), x, dy)
}

// convGeometry is a convolution's shapes, checked: the input [batch, inH,
// inW, inC], the window over its height and width, the output channels
// and the groups.
type convGeometry struct {
	batch, inC, outC, groups int
	win                      Window2D
}

// badConv is what is wrong with a convolution's shapes or options: the
// kind of error (ErrArgument for options, ErrShape for shapes) and a
// description.
type badConv struct {
	kind   error
	detail string
}

func convErr(kind error, format string, args ...any) *badConv {
	return &badConv{kind, fmt.Sprintf(format, args...)}
}

// newConvGeometry checks the shapes of a convolution's input x and filter
// f and its options.
func newConvGeometry(x, f Shape, o Conv2DOptions) (convGeometry, *badConv) {
	var g convGeometry
	if len(x) != 4 || len(f) != 4 {
		return g, convErr(ErrShape, "input must be NHWC and filter HWIO, of rank 4; got ranks %d and %d", len(x), len(f))
	}
	for _, s := range []Shape{x, f} {
		if err := s.check(); err != nil {
			return g, convErr(ErrShape, "%v", err)
		}
	}
	if bad := checkConvOptions(o); bad != nil {
		return g, bad
	}
	g.groups = orOne(o.Groups)
	win, err := NewWindow2D(x[1], x[2], f[0], f[1], o.Stride, o.Dilation, o.Padding)
	if err != nil {
		kind := ErrShape
		if errors.Is(err, errPastWord) {
			kind = ErrArgument
		}
		return g, convErr(kind, "%v", err)
	}
	g.batch, g.inC, g.outC, g.win = x[0], x[3], f[3], win
	switch {
	case g.inC%g.groups != 0 || g.outC%g.groups != 0:
		return g, convErr(ErrShape, "%d input and %d output channels are not multiples of %d groups", g.inC, g.outC, g.groups)
	case f[2] != g.inC/g.groups:
		return g, convErr(ErrShape, "filter has %d input channels; %d input channels in %d groups need %d", f[2], g.inC, g.groups, g.inC/g.groups)
	}
	return g, nil
}

// checkConvOptions returns what is wrong with o's values, whatever the
// shapes: a negative stride, dilation or group count, a group count past
// the kernels' word, or a bad padding (NewWindow2D checks the rest).
func checkConvOptions(o Conv2DOptions) *badConv {
	p := o.Padding
	switch {
	case o.Groups < 0:
		return convErr(ErrArgument, "groups %d is negative", o.Groups)
	case o.Groups > maxWindowWord:
		return convErr(ErrArgument, "groups %d is %v", o.Groups, errPastWord)
	case min(o.Stride[0], o.Stride[1], o.Dilation[0], o.Dilation[1]) < 0:
		return convErr(ErrArgument, "stride %v or dilation %v is negative", o.Stride, o.Dilation)
	case p.Mode != PadValid && p.Mode != PadSame && p.Mode != PadExplicit:
		return convErr(ErrArgument, "unknown padding mode %d", int(p.Mode))
	case p.Mode == PadExplicit && min(p.Top, p.Bottom, p.Left, p.Right) < 0:
		return convErr(ErrArgument, "padding %v is negative", p)
	}
	return nil
}

// outShape is the shape of the convolution's result.
func (g convGeometry) outShape() Shape {
	return Shape{g.batch, g.win.OutH, g.win.OutW, g.outC}
}

// checkDy checks the shape of the gradient of the convolution's result.
func (g convGeometry) checkDy(dy Shape) *badConv {
	if !dy.Equal(g.outShape()) {
		return convErr(ErrShape, "dy is %v; the convolution's result is %v", dy, g.outShape())
	}
	return nil
}

// product returns the matrix product kernel op computes for g: its M
// and N per group and its K (see kernels.Conv2D).
func (g convGeometry) product(op kernels.ConvOp) (M, N, K int) {
	taps := g.win.KernelH * g.win.KernelW
	gin, gout := g.inC/g.groups, g.outC/g.groups
	switch op {
	case kernels.ConvForward:
		return g.batch * g.win.OutH * g.win.OutW, gout, taps * gin
	case kernels.ConvFilter:
		return taps * gin, gout, g.batch * g.win.OutH * g.win.OutW
	}
	return g.batch * g.win.InH * g.win.InW, gin, taps * gout
}

// params is the kernel's parameter block for g, before the dispatch's
// tiles and range are filled in.
func (g convGeometry) params(M, N, K int) kernels.Conv2DParams {
	w := g.win
	return kernels.Conv2DParams{
		InH: uint32(w.InH), InW: uint32(w.InW), InC: uint32(g.inC),
		OutH: uint32(w.OutH), OutW: uint32(w.OutW), OutC: uint32(g.outC),
		KernelW: uint32(w.KernelW), StrideH: uint32(w.StrideH), StrideW: uint32(w.StrideW),
		DilationH: uint32(w.DilationH), DilationW: uint32(w.DilationW),
		PadTop: uint32(w.PadTop), PadLeft: uint32(w.PadLeft),
		GroupIn: uint32(g.inC / g.groups), GroupOut: uint32(g.outC / g.groups),
		M: uint32(M), N: uint32(N), K: uint32(K), Groups: uint32(g.groups),
	}
}

// conv allocates the result of shape and computes it with kernel op from
// a and b (see kernels.Conv2D for which they are).
func (o *op) conv(kind kernels.ConvOp, g convGeometry, shape Shape, a, b *Tensor) *Tensor {
	out, err := o.alloc(shape, Float32)
	if err != nil {
		return o.e.errTensor(err)
	}
	M, N, K := g.product(kind)
	if M == 0 || N == 0 {
		return out
	}
	slices, kSlice := 1, K
	if kind == kernels.ConvFilter {
		slices, kSlice = filterSlices(out.Size(), K)
	}
	k := o.e.convKernel(kind, g, M, N, slices)
	if kind == kernels.ConvForward {
		k.Input, k.Filter = a.dtype.storage(), b.dtype.storage() // narrow ones unpacked
	}
	sums := out
	if slices > 1 {
		if sums, err = o.alloc(Shape{slices, out.Size()}, Float32); err != nil {
			out.Dispose()
			return o.e.errTensor(err)
		}
		// Safe to dispose once the sum below is recorded (see reduce).
		defer sums.Dispose()
	}
	bufs := []*wgpu.Buffer{a.buf(), b.buf(), sums.buf()}
	for _, pc := range o.e.matmulPieces(k, M, N, kSlice, g.groups*slices) {
		p := g.params(M, N, K)
		p.FirstCol, p.FirstRow, p.FirstGroup, p.KFirst, p.KEnd = pc.first[0], pc.first[1], pc.first[2], pc.first[3], uint32(pc.kEnd)
		if slices > 1 {
			p.KSlice, p.SliceSize = uint32(kSlice), uint32(out.Size())
		}
		if err := o.dispatch(k.Key(), k.Spec, pc.groups, pc.work, &p, bufs...); err != nil {
			out.Dispose()
			return o.e.errTensor(err)
		}
	}
	if slices > 1 {
		if err := o.reduceRows(kernels.Sum, sums, out, out.Size(), slices, out.Size()); err != nil {
			out.Dispose()
			return o.e.errTensor(err)
		}
	}
	return out
}

// Slicing the filter gradient's K: slices of filterSliceK terms each, at
// most maxFilterSlices of them, and copies of the filter of at most
// maxFilterSums floats in all.
const (
	filterSliceK    = 512
	maxFilterSlices = 64
	maxFilterSums   = 1 << 20
)

// filterSlices returns the slices a filter gradient of size floats with a
// sum of K terms is split into, and the terms per slice (a multiple of
// kernels.MatMulTileK; the last slice may have fewer): a long K runs in
// parallel, each slice into its own copy of the filter, and a sum over
// the copies adds them (see kernels.Conv2D). They depend on the shapes
// alone, never on the kernel, so the scalar and Vec4 kernels add in the
// same order and agree to the bit.
func filterSlices(size, K int) (slices, kSlice int) {
	slices = min(ceilDiv(K, filterSliceK), maxFilterSlices, maxFilterSums/max(size, 1))
	if slices <= 1 {
		return 1, K
	}
	kSlice = ceilDiv(ceilDiv(K, slices), kernels.MatMulTileK) * kernels.MatMulTileK
	return ceilDiv(K, kSlice), kSlice
}

// convKernel chooses the kernel of a product kind of g, M×N per group,
// summed in slices (see filterSlices): the Vec4 kernel where the channels
// allow it, else the scalar one; on CPU adapters the CPU tile shapes where
// they fit, elsewhere a tile of 64 columns or, for a product of few
// columns (or rows), a narrower (or shorter) one. Every choice gives the
// same bits (see kernels.Conv2D). WGT_CONV, a comma-separated list, forces
// choices for tests and comparisons: "scalar" the scalar kernel, "cpu" and
// "gpu" the tile shapes of CPU adapters or of GPUs on any adapter.
func (e *Engine) convKernel(kind kernels.ConvOp, g convGeometry, M, N, slices int) kernels.Conv2D {
	vec4, cpu := true, e.dev.Info().Type == wgpu.AdapterCPU
	for _, f := range strings.Split(os.Getenv("WGT_CONV"), ",") {
		switch f {
		case "scalar":
			vec4 = false
		case "cpu", "gpu":
			cpu = f == "cpu"
		}
	}
	gin, gout := g.inC/g.groups, g.outC/g.groups
	k := kernels.Conv2D{Op: kind, Vec4: vec4 && kernels.Conv2DVec4Fits(kind, gin, gout)}
	k.Unit = kind == kernels.ConvInput && g.win.StrideH == 1 && g.win.StrideW == 1
	k.CPU = cpu && kernels.Conv2DCPUFits(kind, k.Vec4, gout, g.outC, slices*g.groups)
	k.Narrow = kernels.Conv2DNarrowFits(k, N)
	k = k.WithShort(M)
	k.B4 = k.B4Fits(gout, g.outC)
	return k
}

// checkFloat32 returns an error unless every tensor is float32.
func checkFloat32(ts ...*Tensor) error {
	for i, t := range ts {
		if t.dtype != Float32 {
			return fmt.Errorf("input %d is %s; the op takes float32", i, t.dtype)
		}
	}
	return nil
}
