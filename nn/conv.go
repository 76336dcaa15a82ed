package nn

import (
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
)

// Conv2D is a 2-D convolution over NHWC images, Keras's Conv2D and
// PyTorch's nn.Conv2d with channels last: x [N, H, W, in] gives
// y [N, OH, OW, out], OH and OW as the stride, dilation and padding make
// them (see tensor.Window2D).
//
// The weight is HWIO, [kh, kw, in/groups, out], the layout of tfjs and
// Keras, which tensor.Engine.Conv2D takes without a copy; a PyTorch
// state dict's OIHW weight loads permuted by (2, 3, 1, 0). The bias is
// [out].
//
// Parameters: "weight" and, unless NoBias, "bias". A Conv2D follows
// Module's concurrency contract.
type Conv2D struct {
	layer
	in, out      int
	opts         tensor.Conv2DOptions
	weight, bias *tensor.Tensor // bias nil with NoBias
	scale        *tensor.Tensor // the weight's scales where it is int8 (QuantizeInt8)
	what         string         // "nn: Conv2D(in, out, kh×kw)", for errors
}

// Conv2D makes a convolution from in channels to out with a window of
// kernel (height, width): weight initialised by GlorotUniform over the
// window's fans (kh·kw·in/groups in, kh·kw·out/groups out, as Keras
// counts them; WeightInit chooses another), bias by Zeros (BiasInit).
// Options: Stride, Dilation, Pad, Groups, NoBias, WeightInit, BiasInit.
func (b *Builder) Conv2D(in, out int, kernel [2]int, opts ...Option) *Conv2D {
	l := &Conv2D{in: in, out: out, what: fmt.Sprintf("nn: Conv2D(%d, %d, %dx%d)", in, out, kernel[0], kernel[1])}
	c, err := configure(l.what, config{bias: true, weightInit: GlorotUniform, biasInit: Zeros}, opts,
		"Stride", "Dilation", "Pad", "Groups", "NoBias", "WeightInit", "BiasInit")
	groups := max(c.conv.Groups, 1)
	switch {
	case err != nil:
	case in <= 0 || out <= 0 || kernel[0] <= 0 || kernel[1] <= 0:
		err = fmt.Errorf("%s: channels and window must be positive: %w", l.what, tensor.ErrArgument)
	case c.conv.Groups < 0 || in%groups != 0 || out%groups != 0:
		err = fmt.Errorf("%s: %d groups do not divide the channels: %w", l.what, c.conv.Groups, tensor.ErrArgument)
	}
	if err != nil {
		l.init(b.fail(err), nil, nil)
		return l
	}
	l.opts = c.conv
	window := kernel[0] * kernel[1]
	fanIn, fanOut := window*in/groups, window*out/groups
	params, weight, bias, err := b.weightAndBias(l.what, c, []int{kernel[0], kernel[1], in / groups, out}, out, fanIn, fanOut)
	l.init(err, params, nil)
	l.weight, l.bias = weight, bias
	return l
}

// Forward returns the convolution of x [N, H, W, in] plus the bias,
// computed on x's engine (with an int8 weight, scaled: see QuantizeInt8).
// See Module.
func (l *Conv2D) Forward(x *tensor.Tensor) *tensor.Tensor {
	if bad := checkInput(x, l.what, l.err, weightDType(l.weight), 4, l.in); bad != nil {
		return bad
	}
	if x.Rank() != 4 {
		return refuse(x, l.what, tensor.ErrShape, "want rank 4 (NHWC)")
	}
	e := engineFor(x)
	return scoped(e, func() *tensor.Tensor {
		return affine(e, e.Conv2D(x, l.weight, l.opts), l.scale, l.bias)
	})
}

// Pool2D is a 2-D max or average pooling over NHWC images, Keras's
// MaxPooling2D and AveragePooling2D, PyTorch's MaxPool2d and AvgPool2d
// with channels last: x [N, H, W, C] gives [N, OH, OW, C] (see
// tensor.Pool2DOptions, whose Dilation, CeilMode and CountIncludePad are
// PyTorch's dilation, ceil_mode and count_include_pad). It has no
// parameters, behaves the same in both modes and follows Module's
// concurrency contract.
type Pool2D struct {
	layer
	max  bool
	opts tensor.Pool2DOptions
	what string
}

// MaxPool2D makes a max pooling layer of geometry o (a zero stride is the
// window's, as in Keras; o.Dilation spaces the window's taps and
// o.CeilMode rounds the output's size up, as PyTorch's MaxPool2d's
// dilation and ceil_mode do).
func MaxPool2D(o tensor.Pool2DOptions) *Pool2D { return newPool2D(true, o) }

// AvgPool2D makes an average pooling layer of geometry o. Padded
// positions are left out of each average (Keras's rule) unless
// o.CountIncludePad, PyTorch's count_include_pad, which PyTorch's
// AvgPool2d sets by default: a model ported from PyTorch with padding
// sets it. An average takes no dilation.
func AvgPool2D(o tensor.Pool2DOptions) *Pool2D { return newPool2D(false, o) }

func newPool2D(isMax bool, o tensor.Pool2DOptions) *Pool2D {
	kind := "AvgPool2D"
	if isMax {
		kind = "MaxPool2D"
	}
	p := &Pool2D{max: isMax, opts: o, what: fmt.Sprintf("nn: %s(%dx%d)", kind, o.Window[0], o.Window[1])}
	p.init(nil, nil, nil)
	return p
}

// Forward pools x [N, H, W, C] on x's engine. See Module.
func (p *Pool2D) Forward(x *tensor.Tensor) *tensor.Tensor {
	if bad := checkInput(x, p.what, nil, floatOf(x), 4, -1); bad != nil {
		return bad
	}
	if x.Rank() != 4 {
		return refuse(x, p.what, tensor.ErrShape, "want rank 4 (NHWC)")
	}
	if p.max {
		return engineFor(x).MaxPool2D(x, p.opts)
	}
	return engineFor(x).AvgPool2D(x, p.opts)
}
