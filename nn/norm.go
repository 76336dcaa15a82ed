package nn

import (
	"fmt"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// LayerNorm normalises each vector along the last axis of x to mean 0 and
// variance 1 (the biased variance, as PyTorch's nn.LayerNorm), then scales
// and shifts it elementwise: y = (x − mean)/√(var + ε)·weight + bias, for x
// [..., dim]. It behaves the same in both modes.
//
// Parameters: "weight" [dim] (Ones) and "bias" [dim] (Zeros), PyTorch's
// names and shapes. A LayerNorm follows Module's concurrency contract.
type LayerNorm struct {
	layer
	dim          int
	eps          float32
	weight, bias *tensor.Tensor
	what         string
}

// LayerNorm makes a LayerNorm over vectors of dim elements. Options: Eps
// (default 1e-5), WeightInit (Ones), BiasInit (Zeros).
func (b *Builder) LayerNorm(dim int, opts ...Option) *LayerNorm {
	l := &LayerNorm{dim: dim, what: fmt.Sprintf("nn: LayerNorm(%d)", dim)}
	weight, bias, c, err := b.affine(l.what, dim, opts, "Eps", "WeightInit", "BiasInit")
	l.init(err, paramsOf(weight, bias), nil)
	l.weight, l.bias, l.eps = weight, bias, c.eps
	return l
}

// Forward normalises x [..., dim] (rank 1 or more) along its last axis,
// on x's engine. See Module.
func (l *LayerNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	if bad := checkInput(x, l.what, l.err, tensor.Float32, 1, l.dim); bad != nil {
		return bad
	}
	e, last := engineFor(x), x.Rank()-1
	return scoped(e, func() *tensor.Tensor {
		xc := e.Sub(x, e.Mean(x, true, last))
		variance := e.Mean(e.Square(xc), true, last)
		return normalise(e, xc, variance, l.eps, l.weight, l.bias)
	})
}

// normalise returns xc/√(variance + eps)·weight + bias.
func normalise(e *tensor.Engine, xc, variance *tensor.Tensor, eps float32, weight, bias *tensor.Tensor) *tensor.Tensor {
	inv := e.Rsqrt(e.Add(variance, e.Scalar(eps)))
	return e.Add(e.Mul(e.Mul(xc, inv), weight), bias)
}

// BatchNorm normalises each channel, the last axis of x, over every other
// axis (the batch, and for NHWC images the height and width): PyTorch's
// BatchNorm1d and BatchNorm2d for channels-last data, Keras's
// BatchNormalization. y = (x − mean)/√(var + ε)·weight + bias.
//
// In training mode mean and var are the batch's (var biased, as PyTorch
// normalises), and Forward updates the running statistics in place
// (tensor.Engine.Assign, not recorded by a tape):
//
//	running_mean ← (1 − m)·running_mean + m·mean
//	running_var  ← (1 − m)·running_var + m·var·n/(n − 1)
//
// with n the elements per channel (the unbiased variance, as PyTorch) and
// m the momentum; a batch with n < 2 is refused, as PyTorch refuses it. In
// inference mode mean and var are the running statistics.
//
// Parameters: "weight" [C] (Ones) and "bias" [C] (Zeros). Buffers:
// "running_mean" [C] (zeros) and "running_var" [C] (ones): saved by a
// checkpoint, not optimised. PyTorch's state dict also has
// "num_batches_tracked", an int64 that only momentum=None uses: BatchNorm
// keeps none; checkpoint.Load takes PyTorch's and reports it as ignored,
// and checkpoint.Save writes a 0 in its place, so that files round-trip.
//
// A BatchNorm follows Module's concurrency contract: in training mode its
// Forward writes the running statistics and belongs to one goroutine.
type BatchNorm struct {
	layer
	channels                int
	eps, momentum           float32
	weight, bias            *tensor.Tensor
	runningMean, runningVar *tensor.Tensor
	what                    string
}

// BatchNorm makes a BatchNorm over channels channels. Options: Eps
// (default 1e-5), Momentum (0.1), WeightInit (Ones), BiasInit (Zeros).
func (b *Builder) BatchNorm(channels int, opts ...Option) *BatchNorm {
	l := &BatchNorm{channels: channels, what: fmt.Sprintf("nn: BatchNorm(%d)", channels)}
	weight, bias, c, err := b.affine(l.what, channels, opts, "Eps", "Momentum", "WeightInit", "BiasInit")
	if err == nil && !(c.momentum >= 0 && c.momentum <= 1) {
		err = b.fail(fmt.Errorf("%s: momentum %g outside [0, 1]: %w", l.what, c.momentum, tensor.ErrArgument))
	}
	var buffers []optim.Param
	if err == nil {
		_, buffers, err = b.make(l.what, []paramSpec{
			{name: "running_mean", shape: []int{channels}, init: Zeros, buffer: true},
			{name: "running_var", shape: []int{channels}, init: Ones, buffer: true},
		})
	}
	if err != nil {
		tidy.Dispose([]*tensor.Tensor{weight, bias})
		l.init(err, nil, nil)
		return l
	}
	l.init(nil, paramsOf(weight, bias), buffers)
	l.weight, l.bias, l.eps, l.momentum = weight, bias, c.eps, c.momentum
	l.runningMean, l.runningVar = buffers[0].T, buffers[1].T
	return l
}

// Forward normalises x [..., C] (rank 2 or more) per channel, on x's
// engine; in training mode it also updates the running statistics. See
// BatchNorm and Module.
func (l *BatchNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	if bad := checkInput(x, l.what, l.err, tensor.Float32, 2, l.channels); bad != nil {
		return bad
	}
	e := engineFor(x)
	if !l.Training() {
		return scoped(e, func() *tensor.Tensor {
			return normalise(e, e.Sub(x, l.runningMean), l.runningVar, l.eps, l.weight, l.bias)
		})
	}
	n := x.Size() / l.channels
	if n < 2 {
		return refuse(x, l.what, tensor.ErrShape, "training needs more than one value per channel")
	}
	axes := make([]int, x.Rank()-1)
	for i := range axes {
		axes[i] = i
	}
	return scoped(e, func() *tensor.Tensor {
		mean := e.Mean(x, false, axes...)
		xc := e.Sub(x, mean)
		variance := e.Mean(e.Square(xc), false, axes...)
		y := normalise(e, xc, variance, l.eps, l.weight, l.bias)
		if err := unrecorded(e, func() error { return l.updateRunning(e, mean, variance, n) }); err != nil {
			return e.Failed(fmt.Errorf("%s: updating the running statistics: %w", l.what, err))
		}
		return y
	})
}

// updateRunning blends the batch's mean and (biased) variance over n
// values per channel into the running statistics, in place.
func (l *BatchNorm) updateRunning(e *tensor.Engine, mean, variance *tensor.Tensor, n int) error {
	m := l.momentum
	blend := func(running, batch *tensor.Tensor, scale float32) error {
		v := e.Add(e.Mul(running, e.Scalar(1-m)), e.Mul(batch, e.Scalar(m*scale)))
		return e.Assign(running, v)
	}
	if err := blend(l.runningMean, mean, 1); err != nil {
		return err
	}
	return blend(l.runningVar, variance, float32(n)/float32(n-1))
}

// affine makes the scale ("weight") and shift ("bias") of a normalisation
// layer over dim features, with the options takes allows.
func (b *Builder) affine(what string, dim int, opts []Option, takes ...string) (weight, bias *tensor.Tensor, c config, err error) {
	c, err = configure(what, config{weightInit: Ones, biasInit: Zeros, eps: 1e-5, momentum: 0.1}, opts, takes...)
	if err == nil && dim <= 0 {
		err = fmt.Errorf("%s: size must be positive: %w", what, tensor.ErrArgument)
	}
	if err == nil && !(c.eps >= 0) {
		err = fmt.Errorf("%s: eps %g is negative: %w", what, c.eps, tensor.ErrArgument)
	}
	if err != nil {
		return nil, nil, c, b.fail(err)
	}
	params, _, err := b.make(what, []paramSpec{
		{name: "weight", shape: []int{dim}, init: c.weightInit, fanIn: dim, fanOut: dim},
		{name: "bias", shape: []int{dim}, init: c.biasInit, fanIn: dim, fanOut: dim},
	})
	if err != nil {
		return nil, nil, c, err
	}
	return params[0].T, params[1].T, c, nil
}

// paramsOf names a normalisation layer's scale and shift; none if the
// layer was not made.
func paramsOf(weight, bias *tensor.Tensor) []optim.Param {
	if weight == nil {
		return nil
	}
	return []optim.Param{{Name: "weight", T: weight}, {Name: "bias", T: bias}}
}
