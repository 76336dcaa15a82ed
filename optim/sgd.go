package optim

import (
	"math"

	"github.com/wgtensor/wgtensor/tensor"
)

// SGDConfig holds SGD's hyperparameters, as torch.optim.SGD names them.
type SGDConfig struct {
	LR          float64 // learning rate, ≥ 0
	Momentum    float64 // momentum factor μ, ≥ 0; 0 keeps no state
	Dampening   float64 // dampening τ of the momentum
	WeightDecay float64 // L2 penalty λ, ≥ 0, added to the gradient
	Nesterov    bool    // Nesterov momentum: needs Momentum > 0 and Dampening 0
}

// SGD is stochastic gradient descent with optional momentum, dampening,
// Nesterov momentum and weight decay, computing what torch.optim.SGD
// computes. For each parameter p with gradient g, at step t:
//
//	g ← g + λp                      (if λ ≠ 0)
//	b ← g at the first step with momentum, else μb + (1−τ)g
//	g ← g + μb if Nesterov, else b  (if μ ≠ 0)
//	p ← p − lr·g
//
// The state ("<param>.momentum_buffer") is created at the first step with
// Momentum ≠ 0. The hyperparameters are fields (SGDConfig): change them
// between steps freely; no kernel is compiled again.
//
// An SGD belongs to the goroutine that uses its engine, like the engine's
// ops.
type SGD struct {
	SGDConfig
	base
}

// NewSGD returns an SGD optimizer updating params on e. Each parameter
// must be named, under a name no other has, and be a live float32 tensor
// of e's device sharing its storage with no other parameter; else NewSGD
// returns an error naming it.
func NewSGD(e *tensor.Engine, params []Param, c SGDConfig) (*SGD, error) {
	b, err := newBase(e, "sgd", params)
	if err != nil {
		return nil, err
	}
	return &SGD{SGDConfig: c, base: b}, nil
}

// sgdSlots is every state slot SGD knows.
var sgdSlots = []string{"momentum_buffer"}

// Step updates each parameter with its gradient (grads[i] for the i-th
// parameter; a nil gradient skips the parameter, as PyTorch skips a None
// grad), in place, with one kernel per parameter. It checks everything
// before it updates anything: a gradient of another shape, dtype or
// device, a disposed parameter or gradient, a gradient sharing its storage
// with a tensor the step writes (its parameter, a view of it, its state,
// another parameter being updated), a bad hyperparameter or a disposed
// optimizer updates nothing and returns an error naming the parameter
// (see the package's Errors).
func (s *SGD) Step(grads []*tensor.Tensor) error {
	c := s.SGDConfig
	switch {
	case !(c.LR >= 0) || math.IsInf(c.LR, 0):
		return s.errorf(ErrArgument, "learning rate %v", c.LR)
	case !(c.Momentum >= 0):
		return s.errorf(ErrArgument, "momentum %v", c.Momentum)
	case !(c.WeightDecay >= 0):
		return s.errorf(ErrArgument, "weight decay %v", c.WeightDecay)
	case c.Nesterov && (c.Momentum <= 0 || c.Dampening != 0):
		return s.errorf(ErrArgument, "Nesterov momentum needs a momentum and zero dampening")
	}
	var slots []string
	if c.Momentum != 0 {
		slots = sgdSlots
	}
	return s.step(grads, update{slots: slots, kernel: func(w int) tensor.Kernel { return sgdKernel(slots, w) }, params: func(_ int, fresh bool) []any {
		return f32s(c.LR, c.Momentum, c.Dampening, c.WeightDecay, flag(c.Nesterov), flag(fresh))
	}})
}

// sgdKernel is SGD's update with the given state slots: none, or the
// momentum buffer.
func sgdKernel(slots []string, width int) tensor.Kernel {
	spec := kernelSpec{name: "sgd", members: []string{"lr", "momentum", "dampening", "wd", "nesterov", "fresh"}, slots: slots}
	spec.body = "\tif (u.wd != 0.0f) { g = g + u.wd * p; }\n"
	if len(slots) > 0 {
		spec.body += `	var b = momentum_buffer[i];
	if (u.fresh != 0.0f) { b = g; } else { b = u.momentum * b + (1.0f - u.dampening) * g; }
	momentum_buffer[i] = b;
	if (u.nesterov != 0.0f) { g = g + u.momentum * b; } else { g = b; }
`
	}
	spec.body += "\tp = p - u.lr * g;\n"
	return spec.kernel(width)
}

// SetState writes src into the state tensor called name
// ("0.weight.momentum_buffer"), creating it if no step has yet: loading
// a checkpoint. src must be float32 of the parameter's shape; the caller
// keeps owning it.
func (s *SGD) SetState(name string, src *tensor.Tensor) error {
	return s.setState(name, src, sgdSlots)
}
