package optim

import (
	"fmt"
	"math"
)

// Group is a parameter group, as in torch.optim's param_groups: some of
// an optimizer's parameters and the hyperparameters they are updated
// with. Each group has a whole Config of its own (a learning rate, a
// weight decay, betas, momentum...): start from one config and change
// what differs, as PyTorch fills a group's missing keys from the
// optimizer's defaults:
//
//	c := optim.AdamWDefaults()
//	noDecay := c
//	noDecay.WeightDecay = 0
//	opt, err := optim.NewAdamWGroups(e, []optim.AdamGroup{
//		{Params: weights, Config: c},
//		{Params: biasesAndNorms, Config: noDecay},
//	})
//
// A Group is a plain value; the constructors copy what they need, and
// nothing refers to it after they return.
type Group[C any] struct {
	Params []Param
	Config C
}

// SGDGroup, AdamGroup and RMSPropGroup are the groups of NewSGDGroups,
// NewAdamGroups (and NewAdamWGroups) and NewRMSPropGroups.
type (
	SGDGroup     = Group[SGDConfig]
	AdamGroup    = Group[AdamConfig]
	RMSPropGroup = Group[RMSPropConfig]
)

// LRSetter is what a learning-rate schedule drives: the learning rates of
// an optimizer's parameter groups. SGD, Adam and RMSProp implement it;
// setting a rate compiles nothing (it is a uniform value of the update
// kernels). Its methods belong to the goroutine that uses the
// optimizer's engine, as the optimizer's do.
type LRSetter interface {
	// NumGroups is the number of parameter groups (1 without groups).
	NumGroups() int
	// GroupLR is the learning rate of group g, or NaN if there is no
	// group g.
	GroupLR(g int) float64
	// SetLR sets the learning rate of group g: finite and ≥ 0, else an
	// error wrapping ErrArgument, and nothing changes.
	SetLR(g int, lr float64) error
}

var (
	_ LRSetter = (*SGD)(nil)
	_ LRSetter = (*Adam)(nil)
	_ LRSetter = (*RMSProp)(nil)
)

// badLR describes what is wrong with a learning rate, or is empty.
func badLR(lr float64) string {
	if !(lr >= 0) || math.IsInf(lr, 0) {
		return fmt.Sprintf("learning rate %v; it must be finite and ≥ 0", lr)
	}
	return ""
}

// splitGroups returns the parameters and the configs of groups.
func splitGroups[C any](groups []Group[C]) ([][]Param, []C) {
	ps := make([][]Param, len(groups))
	cs := make([]C, len(groups))
	for i, g := range groups {
		ps[i], cs[i] = g.Params, g.Config
	}
	return ps, cs
}

// at returns the config of group g (which exists): first for group 0,
// rest[g-1] after it. An optimizer embeds its first group's config, so
// that a single-group optimizer's fields are its hyperparameters, as
// before groups.
func at[C any](first *C, rest []C, g int) *C {
	if g == 0 {
		return first
	}
	return &rest[g-1]
}

// checkConfigs checks every group's config with bad (which describes what
// is wrong, or returns ""), naming the group.
func checkConfigs[C any](b *base, cfg func(int) *C, bad func(C) string) error {
	for g := range b.NumGroups() {
		if msg := bad(*cfg(g)); msg != "" {
			return b.errorf(ErrArgument, "%s%s", b.where(g), msg)
		}
	}
	return nil
}

// getConfig is Config for every optimizer.
func getConfig[C any](b *base, cfg func(int) *C, g int) (C, error) {
	if err := b.checkGroup("config", g); err != nil {
		var zero C
		return zero, err
	}
	return *cfg(g), nil
}

// setConfig is SetConfig for every optimizer.
func setConfig[C any](b *base, cfg func(int) *C, g int, c C, bad func(C) string) error {
	if err := b.checkGroup("set config", g); err != nil {
		return err
	}
	if msg := bad(c); msg != "" {
		return b.errorf(ErrArgument, "set config: %s%s", b.where(g), msg)
	}
	*cfg(g) = c
	return nil
}

// groupLR is GroupLR for every optimizer: lr points at a config's rate.
func groupLR[C any](b *base, cfg func(int) *C, g int, lr func(*C) *float64) float64 {
	if g < 0 || g >= b.NumGroups() {
		return math.NaN()
	}
	return *lr(cfg(g))
}

// setLR is SetLR for every optimizer.
func setLR[C any](b *base, cfg func(int) *C, g int, v float64, lr func(*C) *float64) error {
	if err := b.checkGroup("set lr", g); err != nil {
		return err
	}
	if msg := badLR(v); msg != "" {
		return b.errorf(ErrArgument, "set lr: %s%s", b.where(g), msg)
	}
	*lr(cfg(g)) = v
	return nil
}
