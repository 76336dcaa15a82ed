package optim_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// allOptimizers makes one optimizer of each kind, with every state slot in
// use.
func allOptimizers() []refCase {
	ams := optim.AdamDefaults()
	ams.AMSGrad = true
	rms := optim.RMSPropDefaults()
	rms.Momentum, rms.Centered = 0.9, true
	return []refCase{
		named("sgd", sgd(optim.SGDConfig{LR: 0.1, Momentum: 0.9, Nesterov: true})),
		named("adam", adam(ams, false)),
		named("adamw", adam(optim.AdamWDefaults(), true)),
		named("rmsprop", rmsprop(rms)),
	}
}

// gradsFor uploads random gradients for ps and flushes them, so that
// what a step dispatches is the step's own work.
func gradsFor(t *testing.T, e *tensor.Engine, r *rand.Rand, ps []optim.Param) []*tensor.Tensor {
	t.Helper()
	gs := make([]*tensor.Tensor, len(ps))
	for i, p := range ps {
		gs[i] = e.FromFloat32s(uniform(r, p.T.Size()), p.T.Shape()...)
	}
	require.NoError(t, e.Flush())
	return gs
}

// Issue 21: a step updates several parameters per dispatch. Over the 29
// parameters of the transformer benchmark and over 29 small ones, with
// every state slot in use, a step records fewer dispatches than there
// are parameters (at most one per parameter, and fewer than half of that
// for the small ones), all of the optimizer's kernels (a profile of a
// step shows nothing else), the same number step after step. Changing
// every hyperparameter between steps compiles no kernel.
func TestStepBatchesParameters(t *testing.T) {
	for _, shapes := range []struct {
		name   string
		shapes [][]int
	}{{"transformer", transformerShapes()}, {"small", smallShapes()}} {
		for _, c := range allOptimizers() {
			t.Run(shapes.name+"/"+c.name, func(t *testing.T) {
				e := testgpu.Engine(t)
				r := rand.New(rand.NewPCG(3, 4))
				ps, _, free := transformerParams(t, e, shapes.shapes...)
				defer free()
				o, err := c.make(e, ps)
				require.NoError(t, err)
				defer o.Dispose()
				inScope(t, e, func() { require.NoError(t, o.Step(gradsFor(t, e, r, ps))) })
				compiled := e.Device().Stats().KernelsCompiled
				dispatches := -1
				for step := range 10 {
					retune(o, step)
					inScope(t, e, func() {
						gs := gradsFor(t, e, r, ps)
						prof, err := e.Profile(ctxT(t), func() error { return o.Step(gs) })
						require.NoError(t, err)
						for _, d := range prof.Dispatches {
							assert.Contains(t, d.Kernel, "optim.")
						}
						if dispatches < 0 {
							dispatches = len(prof.Dispatches)
							t.Logf("%s, %d parameters: %d dispatches per step", e.Device().Info(), len(ps), dispatches)
						}
						assert.Equal(t, dispatches, len(prof.Dispatches), "step %d", step)
					})
				}
				assert.Less(t, dispatches, len(ps))
				if shapes.name == "small" {
					assert.Less(t, dispatches, len(ps)/2)
				}
				assert.Equal(t, compiled, e.Device().Stats().KernelsCompiled, "new hyperparameters compile nothing")
			})
		}
	}
}

// retune changes every hyperparameter that needs no other state.
func retune(o optim.Optimizer, step int) {
	f := 1 / float64(step+2)
	switch o := o.(type) {
	case *optim.SGD:
		o.LR, o.Momentum, o.WeightDecay, o.Nesterov = f, 0.5+f/4, f/10, step%2 == 0
		if !o.Nesterov {
			o.Dampening = f
		} else {
			o.Dampening = 0
		}
	case *optim.Adam:
		o.LR, o.Beta1, o.Beta2, o.Eps, o.WeightDecay = f, 0.8+f/10, 0.99+f/1000, f*1e-6, f/10
	case *optim.RMSProp:
		o.LR, o.Alpha, o.Eps, o.WeightDecay, o.Momentum = f, 0.9+f/20, f*1e-6, f/10, 0.5+f/4
	}
}

// State is created at the first step, counted, and after it steps change
// no figure of the engine's memory: they allocate nothing that outlives
// them.
func TestStepsAllocateNothingAfterTheFirst(t *testing.T) {
	for _, c := range allOptimizers() {
		t.Run(c.name, func(t *testing.T) {
			e := testgpu.Engine(t)
			r := rand.New(rand.NewPCG(5, 6))
			ps := newParams(e, r)
			defer disposeParams(ps)
			o, err := c.make(e, ps)
			require.NoError(t, err)
			defer o.Dispose()
			before := e.Memory()
			inScope(t, e, func() { require.NoError(t, o.Step(gradsFor(t, e, r, ps))) })
			first := e.Memory()
			var stateBytes uint64
			for _, s := range o.State() {
				stateBytes += uint64(4 * s.T.Size())
			}
			assert.Equal(t, before.Tensors+len(o.State()), first.Tensors, "the state is counted")
			assert.Equal(t, before.Bytes+stateBytes, first.Bytes)
			for range 20 {
				inScope(t, e, func() { require.NoError(t, o.Step(gradsFor(t, e, r, ps))) })
				now := e.Memory()
				assert.Equal(t, first.Tensors, now.Tensors)
				assert.Equal(t, first.Bytes, now.Bytes)
				assert.Equal(t, first.Pool.LiveBytes, now.Pool.LiveBytes)
			}
		})
	}
}

// An optimizer created, stepped and disposed 100 times leaves the
// engine's and the pool's live figures at their baseline, to the byte.
func TestCreateStepDisposeReturnsToBaseline(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(7, 8))
	ps := newParams(e, r)
	defer disposeParams(ps)
	cases := allOptimizers()
	// A first round warms the device up: it makes its uniform and staging
	// buffers, which are the device's, not the optimizer's.
	for _, c := range cases {
		o := c.must(t, e, ps)
		inScope(t, e, func() { require.NoError(t, o.Step(gradsFor(t, e, r, ps))) })
		o.Dispose()
	}
	base := e.Memory()
	for i := range 100 {
		c := cases[i%len(cases)]
		o, err := c.make(e, ps)
		require.NoError(t, err)
		inScope(t, e, func() {
			for range 2 {
				require.NoError(t, o.Step(gradsFor(t, e, r, ps)))
			}
		})
		o.Dispose()
		o.Dispose() // twice is harmless
		assert.Empty(t, o.State())
		now := e.Memory()
		require.Equal(t, base.Tensors, now.Tensors, "round %d (%s)", i, c.name)
		require.Equal(t, base.Bytes, now.Bytes, "round %d (%s)", i, c.name)
		require.Equal(t, base.Pool.LiveBytes, now.Pool.LiveBytes, "round %d (%s)", i, c.name)
		require.Equal(t, base.Pool.LiveBuffers, now.Pool.LiveBuffers, "round %d (%s)", i, c.name)
	}
	err := cases[0].must(t, e, ps).Step(make([]*tensor.Tensor, len(ps)))
	require.NoError(t, err, "all gradients nil: nothing to do")
}

func (c refCase) must(t *testing.T, e *tensor.Engine, ps []optim.Param) optim.Optimizer {
	t.Helper()
	o, err := c.make(e, ps)
	require.NoError(t, err)
	t.Cleanup(o.Dispose)
	return o
}

// Bad steps update nothing: every parameter keeps its values, the state
// and step counts stay as they were, and the error names the optimizer,
// the parameter and the shapes.
func TestBadStepsUpdateNothing(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(9, 10))
	ps := newParams(e, r)
	defer disposeParams(ps)
	o := allOptimizers()[1].must(t, e, ps).(*optim.Adam)
	inScope(t, e, func() { require.NoError(t, o.Step(gradsFor(t, e, r, ps))) })
	want := [][]float32{f32s(t, ps[0].T), f32s(t, ps[1].T)}
	inScope(t, e, func() {
		good := gradsFor(t, e, r, ps)
		gone := e.Zeros(tensor.Float32, 12)
		gone.Dispose()
		for _, c := range []struct {
			name  string
			grads []*tensor.Tensor
			kind  error
			text  string
		}{
			{"shape", []*tensor.Tensor{good[0], e.Zeros(tensor.Float32, 8)}, tensor.ErrShape, `gradient of "0.bias" is [8], the parameter [12]`},
			{"transposed", []*tensor.Tensor{e.Zeros(tensor.Float32, 11, 37), good[1]}, tensor.ErrShape, `gradient of "0.weight" is [11 37], the parameter [37 11]`},
			{"dtype", []*tensor.Tensor{good[0], e.Zeros(tensor.Int32, 12)}, tensor.ErrDType, `gradient of "0.bias" is int32`},
			{"disposed gradient", []*tensor.Tensor{good[0], gone}, tensor.ErrDisposed, `gradient of "0.bias"`},
			{"gradient carrying an error", []*tensor.Tensor{good[0], e.Reshape(good[1], 5)}, tensor.ErrShape, `gradient of "0.bias": tensor: reshape [12]`},
			{"too few", good[:1], optim.ErrArgument, "1 gradients for 2 parameters"},
		} {
			err := o.Step(c.grads)
			require.Error(t, err, c.name)
			assert.True(t, errors.Is(err, c.kind), "%s: %v", c.name, err)
			assert.Contains(t, err.Error(), "optim: adam: "+c.text, c.name)
		}
		o.LR = -1
		assert.ErrorIs(t, o.Step(good), optim.ErrArgument)
		o.LR = 1e-3
		o.Beta1 = 1
		assert.ErrorIs(t, o.Step(good), optim.ErrArgument)
		o.Beta1 = 0.9
	})
	for i, p := range ps {
		assert.Equal(t, want[i], f32s(t, p.T), p.Name)
		assert.Equal(t, 1, o.Steps(p.Name))
	}
}

// A nil gradient skips its parameter (PyTorch skips a None grad): its
// values, version and step count stay; the others are updated.
func TestNilGradientSkipsItsParameter(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(11, 12))
	ps := newParams(e, r)
	defer disposeParams(ps)
	o := allOptimizers()[0].must(t, e, ps).(*optim.SGD)
	bias := f32s(t, ps[1].T)
	inScope(t, e, func() {
		gs := gradsFor(t, e, r, ps)
		require.NoError(t, o.Step([]*tensor.Tensor{gs[0], nil}))
	})
	assert.Equal(t, bias, f32s(t, ps[1].T))
	assert.Zero(t, ps[1].T.Version())
	assert.EqualValues(t, 1, ps[0].T.Version(), "updated in place")
	assert.Equal(t, 1, o.Steps("0.weight"))
	assert.Equal(t, 0, o.Steps("0.bias"))
	names := []string{}
	for _, s := range o.State() {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"0.weight.momentum_buffer"}, names)
}

// A disposed parameter, and a disposed optimizer, fail the step; bad
// parameter lists fail the constructor.
func TestDisposedParameterAndOptimizer(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(13, 14))
	ps := newParams(e, r)
	defer disposeParams(ps)
	o := allOptimizers()[3].must(t, e, ps)
	inScope(t, e, func() {
		gs := gradsFor(t, e, r, ps)
		weight := ps[0].T
		ps[0].T = e.Clone(weight) // keep a way to dispose it at the end
		weight.Dispose()
		o2, err := optim.NewRMSProp(e, []optim.Param{{Name: "w", T: weight}}, optim.RMSPropDefaults())
		assert.Nil(t, o2)
		assert.ErrorIs(t, err, tensor.ErrDisposed)
		err = o.Step(gs)
		assert.ErrorIs(t, err, tensor.ErrDisposed)
		assert.Contains(t, err.Error(), `parameter "0.weight"`)
		o.Dispose()
		assert.ErrorIs(t, o.Step(gs), optim.ErrDisposed)
		assert.ErrorIs(t, o.SetState("0.bias.square_avg", gs[1]), optim.ErrDisposed)
	})
	for _, bad := range [][]optim.Param{
		{{Name: "", T: ps[1].T}},
		{{Name: "a", T: ps[1].T}, {Name: "a", T: ps[1].T}},
		{{Name: "a"}},
	} {
		_, err := optim.NewSGD(e, bad, optim.SGDConfig{LR: 1})
		assert.ErrorIs(t, err, optim.ErrArgument)
	}
	inScope(t, e, func() {
		_, err := optim.NewSGD(e, []optim.Param{{Name: "i", T: e.Zeros(tensor.Int32, 2)}}, optim.SGDConfig{LR: 1})
		assert.ErrorIs(t, err, tensor.ErrDType)
	})
}

// State is the optimizer's own, named per parameter; it survives the
// tidy scope of the step that created it; SetState and SetSteps load a
// checkpoint into a fresh optimizer, which then steps as the original.
func TestStateRoundTrip(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(15, 16))
	ps := newParams(e, r)
	defer disposeParams(ps)
	ams := optim.AdamDefaults()
	ams.AMSGrad = true
	a, err := optim.NewAdam(e, ps, ams)
	require.NoError(t, err)
	defer a.Dispose()
	for range 3 {
		inScope(t, e, func() { require.NoError(t, a.Step(gradsFor(t, e, r, ps))) })
	}
	var names []string
	for _, s := range a.State() {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"0.weight.exp_avg", "0.weight.exp_avg_sq", "0.weight.max_exp_avg_sq",
		"0.bias.exp_avg", "0.bias.exp_avg_sq", "0.bias.max_exp_avg_sq"}, names)

	// A copy of the parameters and a second optimizer loaded from a's state.
	copies := make([]optim.Param, len(ps))
	for i, p := range ps {
		copies[i] = optim.Param{Name: p.Name, T: e.Zeros(tensor.Float32, p.T.Shape()...)}
		require.NoError(t, e.Assign(copies[i].T, p.T))
	}
	defer disposeParams(copies)
	b, err := optim.NewAdam(e, copies, ams)
	require.NoError(t, err)
	defer b.Dispose()
	for _, s := range a.State() {
		require.NoError(t, b.SetState(s.Name, s.T))
	}
	for _, p := range ps {
		require.NoError(t, b.SetSteps(p.Name, a.Steps(p.Name)))
	}
	assert.ErrorIs(t, b.SetState("0.weight.momentum_buffer", ps[0].T), optim.ErrArgument)
	assert.ErrorIs(t, b.SetState("0.bias.exp_avg", ps[0].T), tensor.ErrShape)
	assert.ErrorIs(t, b.SetSteps("nope", 1), optim.ErrArgument)
	inScope(t, e, func() {
		gs := gradsFor(t, e, r, ps)
		require.NoError(t, a.Step(gs))
		require.NoError(t, b.Step(gs))
	})
	for i := range ps {
		assert.Equal(t, f32s(t, ps[i].T), f32s(t, copies[i].T))
	}
}

// State tensors are reported at the user's line that called the Step that
// created them, not inside the optimizer.
func TestStateIsReportedAtTheUsersStep(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(17, 18))
	ps := newParams(e, r)
	defer disposeParams(ps)
	o := allOptimizers()[1].must(t, e, ps)
	var stepLine int
	inScope(t, e, func() {
		gs := gradsFor(t, e, r, ps)
		_, _, stepLine, _ = runtime.Caller(0)
		require.NoError(t, o.Step(gs)) // the line after Caller
	})
	want := fmt.Sprintf("step_test.go:%d", stepLine+1)
	require.NotEmpty(t, o.State())
	for _, s := range o.State() {
		assert.True(t, strings.HasSuffix(s.T.Site().String(), want), "%s created at %s, want %s", s.Name, s.T.Site(), want)
	}
}

// A step that fails part-way through creating a parameter's state (out of
// memory after the first of Adam's two moments) leaves no state behind:
// the next step starts the state afresh, as if the failed one never ran.
func TestFailedStepLeavesNoState(t *testing.T) {
	d := testgpu.Open(t)
	e := testgpu.EngineOn(t, d)
	w := e.Zeros(tensor.Float32, 1000)
	defer w.Dispose()
	g := e.Fill(tensor.Float32, 1, 1000)
	defer g.Dispose()
	ps := []optim.Param{{Name: "w", T: w}}
	warm := allOptimizers()[0].must(t, e, ps) // dispatches once: the device's own buffers exist
	require.NoError(t, warm.Step([]*tensor.Tensor{g}))
	require.NoError(t, e.Flush())
	require.NoError(t, d.Pool().Trim())
	stats := d.Pool().Stats()
	d.Pool().SetMemoryLimit(stats.LiveBytes + stats.PooledBytes + 4096 + 1024) // one moment, not two
	a, err := optim.NewAdam(e, ps, optim.AdamDefaults())
	require.NoError(t, err)
	defer a.Dispose()
	err = a.Step([]*tensor.Tensor{g})
	require.ErrorIs(t, err, wgpu.ErrOutOfMemory)
	assert.Contains(t, err.Error(), "optim: adam: state w.exp_avg_sq")
	assert.Empty(t, a.State())
	assert.Equal(t, 0, a.Steps("w"))
	d.Pool().SetMemoryLimit(0)
	require.NoError(t, a.Step([]*tensor.Tensor{g}))
	assert.Len(t, a.State(), 2)
}

// An update kernel's invocation updates several elements: a step over
// 4,099 elements dispatches at most one invocation per two of them (on
// lavapipe an invocation costs more than its few loads and stores), and
// every element is updated once, the last ones too.
func TestUpdateInvocationsTakeSeveralElements(t *testing.T) {
	const n = 4099
	for _, c := range allOptimizers() {
		t.Run(c.name, func(t *testing.T) {
			e := testgpu.Engine(t)
			p := e.Zeros(tensor.Float32, n)
			defer p.Dispose()
			o, err := c.make(e, []optim.Param{{Name: "w", T: p}})
			require.NoError(t, err)
			defer o.Dispose()
			ramp := make([]float32, n)
			for i := range ramp {
				ramp[i] = float32(i%97 + 1)
			}
			inScope(t, e, func() {
				g := e.FromFloat32s(ramp, n)
				require.NoError(t, e.Flush())
				prof, err := e.Profile(ctxT(t), func() error { return o.Step([]*tensor.Tensor{g}) })
				require.NoError(t, err)
				groups := 0
				for _, d := range prof.Dispatches { // the first step zeroes the state too
					if strings.HasPrefix(d.Kernel, "optim.") {
						groups += int(d.Groups[0] * d.Groups[1] * d.Groups[2])
					}
				}
				require.Positive(t, groups)
				assert.LessOrEqual(t, groups*256, (n+1)/2, "invocations for %d elements", n)
			})
			got := f32s(t, p)
			for i, v := range got {
				// Every optimizer's first step from zero moves each element
				// against its gradient's sign.
				require.Negative(t, v, "element %d", i)
			}
		})
	}
}
