package optim

import (
	"math"

	"github.com/wgtensor/wgtensor/tensor"
)

// AdamConfig holds Adam's and AdamW's hyperparameters, as torch.optim.Adam
// names them. AdamDefaults and AdamWDefaults return PyTorch's defaults.
type AdamConfig struct {
	LR           float64 // learning rate, ≥ 0
	Beta1, Beta2 float64 // decay rates of the moments, in [0, 1)
	Eps          float64 // added to the denominator, ≥ 0
	WeightDecay  float64 // λ ≥ 0: an L2 penalty for Adam, decoupled decay for AdamW
	AMSGrad      bool    // use the maximum of the second moments so far
}

// AdamDefaults returns torch.optim.Adam's defaults: lr 1e-3, betas (0.9,
// 0.999), eps 1e-8, no weight decay.
func AdamDefaults() AdamConfig {
	return AdamConfig{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
}

// AdamWDefaults returns torch.optim.AdamW's defaults: Adam's with weight
// decay 1e-2.
func AdamWDefaults() AdamConfig {
	c := AdamDefaults()
	c.WeightDecay = 1e-2
	return c
}

// Adam is the Adam optimizer (Kingma and Ba), computing what
// torch.optim.Adam computes; NewAdamW makes AdamW, whose weight decay is
// decoupled from the gradient (torch.optim.AdamW). For each parameter p
// with gradient g, at its step t (counted per parameter from 1):
//
//	p ← p(1 − lr·λ)                    (AdamW)
//	g ← g + λp                         (Adam, if λ ≠ 0)
//	m ← β₁m + (1−β₁)g
//	v ← β₂v + (1−β₂)g²
//	v̂ ← max(v̂, v) if AMSGrad, else v
//	p ← p − lr/(1−β₁ᵗ) · m / (√v̂ / √(1−β₂ᵗ) + ε)
//
// The state ("<param>.exp_avg", "<param>.exp_avg_sq" and with AMSGrad
// "<param>.max_exp_avg_sq") is created, zeroed, at a parameter's first
// step. The hyperparameters are fields (AdamConfig): change them between
// steps freely; no kernel is compiled again (turning AMSGrad on compiles
// its kernel once).
//
// An Adam belongs to the goroutine that uses its engine, like the
// engine's ops.
type Adam struct {
	AdamConfig
	base
	decoupled bool
}

// NewAdam returns an Adam optimizer updating params on e, which must be
// as NewSGD's are: named uniquely, live float32 tensors of e's device, no
// two sharing their storage.
func NewAdam(e *tensor.Engine, params []Param, c AdamConfig) (*Adam, error) {
	return newAdam(e, "adam", params, c, false)
}

// NewAdamW returns an AdamW optimizer (Adam with decoupled weight decay)
// updating params on e, which must be as NewSGD's are.
func NewAdamW(e *tensor.Engine, params []Param, c AdamConfig) (*Adam, error) {
	return newAdam(e, "adamw", params, c, true)
}

func newAdam(e *tensor.Engine, kind string, params []Param, c AdamConfig, decoupled bool) (*Adam, error) {
	b, err := newBase(e, kind, params)
	if err != nil {
		return nil, err
	}
	return &Adam{AdamConfig: c, base: b, decoupled: decoupled}, nil
}

// adamSlots is every state slot Adam knows.
var adamSlots = []string{"exp_avg", "exp_avg_sq", "max_exp_avg_sq"}

// Step updates each parameter with its gradient, as SGD.Step does: one
// kernel per parameter, nil gradients skipped, everything checked before
// anything is updated.
func (a *Adam) Step(grads []*tensor.Tensor) error {
	c := a.AdamConfig
	switch {
	case !(c.LR >= 0) || math.IsInf(c.LR, 0):
		return a.errorf(ErrArgument, "learning rate %v", c.LR)
	case !(c.Beta1 >= 0 && c.Beta1 < 1) || !(c.Beta2 >= 0 && c.Beta2 < 1):
		return a.errorf(ErrArgument, "betas (%v, %v); each must be in [0, 1)", c.Beta1, c.Beta2)
	case !(c.Eps >= 0):
		return a.errorf(ErrArgument, "eps %v", c.Eps)
	case !(c.WeightDecay >= 0):
		return a.errorf(ErrArgument, "weight decay %v", c.WeightDecay)
	}
	slots := adamSlots[:2]
	if c.AMSGrad {
		slots = adamSlots
	}
	return a.step(grads, update{slots: slots, kernel: func(w int) tensor.Kernel { return adamKernel(slots, w) }, params: func(t int, _ bool) []any {
		decay, l2 := 1.0, c.WeightDecay
		if a.decoupled {
			decay, l2 = 1-c.LR*c.WeightDecay, 0
		}
		bc1 := 1 - math.Pow(c.Beta1, float64(t))
		bc2 := 1 - math.Pow(c.Beta2, float64(t))
		return f32s(decay, l2, c.Beta1, c.Beta2, c.Eps, c.LR/bc1, math.Sqrt(bc2))
	}})
}

// adamKernel is Adam's update with the given state slots: the moments,
// and with AMSGrad their maximum.
func adamKernel(slots []string, width int) tensor.Kernel {
	spec := kernelSpec{name: "adam", members: []string{"decay", "l2", "beta1", "beta2", "eps", "step_size", "bc2_sqrt"}, slots: slots}
	spec.body = `	if (u.decay != 1.0f) { p = p * u.decay; }
	if (u.l2 != 0.0f) { g = g + u.l2 * p; }
	let m = exp_avg[i] + (1.0f - u.beta1) * (g - exp_avg[i]);
	var v = u.beta2 * exp_avg_sq[i] + (1.0f - u.beta2) * g * g;
	exp_avg[i] = m;
	exp_avg_sq[i] = v;
`
	if len(slots) == len(adamSlots) {
		spec.body += "\tv = max(max_exp_avg_sq[i], v);\n\tmax_exp_avg_sq[i] = v;\n"
	}
	spec.body += "\tp = p - u.step_size * (m / (sqrt(v) / u.bc2_sqrt + u.eps));\n"
	return spec.kernel(width)
}

// SetState writes src into the state tensor called name
// ("0.weight.exp_avg"), as SGD.SetState does.
func (a *Adam) SetState(name string, src *tensor.Tensor) error {
	return a.setState(name, src, adamSlots)
}
