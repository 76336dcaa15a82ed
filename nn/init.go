package nn

import (
	"math"

	"github.com/wgtensor/wgtensor/tensor"
)

// Init makes a parameter's initial values: a float32 tensor of shape on e,
// drawn (if it draws) from seed, which the Builder derives for that
// parameter alone. fanIn and fanOut are the numbers of inputs and outputs
// each weight connects (a Linear's in and out features; a convolution's
// kh·kw·in and kh·kw·out channels), which the scaled initialisers use.
//
// The package's initialisers are those of torch.nn.init and Keras: Glorot
// (Xavier) keeps the variance of activations and gradients through a layer
// with both fans, He (Kaiming) through a ReLU layer with fan-in. The normal
// ones draw from the plain normal distribution, as PyTorch's xavier_normal_
// and kaiming_normal_ do (Keras truncates at two deviations). The random
// ones draw on the GPU with Philox (tensor.Engine.RandUniform and
// RandNormal), so a seed gives the same numbers on every device.
//
// An Init is called on the Builder's goroutine, inside a tidy scope that
// frees whatever else it makes. The package's are functions of their
// arguments alone: safe for concurrent use on different engines.
type Init func(e *tensor.Engine, seed uint64, shape []int, fanIn, fanOut int) *tensor.Tensor

// GlorotUniform draws from U(−a, a), a = √(6/(fanIn+fanOut)):
// xavier_uniform_, Keras's glorot_uniform (the default of Dense).
func GlorotUniform(e *tensor.Engine, seed uint64, shape []int, fanIn, fanOut int) *tensor.Tensor {
	return uniformWithin(e, seed, shape, math.Sqrt(6/float64(max(fanIn+fanOut, 1))))
}

// GlorotNormal draws from N(0, 2/(fanIn+fanOut)): xavier_normal_.
func GlorotNormal(e *tensor.Engine, seed uint64, shape []int, fanIn, fanOut int) *tensor.Tensor {
	return e.RandNormal(seed, 0, float32(math.Sqrt(2/float64(max(fanIn+fanOut, 1)))), shape...)
}

// HeUniform draws from U(−a, a), a = √(6/fanIn): kaiming_uniform_ for a
// ReLU.
func HeUniform(e *tensor.Engine, seed uint64, shape []int, fanIn, _ int) *tensor.Tensor {
	return uniformWithin(e, seed, shape, math.Sqrt(6/float64(max(fanIn, 1))))
}

// HeNormal draws from N(0, 2/fanIn): kaiming_normal_ for a ReLU.
func HeNormal(e *tensor.Engine, seed uint64, shape []int, fanIn, _ int) *tensor.Tensor {
	return e.RandNormal(seed, 0, float32(math.Sqrt(2/float64(max(fanIn, 1)))), shape...)
}

// Zeros fills with 0.
func Zeros(e *tensor.Engine, _ uint64, shape []int, _, _ int) *tensor.Tensor {
	return e.Zeros(tensor.Float32, shape...)
}

// Ones fills with 1.
func Ones(e *tensor.Engine, _ uint64, shape []int, _, _ int) *tensor.Tensor {
	return e.Ones(tensor.Float32, shape...)
}

// uniformWithin draws from U(−a, a).
func uniformWithin(e *tensor.Engine, seed uint64, shape []int, a float64) *tensor.Tensor {
	return e.RandUniform(seed, -float32(a), float32(a), shape...)
}

// Constant returns an Init filling with v.
func Constant(v float32) Init {
	return func(e *tensor.Engine, _ uint64, shape []int, _, _ int) *tensor.Tensor {
		return e.Fill(tensor.Float32, float64(v), shape...)
	}
}

// Uniform returns an Init drawing from U(lo, hi).
func Uniform(lo, hi float32) Init {
	return func(e *tensor.Engine, seed uint64, shape []int, _, _ int) *tensor.Tensor {
		return e.RandUniform(seed, lo, hi, shape...)
	}
}

// Normal returns an Init drawing from N(0, std²): nn.Embedding's default
// with std 1.
func Normal(std float32) Init {
	return func(e *tensor.Engine, seed uint64, shape []int, _, _ int) *tensor.Tensor {
		return e.RandNormal(seed, 0, std, shape...)
	}
}
