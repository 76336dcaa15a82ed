package optim

import (
	"fmt"
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
// With parameter groups (NewSGDGroups) each group is updated with its own
// config: the embedded SGDConfig is group 0's, Config and SetConfig read
// and write any group's, GroupLR and SetLR its learning rate.
//
// An SGD belongs to the goroutine that uses its engine, like the engine's
// ops.
type SGD struct {
	SGDConfig
	base
	rest []SGDConfig // groups 1 and on
}

// NewSGD returns an SGD optimizer updating params on e. Each parameter
// must be named, under a name no other has, and be a live float32 tensor
// of e's device sharing its storage with no other parameter; else NewSGD
// returns an error naming it. A bad config (see Step) is refused too.
func NewSGD(e *tensor.Engine, params []Param, c SGDConfig) (*SGD, error) {
	return NewSGDGroups(e, []SGDGroup{{Params: params, Config: c}})
}

// NewSGDGroups returns an SGD optimizer over parameter groups, each
// updated with its own config, as torch.optim.SGD over param_groups. It
// is one optimizer: Params lists every group's parameters, group after
// group, in the order Step takes their gradients, and State, SetState,
// Steps and SetSteps cover them all, so one checkpoint holds it. Every
// parameter must be as NewSGD's are, and also: no group empty, no name
// twice in a group or in two groups, no bad config (a negative rate...);
// the error names the group and the parameter.
func NewSGDGroups(e *tensor.Engine, groups []SGDGroup) (*SGD, error) {
	ps, cs := splitGroups(groups)
	b, err := newGroups(e, "sgd", ps)
	if err != nil {
		return nil, err
	}
	s := &SGD{base: b}
	if len(cs) > 0 {
		s.SGDConfig, s.rest = cs[0], cs[1:]
	}
	if err := checkConfigs(&s.base, s.config, badSGD); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *SGD) config(g int) *SGDConfig { return at(&s.SGDConfig, s.rest, g) }

// Config returns the hyperparameters of group g, or an error if there is
// no group g.
func (s *SGD) Config(g int) (SGDConfig, error) { return getConfig(&s.base, s.config, g) }

// SetConfig sets the hyperparameters of group g, or returns an error
// (naming the group) and changes nothing if there is no group g or c is
// bad. Changing them compiles nothing, but Momentum from 0 compiles its
// kernel once.
func (s *SGD) SetConfig(g int, c SGDConfig) error {
	return setConfig(&s.base, s.config, g, c, badSGD)
}

// GroupLR returns the learning rate of group g, or NaN if there is no
// group g.
func (s *SGD) GroupLR(g int) float64 { return groupLR(&s.base, s.config, g, sgdLR) }

// SetLR sets the learning rate of group g (finite, ≥ 0), as a schedule
// does: it compiles nothing.
func (s *SGD) SetLR(g int, lr float64) error { return setLR(&s.base, s.config, g, lr, sgdLR) }

func sgdLR(c *SGDConfig) *float64 { return &c.LR }

// sgdSlots is every state slot SGD knows.
var sgdSlots = []string{"momentum_buffer"}

// badSGD describes what is wrong with c, or is empty.
func badSGD(c SGDConfig) string {
	switch {
	case badLR(c.LR) != "":
		return badLR(c.LR)
	case !(c.Momentum >= 0):
		return fmt.Sprintf("momentum %v", c.Momentum)
	case math.IsNaN(c.Dampening):
		return fmt.Sprintf("dampening %v", c.Dampening)
	case !(c.WeightDecay >= 0):
		return fmt.Sprintf("weight decay %v", c.WeightDecay)
	case c.Nesterov && (c.Momentum <= 0 || c.Dampening != 0):
		return "Nesterov momentum needs a momentum and zero dampening"
	}
	return ""
}

// Step updates each parameter with its gradient (grads[i] for the i-th
// parameter of Params; a nil gradient skips the parameter, as PyTorch
// skips a None grad), in place, each with its group's hyperparameters. It
// checks everything before it updates anything: a gradient of another
// shape, dtype or device, a disposed parameter or gradient, a gradient
// sharing its storage with a tensor the step writes (its parameter, a
// view of it, its state, another parameter being updated), a bad
// hyperparameter of any group or a disposed optimizer updates nothing and
// returns an error naming the parameter or the group (see the package's
// Errors). Then it creates the state the step needs (all of it, before
// it updates anything).
//
// Several parameters share a dispatch: those whose updates keep the same
// state (the same slots) and whose sizes take the same kernel (vec4s for
// multiples of four, scalars otherwise), whatever their groups, from the
// largest to the smallest, as many per dispatch as the device binds
// (each binds its gradient, itself and its state slots, and a dispatch at
// most Limits.MaxStorageBuffersPerShaderStage storage buffers: on
// lavapipe 16 parameters of SGD without momentum, 10 with it, 8 of Adam,
// 6 of Adam with AMSGrad; on GL half as many; at most 32). On a CPU
// adapter (lavapipe, llvmpipe), which runs a dispatch's smaller
// parameters at the largest's cost (see kernelSpec.batchKernel), a
// dispatch takes only parameters of close sizes, and a large parameter
// keeps a dispatch of its own, with the kernel of one parameter. The
// engine may still cut a large dispatch in several within its work
// budget. The 29 parameters of wgbench's transformer_train_step (421,376
// floats) take 10 to 11 dispatches per step on lavapipe and 12 to 14 on
// llvmpipe's GL, 29 small ones (64 to 1,024 floats) 3 to 5 and 6 to 10,
// instead of one per parameter. Each element's float32 arithmetic is
// that of one kernel per parameter, in the same order: batching changes
// no bit of the results.
func (s *SGD) Step(grads []*tensor.Tensor) error {
	if err := checkConfigs(&s.base, s.config, badSGD); err != nil {
		return err
	}
	return s.step(grads, s.updates())
}

// updates is the update of each group under its config now.
func (s *SGD) updates() []update {
	us := make([]update, s.NumGroups())
	for g := range us {
		c := *s.config(g)
		var slots []string
		if c.Momentum != 0 {
			slots = sgdSlots
		}
		us[g] = update{slots: slots, spec: sgdKernel(slots), params: func(_ int, fresh bool) []float32 {
			return f32s(c.LR, c.Momentum, c.Dampening, c.WeightDecay, flag(c.Nesterov), flag(fresh))
		}}
	}
	return us
}

// sgdKernel is SGD's update (sgd.wgsl) with the given state slots: none,
// or the momentum buffer.
func sgdKernel(slots []string) kernelSpec {
	return newKernelSpec("sgd", []string{"lr", "momentum", "dampening", "wd", "nesterov", "fresh"}, slots)
}

// SetState writes src into the state tensor called name
// ("0.weight.momentum_buffer"), creating it if no step has yet: loading
// a checkpoint. src must be float32 of the parameter's shape; the caller
// keeps owning it.
func (s *SGD) SetState(name string, src *tensor.Tensor) error {
	return s.setState(name, src, sgdSlots)
}
