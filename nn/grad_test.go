package nn_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// The finite-difference check of a module, in the style of grad's
// check_test.go: the gradients a tape computes for y = m(x), seeded with
// random weights r, of the input x (when it is float32) and of each
// parameter must match the central differences of L = Σ r·y computed in
// float64 on the host from m's float32 results, with the same step and
// tolerances as grad's harness:
//
//	dL/dv ≈ (L(v+h) − L(v−h)) / (v⁺ − v⁻), h = fdStep·max(1, |v|)
//
// and |g − d| ≤ fdAtol + fdRtol·max(|g|, |d|). Each evaluation builds the
// module afresh from the same root seed (so that Dropout draws the same
// mask and BatchNorm starts from the same statistics) in the mode asked,
// and writes the parameters' values (perturbed or not) in with Assign.
const (
	fdStep = 1e-2
	fdAtol = 2e-3
	fdRtol = 1e-2
)

// gradCase is one module to check: how to build it, its input (float32
// values, or int32 indices when ints is set) and its mode.
type gradCase struct {
	name     string
	build    func(b *nn.Builder) nn.Module
	shape    []int
	x        []float32 // float32 input; nil with ints
	ints     []int32   // int32 input (Embedding)
	training bool
}

// moduleCheck holds the host values the check perturbs.
type moduleCheck struct {
	t      *testing.T
	e      *tensor.Engine
	c      gradCase
	params [][]float64 // each parameter's values, in Params order
	x      []float64
	r      []float64 // the seed gradient's weights
}

func checkModuleGradient(t *testing.T, e *tensor.Engine, c gradCase) {
	t.Helper()
	mc := &moduleCheck{t: t, e: e, c: c}
	for _, v := range c.x {
		mc.x = append(mc.x, float64(v))
	}
	m := mc.build()
	for _, p := range m.Params() {
		mc.params = append(mc.params, toFloat64(read(t, p.T)))
	}
	m.Dispose()
	rng := rngFor(t)
	n := len(mc.eval())
	for range n {
		mc.r = append(mc.r, float64(float32(2*rng.Float64()-1)))
	}
	got := mc.tapeGradients()
	targets := append([][]float64{mc.x}, mc.params...)
	for i, vs := range targets {
		for j, v := range vs {
			h := fdStep * math.Max(1, math.Abs(v))
			up, down := float64(float32(v+h)), float64(float32(v-h))
			vs[j] = up
			lUp := mc.loss()
			vs[j] = down
			lDown := mc.loss()
			vs[j] = v
			d := (lUp - lDown) / (up - down)
			g := float64(got[i][j])
			if !(math.Abs(g-d) <= fdAtol+fdRtol*math.Max(math.Abs(g), math.Abs(d))) {
				t.Errorf("%s: %s, element %d (value %g): gradient %g, central difference %g", c.name, mc.targetName(i), j, v, g, d)
			}
		}
	}
}

// targetName names the input (0) or parameter i−1 of the check.
func (mc *moduleCheck) targetName(i int) string {
	if i == 0 {
		return "input"
	}
	m := mc.build()
	defer m.Dispose()
	return "parameter " + m.Params()[i-1].Name
}

// build makes the module with the root seed every evaluation uses, in
// the case's mode.
func (mc *moduleCheck) build() nn.Module {
	b := nn.NewBuilder(mc.e, 5)
	m := mc.c.build(b)
	require.NoError(mc.t, b.Err())
	m.SetTraining(mc.c.training)
	return m
}

// setUp builds the module with the current host values of the parameters
// and uploads the input, in the current scope.
func (mc *moduleCheck) setUp() (nn.Module, *tensor.Tensor) {
	m := mc.build()
	for i, p := range m.Params() {
		require.NoError(mc.t, mc.e.Assign(p.T, mc.e.FromFloat32s(toFloat32(mc.params[i]), p.T.Shape()...)))
	}
	if mc.c.ints != nil {
		return m, mc.e.FromInt32s(mc.c.ints, mc.c.shape...)
	}
	return m, mc.e.FromFloat32s(toFloat32(mc.x), mc.c.shape...)
}

// eval returns the module's result at the current host values.
func (mc *moduleCheck) eval() []float32 {
	v, err := tidy.Run(mc.e, func() ([]float32, error) {
		m, x := mc.setUp()
		defer m.Dispose()
		return m.Forward(x).Float32s(context.Background())
	})
	require.NoError(mc.t, err)
	return v
}

// loss returns Σ r·y in float64.
func (mc *moduleCheck) loss() float64 {
	sum := 0.0
	for i, y := range mc.eval() {
		sum += mc.r[i] * float64(y)
	}
	return sum
}

// tapeGradients returns the tape's gradients of the input (none for int32
// indices) and of each parameter, read back.
func (mc *moduleCheck) tapeGradients() [][]float32 {
	out, err := tidy.Run(mc.e, func() ([][]float32, error) {
		m, x := mc.setUp()
		defer m.Dispose()
		tape := grad.NewTape(mc.e)
		var y *tensor.Tensor
		if err := tape.Record(func() error { y = m.Forward(x); return y.Err() }); err != nil {
			return nil, err
		}
		wrt := nn.Tensors(m.Params())
		if mc.c.ints == nil {
			wrt = append([]*tensor.Tensor{x}, wrt...)
		}
		gs, err := tape.Gradients(y, wrt, &grad.Options{Seed: mc.e.FromFloat32s(toFloat32(mc.r), y.Shape()...)})
		if err != nil {
			return nil, err
		}
		out := [][]float32{nil}
		if mc.c.ints == nil {
			out = nil
		}
		for _, g := range gs {
			v, err := g.Float32s(context.Background())
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	})
	require.NoError(mc.t, err)
	return out
}

// distinct returns n values spread evenly over [-2, 2] in random order,
// 4/(n-1) apart: a max pooling's gradient is the finite differences' only
// where no two values of a window come within a step of each other.
func distinct(rng *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i, k := range rng.Perm(n) {
		out[i] = float32(-2 + 4*float64(k)/float64(n-1))
	}
	return out
}

func toFloat64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func toFloat32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// Each layer's gradients, of its input and of every parameter, match
// central finite differences; the nonlinear ones are checked on inputs
// away from their kinks (ReLU's 0: values drawn from ±[0.1, 2]).
func TestLayerGradientsMatchFiniteDifferences(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	uniform := func(n int) []float32 { return randFloats(rng, n, -2, 2) }
	awayFromZero := func(n int) []float32 {
		v := randFloats(rng, n, 0.1, 2)
		for i := range v {
			if rng.IntN(2) == 0 {
				v[i] = -v[i]
			}
		}
		return v
	}
	withBias := nn.BiasInit(nn.Uniform(-1, 1))
	affine := []nn.Option{nn.WeightInit(nn.Uniform(0.5, 1.5)), withBias}
	cases := []gradCase{
		{name: "Linear", build: func(b *nn.Builder) nn.Module { return b.Linear(3, 2, withBias) }, shape: []int{4, 3}, x: uniform(12)},
		{name: "Linear, batch of rank 2", build: func(b *nn.Builder) nn.Module { return b.Linear(2, 2, withBias) }, shape: []int{2, 2, 2}, x: uniform(8)},
		{name: "Linear, one vector, no bias", build: func(b *nn.Builder) nn.Module { return b.Linear(3, 2, nn.NoBias()) }, shape: []int{3}, x: uniform(3)},
		{name: "LayerNorm", build: func(b *nn.Builder) nn.Module { return b.LayerNorm(4, affine...) }, shape: []int{3, 4}, x: uniform(12)},
		{name: "BatchNorm, training", build: func(b *nn.Builder) nn.Module { return b.BatchNorm(3, affine...) }, shape: []int{2, 2, 3}, x: uniform(12), training: true},
		{name: "BatchNorm, inference", build: func(b *nn.Builder) nn.Module { return b.BatchNorm(3, affine...) }, shape: []int{4, 3}, x: uniform(12)},
		{name: "Embedding", build: func(b *nn.Builder) nn.Module { return b.Embedding(4, 3) }, shape: []int{5}, ints: []int32{3, 0, 3, 1, -1}},
		{name: "Dropout, training", build: func(b *nn.Builder) nn.Module { return b.Dropout(0.4) }, shape: []int{3, 4}, x: uniform(12), training: true},
		{name: "ReLU", build: func(*nn.Builder) nn.Module { return nn.ReLU() }, shape: []int{2, 3}, x: awayFromZero(6)},
		{name: "GELU", build: func(*nn.Builder) nn.Module { return nn.GELU() }, shape: []int{2, 3}, x: uniform(6)},
		{name: "Tanh", build: func(*nn.Builder) nn.Module { return nn.Tanh() }, shape: []int{2, 3}, x: uniform(6)},
		{name: "Sigmoid", build: func(*nn.Builder) nn.Module { return nn.Sigmoid() }, shape: []int{2, 3}, x: uniform(6)},
		{name: "Softmax", build: func(*nn.Builder) nn.Module { return nn.Softmax() }, shape: []int{2, 3}, x: uniform(6)},
		{name: "Flatten", build: func(*nn.Builder) nn.Module { return nn.NewFlatten() }, shape: []int{2, 2, 2}, x: uniform(8)},
		{name: "Conv2D, same padding", build: func(b *nn.Builder) nn.Module {
			return b.Conv2D(2, 3, [2]int{3, 3}, nn.Pad(tensor.Same()), withBias)
		}, shape: []int{2, 4, 3, 2}, x: uniform(48)},
		{name: "Conv2D, stride 2, dilation 2, groups 2, no bias", build: func(b *nn.Builder) nn.Module {
			return b.Conv2D(4, 2, [2]int{2, 3}, nn.Stride(2, 1), nn.Dilation(1, 2), nn.Groups(2), nn.NoBias())
		}, shape: []int{1, 5, 6, 4}, x: uniform(120)},
		// Distinct inputs, so that no window's maximum is a tie.
		{name: "MaxPool2D", build: func(*nn.Builder) nn.Module {
			return nn.MaxPool2D(tensor.Pool2DOptions{Window: [2]int{2, 2}})
		}, shape: []int{1, 4, 4, 2}, x: distinct(rng, 32)},
		{name: "AvgPool2D, same padding", build: func(*nn.Builder) nn.Module {
			return nn.AvgPool2D(tensor.Pool2DOptions{Window: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: tensor.Same()})
		}, shape: []int{2, 5, 5, 1}, x: uniform(50)},
		{name: "Sequential: Conv2D, ReLU, MaxPool2D, Flatten, Linear", build: func(b *nn.Builder) nn.Module {
			return nn.NewSequential(b.Conv2D(1, 2, [2]int{3, 3}, nn.Pad(tensor.Same()), withBias), nn.ReLU(),
				nn.MaxPool2D(tensor.Pool2DOptions{Window: [2]int{2, 2}}), nn.NewFlatten(), b.Linear(8, 3, withBias))
		}, shape: []int{2, 4, 4, 1}, x: uniform(32)},
		{name: "Sequential: Linear, LayerNorm, GELU, Dropout, Linear", build: func(b *nn.Builder) nn.Module {
			return nn.NewSequential(b.Linear(3, 4, withBias), b.LayerNorm(4, affine...), nn.GELU(), b.Dropout(0.25), b.Linear(4, 2, withBias))
		}, shape: []int{3, 3}, x: uniform(9), training: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkModuleGradient(t, e, c)
			require.Zero(t, e.NumTensors(), fmt.Sprintf("%s left tensors", c.name))
		})
	}
}
