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
// The random ones draw on the GPU with Philox (tensor.Engine.RandUniform
// and RandNormal), so a seed gives the same numbers on every device. An
// Init is called on the Builder's goroutine, inside a tidy scope that
// frees whatever else it makes.
type Init func(e *tensor.Engine, seed uint64, shape []int, fanIn, fanOut int) *tensor.Tensor

// The initialisers, as torch.nn.init and Keras define them. Glorot (Xavier)
// keeps the variance of activations and gradients through a layer with
// both fans, He (Kaiming) through a ReLU layer with fan-in. The normal ones
// draw from the plain normal distribution, as PyTorch's xavier_normal_ and
// kaiming_normal_ do (Keras truncates at two deviations).
var (
	// GlorotUniform draws from U(−a, a), a = √(6/(fanIn+fanOut)):
	// xavier_uniform_, Keras's glorot_uniform (the default of Dense).
	GlorotUniform Init = uniformScaled(func(in, out int) float64 { return math.Sqrt(6 / float64(in+out)) })
	// GlorotNormal draws from N(0, 2/(fanIn+fanOut)): xavier_normal_.
	GlorotNormal Init = normalScaled(func(in, out int) float64 { return math.Sqrt(2 / float64(in+out)) })
	// HeUniform draws from U(−a, a), a = √(6/fanIn): kaiming_uniform_ for a
	// ReLU.
	HeUniform Init = uniformScaled(func(in, _ int) float64 { return math.Sqrt(6 / float64(in)) })
	// HeNormal draws from N(0, 2/fanIn): kaiming_normal_ for a ReLU.
	HeNormal Init = normalScaled(func(in, _ int) float64 { return math.Sqrt(2 / float64(in)) })
	// Zeros fills with 0.
	Zeros Init = Constant(0)
	// Ones fills with 1.
	Ones Init = Constant(1)
)

// Constant fills with v.
func Constant(v float32) Init {
	return func(e *tensor.Engine, _ uint64, shape []int, _, _ int) *tensor.Tensor {
		return e.Fill(tensor.Float32, float64(v), shape...)
	}
}

// Uniform draws from U(lo, hi).
func Uniform(lo, hi float32) Init {
	return func(e *tensor.Engine, seed uint64, shape []int, _, _ int) *tensor.Tensor {
		return e.RandUniform(seed, lo, hi, shape...)
	}
}

// Normal draws from N(0, std²): nn.Embedding's default with std 1.
func Normal(std float32) Init {
	return func(e *tensor.Engine, seed uint64, shape []int, _, _ int) *tensor.Tensor {
		return e.RandNormal(seed, 0, std, shape...)
	}
}

// uniformScaled draws from U(−a, a) with a from the fans.
func uniformScaled(limit func(fanIn, fanOut int) float64) Init {
	return func(e *tensor.Engine, seed uint64, shape []int, fanIn, fanOut int) *tensor.Tensor {
		a := float32(limit(max(fanIn, 1), max(fanOut, 1)))
		return e.RandUniform(seed, -a, a, shape...)
	}
}

// normalScaled draws from N(0, std²) with std from the fans.
func normalScaled(std func(fanIn, fanOut int) float64) Init {
	return func(e *tensor.Engine, seed uint64, shape []int, fanIn, fanOut int) *tensor.Tensor {
		return e.RandNormal(seed, 0, float32(std(max(fanIn, 1), max(fanOut, 1))), shape...)
	}
}
