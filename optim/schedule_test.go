package optim_test

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// torchCase is one case of testdata/schedules.json, which
// testdata/schedules.py wrote with torch 1.13's lr_scheduler.
type torchCase struct {
	Name     string         `json:"name"`
	Settings map[string]any `json:"settings"`
	Bases    []float64      `json:"bases"`
	LRs      [][]float64    `json:"lrs"`
	ErrorAt  int            `json:"error_at"`
	Metrics  []float64      `json:"metrics"`
}

func torchCases(t *testing.T) []torchCase {
	t.Helper()
	b, err := os.ReadFile("testdata/schedules.json")
	require.NoError(t, err)
	var f struct {
		Torch string      `json:"torch"`
		Cases []torchCase `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	require.True(t, strings.HasPrefix(f.Torch, "1.13"), "made with torch %s", f.Torch)
	require.NotEmpty(t, f.Cases)
	return f.Cases
}

func (c torchCase) num(key string) float64 {
	v, _ := c.Settings[key].(float64)
	return v
}

// schedule is c's settings as this package's schedule, or nil for a
// plateau case.
func (c torchCase) schedule(t *testing.T) optim.LRSchedule {
	switch {
	case c.Name == "step":
		return optim.StepLR{StepSize: int(c.num("step_size")), Gamma: c.num("gamma")}
	case c.Name == "multistep":
		var ms []int
		for _, m := range c.Settings["milestones"].([]any) {
			ms = append(ms, int(m.(float64)))
		}
		return optim.MultiStepLR{Milestones: ms, Gamma: c.num("gamma")}
	case c.Name == "exponential":
		return optim.ExponentialLR{Gamma: c.num("gamma")}
	case strings.HasPrefix(c.Name, "linear"):
		return optim.LinearLR{StartFactor: c.num("start_factor"), EndFactor: c.num("end_factor"), TotalIters: int(c.num("total_iters"))}
	case strings.HasPrefix(c.Name, "cosine"):
		return optim.CosineLR{WarmupSteps: int(c.num("warmup_steps")), TotalSteps: int(c.num("total_steps")),
			WarmupStartFactor: c.num("warmup_start_factor"), MinLR: c.num("min_lr")}
	case strings.HasPrefix(c.Name, "one-cycle"):
		s := optim.OneCycleLR{MaxLR: c.num("max_lr"), TotalSteps: int(c.num("total_steps")), PctStart: c.num("pct_start"),
			DivFactor: c.num("div_factor"), FinalDivFactor: c.num("final_div_factor")}
		s.ThreePhase, _ = c.Settings["three_phase"].(bool)
		s.Linear = c.Settings["anneal"] == "linear"
		return s
	case strings.HasPrefix(c.Name, "plateau"):
		return nil
	}
	t.Fatalf("unknown case %q", c.Name)
	return nil
}

func (c torchCase) plateau() optim.PlateauConfig {
	return optim.PlateauConfig{Max: c.Settings["mode"] == "max", Factor: c.num("factor"), Patience: int(c.num("patience")),
		Threshold: c.num("threshold"), AbsThreshold: c.Settings["threshold_mode"] == "abs", Cooldown: int(c.num("cooldown")),
		MinLR: c.num("min_lr"), Eps: 1e-8}
}

// scheduleTol is the agreement asked of every rate with PyTorch's:
// relative, of the rate PyTorch set (an exact zero must be matched
// exactly). PyTorch steps most schedules by their recursive (chainable)
// forms, whose rounding differs from the closed forms' by a few ulps per
// step.
const scheduleTol = 1e-12

func closeRate(want, got float64) bool {
	return math.Abs(got-want) <= scheduleTol*math.Abs(want)
}

// twoGroups returns an SGD of two groups whose rates are bases, on e.
func twoGroups(t *testing.T, e *tensor.Engine, bases []float64) *optim.SGD {
	t.Helper()
	a, b := e.Zeros(tensor.Float32, 3), e.Zeros(tensor.Float32, 2)
	t.Cleanup(a.Dispose)
	t.Cleanup(b.Dispose)
	o, err := optim.NewSGDGroups(e, []optim.SGDGroup{
		{Params: []optim.Param{{Name: "a", T: a}}, Config: optim.SGDConfig{LR: bases[0], Momentum: 0.9}},
		{Params: []optim.Param{{Name: "b", T: b}}, Config: optim.SGDConfig{LR: bases[1], Momentum: 0.9}},
	})
	require.NoError(t, err)
	t.Cleanup(o.Dispose)
	return o
}

// Every schedule's closed form gives, step by step, the rates torch 1.13's
// lr_scheduler set (testdata/schedules.json, from testdata/schedules.py)
// within 1e-12 relative, for two groups of different base rates: through
// Rate, and through a Scheduler or a ReduceLROnPlateau driving a grouped
// optimizer's SetLR. Where PyTorch raised (one-cycle past its total
// steps), Step returns ErrPastEnd and changes no rate.
func TestSchedulesMatchPyTorch(t *testing.T) {
	e := testgpu.Engine(t)
	for _, c := range torchCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			o := twoGroups(t, e, c.Bases)
			s := c.schedule(t)
			worst := 0.0
			check := func(n, g int, got float64) {
				t.Helper()
				want := c.LRs[n][g]
				if s != nil {
					want = max(want, 0) // a Scheduler sets a negative rate as 0
				}
				if want != 0 {
					worst = max(worst, math.Abs(got-want)/math.Abs(want))
				}
				if !closeRate(want, got) {
					t.Fatalf("step %d, group %d: rate %v, PyTorch's %v", n, g, got, want)
				}
			}
			if s == nil {
				p, err := optim.NewReduceLROnPlateau(o, c.plateau())
				require.NoError(t, err)
				for n := range c.LRs {
					if n > 0 {
						require.NoError(t, p.Step(c.Metrics[n-1]))
					}
					for g := range c.Bases {
						check(n, g, o.GroupLR(g))
					}
				}
				assert.Equal(t, len(c.LRs)-1, p.StepCount())
				t.Logf("%d steps, worst relative difference %.2g", len(c.LRs)-1, worst)
				return
			}
			for n, rates := range c.LRs {
				for g, base := range c.Bases {
					got, err := s.Rate(base, n)
					require.NoError(t, err)
					if !closeRate(rates[g], got) {
						t.Fatalf("Rate(%v, %d) = %v, PyTorch's %v", base, n, got, rates[g])
					}
				}
			}
			sc, err := optim.NewScheduler(o, s)
			require.NoError(t, err)
			for n := range c.LRs {
				if n > 0 {
					require.NoError(t, sc.Step())
				}
				require.Equal(t, n, sc.StepCount())
				for g, lr := range sc.LastLR() {
					check(n, g, lr)
				}
			}
			if c.ErrorAt > 0 {
				require.Equal(t, len(c.LRs), c.ErrorAt)
				before := sc.LastLR()
				err := sc.Step()
				assert.ErrorIs(t, err, optim.ErrPastEnd)
				assert.ErrorContains(t, err, "tried to step")
				assert.Equal(t, before, sc.LastLR(), "a refused step changes no rate")
				assert.Equal(t, len(c.LRs)-1, sc.StepCount())
				_, err = s.Rate(c.Bases[0], c.ErrorAt)
				assert.ErrorIs(t, err, optim.ErrPastEnd)
			}
			t.Logf("%d steps, worst relative difference %.2g", len(c.LRs)-1, worst)
		})
	}
}

// A schedule's state saved part-way (MarshalText) and restored into a
// Scheduler made afresh on a fresh optimizer (UnmarshalText) sets the same
// rates, and both go on to set the same rates as PyTorch did; so does a
// ReduceLROnPlateau's, whose counters and reduced rates are its state.
func TestScheduleStateRoundTrip(t *testing.T) {
	e := testgpu.Engine(t)
	for _, c := range torchCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			mid := len(c.LRs) / 2
			a, b := twoGroups(t, e, c.Bases), twoGroups(t, e, c.Bases)
			s := c.schedule(t)
			if s == nil {
				pa, err := optim.NewReduceLROnPlateau(a, c.plateau())
				require.NoError(t, err)
				for n := 1; n <= mid; n++ {
					require.NoError(t, pa.Step(c.Metrics[n-1]))
				}
				text, err := pa.MarshalText()
				require.NoError(t, err)
				pb, err := optim.NewReduceLROnPlateau(b, c.plateau())
				require.NoError(t, err)
				require.NoError(t, pb.UnmarshalText(text))
				assert.Equal(t, pa.Best(), pb.Best())
				assert.Equal(t, pa.BadSteps(), pb.BadSteps())
				assert.Equal(t, pa.InCooldown(), pb.InCooldown())
				for n := mid + 1; n < len(c.LRs); n++ {
					require.NoError(t, pa.Step(c.Metrics[n-1]))
					require.NoError(t, pb.Step(c.Metrics[n-1]))
					for g := range c.Bases {
						require.Equal(t, a.GroupLR(g), b.GroupLR(g), "step %d", n)
						require.True(t, closeRate(c.LRs[n][g], b.GroupLR(g)), "step %d", n)
					}
				}
				return
			}
			sa, err := optim.NewScheduler(a, s)
			require.NoError(t, err)
			for range mid {
				require.NoError(t, sa.Step())
			}
			text, err := sa.MarshalText()
			require.NoError(t, err)
			sb, err := optim.NewScheduler(b, s)
			require.NoError(t, err)
			require.NoError(t, sb.UnmarshalText(text))
			assert.Equal(t, mid, sb.StepCount())
			assert.Equal(t, sa.LastLR(), sb.LastLR())
			for n := mid + 1; n < len(c.LRs); n++ {
				require.NoError(t, sa.Step())
				require.NoError(t, sb.Step())
				require.Equal(t, sa.LastLR(), sb.LastLR(), "step %d", n)
			}
		})
	}
}

// A plateau's state survives Inf (the best metric before any step) and
// the rates it reduced; restored state of other groups or schedules, or
// bad values, is refused and changes nothing.
func TestScheduleStateRefusesOtherState(t *testing.T) {
	e := testgpu.Engine(t)
	o := twoGroups(t, e, []float64{0.1, 0.01})
	p, err := optim.NewReduceLROnPlateau(o, optim.PlateauDefaults(), 1)
	require.NoError(t, err)
	text, err := p.MarshalText()
	require.NoError(t, err)
	assert.Contains(t, string(text), `"best":"+Inf"`)
	q, err := optim.NewReduceLROnPlateau(o, optim.PlateauDefaults(), 1)
	require.NoError(t, err)
	require.NoError(t, q.UnmarshalText(text))
	assert.True(t, math.IsInf(q.Best(), 1))
	all, err := optim.NewReduceLROnPlateau(o, optim.PlateauDefaults())
	require.NoError(t, err)
	assert.ErrorIs(t, all.UnmarshalText(text), optim.ErrArgument, "other groups")
	assert.ErrorIs(t, q.UnmarshalText([]byte(`{"groups":[1],"best":"x","lrs":["0.1"]}`)), optim.ErrArgument)
	assert.ErrorIs(t, q.UnmarshalText([]byte(`{"groups":[1],"best":"1","lrs":["-0.1"]}`)), optim.ErrArgument)
	assert.ErrorIs(t, q.UnmarshalText([]byte(`not json`)), optim.ErrArgument)
	assert.Equal(t, 0.01, o.GroupLR(1), "refused state set no rate")

	sc, err := optim.NewScheduler(o, optim.StepLR{StepSize: 2, Gamma: 0.5}, 0)
	require.NoError(t, err)
	require.NoError(t, sc.Step())
	text, err = sc.MarshalText()
	require.NoError(t, err)
	other, err := optim.NewScheduler(o, optim.ExponentialLR{Gamma: 0.5}, 0)
	require.NoError(t, err)
	assert.ErrorContains(t, other.UnmarshalText(text), "the state is of a optim.StepLR")
	both, err := optim.NewScheduler(o, optim.StepLR{StepSize: 2, Gamma: 0.5})
	require.NoError(t, err)
	assert.ErrorIs(t, both.UnmarshalText(text), optim.ErrArgument)
	cycle, err := optim.NewScheduler(o, optim.OneCycleLR{TotalSteps: 10}, 0)
	require.NoError(t, err)
	before := o.GroupLR(0)
	err = cycle.UnmarshalText([]byte(`{"schedule":"optim.OneCycleLR","step":11,"groups":[0],"bases":["0.1"]}`))
	assert.ErrorIs(t, err, optim.ErrPastEnd)
	assert.Equal(t, before, o.GroupLR(0))
	assert.Equal(t, 0, cycle.StepCount())
}

// Bad settings are refused with an error naming the schedule and the
// setting; so are bad groups. A refused scheduler sets no rate.
func TestSchedulesRefuseBadSettings(t *testing.T) {
	e := testgpu.Engine(t)
	o := twoGroups(t, e, []float64{0.1, 0.01})
	for _, bad := range []struct {
		s    optim.LRSchedule
		text string
	}{
		{optim.StepLR{StepSize: 0, Gamma: 0.1}, "optim: step lr: step size 0"},
		{optim.StepLR{StepSize: 1, Gamma: -1}, "optim: step lr: gamma -1"},
		{optim.MultiStepLR{Milestones: []int{3, -1}, Gamma: 0.1}, "optim: multi-step lr: milestone -1"},
		{optim.ExponentialLR{Gamma: math.NaN()}, "optim: exponential lr: gamma NaN"},
		{optim.LinearLR{StartFactor: 0, EndFactor: 1, TotalIters: 5}, "optim: linear lr: start factor 0"},
		{optim.LinearLR{StartFactor: 0.5, EndFactor: 1.5, TotalIters: 5}, "optim: linear lr: end factor 1.5"},
		{optim.LinearLR{StartFactor: 0.5, EndFactor: 1, TotalIters: 0}, "optim: linear lr: total iters 0"},
		{optim.CosineLR{WarmupSteps: 10, TotalSteps: 10}, "optim: cosine lr: total steps 10; it must exceed the warm-up steps 10"},
		{optim.CosineLR{WarmupSteps: -1, TotalSteps: 10}, "optim: cosine lr: warm-up steps -1"},
		{optim.CosineLR{TotalSteps: 10, WarmupStartFactor: 2}, "optim: cosine lr: warm-up start factor 2"},
		{optim.CosineLR{TotalSteps: 10, MinLR: -1}, "optim: cosine lr: min lr -1"},
		{optim.OneCycleLR{TotalSteps: 0}, "optim: one-cycle lr: total steps 0"},
		{optim.OneCycleLR{TotalSteps: 10, PctStart: 1.5}, "optim: one-cycle lr: pct start 1.5"},
		{optim.OneCycleLR{TotalSteps: 10, DivFactor: -2}, "optim: one-cycle lr: div factor -2"},
		{optim.OneCycleLR{TotalSteps: 10, MaxLR: -1}, "optim: one-cycle lr: max lr -1"},
	} {
		_, err := bad.s.Rate(0.1, 0)
		assert.ErrorIs(t, err, optim.ErrArgument, bad.text)
		assert.ErrorContains(t, err, bad.text)
		sc, err := optim.NewScheduler(o, bad.s)
		assert.Nil(t, sc)
		assert.ErrorContains(t, err, bad.text)
		assert.Equal(t, []float64{0.1, 0.01}, []float64{o.GroupLR(0), o.GroupLR(1)})
	}
	_, err := optim.StepLR{StepSize: 1, Gamma: 0.1}.Rate(0.1, -1)
	assert.ErrorIs(t, err, optim.ErrArgument, "a negative step")
	for _, groups := range [][]int{{2}, {-1}, {0, 0}} {
		_, err := optim.NewScheduler(o, optim.ExponentialLR{Gamma: 0.9}, groups...)
		assert.ErrorIs(t, err, optim.ErrArgument, "groups %v", groups)
		_, err = optim.NewReduceLROnPlateau(o, optim.PlateauDefaults(), groups...)
		assert.ErrorIs(t, err, optim.ErrArgument, "groups %v", groups)
	}
	_, err = optim.NewScheduler(nil, optim.ExponentialLR{Gamma: 0.9})
	assert.ErrorIs(t, err, optim.ErrArgument)
	for _, c := range []optim.PlateauConfig{
		{Factor: 1}, {Factor: 0.5, Patience: -1}, {Factor: 0.5, Threshold: -1}, {Factor: 0.5, Cooldown: -1},
		{Factor: 0.5, MinLR: -1}, {Factor: 0.5, Eps: math.NaN()},
	} {
		_, err := optim.NewReduceLROnPlateau(o, c)
		assert.ErrorIs(t, err, optim.ErrArgument, "%+v", c)
		assert.ErrorContains(t, err, "optim: reduce lr on plateau: ")
	}
	p, err := optim.NewReduceLROnPlateau(o, optim.PlateauDefaults())
	require.NoError(t, err)
	p.Factor = 2
	assert.ErrorIs(t, p.Step(1), optim.ErrArgument, "a field made bad later")
	assert.Equal(t, 0, p.StepCount())
}

// A scheduler over one group leaves the others' rates alone.
func TestSchedulerOverOneGroup(t *testing.T) {
	e := testgpu.Engine(t)
	o := twoGroups(t, e, []float64{0.1, 0.01})
	sc, err := optim.NewScheduler(o, optim.ExponentialLR{Gamma: 0.5}, 1)
	require.NoError(t, err)
	for range 3 {
		require.NoError(t, sc.Step())
	}
	assert.Equal(t, 0.1, o.GroupLR(0))
	assert.Equal(t, 0.01*0.125, o.GroupLR(1))
	assert.Equal(t, []float64{0.01 * 0.125}, sc.LastLR())
}
