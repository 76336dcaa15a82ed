package optim

import (
	"fmt"
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
// With parameter groups (NewAdamGroups, NewAdamWGroups) each group is
// updated with its own config: the embedded AdamConfig is group 0's,
// Config and SetConfig read and write any group's, GroupLR and SetLR its
// learning rate.
//
// An Adam belongs to the goroutine that uses its engine, like the
// engine's ops.
type Adam struct {
	AdamConfig
	base
	decoupled bool
	rest      []AdamConfig // groups 1 and on
}

// NewAdam returns an Adam optimizer updating params on e, which must be
// as NewSGD's are: named uniquely, live float32 tensors of e's device, no
// two sharing their storage. A bad config (see Step) is refused too.
func NewAdam(e *tensor.Engine, params []Param, c AdamConfig) (*Adam, error) {
	return newAdam(e, "adam", []AdamGroup{{Params: params, Config: c}}, false)
}

// NewAdamW returns an AdamW optimizer (Adam with decoupled weight decay)
// updating params on e, which must be as NewSGD's are.
func NewAdamW(e *tensor.Engine, params []Param, c AdamConfig) (*Adam, error) {
	return newAdam(e, "adamw", []AdamGroup{{Params: params, Config: c}}, true)
}

// NewAdamGroups returns an Adam optimizer over parameter groups, each
// updated with its own config, as NewSGDGroups does for SGD: one
// optimizer, whose Params, State, SetState, Steps and SetSteps cover
// every group (one checkpoint holds it).
func NewAdamGroups(e *tensor.Engine, groups []AdamGroup) (*Adam, error) {
	return newAdam(e, "adam", groups, false)
}

// NewAdamWGroups returns an AdamW optimizer over parameter groups, as
// NewAdamGroups does: the usual "no weight decay for biases and norms" is
// a second group whose WeightDecay is 0.
func NewAdamWGroups(e *tensor.Engine, groups []AdamGroup) (*Adam, error) {
	return newAdam(e, "adamw", groups, true)
}

func newAdam(e *tensor.Engine, kind string, groups []AdamGroup, decoupled bool) (*Adam, error) {
	ps, cs := splitGroups(groups)
	b, err := newGroups(e, kind, ps)
	if err != nil {
		return nil, err
	}
	a := &Adam{base: b, decoupled: decoupled}
	if len(cs) > 0 {
		a.AdamConfig, a.rest = cs[0], cs[1:]
	}
	if err := checkConfigs(&a.base, a.config, badAdam); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *Adam) config(g int) *AdamConfig { return at(&a.AdamConfig, a.rest, g) }

// Config returns the hyperparameters of group g, or an error if there is
// no group g.
func (a *Adam) Config(g int) (AdamConfig, error) { return getConfig(&a.base, a.config, g) }

// SetConfig sets the hyperparameters of group g, or returns an error
// (naming the group) and changes nothing if there is no group g or c is
// bad. Changing them compiles nothing, but AMSGrad compiles its kernel
// once.
func (a *Adam) SetConfig(g int, c AdamConfig) error {
	return setConfig(&a.base, a.config, g, c, badAdam)
}

// GroupLR returns the learning rate of group g, or NaN if there is no
// group g.
func (a *Adam) GroupLR(g int) float64 { return groupLR(&a.base, a.config, g, adamLR) }

// SetLR sets the learning rate of group g (finite, ≥ 0), as a schedule
// does: it compiles nothing.
func (a *Adam) SetLR(g int, lr float64) error { return setLR(&a.base, a.config, g, lr, adamLR) }

func adamLR(c *AdamConfig) *float64 { return &c.LR }

// adamSlots is every state slot Adam knows.
var adamSlots = []string{"exp_avg", "exp_avg_sq", "max_exp_avg_sq"}

// badAdam describes what is wrong with c, or is empty.
func badAdam(c AdamConfig) string {
	switch {
	case badLR(c.LR) != "":
		return badLR(c.LR)
	case !(c.Beta1 >= 0 && c.Beta1 < 1) || !(c.Beta2 >= 0 && c.Beta2 < 1):
		return fmt.Sprintf("betas (%v, %v); each must be in [0, 1)", c.Beta1, c.Beta2)
	case !(c.Eps >= 0):
		return fmt.Sprintf("eps %v", c.Eps)
	case !(c.WeightDecay >= 0):
		return fmt.Sprintf("weight decay %v", c.WeightDecay)
	}
	return ""
}

// Step updates each parameter with its gradient, with its group's
// hyperparameters, as SGD.Step does: several parameters per dispatch (at
// most 8 on lavapipe, 4 on GL; 6 and 3 with AMSGrad), nil gradients
// skipped, everything checked before anything is updated, each element's
// result bit for bit that of a kernel per parameter.
func (a *Adam) Step(grads []*tensor.Tensor) error {
	if err := checkConfigs(&a.base, a.config, badAdam); err != nil {
		return err
	}
	return a.step(grads, a.updates())
}

// updates is the update of each group under its config now.
func (a *Adam) updates() []update {
	us := make([]update, a.NumGroups())
	for g := range us {
		c := *a.config(g)
		slots := adamSlots[:2]
		if c.AMSGrad {
			slots = adamSlots
		}
		us[g] = update{slots: slots, spec: adamKernel(slots), params: func(t int, _ bool) []float32 {
			decay, l2 := 1.0, c.WeightDecay
			if a.decoupled {
				decay, l2 = 1-c.LR*c.WeightDecay, 0
			}
			bc1 := 1 - math.Pow(c.Beta1, float64(t))
			bc2 := 1 - math.Pow(c.Beta2, float64(t))
			return f32s(decay, l2, c.Beta1, c.Beta2, c.Eps, c.LR/bc1, math.Sqrt(bc2))
		}}
	}
	return us
}

// adamKernel is Adam's and AdamW's update (adam.wgsl) with the given
// state slots: the moments, and with AMSGrad their maximum.
func adamKernel(slots []string) kernelSpec {
	return newKernelSpec("adam", []string{"decay", "l2", "beta1", "beta2", "eps", "step_size", "bc2_sqrt"}, slots)
}

// SetState writes src into the state tensor called name
// ("0.weight.exp_avg"), as SGD.SetState does.
func (a *Adam) SetState(name string, src *tensor.Tensor) error {
	return a.setState(name, src, adamSlots)
}
