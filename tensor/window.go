package tensor

import (
	"errors"
	"fmt"
	"math"
)

// PadMode says how a sliding-window op (convolution, pooling) pads its
// input's height and width.
type PadMode int

const (
	// PadValid pads nothing: windows lie wholly inside the input, so the
	// output is smaller than the input by the window's extent less one.
	PadValid PadMode = iota
	// PadSame pads so that the output has ceil(input/stride) positions,
	// splitting the padding as TensorFlow does: the smaller half before
	// (top, left) and the larger after (bottom, right).
	PadSame
	// PadExplicit pads by Padding's Top, Bottom, Left and Right.
	PadExplicit
)

// Padding is the padding of a sliding-window op. The zero value is
// PadValid. Padded positions read as zero in a convolution, and are left
// out of a pooling window (a max ignores them, an average divides by the
// number of positions inside the input).
type Padding struct {
	Mode                     PadMode
	Top, Bottom, Left, Right int // used only with PadExplicit
}

// Same returns the PadSame padding.
func Same() Padding { return Padding{Mode: PadSame} }

// Valid returns the PadValid padding (the zero Padding).
func Valid() Padding { return Padding{} }

// Explicit returns a padding of the given sizes, in elements.
func Explicit(top, bottom, left, right int) Padding {
	return Padding{Mode: PadExplicit, Top: top, Bottom: bottom, Left: left, Right: right}
}

func (p Padding) String() string {
	switch p.Mode {
	case PadValid:
		return "valid"
	case PadSame:
		return "same"
	case PadExplicit:
		return fmt.Sprintf("explicit(%d,%d,%d,%d)", p.Top, p.Bottom, p.Left, p.Right)
	}
	return fmt.Sprintf("PadMode(%d)", int(p.Mode))
}

// Window2D is the geometry of a sliding window over the height and width
// of an NHWC input, with every default resolved and every padding made
// explicit: output position (oy, ox) reads input rows
// oy*StrideH - PadTop + ky*DilationH for ky in [0, KernelH), and columns
// likewise.
type Window2D struct {
	InH, InW             int
	KernelH, KernelW     int
	StrideH, StrideW     int
	DilationH, DilationW int
	PadTop, PadBottom    int
	PadLeft, PadRight    int
	OutH, OutW           int
}

// NewWindow2D resolves a window of kernel extent (kh, kw) over an input of
// height and width (inH, inW). Stride and dilation entries of zero mean 1.
// It returns an error when a size is negative or zero where it must not
// be, when an explicit padding is negative, or when no window fits. An
// input of height or width 0 gives an output of height and width 0.
func NewWindow2D(inH, inW, kh, kw int, stride, dilation [2]int, pad Padding) (Window2D, error) {
	return newWindow2D(inH, inW, kh, kw, stride, dilation, pad, false)
}

// newWindow2D is NewWindow2D, with the output's size rounded up instead of
// down when ceil is set (PyTorch's ceil_mode, for pooling): the last
// window may then run past the padded input, but it starts inside the
// input or its leading padding (a window that would start in the
// trailing padding is dropped, as PyTorch drops it), and a window larger
// than the padded input still gives one output position.
func newWindow2D(inH, inW, kh, kw int, stride, dilation [2]int, pad Padding, ceil bool) (Window2D, error) {
	w := Window2D{InH: inH, InW: inW, KernelH: kh, KernelW: kw}
	w.StrideH, w.StrideW = orOne(stride[0]), orOne(stride[1])
	w.DilationH, w.DilationW = orOne(dilation[0]), orOne(dilation[1])
	switch {
	case inH < 0 || inW < 0:
		return w, fmt.Errorf("input height and width %dx%d are negative", inH, inW)
	case kh < 1 || kw < 1:
		return w, fmt.Errorf("window %dx%d is empty", kh, kw)
	case w.StrideH < 1 || w.StrideW < 1:
		return w, fmt.Errorf("stride %v is not positive", stride)
	case w.DilationH < 1 || w.DilationW < 1:
		return w, fmt.Errorf("dilation %v is not positive", dilation)
	}
	for _, v := range []int{inH, inW, kh, kw, w.StrideH, w.StrideW, w.DilationH, w.DilationW, pad.Top, pad.Bottom, pad.Left, pad.Right} {
		if v > maxWindowWord {
			return w, fmt.Errorf("window %dx%d, stride %v, dilation %v or padding %v: %d is %w", kh, kw, stride, dilation, pad, v, errPastWord)
		}
	}
	extH := (kh-1)*w.DilationH + 1
	extW := (kw-1)*w.DilationW + 1
	switch pad.Mode {
	case PadValid:
	case PadSame:
		w.PadTop, w.PadBottom = samePads(inH, extH, w.StrideH)
		w.PadLeft, w.PadRight = samePads(inW, extW, w.StrideW)
	case PadExplicit:
		w.PadTop, w.PadBottom, w.PadLeft, w.PadRight = pad.Top, pad.Bottom, pad.Left, pad.Right
		if min(pad.Top, pad.Bottom, pad.Left, pad.Right) < 0 {
			return w, fmt.Errorf("padding %v is negative", pad)
		}
	default:
		return w, fmt.Errorf("unknown padding mode %d", int(pad.Mode))
	}
	if inH == 0 || inW == 0 {
		return w, nil
	}
	spanH := inH + w.PadTop + w.PadBottom
	spanW := inW + w.PadLeft + w.PadRight
	if max(extH, extW, spanH, spanW) > maxWindowWord {
		return w, fmt.Errorf("window extent %dx%d over a padded input %dx%d: %w", extH, extW, spanH, spanW, errPastWord)
	}
	var okH, okW bool
	w.OutH, okH = outSize(inH, spanH, extH, w.StrideH, w.PadTop, ceil)
	w.OutW, okW = outSize(inW, spanW, extW, w.StrideW, w.PadLeft, ceil)
	if !okH || !okW {
		return w, fmt.Errorf("window extent %dx%d is larger than the padded input %dx%d", extH, extW, spanH, spanW)
	}
	// With ceil, the last window may end past the span: its positions
	// must still fit the kernels' word.
	if endH, endW := (w.OutH-1)*w.StrideH+extH, (w.OutW-1)*w.StrideW+extW; max(endH, endW) > maxWindowWord {
		return w, fmt.Errorf("the last window ends at %dx%d: %w", endH, endW, errPastWord)
	}
	return w, nil
}

// outSize is the count of windows of extent ext, stride apart, over an
// input of size in padded to span (before of it leading): those that fit
// in the span, or with ceil also a last one that starts inside it and
// before the trailing padding. ok is false when there is none.
func outSize(in, span, ext, stride, before int, ceil bool) (n int, ok bool) {
	room := span - ext
	if ceil {
		room += stride - 1
	}
	if room < 0 {
		return 0, false
	}
	n = room/stride + 1
	if ceil && (n-1)*stride >= in+before {
		n--
	}
	return n, n > 0
}

// samePads splits TensorFlow's "same" padding of an input of size in for a
// window of dilated extent ext moved by stride.
func samePads(in, ext, stride int) (before, after int) {
	out := (in + stride - 1) / stride
	total := max((out-1)*stride+ext-in, 0)
	return total / 2, total - total/2
}

// maxWindowWord bounds every size, step and position of a window: the
// kernels hold them in 32-bit words and compute positions such as
// oy*StrideH - PadTop + ky*DilationH in i32. Each argument, the dilated
// window's extent and the padded input's span stay within it, and so does
// every position inside the span.
const maxWindowWord = math.MaxInt32

// errPastWord is wrapped by NewWindow2D's errors for sizes past
// maxWindowWord: an argument error, where its other errors are the
// shapes'.
var errPastWord = errors.New("past 2^31-1, the kernels' word")

func orOne(n int) int {
	if n == 0 {
		return 1
	}
	return n
}
