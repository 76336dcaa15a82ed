package optim_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// groupedParams makes the parameters of two groups: a matrix and a
// vector in the first, a vector in the second (vec4 and scalar kernels
// both, in both groups).
func groupedParams(e *tensor.Engine, r *rand.Rand) [][]optim.Param {
	mk := func(name string, shape ...int) optim.Param {
		n := 1
		for _, d := range shape {
			n *= d
		}
		t := e.FromFloat32s(uniform(r, n), shape...)
		t.Keep()
		return optim.Param{Name: name, T: t}
	}
	return [][]optim.Param{
		{mk("0.weight", 37, 11), mk("0.bias", 11)},
		{mk("1.weight", 12), mk("1.bias", 5)},
	}
}

func flat(groups [][]optim.Param) []optim.Param { return slices.Concat(groups...) }

// groupCase is a grouped optimizer and the float64 reference of one
// step of group g at learning rate lr.
type groupCase struct {
	name string
	lrs  []float64 // each group's initial rate
	make func(e *tensor.Engine, gs [][]optim.Param) (optim.Optimizer, error)
	ref  func(g int, lr float64, p, grad []float64, s *refState)
}

func groupCases() []groupCase {
	w := optim.AdamWDefaults()
	w.LR = 1e-2
	noDecay := w
	noDecay.WeightDecay, noDecay.LR, noDecay.AMSGrad, noDecay.Beta1 = 0, 3e-3, true, 0.8
	adamCfg := []optim.AdamConfig{w, noDecay}
	sgdCfg := []optim.SGDConfig{{LR: 0.05, Momentum: 0.9, WeightDecay: 0.01, Nesterov: true}, {LR: 0.2}}
	rms := optim.RMSPropDefaults()
	rms2 := rms
	rms2.LR, rms2.Centered, rms2.Momentum, rms2.WeightDecay = 1e-3, true, 0.5, 0.1
	rmsCfg := []optim.RMSPropConfig{rms, rms2}
	return []groupCase{
		{"adamw", []float64{adamCfg[0].LR, adamCfg[1].LR},
			func(e *tensor.Engine, gs [][]optim.Param) (optim.Optimizer, error) {
				return optim.NewAdamWGroups(e, []optim.AdamGroup{{Params: gs[0], Config: adamCfg[0]}, {Params: gs[1], Config: adamCfg[1]}})
			},
			func(g int, lr float64, p, grad []float64, s *refState) {
				c := adamCfg[g]
				c.LR = lr
				refAdam(c, true, p, grad, s)
			}},
		{"adam", []float64{adamCfg[0].LR, adamCfg[1].LR},
			func(e *tensor.Engine, gs [][]optim.Param) (optim.Optimizer, error) {
				return optim.NewAdamGroups(e, []optim.AdamGroup{{Params: gs[0], Config: adamCfg[0]}, {Params: gs[1], Config: adamCfg[1]}})
			},
			func(g int, lr float64, p, grad []float64, s *refState) {
				c := adamCfg[g]
				c.LR = lr
				refAdam(c, false, p, grad, s)
			}},
		{"sgd", []float64{sgdCfg[0].LR, sgdCfg[1].LR},
			func(e *tensor.Engine, gs [][]optim.Param) (optim.Optimizer, error) {
				return optim.NewSGDGroups(e, []optim.SGDGroup{{Params: gs[0], Config: sgdCfg[0]}, {Params: gs[1], Config: sgdCfg[1]}})
			},
			func(g int, lr float64, p, grad []float64, s *refState) {
				c := sgdCfg[g]
				c.LR = lr
				refSGD(c, p, grad, s)
			}},
		{"rmsprop", []float64{rmsCfg[0].LR, rmsCfg[1].LR},
			func(e *tensor.Engine, gs [][]optim.Param) (optim.Optimizer, error) {
				return optim.NewRMSPropGroups(e, []optim.RMSPropGroup{{Params: gs[0], Config: rmsCfg[0]}, {Params: gs[1], Config: rmsCfg[1]}})
			},
			func(g int, lr float64, p, grad []float64, s *refState) {
				c := rmsCfg[g]
				c.LR = lr
				refRMSProp(c, p, grad, s)
			}},
	}
}

// Each group is updated with its own hyperparameters (learning rate,
// weight decay, betas, AMSGrad, momentum, centering), as PyTorch's
// param_groups are: 60 steps of random gradients, each group's rate set
// through SetLR before every step, match the float64 reference of each
// group's config within the tolerance of the single-group test, and so do
// the state and the step counts.
func TestGroupsMatchFloat64Reference(t *testing.T) {
	for _, c := range groupCases() {
		t.Run(c.name, func(t *testing.T) {
			e := testgpu.Engine(t)
			r := rand.New(rand.NewPCG(31, 32))
			gs := groupedParams(e, r)
			ps := flat(gs)
			defer disposeParams(ps)
			ref := make([][]float64, len(ps))
			states := make([]refState, len(ps))
			group := make([]int, len(ps))
			for i, p := range ps {
				ref[i] = widen(f32s(t, p.T))
				if i >= len(gs[0]) {
					group[i] = 1
				}
			}
			o, err := c.make(e, gs)
			require.NoError(t, err)
			defer o.Dispose()
			lrs := o.(optim.LRSetter)
			require.Equal(t, 2, lrs.NumGroups())
			assert.Equal(t, c.lrs, []float64{lrs.GroupLR(0), lrs.GroupLR(1)})
			assert.Equal(t, ps, o.Params(), "Params lists the groups' parameters, group after group")
			for step := range 60 {
				rates := make([]float64, 2)
				for g := range rates {
					rates[g] = c.lrs[g] * (1 - float64(step)/120) * float64(1+g*(step%3))
					require.NoError(t, lrs.SetLR(g, rates[g]))
					assert.Equal(t, rates[g], lrs.GroupLR(g))
				}
				inScope(t, e, func() {
					grads := make([]*tensor.Tensor, len(ps))
					for i, p := range ps {
						if i == 3 && step%4 == 1 {
							continue
						}
						g := uniform(r, p.T.Size())
						grads[i] = e.FromFloat32s(g, p.T.Shape()...)
						c.ref(group[i], rates[group[i]], ref[i], widen(g), &states[i])
					}
					require.NoError(t, o.Step(grads))
				})
			}
			for i, p := range ps {
				assertClose(t, p.Name, f32s(t, p.T), ref[i])
				assert.Equal(t, states[i].steps, o.Steps(p.Name), p.Name)
			}
			var want, got []string
			for i, p := range ps {
				for s := range states[i].slots {
					want = append(want, p.Name+"."+s)
				}
			}
			for _, s := range o.State() {
				got = append(got, s.Name)
				param, slot := splitName(s.Name)
				assertClose(t, s.Name, f32s(t, s.T), states[indexOf(ps, param)].slots[slot])
			}
			assert.ElementsMatch(t, want, got)
		})
	}
}

// assertClose fails t unless got is within absTol + relTol·|want| of want,
// element by element.
func assertClose(t *testing.T, name string, got []float32, want []float64) {
	t.Helper()
	require.Len(t, got, len(want), name)
	for i := range want {
		if d := math.Abs(float64(got[i]) - want[i]); !(d <= absTol+relTol*math.Abs(want[i])) {
			t.Fatalf("%s[%d] = %v, the reference %v", name, i, got[i], want[i])
		}
	}
}

// A grouped optimizer is one Optimizer: a checkpoint made through the
// interface alone, as package checkpoint makes it (State's tensors read
// back by name, Steps of every parameter of Params; then, on a fresh
// optimizer of the same groups over copies of the parameters, a probe of
// each state name with a zero Tensor as checkpoint.Load makes, SetState
// from temporary tensors it disposes, SetSteps), resumes bit for bit: the
// next steps of both give the same parameters.
func TestGroupedOptimizerCheckpointsThroughTheInterface(t *testing.T) {
	for _, c := range groupCases() {
		t.Run(c.name, func(t *testing.T) {
			e := testgpu.Engine(t)
			r := rand.New(rand.NewPCG(33, 34))
			gs := groupedParams(e, r)
			ps := flat(gs)
			defer disposeParams(ps)
			var a optim.Optimizer
			a, err := c.make(e, gs)
			require.NoError(t, err)
			defer a.Dispose()
			for range 3 {
				inScope(t, e, func() { require.NoError(t, a.Step(gradsFor(t, e, r, ps))) })
			}
			// Save: what checkpoint.Save reads.
			saved := map[string][]float32{}
			for _, s := range a.State() {
				saved[s.Name] = f32s(t, s.T)
			}
			steps := map[string]int{}
			for _, p := range a.Params() {
				steps[p.Name] = a.Steps(p.Name)
			}
			require.NotEmpty(t, saved)

			// Load into a fresh optimizer of the same groups.
			copies := make([][]optim.Param, len(gs))
			for g, group := range gs {
				for _, p := range group {
					cp := e.Zeros(tensor.Float32, p.T.Shape()...)
					require.NoError(t, e.Assign(cp, p.T))
					copies[g] = append(copies[g], optim.Param{Name: p.Name, T: cp})
				}
			}
			defer disposeParams(flat(copies))
			var b optim.Optimizer
			b, err = c.make(e, copies)
			require.NoError(t, err)
			defer b.Dispose()
			before := e.Memory()
			for name, v := range saved {
				err := b.SetState(name, new(tensor.Tensor))
				assert.ErrorIs(t, err, tensor.ErrArgument, "%s: a name the optimizer knows", name)
				assert.False(t, errors.Is(err, optim.ErrArgument), "%s: %v", name, err)
				inScope(t, e, func() {
					param, _ := splitName(name)
					require.NoError(t, b.SetState(name, e.FromFloat32s(v, ps[indexOf(ps, param)].T.Shape()...)))
				})
			}
			err = b.SetState("9.weight.exp_avg", new(tensor.Tensor))
			assert.ErrorIs(t, err, optim.ErrArgument, "a name no parameter of any group has")
			for name, n := range steps {
				require.NoError(t, b.SetSteps(name, n))
			}
			assert.Equal(t, before.Tensors+len(saved), e.Memory().Tensors, "only the state is left")
			for range 2 {
				inScope(t, e, func() {
					grads := gradsFor(t, e, r, ps)
					require.NoError(t, a.Step(grads))
					require.NoError(t, b.Step(grads))
				})
			}
			for i, p := range ps {
				assert.Equal(t, f32s(t, p.T), f32s(t, flat(copies)[i].T), p.Name)
			}
		})
	}
}

// Bad groups are refused with an error naming the optimizer, the group
// and the parameter; nothing is left allocated.
func TestGroupsRefuseBadGroups(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(35, 36))
	gs := groupedParams(e, r)
	defer disposeParams(flat(gs))
	view := e.Reshape(gs[1][0].T, 3, 4)
	defer view.Dispose()
	c := optim.AdamWDefaults()
	neg := c
	neg.LR = -0.1
	badBeta := c
	badBeta.Beta2 = 1
	w, b := gs[0][0], gs[0][1]
	x, y := gs[1][0], gs[1][1]
	for _, bad := range []struct {
		name   string
		groups []optim.AdamGroup
		naming string
	}{
		{"no groups", nil, "optim: adamw: no parameter groups"},
		{"an empty group", []optim.AdamGroup{{Params: []optim.Param{w}, Config: c}, {Config: c}}, "optim: adamw: group 1 has no parameters"},
		{"a name twice in a group", []optim.AdamGroup{{Params: []optim.Param{w}, Config: c}, {Params: []optim.Param{x, y, x}, Config: c}},
			`optim: adamw: group 1 names parameter "1.weight" twice`},
		{"a name in two groups", []optim.AdamGroup{{Params: []optim.Param{w, b}, Config: c}, {Params: []optim.Param{x, b}, Config: c}},
			`optim: adamw: group 1: parameter "0.bias" is in group 0 too`},
		{"a tensor in two groups", []optim.AdamGroup{{Params: []optim.Param{w, b}, Config: c}, {Params: []optim.Param{{Name: "other", T: b.T}}, Config: c}},
			`optim: adamw: group 1: parameters "0.bias" (group 0) and "other" are the same tensor`},
		{"a view in another group", []optim.AdamGroup{{Params: []optim.Param{x}, Config: c}, {Params: []optim.Param{w, {Name: "v", T: view}}, Config: c}},
			`parameters "1.weight" (group 0) and "v" (group 1) share their storage`},
		{"a negative rate", []optim.AdamGroup{{Params: []optim.Param{w}, Config: c}, {Params: []optim.Param{x}, Config: neg}},
			"optim: adamw: group 1: learning rate -0.1"},
		{"a bad beta", []optim.AdamGroup{{Params: []optim.Param{w}, Config: badBeta}, {Params: []optim.Param{x}, Config: c}},
			"optim: adamw: group 0: betas (0.9, 1)"},
		{"an unnamed parameter", []optim.AdamGroup{{Params: []optim.Param{w}, Config: c}, {Params: []optim.Param{x, {T: y.T}}, Config: c}},
			"optim: adamw: group 1: parameter 1 has no name"},
		{"a nil tensor", []optim.AdamGroup{{Params: []optim.Param{w}, Config: c}, {Params: []optim.Param{{Name: "n"}}, Config: c}},
			`optim: adamw: group 1: parameter "n" is nil`},
	} {
		before := e.Memory()
		o, err := optim.NewAdamWGroups(e, bad.groups)
		assert.Nil(t, o, bad.name)
		if assert.Error(t, err, bad.name) {
			assert.ErrorIs(t, err, optim.ErrArgument, bad.name)
			assert.Contains(t, err.Error(), bad.naming, bad.name)
		}
		assert.Equal(t, before.Tensors, e.Memory().Tensors, bad.name)
	}
	_, err := optim.NewSGD(e, []optim.Param{w}, optim.SGDConfig{LR: -1})
	assert.ErrorIs(t, err, optim.ErrArgument, "one group: the config is checked too")
	assert.Contains(t, err.Error(), "optim: sgd: learning rate -1")

	o, err := optim.NewAdamWGroups(e, []optim.AdamGroup{{Params: gs[0], Config: c}, {Params: gs[1], Config: c}})
	require.NoError(t, err)
	defer o.Dispose()
	for _, g := range []int{-1, 2} {
		assert.ErrorIs(t, o.SetLR(g, 0.1), optim.ErrArgument)
		assert.True(t, math.IsNaN(o.GroupLR(g)))
		_, err := o.Config(g)
		assert.ErrorIs(t, err, optim.ErrArgument)
		assert.ErrorIs(t, o.SetConfig(g, c), optim.ErrArgument)
		assert.Nil(t, o.GroupParams(g))
	}
	for _, lr := range []float64{-1e-3, math.NaN(), math.Inf(1)} {
		err := o.SetLR(1, lr)
		assert.ErrorIs(t, err, optim.ErrArgument)
		assert.Contains(t, err.Error(), "optim: adamw: set lr: group 1: learning rate")
	}
	assert.ErrorContains(t, o.SetConfig(1, neg), "optim: adamw: set config: group 1: learning rate -0.1")
	assert.Equal(t, c.LR, o.GroupLR(1), "a refused rate changes nothing")
	assert.Equal(t, gs[1], o.GroupParams(1))

	// A bad rate written into a field is refused by Step, naming the group.
	o.LR = -2
	inScope(t, e, func() {
		err := o.Step(gradsFor(t, e, r, flat(gs)))
		assert.ErrorIs(t, err, optim.ErrArgument)
		assert.Contains(t, err.Error(), "optim: adamw: group 0: learning rate -2")
	})
	assert.Empty(t, o.State(), "the refused step created nothing")
}

// Group 0's config is the embedded one: setting a field or SetLR(0, ·)
// is the same, and SetConfig replaces a whole group's config.
func TestGroupZeroIsTheEmbeddedConfig(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(37, 38))
	gs := groupedParams(e, r)
	defer disposeParams(flat(gs))
	o, err := optim.NewSGDGroups(e, []optim.SGDGroup{{Params: gs[0], Config: optim.SGDConfig{LR: 0.1}}, {Params: gs[1], Config: optim.SGDConfig{LR: 0.2}}})
	require.NoError(t, err)
	defer o.Dispose()
	o.LR = 0.3
	assert.Equal(t, 0.3, o.GroupLR(0))
	require.NoError(t, o.SetLR(0, 0.4))
	assert.Equal(t, 0.4, o.LR)
	require.NoError(t, o.SetConfig(1, optim.SGDConfig{LR: 0.5, Momentum: 0.9}))
	c, err := o.Config(1)
	require.NoError(t, err)
	assert.Equal(t, optim.SGDConfig{LR: 0.5, Momentum: 0.9}, c)
	assert.Equal(t, 0.4, o.LR, "group 0 kept its rate")
	inScope(t, e, func() { require.NoError(t, o.Step(gradsFor(t, e, r, flat(gs)))) })
	var names []string
	for _, s := range o.State() {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"1.weight.momentum_buffer", "1.bias.momentum_buffer"}, names, "only group 1 has momentum")
}

// Issue 20: a schedule changes the rate without recompiling. 100 steps,
// each with new learning rates for both groups, set through SetLR and
// through a Scheduler, compile no kernel after the first step.
func TestNewRatesCompileNothing(t *testing.T) {
	for _, c := range groupCases() {
		t.Run(c.name, func(t *testing.T) {
			e := testgpu.Engine(t)
			r := rand.New(rand.NewPCG(39, 40))
			gs := groupedParams(e, r)
			ps := flat(gs)
			defer disposeParams(ps)
			o, err := c.make(e, gs)
			require.NoError(t, err)
			defer o.Dispose()
			inScope(t, e, func() { require.NoError(t, o.Step(gradsFor(t, e, r, ps))) })
			require.NoError(t, e.Flush())
			compiled := e.Device().Stats().KernelsCompiled
			lrs := o.(optim.LRSetter)
			sched, err := optim.NewScheduler(lrs, optim.ExponentialLR{Gamma: 0.97}, 0)
			require.NoError(t, err)
			seen := [2]map[float64]bool{{}, {}}
			for step := range 100 {
				require.NoError(t, lrs.SetLR(1, 1e-3*float64(step+1)))
				for g := range seen {
					seen[g][lrs.GroupLR(g)] = true
				}
				inScope(t, e, func() { require.NoError(t, o.Step(gradsFor(t, e, r, ps))) })
				require.NoError(t, sched.Step())
			}
			require.NoError(t, e.Flush())
			assert.Equal(t, [2]int{100, 100}, [2]int{len(seen[0]), len(seen[1])}, "100 different rates in each group")
			assert.Equal(t, compiled, e.Device().Stats().KernelsCompiled, "new rates compile nothing")
		})
	}
}
