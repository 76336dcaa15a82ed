package optim

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// ErrPastEnd is wrapped by the error of a schedule asked for a rate past
// its last step (OneCycleLR past TotalSteps), as PyTorch raises
// ValueError there.
var ErrPastEnd = errors.New("optim: the schedule has no step so far")

// LRSchedule is a learning-rate schedule in closed form: the rate at step
// n of a group whose base rate is base, computed in float64 as
// torch.optim.lr_scheduler computes it. Step 0 is the rate a scheduler
// sets when it is made (PyTorch's constructor steps once), step n the
// rate after its n-th Step. Rate returns an error wrapping ErrArgument
// for bad settings (naming the schedule and the setting) and ErrPastEnd
// past the last step of a schedule that has one.
//
// The schedules of this package (StepLR, MultiStepLR, ExponentialLR,
// LinearLR, CosineLR, OneCycleLR) are plain values, safe for concurrent
// use; a Scheduler applies one to an optimizer's groups. ReduceLROnPlateau,
// which depends on the metrics it is given, is a type of its own.
type LRSchedule interface {
	Rate(base float64, n int) (float64, error)
}

func scheduleErr(name, format string, args ...any) error {
	return fmt.Errorf("optim: %s: %s: %w", name, fmt.Sprintf(format, args...), ErrArgument)
}

// StepLR decays the rate by Gamma every StepSize steps, as
// torch.optim.lr_scheduler.StepLR: base·Gamma^⌊n/StepSize⌋. Like every
// schedule here it is a plain value, safe for concurrent use.
type StepLR struct {
	StepSize int     // ≥ 1
	Gamma    float64 // ≥ 0 (PyTorch's default is 0.1)
}

// Rate returns the rate at step n ≥ 0.
func (s StepLR) Rate(base float64, n int) (float64, error) {
	switch {
	case s.StepSize < 1:
		return 0, scheduleErr("step lr", "step size %d; it must be ≥ 1", s.StepSize)
	case !(s.Gamma >= 0) || math.IsInf(s.Gamma, 0):
		return 0, scheduleErr("step lr", "gamma %v", s.Gamma)
	case n < 0:
		return 0, scheduleErr("step lr", "step %d", n)
	}
	return base * math.Pow(s.Gamma, float64(n/s.StepSize)), nil
}

// MultiStepLR decays the rate by Gamma at each milestone, as
// torch.optim.lr_scheduler.MultiStepLR: base·Gamma^k, k the number of
// Milestones ≤ n (a milestone listed twice counts twice, as PyTorch's
// Counter does). The milestones need not be sorted. A plain value, safe
// for concurrent use (Rate only reads Milestones).
type MultiStepLR struct {
	Milestones []int   // each ≥ 0
	Gamma      float64 // ≥ 0 (PyTorch's default is 0.1)
}

// Rate returns the rate at step n ≥ 0.
func (s MultiStepLR) Rate(base float64, n int) (float64, error) {
	switch {
	case !(s.Gamma >= 0) || math.IsInf(s.Gamma, 0):
		return 0, scheduleErr("multi-step lr", "gamma %v", s.Gamma)
	case n < 0:
		return 0, scheduleErr("multi-step lr", "step %d", n)
	}
	k := 0
	for _, m := range s.Milestones {
		if m < 0 {
			return 0, scheduleErr("multi-step lr", "milestone %d", m)
		}
		if m <= n {
			k++
		}
	}
	return base * math.Pow(s.Gamma, float64(k)), nil
}

// ExponentialLR decays the rate by Gamma every step, as
// torch.optim.lr_scheduler.ExponentialLR: base·Gammaⁿ. A plain value,
// safe for concurrent use.
type ExponentialLR struct {
	Gamma float64 // ≥ 0
}

// Rate returns the rate at step n ≥ 0.
func (s ExponentialLR) Rate(base float64, n int) (float64, error) {
	switch {
	case !(s.Gamma >= 0) || math.IsInf(s.Gamma, 0):
		return 0, scheduleErr("exponential lr", "gamma %v", s.Gamma)
	case n < 0:
		return 0, scheduleErr("exponential lr", "step %d", n)
	}
	return base * math.Pow(s.Gamma, float64(n)), nil
}

// LinearLR scales the rate by a factor going linearly from StartFactor to
// EndFactor over TotalIters steps, then staying, as
// torch.optim.lr_scheduler.LinearLR (whose defaults are 1/3, 1 and 5):
// base·(s + (e−s)·min(n, T)/T). A warm-up starts below 1 and ends at 1; a
// linear decay to zero starts at 1 and ends at 0. A plain value, safe for
// concurrent use.
type LinearLR struct {
	StartFactor float64 // in (0, 1], as PyTorch requires
	EndFactor   float64 // in [0, 1]
	TotalIters  int     // ≥ 1
}

// Rate returns the rate at step n ≥ 0.
func (s LinearLR) Rate(base float64, n int) (float64, error) {
	switch {
	case !(s.StartFactor > 0 && s.StartFactor <= 1):
		return 0, scheduleErr("linear lr", "start factor %v; it must be in (0, 1]", s.StartFactor)
	case !(s.EndFactor >= 0 && s.EndFactor <= 1):
		return 0, scheduleErr("linear lr", "end factor %v; it must be in [0, 1]", s.EndFactor)
	case s.TotalIters < 1:
		return 0, scheduleErr("linear lr", "total iters %d; it must be ≥ 1", s.TotalIters)
	case n < 0:
		return 0, scheduleErr("linear lr", "step %d", n)
	}
	t := float64(min(n, s.TotalIters)) / float64(s.TotalIters)
	return base * (s.StartFactor + (s.EndFactor-s.StartFactor)*t), nil
}

// CosineLR is cosine annealing after a linear warm-up, the schedule of
// most transformer training: for n < W = WarmupSteps the rate rises
// linearly from base·WarmupStartFactor towards base (PyTorch's LinearLR
// with end factor 1 over W steps), then follows a half cosine from base
// down to MinLR at TotalSteps (PyTorch's CosineAnnealingLR with T_max =
// TotalSteps − W, started at step W, as SequentialLR chains the two):
//
//	n < W:  base·(s + (1−s)·n/W)
//	n ≥ W:  MinLR + (base − MinLR)·(1 + cos(π·(n−W)/(TotalSteps−W)))/2
//
// WarmupStartFactor 0 starts from 0, as the usual warm-up does (PyTorch's
// LinearLR refuses 0; LambdaLR computes it). With no warm-up (W = 0) it is
// CosineAnnealingLR. Like PyTorch's, the cosine does not stop at
// TotalSteps: past it, the rate rises again along the same cosine. A
// plain value, safe for concurrent use.
type CosineLR struct {
	WarmupSteps       int     // W ≥ 0
	TotalSteps        int     // > WarmupSteps
	WarmupStartFactor float64 // in [0, 1]
	MinLR             float64 // ≥ 0, PyTorch's eta_min
}

// Rate returns the rate at step n ≥ 0.
func (s CosineLR) Rate(base float64, n int) (float64, error) {
	switch {
	case s.WarmupSteps < 0:
		return 0, scheduleErr("cosine lr", "warm-up steps %d", s.WarmupSteps)
	case s.TotalSteps <= s.WarmupSteps:
		return 0, scheduleErr("cosine lr", "total steps %d; it must exceed the warm-up steps %d", s.TotalSteps, s.WarmupSteps)
	case !(s.WarmupStartFactor >= 0 && s.WarmupStartFactor <= 1):
		return 0, scheduleErr("cosine lr", "warm-up start factor %v; it must be in [0, 1]", s.WarmupStartFactor)
	case !(s.MinLR >= 0) || math.IsInf(s.MinLR, 0):
		return 0, scheduleErr("cosine lr", "min lr %v", s.MinLR)
	case n < 0:
		return 0, scheduleErr("cosine lr", "step %d", n)
	}
	if n < s.WarmupSteps {
		f := s.WarmupStartFactor
		return base * (f + (1-f)*float64(n)/float64(s.WarmupSteps)), nil
	}
	t := float64(n-s.WarmupSteps) / float64(s.TotalSteps-s.WarmupSteps)
	return s.MinLR + (base-s.MinLR)*(1+math.Cos(math.Pi*t))/2, nil
}

// OneCycleLR is the 1cycle policy of torch.optim.lr_scheduler.OneCycleLR
// with its defaults (cosine annealing, pct_start 0.3, div_factor 25,
// final_div_factor 1e4, two phases): from max/DivFactor up to max over
// the first PctStart of TotalSteps, then down to
// max/DivFactor/FinalDivFactor at step TotalSteps − 1, where max is MaxLR
// or, if MaxLR is 0, the group's base rate (set the optimizer's rate to
// the maximum, or MaxLR for every group). ThreePhase and Linear are
// PyTorch's three_phase and anneal_strategy "linear". Zero PctStart,
// DivFactor and FinalDivFactor mean PyTorch's defaults.
//
// Steps 0 to TotalSteps have a rate (PyTorch computes one at TotalSteps,
// where a loop of TotalSteps optimizer steps leaves the scheduler);
// later steps return an error wrapping ErrPastEnd, as PyTorch raises
// "Tried to step ... times". PyTorch's cycling of the momentum
// (cycle_momentum) is not done: set the momentum or betas yourself. A
// plain value, safe for concurrent use.
type OneCycleLR struct {
	MaxLR          float64 // ≥ 0; 0: each group's base rate
	TotalSteps     int     // ≥ 1
	PctStart       float64 // in [0, 1]; 0 means 0.3
	DivFactor      float64 // > 0; 0 means 25
	FinalDivFactor float64 // > 0; 0 means 1e4
	ThreePhase     bool
	Linear         bool // anneal linearly instead of by a cosine
}

// Rate returns the rate at step n in [0, TotalSteps] of a group whose
// base rate is base (the maximum, unless MaxLR is set).
func (s OneCycleLR) Rate(base float64, n int) (float64, error) {
	pct, div, final := s.PctStart, s.DivFactor, s.FinalDivFactor
	if pct == 0 {
		pct = 0.3
	}
	if div == 0 {
		div = 25
	}
	if final == 0 {
		final = 1e4
	}
	maxLR := s.MaxLR
	if maxLR == 0 {
		maxLR = base
	}
	switch {
	case s.TotalSteps < 1:
		return 0, scheduleErr("one-cycle lr", "total steps %d; it must be ≥ 1", s.TotalSteps)
	case !(pct >= 0 && pct <= 1):
		return 0, scheduleErr("one-cycle lr", "pct start %v; it must be in [0, 1]", s.PctStart)
	case !(div > 0) || math.IsInf(div, 0) || !(final > 0) || math.IsInf(final, 0):
		return 0, scheduleErr("one-cycle lr", "div factor %v, final div factor %v; each must be > 0", s.DivFactor, s.FinalDivFactor)
	case !(s.MaxLR >= 0) || math.IsInf(s.MaxLR, 0):
		return 0, scheduleErr("one-cycle lr", "max lr %v", s.MaxLR)
	case n < 0:
		return 0, scheduleErr("one-cycle lr", "step %d", n)
	case n > s.TotalSteps:
		return 0, fmt.Errorf("optim: one-cycle lr: tried to step %d times; the total steps are %d: %w", n, s.TotalSteps, ErrPastEnd)
	}
	initial := maxLR / div
	minLR := initial / final
	total := float64(s.TotalSteps)
	type phase struct{ end, start, stop float64 }
	phases := []phase{{float64(pct*total) - 1, initial, maxLR}, {total - 1, maxLR, minLR}}
	if s.ThreePhase {
		phases = []phase{{float64(pct*total) - 1, initial, maxLR}, {float64(2*pct*total) - 2, maxLR, initial}, {total - 1, initial, minLR}}
	}
	step, start := float64(n), 0.0
	for i, p := range phases {
		if step <= p.end || i == len(phases)-1 {
			t := (step - start) / (p.end - start)
			if s.Linear {
				return (p.stop-p.start)*t + p.start, nil
			}
			return p.stop + (p.start-p.stop)/2*(math.Cos(math.Pi*t)+1), nil
		}
		start = p.end
	}
	return 0, nil // not reached: the last phase always returns
}

// Scheduler applies an LRSchedule to some or all of an optimizer's
// groups, as a torch.optim.lr_scheduler object does: made, it takes each
// group's rate as the group's base rate and sets the rate of step 0;
// each Step after an optimizer step sets the rate of the next step. It
// holds the step count and the base rates, its whole state, which
// MarshalText and UnmarshalText save and restore (see MarshalText for
// checkpoints). A Scheduler belongs to the goroutine that uses its
// optimizer.
type Scheduler struct {
	o      LRSetter
	s      LRSchedule
	groups []int
	bases  []float64
	n      int
}

// NewScheduler makes a Scheduler of s for groups of o (every group if
// none is named) and sets their rates for step 0. It returns an error,
// and sets nothing, if a group does not exist or is named twice, or s
// refuses its settings.
func NewScheduler(o LRSetter, s LRSchedule, groups ...int) (*Scheduler, error) {
	if o == nil || s == nil {
		return nil, fmt.Errorf("optim: scheduler: nil optimizer or schedule: %w", ErrArgument)
	}
	if len(groups) == 0 {
		for g := range o.NumGroups() {
			groups = append(groups, g)
		}
	}
	sc := &Scheduler{o: o, s: s, groups: slices.Clone(groups)}
	for i, g := range groups {
		switch {
		case g < 0 || g >= o.NumGroups():
			return nil, fmt.Errorf("optim: scheduler: group %d of %d: %w", g, o.NumGroups(), ErrArgument)
		case slices.Contains(groups[:i], g):
			return nil, fmt.Errorf("optim: scheduler: group %d named twice: %w", g, ErrArgument)
		}
		sc.bases = append(sc.bases, o.GroupLR(g))
	}
	if err := sc.apply(0); err != nil {
		return nil, err
	}
	return sc, nil
}

// rates returns the rates of step n for the groups, or the schedule's
// error.
func (sc *Scheduler) rates(n int) ([]float64, error) {
	out := make([]float64, len(sc.groups))
	for i, base := range sc.bases {
		r, err := sc.s.Rate(base, n)
		if err != nil {
			return nil, fmt.Errorf("optim: scheduler: group %d: %w", sc.groups[i], err)
		}
		// A rate below zero (a linear one-cycle extrapolated to
		// TotalSteps, which PyTorch sets and no step uses) is set as 0.
		out[i] = max(r, 0)
	}
	return out, nil
}

// apply sets the rates of step n, having computed them all first: an
// error changes nothing.
func (sc *Scheduler) apply(n int) error {
	rs, err := sc.rates(n)
	if err != nil {
		return err
	}
	for i, g := range sc.groups {
		if msg := badLR(rs[i]); msg != "" {
			return fmt.Errorf("optim: scheduler: group %d at step %d: %s: %w", g, n, msg, ErrArgument)
		}
	}
	for i, g := range sc.groups {
		if err := sc.o.SetLR(g, rs[i]); err != nil {
			return err
		}
	}
	sc.n = n
	return nil
}

// Step advances the schedule by one step and sets the groups' rates for
// it, as PyTorch's scheduler.step() after optimizer.step(). Past the last
// step of a schedule that has one it returns an error wrapping
// ErrPastEnd and changes nothing.
func (sc *Scheduler) Step() error { return sc.apply(sc.n + 1) }

// StepCount is the number of Steps taken (PyTorch's last_epoch).
func (sc *Scheduler) StepCount() int { return sc.n }

// LastLR returns the rates the scheduler set last, one per scheduled
// group in the order NewScheduler took them (PyTorch's get_last_lr).
func (sc *Scheduler) LastLR() []float64 {
	out := make([]float64, len(sc.groups))
	for i, g := range sc.groups {
		out[i] = sc.o.GroupLR(g)
	}
	return out
}

// schedulerState is a Scheduler's state as MarshalText writes it.
type schedulerState struct {
	Schedule string   `json:"schedule"`
	Step     int      `json:"step"`
	Groups   []int    `json:"groups"`
	Bases    []string `json:"bases"` // exact: strconv's shortest form
}

// MarshalText returns the scheduler's state (its step count, the groups
// and their base rates, the schedule's type) as JSON text. A checkpoint
// needs it besides the optimizer's state, for the rates are not part of
// that: put it in checkpoint.SaveOptions.Metadata under a key of yours
// ("lr_scheduler"), and after loading read it from the file's header
// (safetensors.ReadHeader) into UnmarshalText of a Scheduler made as the
// first was. The schedule's settings are code, not state, and are not
// saved.
func (sc *Scheduler) MarshalText() ([]byte, error) {
	st := schedulerState{Schedule: fmt.Sprintf("%T", sc.s), Step: sc.n, Groups: sc.groups}
	for _, b := range sc.bases {
		st.Bases = append(st.Bases, formatFloat(b))
	}
	return json.Marshal(st)
}

// UnmarshalText restores the state MarshalText saved, into a Scheduler
// made as the one that saved it (the same kind of schedule over the same
// groups), and sets the groups' rates for the restored step. Text of
// another schedule or other groups, or with bad values, returns an error
// wrapping ErrArgument, and a step the schedule refuses its error
// (ErrPastEnd); either changes nothing.
func (sc *Scheduler) UnmarshalText(text []byte) error {
	var st schedulerState
	if err := json.Unmarshal(text, &st); err != nil {
		return fmt.Errorf("optim: scheduler: state: %v: %w", err, ErrArgument)
	}
	if kind := fmt.Sprintf("%T", sc.s); st.Schedule != kind {
		return fmt.Errorf("optim: scheduler: the state is of a %s, this scheduler's schedule a %s: %w", st.Schedule, kind, ErrArgument)
	}
	if !slices.Equal(st.Groups, sc.groups) || len(st.Bases) != len(sc.groups) {
		return fmt.Errorf("optim: scheduler: the state is of groups %v, this scheduler's %v: %w", st.Groups, sc.groups, ErrArgument)
	}
	bases := make([]float64, len(st.Bases))
	for i, s := range st.Bases {
		b, err := strconv.ParseFloat(s, 64)
		if err != nil || badLR(b) != "" {
			return fmt.Errorf("optim: scheduler: base rate %q of group %d: %w", s, sc.groups[i], ErrArgument)
		}
		bases[i] = b
	}
	if st.Step < 0 {
		return fmt.Errorf("optim: scheduler: step %d: %w", st.Step, ErrArgument)
	}
	old := sc.bases
	sc.bases = bases
	if err := sc.apply(st.Step); err != nil {
		sc.bases = old
		return err
	}
	return nil
}

// formatFloat writes v exactly (the shortest form that parses back to
// it), infinities as "+Inf" and "-Inf".
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
