package optim

import (
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
)

// RMSPropConfig holds RMSProp's hyperparameters, as torch.optim.RMSprop
// names them. RMSPropDefaults returns PyTorch's defaults.
type RMSPropConfig struct {
	LR          float64 // learning rate, ≥ 0
	Alpha       float64 // smoothing constant α, in [0, 1]
	Eps         float64 // added to the denominator, ≥ 0
	WeightDecay float64 // L2 penalty λ ≥ 0, added to the gradient
	Momentum    float64 // momentum factor μ ≥ 0; 0 keeps no buffer
	Centered    bool    // normalise by the variance, not the second moment
}

// RMSPropDefaults returns torch.optim.RMSprop's defaults: lr 1e-2, alpha
// 0.99, eps 1e-8, no weight decay, no momentum, not centered.
func RMSPropDefaults() RMSPropConfig {
	return RMSPropConfig{LR: 1e-2, Alpha: 0.99, Eps: 1e-8}
}

// RMSProp is the RMSProp optimizer (Hinton), computing what
// torch.optim.RMSprop computes. For each parameter p with gradient g:
//
//	g ← g + λp                       (if λ ≠ 0)
//	s ← αs + (1−α)g²
//	a ← √(s − ḡ²) + ε, with ḡ ← αḡ + (1−α)g, if Centered; else √s + ε
//	b ← μb + g/a, p ← p − lr·b       (if μ > 0)
//	p ← p − lr·g/a                   (if μ = 0)
//
// The state ("<param>.square_avg", with Centered "<param>.grad_avg", with
// Momentum "<param>.momentum_buffer") is created, zeroed, at the first
// step that needs it. The hyperparameters are fields (RMSPropConfig):
// change them between steps freely; no kernel is compiled again (turning
// Centered or Momentum on compiles that kernel once).
//
// With parameter groups (NewRMSPropGroups) each group is updated with its
// own config: the embedded RMSPropConfig is group 0's, Config and
// SetConfig read and write any group's, GroupLR and SetLR its learning
// rate.
//
// An RMSProp belongs to the goroutine that uses its engine, like the
// engine's ops.
type RMSProp struct {
	RMSPropConfig
	base
	rest []RMSPropConfig // groups 1 and on
}

// NewRMSProp returns an RMSProp optimizer updating params on e, which
// must be as NewSGD's are: named uniquely, live float32 tensors of e's
// device, no two sharing their storage. A bad config (see Step) is
// refused too.
func NewRMSProp(e *tensor.Engine, params []Param, c RMSPropConfig) (*RMSProp, error) {
	return NewRMSPropGroups(e, []RMSPropGroup{{Params: params, Config: c}})
}

// NewRMSPropGroups returns an RMSProp optimizer over parameter groups,
// each updated with its own config, as NewSGDGroups does for SGD: one
// optimizer, whose Params, State, SetState, Steps and SetSteps cover
// every group (one checkpoint holds it).
func NewRMSPropGroups(e *tensor.Engine, groups []RMSPropGroup) (*RMSProp, error) {
	ps, cs := splitGroups(groups)
	b, err := newGroups(e, "rmsprop", ps)
	if err != nil {
		return nil, err
	}
	r := &RMSProp{base: b}
	if len(cs) > 0 {
		r.RMSPropConfig, r.rest = cs[0], cs[1:]
	}
	if err := checkConfigs(&r.base, r.config, badRMSProp); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *RMSProp) config(g int) *RMSPropConfig { return at(&r.RMSPropConfig, r.rest, g) }

// Config returns the hyperparameters of group g, or an error if there is
// no group g.
func (r *RMSProp) Config(g int) (RMSPropConfig, error) { return getConfig(&r.base, r.config, g) }

// SetConfig sets the hyperparameters of group g, or returns an error
// (naming the group) and changes nothing if there is no group g or c is
// bad. Changing them compiles nothing, but Centered or Momentum from 0
// compiles its kernel once.
func (r *RMSProp) SetConfig(g int, c RMSPropConfig) error {
	return setConfig(&r.base, r.config, g, c, badRMSProp)
}

// GroupLR returns the learning rate of group g, or NaN if there is no
// group g.
func (r *RMSProp) GroupLR(g int) float64 { return groupLR(&r.base, r.config, g, rmspropLR) }

// SetLR sets the learning rate of group g (finite, ≥ 0), as a schedule
// does: it compiles nothing.
func (r *RMSProp) SetLR(g int, lr float64) error {
	return setLR(&r.base, r.config, g, lr, rmspropLR)
}

func rmspropLR(c *RMSPropConfig) *float64 { return &c.LR }

// rmspropSlots is every state slot RMSProp knows.
var rmspropSlots = []string{"square_avg", "grad_avg", "momentum_buffer"}

// badRMSProp describes what is wrong with c, or is empty.
func badRMSProp(c RMSPropConfig) string {
	switch {
	case badLR(c.LR) != "":
		return badLR(c.LR)
	case !(c.Alpha >= 0 && c.Alpha <= 1):
		return fmt.Sprintf("alpha %v", c.Alpha)
	case !(c.Eps >= 0):
		return fmt.Sprintf("eps %v", c.Eps)
	case !(c.WeightDecay >= 0):
		return fmt.Sprintf("weight decay %v", c.WeightDecay)
	case !(c.Momentum >= 0):
		return fmt.Sprintf("momentum %v", c.Momentum)
	}
	return ""
}

// Step updates each parameter with its gradient, with its group's
// hyperparameters, as SGD.Step does: several parameters per dispatch (at
// most 10 on lavapipe, 5 on GL; 6 and 3 centered with momentum), nil
// gradients skipped, everything checked before anything is updated, each
// element's result bit for bit that of a kernel per parameter.
func (r *RMSProp) Step(grads []*tensor.Tensor) error {
	if err := checkConfigs(&r.base, r.config, badRMSProp); err != nil {
		return err
	}
	return r.step(grads, r.updates())
}

// updates is the update of each group under its config now.
func (r *RMSProp) updates() []update {
	us := make([]update, r.NumGroups())
	for g := range us {
		c := *r.config(g)
		slots := []string{"square_avg"}
		if c.Centered {
			slots = append(slots, "grad_avg")
		}
		if c.Momentum > 0 {
			slots = append(slots, "momentum_buffer")
		}
		us[g] = update{slots: slots, spec: rmspropKernel(slots), params: func(int, bool) []float32 {
			return f32s(c.LR, c.Alpha, c.Eps, c.WeightDecay, c.Momentum)
		}}
	}
	return us
}

// rmspropKernel is RMSProp's update (rmsprop.wgsl) with the given state
// slots: the square average, then the gradient average if centered, then
// the momentum buffer if any.
func rmspropKernel(slots []string) kernelSpec {
	return newKernelSpec("rmsprop", []string{"lr", "alpha", "eps", "wd", "momentum"}, slots)
}

// SetState writes src into the state tensor called name
// ("0.weight.square_avg"), as SGD.SetState does.
func (r *RMSProp) SetState(name string, src *tensor.Tensor) error {
	return r.setState(name, src, rmspropSlots)
}
