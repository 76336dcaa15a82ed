package nn

import (
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
)

// Activation is a function applied to x as a layer with no parameters:
// ReLU, LeakyReLU, GELU, GELUTanh, Tanh, Sigmoid, Softmax and LogSoftmax
// (PyTorch's nn.ReLU and its kin). It behaves the same in both modes and follows
// Module's concurrency contract.
type Activation struct {
	layer
	name string
	f    func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor
}

// activation makes the Activation called name computing f.
func activation(name string, f func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor) *Activation {
	a := &Activation{name: "nn: " + name, f: f}
	a.init(nil, nil, nil)
	return a
}

// ReLU is max(x, 0).
func ReLU() *Activation { return activation("ReLU", (*tensor.Engine).Relu) }

// LeakyReLU is x for x > 0, alpha·x otherwise.
func LeakyReLU(alpha float32) *Activation {
	return activation(fmt.Sprintf("LeakyReLU(%g)", alpha), func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor {
		return e.LeakyRelu(x, alpha)
	})
}

// GELU is x·Φ(x), Φ the standard normal distribution function, exactly
// (through erf: tensor.Engine.GeluErf), as PyTorch's nn.GELU() computes it
// by default. Before issue 20 it was the tanh approximation, which
// GELUTanh now makes: models trained with the old GELU and compared bit
// for bit (or loaded from PyTorch models made with approximate="tanh")
// should use GELUTanh.
func GELU() *Activation { return activation("GELU", (*tensor.Engine).GeluErf) }

// GELUTanh is GELU in its tanh approximation,
// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) (tensor.Engine.Gelu;
// PyTorch's nn.GELU(approximate="tanh"), tfjs's gelu, GPT-2's). Like
// every Activation it follows Module's concurrency contract.
func GELUTanh() *Activation { return activation("GELUTanh", (*tensor.Engine).Gelu) }

// Tanh is the hyperbolic tangent.
func Tanh() *Activation { return activation("Tanh", (*tensor.Engine).Tanh) }

// Sigmoid is 1/(1 + e^−x).
func Sigmoid() *Activation { return activation("Sigmoid", (*tensor.Engine).Sigmoid) }

// Softmax is the softmax along the last axis.
func Softmax() *Activation {
	return activation("Softmax", func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Softmax(x, x.Rank()-1) })
}

// LogSoftmax is the log of the softmax along the last axis.
func LogSoftmax() *Activation {
	return activation("LogSoftmax", func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor {
		return e.LogSoftmax(x, x.Rank()-1)
	})
}

// Forward applies the function to x (float32, float16 or bfloat16) on x's
// engine. See Module.
func (a *Activation) Forward(x *tensor.Tensor) *tensor.Tensor {
	if bad := checkInput(x, a.name, nil, floatOf(x), 0, -1); bad != nil {
		return bad
	}
	return a.f(engineFor(x), x)
}

// Flatten reshapes x [N, d1, d2, ...] to [N, d1·d2·...], keeping the first
// axis (the batch), as PyTorch's nn.Flatten() and Keras's Flatten do; x [N]
// becomes [N, 1]. The result is a view sharing x's storage: no copy, no
// kernel. It has no parameters, behaves the same in both modes and follows
// Module's concurrency contract.
type Flatten struct{ layer }

// NewFlatten makes a Flatten layer.
func NewFlatten() *Flatten {
	f := &Flatten{}
	f.init(nil, nil, nil)
	return f
}

// Forward returns x flattened after its first axis, on x's engine. See
// Flatten.
func (f *Flatten) Forward(x *tensor.Tensor) *tensor.Tensor {
	if bad := checkInput(x, "nn: Flatten", nil, x.DType(), 1, -1); bad != nil {
		return bad
	}
	n := x.Shape()[0]
	rest := 1
	for _, d := range x.Shape()[1:] {
		rest *= d
	}
	return engineFor(x).Reshape(x, n, rest)
}
