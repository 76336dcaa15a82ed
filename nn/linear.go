package nn

import (
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
)

// Linear is y = x·Wᵀ + b over the last axis of x, PyTorch's nn.Linear and
// Keras's Dense: x [..., in] gives y [..., out].
//
// The weight is [out, in], PyTorch's layout, so that a PyTorch state dict
// ("0.weight" of an nn.Linear) loads as it is; a Keras or tfjs Dense kernel,
// [in, out], loads transposed (numpy's kernel.T). Forward multiplies by the
// transpose without a copy (tensor.Engine.MatMulT). The bias is [out].
//
// Parameters: "weight" and, unless NoBias, "bias". A Linear follows
// Module's concurrency contract.
type Linear struct {
	layer
	in, out      int
	weight, bias *tensor.Tensor // bias nil with NoBias
	scale        *tensor.Tensor // the weight's scales where it is int8 (QuantizeInt8)
	what         string         // "nn: Linear(in, out)", for errors
}

// Linear makes a Linear layer from in features to out: weight initialised
// by GlorotUniform (Keras's default; WeightInit chooses another), bias by
// Zeros (BiasInit). Options: NoBias, WeightInit, BiasInit.
func (b *Builder) Linear(in, out int, opts ...Option) *Linear {
	l := &Linear{in: in, out: out, what: fmt.Sprintf("nn: Linear(%d, %d)", in, out)}
	c, err := configure(l.what, config{bias: true, weightInit: GlorotUniform, biasInit: Zeros}, opts, "NoBias", "WeightInit", "BiasInit")
	if err == nil && (in <= 0 || out <= 0) {
		err = fmt.Errorf("%s: features must be positive: %w", l.what, tensor.ErrArgument)
	}
	if err != nil {
		l.init(b.fail(err), nil, nil)
		return l
	}
	params, weight, bias, err := b.weightAndBias(l.what, c, []int{out, in}, out, in, out)
	l.init(err, params, nil)
	l.weight, l.bias = weight, bias
	return l
}

// Forward returns x·Wᵀ + b for x of shape [..., in] (rank 1 or more) and
// of the weight's dtype (float32, or what ToDtype made it; float32 for an
// int8 weight, whose product is scaled: see QuantizeInt8), computed on x's
// engine. See Module.
func (l *Linear) Forward(x *tensor.Tensor) *tensor.Tensor {
	if bad := checkInput(x, l.what, l.err, weightDType(l.weight), 1, l.in); bad != nil {
		return bad
	}
	e := engineFor(x)
	return scoped(e, func() *tensor.Tensor {
		if x.Rank() == 1 {
			return e.Reshape(l.Forward(e.Reshape(x, 1, l.in)), l.out)
		}
		return affine(e, e.MatMulT(x, l.weight, false, true), l.scale, l.bias)
	})
}
