package optim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// stepper is what the batched-step tests need of an optimizer beside
// Optimizer: its base, and its groups' updates under their configs now.
type stepper interface {
	Optimizer
	LRSetter
	updates() []update
	core() *base
}

func (b *base) core() *base { return b }

// perParam is the step as it was before batching, kept as the
// reference: one launch of the per-parameter kernel (kernelSpec.kernel)
// per parameter with a gradient, over copies of the parameters, with
// state of its own created zeroed at a parameter's first step.
type perParam struct {
	e      *tensor.Engine
	params []*tensor.Tensor
	state  []map[string]*tensor.Tensor
	steps  []int
}

func newPerParam(t *testing.T, e *tensor.Engine, ps []Param) *perParam {
	r := &perParam{e: e, state: make([]map[string]*tensor.Tensor, len(ps)), steps: make([]int, len(ps))}
	for i, p := range ps {
		c := e.Zeros(tensor.Float32, p.T.Shape()...)
		require.NoError(t, e.Assign(c, p.T))
		c.Keep()
		r.params = append(r.params, c)
		r.state[i] = map[string]*tensor.Tensor{}
	}
	t.Cleanup(r.dispose)
	return r
}

func (r *perParam) dispose() {
	for i, p := range r.params {
		p.Dispose()
		for _, s := range r.state[i] {
			s.Dispose()
		}
	}
}

// step runs the per-parameter kernel of us[group of i] on parameter i
// with grads[i], for every gradient that is not nil.
func (r *perParam) step(t *testing.T, b *base, us []update, grads []*tensor.Tensor) {
	for i, g := range grads {
		if g == nil {
			continue
		}
		u := us[b.groupOf(i)]
		fresh := false
		inOut := []*tensor.Tensor{r.params[i]}
		for _, s := range u.slots {
			if r.state[i][s] == nil {
				z := r.e.Zeros(tensor.Float32, g.Shape()...)
				z.Keep()
				r.state[i][s], fresh = z, true
			}
			inOut = append(inOut, r.state[i][s])
		}
		width := widthFor(g.Size())
		n := g.Size() / width
		params := []any{uint32(n)}
		for _, v := range u.params(r.steps[i]+1, fresh) {
			params = append(params, v)
		}
		res := r.e.RunKernel(u.spec.kernel(width), tensor.Launch{Inputs: []*tensor.Tensor{g}, InOut: inOut, Threads: threadsFor(n), Params: params})
		for _, x := range res {
			require.NoError(t, x.Err())
		}
		r.steps[i]++
	}
}

// batchCase is an optimizer over groups of different configs, and how to
// change its hyperparameters between steps.
type batchCase struct {
	name   string
	make   func(e *tensor.Engine, groups [][]Param) (stepper, error)
	retune func(o stepper, step int)
}

func batchCases() []batchCase {
	sgdCfgs := []SGDConfig{
		{LR: 0.1, Momentum: 0.9, Nesterov: true, WeightDecay: 0.01},
		{LR: 0.05, Momentum: 0.8, Dampening: 0.1},
		{LR: 0.2, WeightDecay: 0.1},
		{LR: 0.1, Momentum: 0.9}, // the slots of group 0: batched with it
	}
	ams := AdamDefaults()
	ams.AMSGrad, ams.WeightDecay = true, 0.01
	odd := AdamConfig{LR: 1e-2, Beta1: 0.8, Beta2: 0.99, Eps: 1e-6, AMSGrad: true}
	adamCfgs := []AdamConfig{ams, AdamDefaults(), odd}
	noDecay := AdamWDefaults()
	noDecay.WeightDecay = 0
	amsW := AdamWDefaults()
	amsW.AMSGrad, amsW.WeightDecay = true, 0.1
	adamWCfgs := []AdamConfig{AdamWDefaults(), noDecay, amsW}
	rms := func(mom, wd float64, centered bool) RMSPropConfig {
		c := RMSPropDefaults()
		c.Momentum, c.WeightDecay, c.Centered = mom, wd, centered
		return c
	}
	rmsCfgs := []RMSPropConfig{rms(0.9, 0.01, true), rms(0, 0, false), rms(0.5, 0, false), rms(0, 0.1, true), rms(0.7, 0, true)}
	groupsOf := func(groups [][]Param, n int) [][]Param { return groups[:n] }
	return []batchCase{
		{"sgd", func(e *tensor.Engine, gs [][]Param) (stepper, error) {
			var groups []SGDGroup
			for i, ps := range groupsOf(gs, len(sgdCfgs)) {
				groups = append(groups, SGDGroup{Params: ps, Config: sgdCfgs[i]})
			}
			return NewSGDGroups(e, groups)
		}, func(o stepper, step int) {
			s := o.(*SGD)
			s.Momentum = 0.9 - 0.1*float64(step%3)
			s.rest[0].Dampening = 0.05 * float64(step)
			s.rest[1].WeightDecay = 0.1 / float64(step+1)
		}},
		{"adam", func(e *tensor.Engine, gs [][]Param) (stepper, error) {
			var groups []AdamGroup
			for i, ps := range groupsOf(gs, len(adamCfgs)) {
				groups = append(groups, AdamGroup{Params: ps, Config: adamCfgs[i]})
			}
			return NewAdamGroups(e, groups)
		}, func(o stepper, step int) {
			a := o.(*Adam)
			a.Beta1, a.rest[0].Beta2, a.rest[1].Eps = 0.9-0.01*float64(step), 0.999-0.001*float64(step), 1e-6*float64(step+1)
		}},
		{"adamw", func(e *tensor.Engine, gs [][]Param) (stepper, error) {
			var groups []AdamGroup
			for i, ps := range groupsOf(gs, len(adamWCfgs)) {
				groups = append(groups, AdamGroup{Params: ps, Config: adamWCfgs[i]})
			}
			return NewAdamWGroups(e, groups)
		}, func(o stepper, step int) {
			a := o.(*Adam)
			a.WeightDecay, a.rest[1].WeightDecay = 0.01*float64(step+1), 0.1/float64(step+1)
		}},
		{"rmsprop", func(e *tensor.Engine, gs [][]Param) (stepper, error) {
			var groups []RMSPropGroup
			for i, ps := range groupsOf(gs, len(rmsCfgs)) {
				groups = append(groups, RMSPropGroup{Params: ps, Config: rmsCfgs[i]})
			}
			return NewRMSPropGroups(e, groups)
		}, func(o stepper, step int) {
			r := o.(*RMSProp)
			r.Alpha, r.rest[1].Momentum, r.rest[3].Eps = 0.99-0.01*float64(step), 0.5+0.1*float64(step), 1e-7*float64(step+1)
		}},
	}
}

// batchSizes are the parameters' sizes in the batched-step tests: empty,
// one element, odd sizes (the scalar kernels), multiples of four (the
// vec4 ones), past a workgroup of either (256 invocations of 4 elements
// of 1 or 4 floats) and, on a device whose work budget is small, past
// the budget (see TestBatchedStepIsBitForBitThePerParameterKernel). Two
// of them, [2 3] and [6], have the sizes of others, for a gradient given
// to two parameters.
var batchSizes = [][]int{{0}, {1}, {3}, {4}, {7}, {12}, {37, 11}, {2, 3}, {6}, {64}, {257}, {1031}, {4100}, {5000}, {17001}, {40004}}

// batchParams makes groups of parameters of batchSizes, each group every
// size (shuffled), random, named "<group>.<k>".
func batchParams(t *testing.T, e *tensor.Engine, r *rand.Rand, groups int) [][]Param {
	out := make([][]Param, groups)
	for g := range out {
		for k, j := range r.Perm(len(batchSizes)) {
			s := batchSizes[j]
			n := 1
			for _, d := range s {
				n *= d
			}
			p := e.FromFloat32s(randomFloats(r, n, 1), s...)
			p.Keep()
			out[g] = append(out[g], Param{Name: fmt.Sprintf("%d.%d", g, k), T: p})
		}
	}
	t.Cleanup(func() {
		for _, ps := range out {
			for _, p := range ps {
				p.T.Dispose()
			}
		}
	})
	return out
}

// randomFloats returns n values in (-scale, scale), a tenth of them tiny
// and a tenth large, so that the update's roundings vary.
func randomFloats(r *rand.Rand, n int, scale float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		x := (2*r.Float32() - 1) * scale
		switch r.IntN(10) {
		case 0:
			x *= 1e-4
		case 1:
			x *= 1e3
		}
		v[i] = x
	}
	return v
}

func ctxOf(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// sameBits fails t unless got and want hold the same float32 bits,
// element by element.
func sameBits(t *testing.T, what string, got, want *tensor.Tensor) {
	t.Helper()
	g, err := got.Float32s(ctxOf(t))
	require.NoError(t, err, what)
	w, err := want.Float32s(ctxOf(t))
	require.NoError(t, err, what)
	require.Len(t, g, len(w), what)
	for i := range w {
		if math.Float32bits(g[i]) != math.Float32bits(w[i]) {
			t.Fatalf("%s[%d] = %v (%#08x), the per-parameter kernel %v (%#08x)", what, i, g[i], math.Float32bits(g[i]), w[i], math.Float32bits(w[i]))
		}
	}
}

// Issue 21: the batched step (several parameters per dispatch, of several
// groups) gives, bit for bit, what the per-parameter kernel gives, for
// every optimizer with every state slot, over groups of different
// configs, parameters of every size (0, 1, odd, past a workgroup), nil
// gradients, one gradient for two parameters, hyperparameters changed
// between steps, and on a device whose small work budget cuts the
// launches into several dispatches, in the middle of parameters; with
// the parameters batched as on a CPU adapter (by size) and as on a GPU
// (as many as the device binds, a thread per element). The
// state, the step counts and the versions agree too, and the kernels
// compiled are a few per state-slot set (powers of two up to the
// device's limit), not one per batch size.
func TestBatchedStepIsBitForBitThePerParameterKernel(t *testing.T) {
	budgets := []struct {
		name   string
		budget float64 // work per submission; 0: the device's default
		gpu    bool    // batch as on a GPU, whatever the adapter
	}{{"default budget", 0, false}, {"small budget", 4 * 256 * 256, false}, {"as on a GPU", 0, true}, {"as on a GPU, small budget", 4 * 256 * 256, true}}
	for _, bud := range budgets {
		t.Run(bud.name, func(t *testing.T) {
			opts := testgpu.DefaultOptions()
			if bud.budget > 0 {
				opts.WorkBudget = wgpu.Work(bud.budget)
			}
			d := testgpu.OpenWith(t, opts)
			for _, c := range batchCases() {
				t.Run(c.name, func(t *testing.T) {
					e := testgpu.EngineOn(t, d)
					r := rand.New(rand.NewPCG(21, uint64(len(c.name))))
					gs := batchParams(t, e, r, 5)
					o, err := c.make(e, gs)
					require.NoError(t, err)
					defer o.Dispose()
					b := o.core()
					if bud.gpu {
						b.cpu = false
					}
					ps := o.Params()
					ref := newPerParam(t, e, ps)
					versions := make([]int64, len(ps)) // Assign made ref's one more
					for i, p := range ps {
						versions[i] = int64(ref.params[i].Version()) - int64(p.T.Version())
					}
					split := false
					for step := range 5 {
						c.retune(o, step)
						for g := range o.NumGroups() {
							require.NoError(t, o.SetLR(g, 0.01*float64(g+1)/float64(step+1)))
						}
						_, err := tidy.Run(e, func() (int, error) {
							grads := make([]*tensor.Tensor, len(ps))
							for i, p := range ps {
								if (i+step)%7 == 3 {
									continue // no gradient: skipped
								}
								grads[i] = e.FromFloat32s(randomFloats(r, p.T.Size(), 2), p.T.Shape()...)
							}
							// one gradient for two parameters of the same shape
							for i, p := range ps {
								for j, q := range ps[:i] {
									if grads[i] != nil && grads[j] != nil && p.T.Shape().Equal(q.T.Shape()) && step%2 == 1 {
										grads[i] = grads[j]
									}
								}
							}
							require.NoError(t, e.Flush())
							before := d.Stats().Dispatches
							states := len(o.State())
							us := o.updates()
							require.NoError(t, o.Step(grads))
							require.NoError(t, e.Flush())
							items := itemsOf(b, us, grads)
							launches := b.batches(items)
							kinds := map[string][]item{} // items of the same slots and width
							for _, it := range items {
								key := fmt.Sprintf("%v/x%d", it.u.slots, widthFor(it.g.Size()))
								kinds[key] = append(kinds[key], it)
							}
							least := 0
							for _, its := range kinds {
								limit := batchLimit(e, len(its[0].u.slots))
								least += (len(its) + limit - 1) / limit
							}
							if bud.gpu {
								assert.Equal(t, least, len(launches), "step %d: as many per launch as the device binds", step)
							} else {
								assert.Less(t, len(launches), len(items)/2, "step %d: launches for %d parameters", step, len(items))
							}
							if step == 0 {
								t.Logf("%d parameters with a gradient: %d launches (%d at least)", len(items), len(launches), least)
							}
							if len(o.State()) == states { // zeroing new state dispatches too
								batches := 0
								for _, bt := range launches {
									for _, it := range bt.items {
										if it.n > 0 {
											batches++
											break
										}
									}
								}
								n := int(d.Stats().Dispatches - before)
								if bud.budget == 0 {
									assert.Equal(t, batches, n, "step %d: one dispatch per batch", step)
								}
								assert.GreaterOrEqual(t, n, batches, "step %d: dispatches", step)
								split = split || n > batches
							}
							ref.step(t, b, us, grads)
							return 0, nil
						})
						require.NoError(t, err)
						for i, p := range ps {
							sameBits(t, fmt.Sprintf("step %d: parameter %s %v", step, p.Name, p.T.Shape()), p.T, ref.params[i])
							assert.Equal(t, ref.steps[i], o.Steps(p.Name), p.Name)
							assert.Equal(t, int64(ref.params[i].Version())-versions[i], int64(p.T.Version()), p.Name)
						}
						states := o.State()
						n := 0
						for i, p := range ps {
							n += len(ref.state[i])
							for s, want := range ref.state[i] {
								got := findState(states, p.Name+"."+s)
								require.NotNil(t, got, "%s.%s", p.Name, s)
								sameBits(t, fmt.Sprintf("step %d: state %s.%s", step, p.Name, s), got, want)
							}
						}
						assert.Len(t, states, n)
					}
					if bud.budget > 0 {
						assert.True(t, split, "the small budget cuts some launches")
					}
					perSlots := map[string]int{}
					for key := range b.kernels {
						slots, _, _ := strings.Cut(key, "/x")
						perSlots[slots]++
					}
					for slots, n := range perSlots {
						assert.LessOrEqual(t, n, 2*5, "kernels of %s: a few widths (1 and 4) × batch sizes (powers of two)", slots)
					}
				})
			}
		})
	}
}

// itemsOf lists the items a step with grads updates (their state
// already created).
func itemsOf(b *base, us []update, grads []*tensor.Tensor) []item {
	var items []item
	for i, g := range grads {
		if g != nil {
			items = append(items, item{i: i, g: g, u: us[b.groupOf(i)], n: g.Size() / widthFor(g.Size())})
		}
	}
	return items
}

func findState(states []Param, name string) *tensor.Tensor {
	for _, s := range states {
		if s.Name == name {
			return s.T
		}
	}
	return nil
}

// A launch that fails (out of memory for the placeholders of its unused
// slots) updates nothing of its batch: the parameters keep their values
// and versions, the step counts stay, the state a first step created for
// them is gone, and the error names the optimizer and the parameters.
// The next step, with memory, updates them as if the failed one never
// ran.
func TestFailedLaunchUpdatesNothingOfItsBatch(t *testing.T) {
	d := testgpu.Open(t)
	e := testgpu.EngineOn(t, d)
	r := rand.New(rand.NewPCG(5, 21))
	var ps []Param
	for _, name := range []string{"a", "b", "c"} { // a batch of 3 in a kernel of 4
		p := e.FromFloat32s(randomFloats(r, 8, 1), 8)
		p.Keep()
		defer p.Dispose()
		ps = append(ps, Param{Name: name, T: p})
	}
	g := e.FromFloat32s(randomFloats(r, 8, 1), 8)
	defer g.Dispose()
	grads := []*tensor.Tensor{g, g, g}
	for _, first := range []bool{true, false} {
		o, err := NewAdam(e, ps, AdamDefaults())
		require.NoError(t, err)
		o.cpu = false // as on a GPU: the batch fills its kernel's slots with placeholders
		if !first {
			require.NoError(t, o.Step(grads))
		}
		require.NoError(t, e.Flush())
		values := make([][]float32, len(ps))
		versions := make([]uint64, len(ps))
		for i, p := range ps {
			values[i], err = p.T.Float32s(ctxOf(t))
			require.NoError(t, err)
			versions[i] = p.T.Version()
		}
		states := len(o.State())
		live := d.Pool().Stats().LiveBytes
		probe := e.Zeros(tensor.Float32, 8) // what a state tensor takes
		require.NoError(t, e.Flush())
		each := d.Pool().Stats().LiveBytes - live
		probe.Dispose()
		require.NoError(t, e.Flush())
		require.NoError(t, d.Pool().Trim())
		stats := d.Pool().Stats()
		d.Pool().SetMemoryLimit(stats.LiveBytes + each*uint64(len(ps)*2*boolInt(first))) // the state, no placeholder
		err = o.Step(grads)
		d.Pool().SetMemoryLimit(0)
		require.ErrorIs(t, err, wgpu.ErrOutOfMemory)
		assert.Contains(t, err.Error(), `optim: adam: update of "a", "b", "c"`)
		for i, p := range ps {
			v, err := p.T.Float32s(ctxOf(t))
			require.NoError(t, err)
			assert.Equal(t, values[i], v, p.Name)
			assert.Equal(t, versions[i], p.T.Version(), p.Name)
			assert.Equal(t, 1-boolInt(first), o.Steps(p.Name), p.Name)
		}
		assert.Len(t, o.State(), states, "the state the failed step created is gone")
		require.NoError(t, o.Step(grads))
		for _, p := range ps {
			assert.Equal(t, 2-boolInt(first), o.Steps(p.Name))
		}
		o.Dispose()
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
