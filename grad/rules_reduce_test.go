package grad

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Tolerances: checkGradient's (fdAtol, fdRtol in check_test.go).

// reduceCase is one reduction checked: axes as the op takes them (some
// negative, none for all), keepDims both ways.
type reduceCase struct {
	shape    []int
	axes     []int
	keepDims bool
}

// reduceCases returns random shapes of rank 1 to 4 with random axes.
func reduceCases(rng *rand.Rand) []reduceCase {
	cases := []reduceCase{
		{[]int{4}, nil, false}, {[]int{3, 4}, []int{-1}, true}, {[]int{3, 4}, []int{0}, false},
		{[]int{2, 3, 4}, []int{0, 2}, true}, {[]int{2, 3, 4}, []int{-2}, false}, {[]int{2, 1, 3}, []int{1}, false},
	}
	for range 4 {
		r := 1 + rng.IntN(4)
		shape := make([]int, r)
		var axes []int
		for i := range shape {
			shape[i] = 1 + rng.IntN(3)
			if rng.IntN(2) == 0 {
				a := i
				if rng.IntN(2) == 0 {
					a -= r
				}
				axes = append(axes, a)
			}
		}
		cases = append(cases, reduceCase{shape, axes, rng.IntN(2) == 0})
	}
	return cases
}

// distinct returns an input of shape whose values are distinct and 0.1
// apart at least (so Max and Min have no ties within a step), in about
// [-3, 3], with signs mixed.
func distinct(rng *rand.Rand, shape ...int) hostIn {
	n := size(shape)
	perm := rng.Perm(n)
	in := hostIn{shape: shape, data: make([]float64, n)}
	step := 6.0 / float64(max(n, 1))
	step = max(step, 0.1)
	for i, p := range perm {
		in.data[i] = (float64(p)-float64(n)/2)*step + 0.02*rng.Float64()
	}
	return in
}

func TestReductionGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	ops := map[string]func(e *tensor.Engine, x *tensor.Tensor, keep bool, axes ...int) *tensor.Tensor{
		"sum": (*tensor.Engine).Sum, "mean": (*tensor.Engine).Mean, "max": (*tensor.Engine).Max,
		"min": (*tensor.Engine).Min, "prod": (*tensor.Engine).Prod,
	}
	for _, c := range reduceCases(rng) {
		for name, op := range ops {
			t.Run(fmt.Sprintf("%s%v axes %v keep %v", name, c.shape, c.axes, c.keepDims), func(t *testing.T) {
				in := randIn(rng, -2, 2, c.shape...)
				if name == "max" || name == "min" {
					in = distinct(rng, c.shape...)
				}
				checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
					return op(e, x[0], c.keepDims, c.axes...)
				}, in)
			})
		}
	}
}

// Reductions of a transposed and of a sliced input: the rules see inputs
// that other ops laid out.
func TestReductionGradientsThroughShapeOps(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
		return e.Max(e.Transpose(x[0], 2, 0, 1), false, 0, -1)
	}, distinct(rng, 2, 3, 4))
	checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
		return e.Prod(e.Slice(x[0], []int{1, 0}, []int{2, -1}), true, 1)
	}, randIn(rng, 0.5, 1.5, 4, 3))
}

// Prod with zeros in the input: one zero in a group gives the zero the
// product of the others and the others 0; two zeros give 0 everywhere.
// Prod is linear in each element, so the central difference is exact at 0.
func TestProdGradientWithZeros(t *testing.T) {
	e := testgpu.Engine(t)
	in := hostIn{shape: []int{3, 4}, data: []float64{
		1.5, 0, 2, -1, // one zero
		0, 3, 0, 2, // two zeros
		0.5, -2, 1.25, 3, // none
	}}
	checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return e.Prod(x[0], false, 1) }, in)
	checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return e.Prod(x[0], true) }, hostIn{shape: []int{2, 2}, data: []float64{2, 0, -3, 0.5}})
	got := gradOf(t, e, []float32{2, 0, 3, 4}, []int{2, 2}, func(x *tensor.Tensor) *tensor.Tensor { return e.Prod(x, false, 1) })
	assertFloats(t, []float32{0, 2, 4, 3}, got)
}

// Ties in Max and Min split the gradient evenly among the tied elements
// (as TensorFlow and PyTorch's amax do).
func TestMaxMinTiesSplitEvenly(t *testing.T) {
	e := testgpu.Engine(t)
	got := gradOf(t, e, []float32{1, 3, 3, 0, 5, 5, 5, 2}, []int{2, 4}, func(x *tensor.Tensor) *tensor.Tensor { return e.Max(x, false, 1) })
	assertFloats(t, []float32{0, 0.5, 0.5, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0}, got)
	got = gradOf(t, e, []float32{-1, 2, -1, -1}, []int{4}, func(x *tensor.Tensor) *tensor.Tensor { return e.Min(x, true) })
	assertFloats(t, []float32{1.0 / 3, 0, 1.0 / 3, 1.0 / 3}, got)
}

func TestSoftmaxGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, c := range []struct {
		shape []int
		axis  int
	}{{[]int{5}, 0}, {[]int{3, 4}, -1}, {[]int{3, 4}, 0}, {[]int{2, 3, 4}, 1}, {[]int{2, 1, 3}, -2}} {
		for _, log := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v axis %d log %v", c.shape, c.axis, log), func(t *testing.T) {
				checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
					if log {
						return e.LogSoftmax(x[0], c.axis)
					}
					return e.Softmax(x[0], c.axis)
				}, randIn(rng, -2, 2, c.shape...))
			})
		}
	}
	// Through a transpose, as a non-contiguous input.
	checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
		return e.LogSoftmax(e.Transpose(x[0]), 1)
	}, randIn(rng, -2, 2, 3, 2))
}

// ArgMax and ArgMin have no gradient, and say so: their rules are NoGrad,
// and a result that depends on x only through them has no path to x.
func TestArgReductionsHaveNoGradient(t *testing.T) {
	e := testgpu.Engine(t)
	err := tidy.Do(e, func() error {
		x := e.FromFloat32s([]float32{1, 2, 3}, 3)
		tape := NewTape(e)
		defer tape.Dispose()
		var y *tensor.Tensor
		if err := tape.Record(func() error {
			y = e.Sum(e.Cast(e.ArgMax(x, 0), tensor.Float32), false)
			return y.Err()
		}); err != nil {
			return err
		}
		_, err := tape.Gradients(y, []*tensor.Tensor{x}, &Options{NoPath: NoPathError})
		return err
	})
	if !errors.Is(err, ErrNoPath) && !errors.Is(err, ErrNoGradient) {
		t.Fatalf("a gradient through ArgMax: %v", err)
	}
	for _, op := range []string{"argmax", "argmin"} {
		if r := ruleFor(op); r == nil || r.NoGrad == "" {
			t.Errorf("%s has no NoGrad rule", op)
		}
	}
}

// gradOf returns the gradient of Σ f(x) at x, read back.
func gradOf(t *testing.T, e *tensor.Engine, x []float32, shape []int, f func(*tensor.Tensor) *tensor.Tensor) []float32 {
	t.Helper()
	got, err := tidy.Run(e, func() ([]float32, error) {
		xt := e.FromFloat32s(x, shape...)
		tape := NewTape(e)
		defer tape.Dispose()
		var y *tensor.Tensor
		if err := tape.Record(func() error {
			y = e.Sum(f(xt), false)
			return y.Err()
		}); err != nil {
			return nil, err
		}
		gs, err := tape.Gradients(y, []*tensor.Tensor{xt}, nil)
		if err != nil {
			return nil, err
		}
		return floats(t, gs[0]), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// assertFloats fails t unless got is want within 1e-6.
func assertFloats(t *testing.T, want, got []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if d := got[i] - want[i]; d > 1e-6 || d < -1e-6 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
