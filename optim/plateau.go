package optim

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// PlateauConfig holds ReduceLROnPlateau's settings, as
// torch.optim.lr_scheduler.ReduceLROnPlateau names them. Start from
// PlateauDefaults: the zero value is not PyTorch's defaults. A plain
// value.
type PlateauConfig struct {
	Max          bool    // mode "max": a larger metric is better (default "min")
	Factor       float64 // the rate is multiplied by it, in [0, 1)
	Patience     int     // steps without improvement tolerated, ≥ 0
	Threshold    float64 // what counts as an improvement, ≥ 0
	AbsThreshold bool    // threshold_mode "abs" (default "rel")
	Cooldown     int     // steps after a reduction before counting again, ≥ 0
	MinLR        float64 // the rates' floor, ≥ 0, for every group
	Eps          float64 // a reduction smaller than Eps is skipped, ≥ 0
}

// PlateauDefaults returns PyTorch's defaults: mode min, factor 0.1,
// patience 10, threshold 1e-4 relative, no cooldown, min_lr 0, eps 1e-8.
func PlateauDefaults() PlateauConfig {
	return PlateauConfig{Factor: 0.1, Patience: 10, Threshold: 1e-4, Eps: 1e-8}
}

// ReduceLROnPlateau multiplies the rates of some or all of an
// optimizer's groups by Factor when a metric has not improved for more
// than Patience steps, as torch.optim.lr_scheduler.ReduceLROnPlateau
// does: in mode min, a metric improves on the best so far when it is
// below best·(1 − Threshold) (best − Threshold with AbsThreshold); in
// mode max, above best·(1 + Threshold) (best + Threshold). A reduction
// sets each rate to max(rate·Factor, MinLR), unless that changes it by no
// more than Eps; then Cooldown steps pass before bad steps count again.
// A NaN metric never improves.
//
// It reads and sets the optimizer's current rates (not base rates). Its
// state (the best metric, the counters, the step count, and the groups'
// rates, which it reduced and a checkpoint of the optimizer does not
// hold) is saved and restored by MarshalText and UnmarshalText, as a
// Scheduler's. It belongs to the goroutine that uses its optimizer.
type ReduceLROnPlateau struct {
	PlateauConfig
	o        LRSetter
	groups   []int
	best     float64
	bad      int // num_bad_epochs
	cooldown int // cooldown_counter
	n        int // last_epoch
}

// NewReduceLROnPlateau returns a ReduceLROnPlateau over groups of o
// (every group if none is named). It refuses bad settings and groups with
// an error wrapping ErrArgument.
func NewReduceLROnPlateau(o LRSetter, c PlateauConfig, groups ...int) (*ReduceLROnPlateau, error) {
	if o == nil {
		return nil, fmt.Errorf("optim: reduce lr on plateau: nil optimizer: %w", ErrArgument)
	}
	if msg := badPlateau(c); msg != "" {
		return nil, fmt.Errorf("optim: reduce lr on plateau: %s: %w", msg, ErrArgument)
	}
	if len(groups) == 0 {
		for g := range o.NumGroups() {
			groups = append(groups, g)
		}
	}
	for i, g := range groups {
		switch {
		case g < 0 || g >= o.NumGroups():
			return nil, fmt.Errorf("optim: reduce lr on plateau: group %d of %d: %w", g, o.NumGroups(), ErrArgument)
		case slices.Contains(groups[:i], g):
			return nil, fmt.Errorf("optim: reduce lr on plateau: group %d named twice: %w", g, ErrArgument)
		}
	}
	p := &ReduceLROnPlateau{PlateauConfig: c, o: o, groups: slices.Clone(groups)}
	p.best = p.worst()
	return p, nil
}

// badPlateau describes what is wrong with c, or is empty.
func badPlateau(c PlateauConfig) string {
	switch {
	case !(c.Factor >= 0 && c.Factor < 1):
		return fmt.Sprintf("factor %v; it must be in [0, 1)", c.Factor)
	case c.Patience < 0:
		return fmt.Sprintf("patience %d", c.Patience)
	case !(c.Threshold >= 0) || math.IsInf(c.Threshold, 0):
		return fmt.Sprintf("threshold %v", c.Threshold)
	case c.Cooldown < 0:
		return fmt.Sprintf("cooldown %d", c.Cooldown)
	case badLR(c.MinLR) != "":
		return "min " + badLR(c.MinLR)
	case !(c.Eps >= 0):
		return fmt.Sprintf("eps %v", c.Eps)
	}
	return ""
}

// worst is the best metric before any: +Inf in mode min, −Inf in max.
func (p *ReduceLROnPlateau) worst() float64 {
	if p.Max {
		return math.Inf(-1)
	}
	return math.Inf(1)
}

// better reports whether metric a improves on best.
func (p *ReduceLROnPlateau) better(a, best float64) bool {
	switch {
	case !p.Max && !p.AbsThreshold:
		return a < best*(1-p.Threshold)
	case !p.Max:
		return a < best-p.Threshold
	case !p.AbsThreshold:
		return a > best*(p.Threshold+1)
	}
	return a > best+p.Threshold
}

// Step takes the metric of the step just ended (a validation loss) and
// reduces the rates if it has not improved for more than Patience steps,
// as PyTorch's step(metrics). It returns an error, and changes nothing,
// if the settings (fields) were made bad since or a rate cannot be set.
func (p *ReduceLROnPlateau) Step(metric float64) error {
	if msg := badPlateau(p.PlateauConfig); msg != "" {
		return fmt.Errorf("optim: reduce lr on plateau: %s: %w", msg, ErrArgument)
	}
	best, bad, cooldown := p.best, p.bad, p.cooldown
	if p.better(metric, best) {
		best, bad = metric, 0
	} else {
		bad++
	}
	if cooldown > 0 {
		cooldown--
		bad = 0 // bad steps in the cooldown do not count
	}
	if bad > p.Patience {
		rates := make([]float64, len(p.groups))
		for i, g := range p.groups {
			old := p.o.GroupLR(g)
			rates[i] = old
			if v := max(old*p.Factor, p.MinLR); old-v > p.Eps {
				rates[i] = v
			}
		}
		for i, g := range p.groups {
			if err := p.o.SetLR(g, rates[i]); err != nil {
				return fmt.Errorf("optim: reduce lr on plateau: %w", err)
			}
		}
		cooldown, bad = p.Cooldown, 0
	}
	p.best, p.bad, p.cooldown = best, bad, cooldown
	p.n++
	return nil
}

// Best is the best metric so far (+Inf in mode min before any step).
func (p *ReduceLROnPlateau) Best() float64 { return p.best }

// BadSteps is the number of steps since the metric last improved, as
// counted towards Patience (PyTorch's num_bad_epochs).
func (p *ReduceLROnPlateau) BadSteps() int { return p.bad }

// StepCount is the number of Steps taken (PyTorch's last_epoch).
func (p *ReduceLROnPlateau) StepCount() int { return p.n }

// InCooldown reports whether a reduction happened within the last
// Cooldown steps.
func (p *ReduceLROnPlateau) InCooldown() bool { return p.cooldown > 0 }

// plateauState is a ReduceLROnPlateau's state as MarshalText writes it.
type plateauState struct {
	Groups   []int    `json:"groups"`
	Best     string   `json:"best"` // exact, "+Inf" before any step
	Bad      int      `json:"num_bad_epochs"`
	Cooldown int      `json:"cooldown_counter"`
	Step     int      `json:"last_epoch"`
	Rates    []string `json:"lrs"` // the groups' rates when saved
}

// MarshalText returns the state (the best metric, the counters, the step
// count, and the groups' current rates) as JSON text, for a checkpoint's
// metadata as Scheduler.MarshalText says. The settings are code and are
// not saved.
func (p *ReduceLROnPlateau) MarshalText() ([]byte, error) {
	st := plateauState{Groups: p.groups, Best: formatFloat(p.best), Bad: p.bad, Cooldown: p.cooldown, Step: p.n}
	for _, g := range p.groups {
		st.Rates = append(st.Rates, formatFloat(p.o.GroupLR(g)))
	}
	return json.Marshal(st)
}

// UnmarshalText restores the state MarshalText saved into a
// ReduceLROnPlateau over the same groups, and sets the groups' rates to
// those saved (the rates this schedule reduced are its state too). Text
// of other groups or with bad values returns an error wrapping
// ErrArgument and changes nothing.
func (p *ReduceLROnPlateau) UnmarshalText(text []byte) error {
	var st plateauState
	if err := json.Unmarshal(text, &st); err != nil {
		return fmt.Errorf("optim: reduce lr on plateau: state: %v: %w", err, ErrArgument)
	}
	if !slices.Equal(st.Groups, p.groups) || len(st.Rates) != len(p.groups) {
		return fmt.Errorf("optim: reduce lr on plateau: the state is of groups %v, this one's %v: %w", st.Groups, p.groups, ErrArgument)
	}
	best, err := strconv.ParseFloat(st.Best, 64)
	if err != nil || st.Bad < 0 || st.Cooldown < 0 || st.Step < 0 {
		return fmt.Errorf("optim: reduce lr on plateau: state best %q, counters %d, %d, step %d: %w", st.Best, st.Bad, st.Cooldown, st.Step, ErrArgument)
	}
	rates := make([]float64, len(st.Rates))
	for i, s := range st.Rates {
		r, err := strconv.ParseFloat(s, 64)
		if err != nil || badLR(r) != "" {
			return fmt.Errorf("optim: reduce lr on plateau: rate %q of group %d: %w", s, p.groups[i], ErrArgument)
		}
		rates[i] = r
	}
	for i, g := range p.groups {
		if err := p.o.SetLR(g, rates[i]); err != nil {
			return fmt.Errorf("optim: reduce lr on plateau: %w", err)
		}
	}
	p.best, p.bad, p.cooldown, p.n = best, st.Bad, st.Cooldown, st.Step
	return nil
}
