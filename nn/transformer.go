package nn

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// TransformerConfig configures a TransformerLayer. D, Heads and
// FeedForward must be set; the other fields' zero values are PyTorch's
// defaults except where they say.
type TransformerConfig struct {
	D, Heads, FeedForward int // d_model, nhead, dim_feedforward
	// Dropout is the probability of the layer's dropouts (on the
	// attention weights, after attention, in the feed-forward block and
	// after it), in [0, 1). PyTorch's default is 0.1; 0 here is none.
	Dropout float32
	// Activation is the feed-forward block's: ReLU (nil, PyTorch's
	// default), GELU, or any Module that keeps its input's shape.
	Activation Module
	// Eps is the LayerNorms' ε; 0 means PyTorch's 1e-5.
	Eps float32
	// NormFirst normalises before attention and the feed-forward block
	// (pre-norm, as GPT-2 does) instead of after (post-norm, PyTorch's
	// default).
	NormFirst bool
	// Causal makes self-attention causal: with it the layer is a
	// decoder-only (GPT) block.
	Causal bool
}

// TransformerLayer is PyTorch's nn.TransformerEncoderLayer with
// batch_first=True, and with Causal a decoder-only (GPT) block. For x
// [batch, T, D], post-norm (the default) computes
//
//	x = norm1(x + dropout1(self_attn(x)))
//	x = norm2(x + dropout2(linear2(dropout(activation(linear1(x))))))
//
// and pre-norm (NormFirst)
//
//	x = x + dropout1(self_attn(norm1(x)))
//	x = x + dropout2(linear2(dropout(activation(linear1(norm2(x))))))
//
// Its submodules and tensors have PyTorch's names: "self_attn.*" (a
// MultiheadAttention), "linear1.*", "linear2.*", "norm1.*", "norm2.*"; so
// a PyTorch TransformerEncoderLayer's state dict loads as it is. It is a
// Parent and follows Module's concurrency contract.
type TransformerLayer struct {
	SelfAttn                    *MultiheadAttention
	Linear1, Linear2            *Linear
	Norm1, Norm2                *LayerNorm
	Dropout, Dropout1, Dropout2 *Dropout
	Activation                  Module
	c                           TransformerConfig
	err                         error
	training                    atomic.Bool
	what                        string
}

// TransformerLayer makes a TransformerLayer of c.
func (b *Builder) TransformerLayer(c TransformerConfig) *TransformerLayer {
	l := &TransformerLayer{c: c, what: fmt.Sprintf("nn: TransformerLayer(%d, %d, %d)", c.D, c.Heads, c.FeedForward)}
	l.training.Store(true)
	switch {
	case c.D <= 0 || c.Heads <= 0 || c.FeedForward <= 0:
		l.err = b.fail(fmt.Errorf("%s: D, Heads and FeedForward must be positive: %w", l.what, tensor.ErrArgument))
	case c.D%c.Heads != 0:
		l.err = b.fail(fmt.Errorf("%s: %d heads do not divide D = %d: %w", l.what, c.Heads, c.D, tensor.ErrArgument))
	case !(c.Dropout >= 0 && c.Dropout < 1):
		l.err = b.fail(fmt.Errorf("%s: dropout %g outside [0, 1): %w", l.what, c.Dropout, tensor.ErrArgument))
	case c.Eps < 0:
		l.err = b.fail(fmt.Errorf("%s: eps %g is negative: %w", l.what, c.Eps, tensor.ErrArgument))
	}
	if l.err != nil {
		return l
	}
	eps := c.Eps
	if eps == 0 {
		eps = 1e-5
	}
	l.SelfAttn = b.MultiheadAttention(c.D, c.Heads, AttentionConfig{Dropout: c.Dropout, Causal: c.Causal})
	l.Linear1 = b.Linear(c.D, c.FeedForward, WeightInit(torchLinearInit), BiasInit(torchLinearInit))
	l.Dropout = b.Dropout(c.Dropout)
	l.Linear2 = b.Linear(c.FeedForward, c.D, WeightInit(torchLinearInit), BiasInit(torchLinearInit))
	l.Norm1 = b.LayerNorm(c.D, Eps(eps))
	l.Norm2 = b.LayerNorm(c.D, Eps(eps))
	l.Dropout1 = b.Dropout(c.Dropout)
	l.Dropout2 = b.Dropout(c.Dropout)
	l.Activation = c.Activation
	if l.Activation == nil {
		l.Activation = ReLU()
	}
	if err := b.Err(); err != nil {
		l.err = fmt.Errorf("%s: %w", l.what, err)
		l.Dispose()
	}
	return l
}

// torchLinearInit is PyTorch's initialisation of a Linear's weight and
// bias: U(±1/√fanIn).
func torchLinearInit(e *tensor.Engine, seed uint64, shape []int, fanIn, _ int) *tensor.Tensor {
	return uniformWithin(e, seed, shape, 1/math.Sqrt(float64(fanIn)))
}

// Forward runs the layer on x [batch, T, D], on x's engine. See
// TransformerLayer and Module.
func (l *TransformerLayer) Forward(x *tensor.Tensor) *tensor.Tensor {
	return l.ForwardMasked(x, AttendOptions{})
}

// ForwardMasked is Forward with self-attention's masks (PyTorch's
// src_mask, src_key_padding_mask and is_causal).
func (l *TransformerLayer) ForwardMasked(x *tensor.Tensor, o AttendOptions) *tensor.Tensor {
	var weights *tensor.Tensor // the layer's dtype: its attention's
	if l.SelfAttn != nil {
		weights = l.SelfAttn.inW
	}
	if bad := checkInput(x, l.what, l.err, weightDType(weights), 3, l.c.D); bad != nil {
		return bad
	}
	if x.Rank() != 3 {
		return refuse(x, l.what, tensor.ErrShape, "want [batch, T, %d]", l.c.D)
	}
	e := engineFor(x)
	// Each intermediate is freed as soon as it is used (chain, plus): the
	// layer holds at most the residual stream and two results of a
	// sublayer at once, besides what a tape saves.
	return scoped(e, func() *tensor.Tensor {
		attend := func(h *tensor.Tensor) *tensor.Tensor { return l.SelfAttn.Attend(h, h, h, o) }
		attn := chain(attend, l.Dropout1.Forward)
		ff := chain(l.Linear1.Forward, l.Activation.Forward, l.Dropout.Forward, l.Linear2.Forward, l.Dropout2.Forward)
		residual := func(f func(*tensor.Tensor) *tensor.Tensor) func(*tensor.Tensor) *tensor.Tensor {
			return func(h *tensor.Tensor) *tensor.Tensor { return plus(e, h, f) }
		}
		if l.c.NormFirst {
			x1 := plus(e, x, chain(l.Norm1.Forward, attn))
			return consumed(plus(e, x1, chain(l.Norm2.Forward, ff)), x1)
		}
		x1 := chain(residual(attn), l.Norm1.Forward)(x)
		return consumed(chain(residual(ff), l.Norm2.Forward)(x1), x1)
	})
}

// Children lists the submodules under PyTorch's names, in PyTorch's
// order.
func (l *TransformerLayer) Children() []Child {
	if l.SelfAttn == nil {
		return nil
	}
	return []Child{
		{"self_attn", l.SelfAttn}, {"linear1", l.Linear1}, {"dropout", l.Dropout}, {"linear2", l.Linear2},
		{"norm1", l.Norm1}, {"norm2", l.Norm2}, {"dropout1", l.Dropout1}, {"dropout2", l.Dropout2},
		{"activation", l.Activation},
	}
}

// Params lists the parameters, PyTorch's names and order. See Module.
func (l *TransformerLayer) Params() []optim.Param {
	return collectChildren(l.Children(), Module.Params)
}

// Buffers lists the buffers: none. See Module.
func (l *TransformerLayer) Buffers() []optim.Param {
	return collectChildren(l.Children(), Module.Buffers)
}

// SetTraining sets the mode of the layer and its submodules.
func (l *TransformerLayer) SetTraining(on bool) {
	l.training.Store(on)
	setTraining(l.Children(), on)
}

// Training reports the mode SetTraining set last.
func (l *TransformerLayer) Training() bool { return l.training.Load() }

// Dispose frees every submodule's tensors. See Module.
func (l *TransformerLayer) Dispose() {
	disposeChildren(l.Children())
}
