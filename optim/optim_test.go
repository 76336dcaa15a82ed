package optim_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// inScope runs body in a tidy scope of e, which disposes what body made.
func inScope(t testing.TB, e *tensor.Engine, body func()) {
	t.Helper()
	_, err := tidy.Run(e, func() (int, error) { body(); return 0, nil })
	require.NoError(t, err)
}

func f32s(t testing.TB, x *tensor.Tensor) []float32 {
	t.Helper()
	v, err := x.Float32s(ctxT(t))
	require.NoError(t, err)
	return v
}

func uniform(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 2*r.Float32() - 1
	}
	return v
}

func widen(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// shapes are the parameters' shapes in the tests: a matrix and a vector,
// one of them past a workgroup.
// A size that is a multiple of four takes the vec4 kernels, others the
// scalar ones: the shapes have both.
var shapes = [][]int{{37, 11}, {12}}

// newParams makes a parameter of each shape, named as a state dict of
// layer 0, holding r's values.
func newParams(e *tensor.Engine, r *rand.Rand) []optim.Param {
	names := []string{"0.weight", "0.bias"}
	ps := make([]optim.Param, len(shapes))
	for i, s := range shapes {
		t := e.FromFloat32s(uniform(r, s[0]*last(s)), s...)
		t.Keep()
		ps[i] = optim.Param{Name: names[i], T: t}
	}
	return ps
}

func last(s []int) int {
	if len(s) == 1 {
		return 1
	}
	return s[len(s)-1]
}

func disposeParams(ps []optim.Param) {
	for _, p := range ps {
		p.T.Dispose()
	}
}

// setLR sets o's learning rate.
func setLR(o optim.Optimizer, lr float64) {
	switch o := o.(type) {
	case *optim.SGD:
		o.LR = lr
	case *optim.Adam:
		o.LR = lr
	case *optim.RMSProp:
		o.LR = lr
	}
}

// refCase is an optimizer and its float64 reference.
type refCase struct {
	name string
	lr   float64
	make func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error)
	ref  func(lr float64, p, g []float64, s *refState)
}

func sgd(c optim.SGDConfig) refCase {
	return refCase{lr: c.LR,
		make: func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error) { return optim.NewSGD(e, ps, c) },
		ref: func(lr float64, p, g []float64, s *refState) {
			c := c
			c.LR = lr
			refSGD(c, p, g, s)
		}}
}

func adam(c optim.AdamConfig, decoupled bool) refCase {
	return refCase{lr: c.LR,
		make: func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error) {
			if decoupled {
				return optim.NewAdamW(e, ps, c)
			}
			return optim.NewAdam(e, ps, c)
		},
		ref: func(lr float64, p, g []float64, s *refState) {
			c := c
			c.LR = lr
			refAdam(c, decoupled, p, g, s)
		}}
}

func rmsprop(c optim.RMSPropConfig) refCase {
	return refCase{lr: c.LR,
		make: func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error) { return optim.NewRMSProp(e, ps, c) },
		ref: func(lr float64, p, g []float64, s *refState) {
			c := c
			c.LR = lr
			refRMSProp(c, p, g, s)
		}}
}

func named(name string, c refCase) refCase { c.name = name; return c }

func refCases() []refCase {
	adamWD := optim.AdamDefaults()
	adamWD.LR, adamWD.WeightDecay = 1e-2, 0.1
	ams := adamWD
	ams.AMSGrad = true
	adamW := optim.AdamWDefaults()
	adamW.LR = 1e-2
	amsW := adamW
	amsW.AMSGrad, amsW.WeightDecay = true, 0.05
	rms := optim.RMSPropDefaults()
	rmsAll := rms
	rmsAll.LR, rmsAll.WeightDecay, rmsAll.Momentum, rmsAll.Centered, rmsAll.Alpha = 1e-3, 0.01, 0.9, true, 0.9
	rmsCentered := rms
	rmsCentered.Centered, rmsCentered.LR = true, 1e-3
	return []refCase{
		named("sgd", sgd(optim.SGDConfig{LR: 0.1})),
		named("sgd momentum dampening decay", sgd(optim.SGDConfig{LR: 0.05, Momentum: 0.9, Dampening: 0.1, WeightDecay: 0.01})),
		named("sgd nesterov decay", sgd(optim.SGDConfig{LR: 0.05, Momentum: 0.8, Nesterov: true, WeightDecay: 0.001})),
		named("adam", adam(optim.AdamDefaults(), false)),
		named("adam decay", adam(adamWD, false)),
		named("adam amsgrad", adam(ams, false)),
		named("adamw", adam(adamW, true)),
		named("adamw amsgrad", adam(amsW, true)),
		named("rmsprop", rmsprop(rms)),
		named("rmsprop centered", rmsprop(rmsCentered)),
		named("rmsprop centered momentum decay", rmsprop(rmsAll)),
	}
}

// Tolerances against the float64 reference after 100 steps: |gpu − ref|
// ≤ absTol + relTol·|ref| for parameters and every state tensor. float32
// rounding of each step's few operations accumulates over the steps; the
// worst case measured is logged.
const (
	absTol = 1e-5
	relTol = 1e-4
)

// Every optimizer computes what PyTorch's formulas compute in float64,
// over 100 steps of random gradients, with the learning rate changed
// before every step and one parameter's gradient missing (nil) every
// fifth step; parameters and state by name match within the stated
// tolerance, and so do the step counts.
func TestOptimizersMatchFloat64Reference(t *testing.T) {
	for _, c := range refCases() {
		t.Run(c.name, func(t *testing.T) {
			e := testgpu.Engine(t)
			r := rand.New(rand.NewPCG(1, 2))
			ps := newParams(e, r)
			defer disposeParams(ps)
			ref := make([][]float64, len(ps))
			refStates := make([]refState, len(ps))
			for i, p := range ps {
				ref[i] = widen(f32s(t, p.T))
			}
			o, err := c.make(e, ps)
			require.NoError(t, err)
			defer o.Dispose()
			for step := range 100 {
				lr := c.lr * (1 - float64(step)/200)
				setLR(o, lr)
				inScope(t, e, func() {
					grads := make([]*tensor.Tensor, len(ps))
					for i, p := range ps {
						if i == 1 && step%5 == 4 {
							continue // no gradient: skipped, as PyTorch skips None
						}
						g := uniform(r, p.T.Size())
						grads[i] = e.FromFloat32s(g, p.T.Shape()...)
						c.ref(lr, ref[i], widen(g), &refStates[i])
					}
					require.NoError(t, o.Step(grads))
				})
			}
			worst := 0.0
			check := func(name string, got []float32, want []float64) {
				require.Len(t, got, len(want), name)
				for i := range want {
					d := math.Abs(float64(got[i]) - want[i])
					worst = max(worst, d/(absTol+relTol*math.Abs(want[i])))
					if d > absTol+relTol*math.Abs(want[i]) {
						t.Fatalf("%s[%d] = %v, the reference %v", name, i, got[i], want[i])
					}
				}
			}
			var wantState []string
			for i, p := range ps {
				check(p.Name, f32s(t, p.T), ref[i])
				for s := range refStates[i].slots {
					wantState = append(wantState, p.Name+"."+s)
				}
				assert.Equal(t, refStates[i].steps, stepsOf(o, p.Name), p.Name)
			}
			var gotState []string
			for _, s := range o.State() {
				gotState = append(gotState, s.Name)
				param, slot := splitName(s.Name)
				check(s.Name, f32s(t, s.T), refStates[indexOf(ps, param)].slots[slot])
			}
			assert.ElementsMatch(t, wantState, gotState)
			t.Logf("worst error: %.3f of the tolerance", worst)
		})
	}
}

func stepsOf(o optim.Optimizer, name string) int {
	return o.Steps(name)
}

func splitName(s string) (param, slot string) {
	// names are "0.weight.<slot>": the parameter is the first two parts.
	dots := 0
	for i, c := range s {
		if c == '.' {
			dots++
			if dots == 2 {
				return s[:i], s[i+1:]
			}
		}
	}
	return s, ""
}

func indexOf(ps []optim.Param, name string) int {
	for i, p := range ps {
		if p.Name == name {
			return i
		}
	}
	return -1
}
