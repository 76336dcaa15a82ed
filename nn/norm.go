package nn

import (
	"fmt"
	"math"
	"slices"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// LayerNorm normalises each vector along the trailing dimensions of x
// (its normalized shape: the last axis, or several with LayerNormShape)
// to mean 0 and variance 1 (the biased variance, as PyTorch's
// nn.LayerNorm), then scales and shifts it elementwise:
// y = (x − mean)/√(var + ε)·weight + bias, for x [..., normalized shape].
// It behaves the same in both modes. Vectors of up to
// kernels.MaxLoopTrips (65,535) elements, over one axis or several, are
// normalised by the fused kernel (tensor.Engine.LayerNorm: one dispatch
// forward, and tensor.Engine.LayerNormGrad backward, one dispatch for up
// to 64 vectors and two beyond); longer ones by Mean, Sub, Square, Rsqrt,
// Mul and Add.
//
// Parameters: "weight" and "bias" of the normalized shape (Ones and
// Zeros), PyTorch's names and shapes; none with NoAffine (PyTorch's
// elementwise_affine=False). A LayerNorm follows Module's concurrency
// contract.
type LayerNorm struct {
	layer
	shape        []int // the normalized shape
	eps          float32
	weight, bias *tensor.Tensor // nil with NoAffine
	what         string
}

// LayerNorm makes a LayerNorm over vectors of dim elements (the last axis).
// Options: Eps (default 1e-5), WeightInit (Ones), BiasInit (Zeros),
// NoAffine.
func (b *Builder) LayerNorm(dim int, opts ...Option) *LayerNorm {
	return b.layerNorm([]int{dim}, fmt.Sprintf("nn: LayerNorm(%d)", dim), opts)
}

// LayerNormShape makes a LayerNorm over the trailing dimensions of the
// normalized shape (PyTorch's nn.LayerNorm(normalized_shape) of any rank;
// LayerNormShape([]int{d}) is LayerNorm(d)): each x [..., shape...] is
// normalised over its last len(shape) axes together, and the weight and
// bias have that shape. Each dimension must be positive. Options: as
// LayerNorm's. Like every Builder method it belongs to the Builder's
// goroutine; the layer follows Module's concurrency contract.
func (b *Builder) LayerNormShape(shape []int, opts ...Option) *LayerNorm {
	return b.layerNorm(slices.Clone(shape), fmt.Sprintf("nn: LayerNorm(%v)", shape), opts)
}

func (b *Builder) layerNorm(shape []int, what string, opts []Option) *LayerNorm {
	l := &LayerNorm{shape: shape, what: what}
	weight, bias, c, err := b.affine(l.what, shape, opts, "Eps", "WeightInit", "BiasInit", "NoAffine")
	l.init(err, paramsOf(weight, bias), nil)
	l.weight, l.bias, l.eps = weight, bias, c.eps
	return l
}

// Forward normalises x [..., normalized shape] over its trailing
// dimensions, on x's engine. See Module.
func (l *LayerNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	k, last := len(l.shape), -1
	if k > 0 { // else the layer was not made: checkInput returns its error
		last = l.shape[k-1]
	}
	want := dtypeOf(l.weight)
	if l.weight == nil && x != nil && x.DType().IsFloat() {
		want = x.DType() // no parameters: any float dtype
	}
	if bad := checkInput(x, l.what, l.err, want, k, last); bad != nil {
		return bad
	}
	if got := x.Shape()[x.Rank()-k:]; !slices.Equal(got, l.shape) {
		return refuse(x, l.what, tensor.ErrShape, "trailing dimensions %v, want %v", got, l.shape)
	}
	e := engineFor(x)
	size := 1
	for _, d := range l.shape {
		size *= d
	}
	if size <= kernels.MaxLoopTrips && !math.IsInf(float64(l.eps), 1) {
		return scoped(e, func() *tensor.Tensor { return l.fused(e, x, size) })
	}
	// Vectors longer than the fused kernel's rows.
	axes := make([]int, k)
	for i := range axes {
		axes[i] = x.Rank() - k + i
	}
	return scoped(e, func() *tensor.Tensor {
		xc := e.Sub(x, e.Mean(x, true, axes...))
		variance := e.Mean(e.Square(xc), true, axes...)
		return normalise(e, xc, variance, l.eps, l.weight, l.bias)
	})
}

// fused normalises x with the fused kernel (tensor.Engine.LayerNorm, and
// its backward tensor.Engine.LayerNormGrad: one dispatch forward, one or
// two backward, where the composed ops took five and ten): x's trailing
// dimensions, size elements in all, are viewed as one row, the weight and
// bias as vectors, and the result takes x's shape back (views, no
// copies). Without affine parameters it scales by uploaded ones and
// shifts by zeros, which no gradient reaches.
func (l *LayerNorm) fused(e *tensor.Engine, x *tensor.Tensor, size int) *tensor.Tensor {
	weight, bias := l.weight, l.bias
	if weight == nil {
		ones := make([]float32, size)
		for i := range ones {
			ones[i] = 1
		}
		weight, bias = e.FromFloat32s(ones, size), e.FromFloat32s(make([]float32, size), size)
		if d := x.DType(); d != tensor.Float32 {
			weight, bias = e.Cast(weight, d), e.Cast(bias, d)
		}
	}
	if len(l.shape) == 1 {
		return e.LayerNorm(x, weight, bias, l.eps)
	}
	rows := append(slices.Clone(x.Shape()[:x.Rank()-len(l.shape)]), size)
	y := e.LayerNorm(e.Reshape(x, rows...), e.Reshape(weight, size), e.Reshape(bias, size), l.eps)
	return e.Reshape(y, x.Shape()...)
}

// normalise returns xc/√(variance + eps)·weight + bias, without the scale
// and shift where weight and bias are nil (NoAffine).
func normalise(e *tensor.Engine, xc, variance *tensor.Tensor, eps float32, weight, bias *tensor.Tensor) *tensor.Tensor {
	epsT := e.Scalar(eps)
	if d := variance.DType(); d != tensor.Float32 {
		epsT = e.Cast(epsT, d)
	}
	inv := e.Rsqrt(e.Add(variance, epsT))
	y := e.Mul(xc, inv)
	if weight == nil {
		return y
	}
	return e.Add(e.Mul(y, weight), bias)
}

// NoAffine makes a LayerNorm or BatchNorm without its scale and shift
// ("weight" and "bias"): PyTorch's elementwise_affine=False for
// LayerNorm, affine=False for BatchNorm. The layer then has no
// parameters; WeightInit and BiasInit do not apply with it. Like every
// Option it is an immutable value: share it freely.
func NoAffine() Option { return flagOption("NoAffine") }

// NoRunningStats makes a BatchNorm that keeps no running statistics
// (PyTorch's track_running_stats=False): it normalises with the batch's
// statistics in training and inference mode alike, and has no buffers.
// An immutable value, as every Option.
func NoRunningStats() Option { return flagOption("NoRunningStats") }

// CumulativeMomentum makes a BatchNorm's running statistics the plain
// average of every batch's since the last reset (PyTorch's
// momentum=None): the layer counts its training batches in a buffer,
// "num_batches_tracked" (an int32 scalar, PyTorch's int64 one, which a
// checkpoint saves and loads), and blends batch k in with weight 1/k.
// It excludes Momentum. With NoRunningStats it does nothing, as in
// PyTorch. An immutable value, as every Option.
func CumulativeMomentum() Option { return flagOption("CumulativeMomentum") }

// flagOption is an Option that carries no value: the layers that take it
// read it by name (hasOption), after configure has checked that they do.
func flagOption(name string) Option { return Option{name: name, set: func(*config) {}} }

// hasOption reports whether opts hold the option called name.
func hasOption(opts []Option, name string) bool {
	return slices.ContainsFunc(opts, func(o Option) bool { return o.name == name })
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
// m the momentum, or with CumulativeMomentum (PyTorch's momentum=None)
// m = 1/k for the k-th training batch, counted in num_batches_tracked; a
// batch with n < 2 is refused, as PyTorch refuses it. In inference mode
// mean and var are the running statistics. With NoRunningStats (PyTorch's
// track_running_stats=False) there are none: both modes use the batch's.
//
// Parameters: "weight" [C] (Ones) and "bias" [C] (Zeros), none with
// NoAffine. Buffers: "running_mean" [C] (zeros) and "running_var" [C]
// (ones), none with NoRunningStats, and with CumulativeMomentum
// "num_batches_tracked" (an int32 scalar, 0): saved by a checkpoint, not
// optimised. PyTorch's state dict always has "num_batches_tracked", an
// int64 that only momentum=None uses: without CumulativeMomentum
// BatchNorm keeps none; checkpoint.Load takes PyTorch's and reports it as
// ignored, and checkpoint.Save writes a 0 in its place, so that files
// round-trip.
//
// A BatchNorm follows Module's concurrency contract: in training mode its
// Forward writes the running statistics and belongs to one goroutine.
type BatchNorm struct {
	layer
	channels                int
	eps, momentum           float32
	cumulative              bool           // CumulativeMomentum: momentum 1/num_batches_tracked
	weight, bias            *tensor.Tensor // nil with NoAffine
	runningMean, runningVar *tensor.Tensor // nil with NoRunningStats
	batches                 *tensor.Tensor // num_batches_tracked, with CumulativeMomentum
	what                    string
}

// BatchNorm makes a BatchNorm over channels channels. Options: Eps
// (default 1e-5), Momentum (0.1), CumulativeMomentum, WeightInit (Ones),
// BiasInit (Zeros), NoAffine, NoRunningStats.
func (b *Builder) BatchNorm(channels int, opts ...Option) *BatchNorm {
	l := &BatchNorm{channels: channels, what: fmt.Sprintf("nn: BatchNorm(%d)", channels)}
	weight, bias, c, err := b.affine(l.what, []int{channels}, opts, "Eps", "Momentum", "CumulativeMomentum", "WeightInit", "BiasInit", "NoAffine", "NoRunningStats")
	switch {
	case err != nil:
	case !(c.momentum >= 0 && c.momentum <= 1):
		err = b.fail(fmt.Errorf("%s: momentum %g outside [0, 1]: %w", l.what, c.momentum, tensor.ErrArgument))
	case hasOption(opts, "CumulativeMomentum") && hasOption(opts, "Momentum"):
		err = b.fail(fmt.Errorf("%s: Momentum and CumulativeMomentum (momentum=None) exclude each other: %w", l.what, tensor.ErrArgument))
	}
	track := !hasOption(opts, "NoRunningStats")
	l.cumulative = track && hasOption(opts, "CumulativeMomentum")
	var buffers []optim.Param
	if err == nil && track {
		_, buffers, err = b.make(l.what, []paramSpec{
			{name: "running_mean", shape: []int{channels}, init: Zeros, buffer: true},
			{name: "running_var", shape: []int{channels}, init: Ones, buffer: true},
		})
	}
	if err == nil && l.cumulative {
		var count *tensor.Tensor
		if count, err = b.counter(l.what); err == nil {
			buffers = append(buffers, optim.Param{Name: "num_batches_tracked", T: count})
		}
	}
	if err != nil {
		tidy.Dispose([]*tensor.Tensor{weight, bias})
		tidy.Dispose(Tensors(buffers))
		l.init(err, nil, nil)
		return l
	}
	l.init(nil, paramsOf(weight, bias), buffers)
	l.weight, l.bias, l.eps, l.momentum = weight, bias, c.eps, c.momentum
	if track {
		l.runningMean, l.runningVar = buffers[0].T, buffers[1].T
	}
	if l.cumulative {
		l.batches = buffers[2].T
	}
	return l
}

// counter makes a kept int32 scalar 0 on the Builder's engine, for the
// layer what: a buffer no initialiser (float32 only) makes.
func (b *Builder) counter(what string) (*tensor.Tensor, error) {
	if b.err != nil {
		return nil, fmt.Errorf("%s: not made after an earlier error: %w", what, b.err)
	}
	t := b.e.Zeros(tensor.Int32)
	if err := t.Err(); err != nil {
		t.Dispose()
		return nil, b.fail(fmt.Errorf("%s: num_batches_tracked: %w", what, err))
	}
	t.Keep()
	return t, nil
}

// Forward normalises x [..., C] (rank 2 or more) per channel, on x's
// engine; in training mode it also updates the running statistics. See
// BatchNorm and Module.
func (l *BatchNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	want := dtypeOf(l.weight) // float32, or what ToDtype made the layer
	if l.weight == nil {
		want = dtypeOf(l.runningMean)
	}
	if bad := checkInput(x, l.what, l.err, want, 2, l.channels); bad != nil {
		return bad
	}
	e := engineFor(x)
	track := l.runningMean != nil
	if !l.Training() && track {
		return scoped(e, func() *tensor.Tensor {
			return normalise(e, e.Sub(x, l.runningMean), l.runningVar, l.eps, l.weight, l.bias)
		})
	}
	n := x.Size() / l.channels
	if n < 2 {
		return refuse(x, l.what, tensor.ErrShape, "normalising with the batch's statistics needs more than one value per channel")
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
		if !track || !l.Training() {
			return y
		}
		if err := unrecorded(e, func() error { return l.updateRunning(e, mean, variance, n) }); err != nil {
			return e.Failed(fmt.Errorf("%s: updating the running statistics: %w", l.what, err))
		}
		return y
	})
}

// updateRunning blends the batch's mean and (biased) variance over n
// values per channel into the running statistics, in place: with weight
// the momentum, or with CumulativeMomentum 1/k for the k-th batch (the
// count is advanced first, as PyTorch does).
func (l *BatchNorm) updateRunning(e *tensor.Engine, mean, variance *tensor.Tensor, n int) error {
	m := l.momentum
	var take *tensor.Tensor // 1/k, with CumulativeMomentum
	if l.cumulative {
		if err := e.Assign(l.batches, e.Add(l.batches, e.Ones(tensor.Int32))); err != nil {
			return err
		}
		take = e.Div(e.Scalar(1), e.Cast(l.batches, tensor.Float32))
	}
	blend := func(running, batch *tensor.Tensor, scale float32) error {
		if take == nil {
			return e.Assign(running, e.Add(e.Mul(running, e.Scalar(1-m)), e.Mul(batch, e.Scalar(m*scale))))
		}
		return e.Assign(running, e.Add(e.Mul(running, e.Sub(e.Scalar(1), take)), e.Mul(batch, e.Mul(take, e.Scalar(scale)))))
	}
	if err := blend(l.runningMean, mean, 1); err != nil {
		return err
	}
	return blend(l.runningVar, variance, float32(n)/float32(n-1))
}

// affine makes the scale ("weight") and shift ("bias") of a normalisation
// layer over features of shape, with the options takes allows; none with
// NoAffine.
func (b *Builder) affine(what string, shape []int, opts []Option, takes ...string) (weight, bias *tensor.Tensor, c config, err error) {
	c, err = configure(what, config{weightInit: Ones, biasInit: Zeros, eps: 1e-5, momentum: 0.1}, opts, takes...)
	noAffine := hasOption(opts, "NoAffine")
	switch {
	case err != nil:
	case len(shape) == 0 || slices.Min(shape) <= 0:
		err = fmt.Errorf("%s: size %v must be positive: %w", what, shape, tensor.ErrArgument)
	case !(c.eps >= 0):
		err = fmt.Errorf("%s: eps %g is negative: %w", what, c.eps, tensor.ErrArgument)
	case noAffine && (hasOption(opts, "WeightInit") || hasOption(opts, "BiasInit")):
		err = fmt.Errorf("%s: WeightInit and BiasInit do not apply with NoAffine: %w", what, tensor.ErrArgument)
	}
	if err != nil {
		return nil, nil, c, b.fail(err)
	}
	if noAffine {
		if b.err != nil {
			return nil, nil, c, fmt.Errorf("%s: not made after an earlier error: %w", what, b.err)
		}
		return nil, nil, c, nil
	}
	size := 1
	for _, d := range shape {
		size *= d
	}
	params, _, err := b.make(what, []paramSpec{
		{name: "weight", shape: slices.Clone(shape), init: c.weightInit, fanIn: size, fanOut: size},
		{name: "bias", shape: slices.Clone(shape), init: c.biasInit, fanIn: size, fanOut: size},
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
