package grad

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// The finite-difference harness. Every rule is checked by checkGradient:
// the gradient the tape computes for y = f(inputs), seeded with random
// weights r, must match the central difference of L = Σ r·y, computed in
// float64 on the host from f's float32 results:
//
//	dL/dx ≈ (L(x+h) - L(x-h)) / (x⁺ - x⁻)
//
// with x⁺ and x⁻ the float32 values nearest x ± h (so the step is exact),
// h = fdStep·max(1, |x|). A gradient g passes against the difference d when
// |g - d| <= fdAtol + fdRtol·max(|g|, |d|). The bounds cover float32's
// rounding of L (about 1e-7·Σ|r·y|, divided by 2h) and the difference's
// own error (h²/6 times the third derivative), for inputs of magnitude
// up to about 3: tests choose inputs in such ranges and away from each
// op's kinks by more than h.
const (
	fdStep = 1e-2
	fdAtol = 2e-3
	fdRtol = 1e-2
)

// hostIn is one input of a gradient check: float64 host data of a shape.
// The check uses the float32 nearest each value.
type hostIn struct {
	shape []int
	data  []float64
}

// size returns the elements of shape.
func size(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// randIn returns an input of shape with values uniform in [lo, hi).
func randIn(rng *rand.Rand, lo, hi float64, shape ...int) hostIn {
	return genIn(shape, func() float64 { return lo + (hi-lo)*rng.Float64() })
}

// genIn returns an input of shape with values from gen.
func genIn(shape []int, gen func() float64) hostIn {
	in := hostIn{shape: shape, data: make([]float64, size(shape))}
	for i := range in.data {
		in.data[i] = gen()
	}
	return in
}

// awayFrom returns a generator of values uniform in [lo, hi) farther than
// gap from each of kinks.
func awayFrom(rng *rand.Rand, lo, hi, gap float64, kinks ...float64) func() float64 {
	return func() float64 {
		for {
			v := lo + (hi-lo)*rng.Float64()
			near := false
			for _, k := range kinks {
				near = near || math.Abs(v-k) <= gap
			}
			if !near {
				return v
			}
		}
	}
}

// tensorOf uploads in as float32.
func tensorOf(e *tensor.Engine, in hostIn) *tensor.Tensor {
	v := make([]float32, len(in.data))
	for i, x := range in.data {
		v[i] = float32(x)
	}
	return e.FromFloat32s(v, in.shape...)
}

// rngFor returns a random source seeded by the test's name, so that each
// test draws the same inputs on every run.
func rngFor(t *testing.T) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	return rand.New(rand.NewPCG(h.Sum64(), 13))
}

// checkFunc is a function a gradient check differentiates.
type checkFunc func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor

// checkGradient checks the gradient of f with respect to each input
// against central finite differences (see fdStep): it fails t naming the
// input, the element and both values. f must build its result from the
// inputs with ops of e; it may create other tensors (constants), which
// are freed after each evaluation.
func checkGradient(t *testing.T, e *tensor.Engine, f checkFunc, inputs ...hostIn) {
	t.Helper()
	for _, in := range inputs {
		for i, x := range in.data {
			in.data[i] = float64(float32(x)) // the values the check computes at
		}
	}
	rng := rngFor(t)
	yShape, err := shapeOf(e, f, inputs)
	if err != nil {
		t.Fatalf("forward: %v", err)
	}
	r := genIn(yShape, func() float64 { return float64(float32(rng.Float64()*2 - 1)) })
	got, err := tapeGradients(e, f, inputs, r)
	if err != nil {
		t.Fatalf("backward: %v", err)
	}
	for i, in := range inputs {
		for j, x := range in.data {
			h := fdStep * math.Max(1, math.Abs(x))
			up, down := float64(float32(x+h)), float64(float32(x-h))
			in.data[j] = up
			lUp, err := weightedSum(e, f, inputs, r)
			if err == nil {
				in.data[j] = down
				var lDown float64
				lDown, err = weightedSum(e, f, inputs, r)
				d := (lUp - lDown) / (up - down)
				g := float64(got[i][j])
				if err == nil && !(math.Abs(g-d) <= fdAtol+fdRtol*math.Max(math.Abs(g), math.Abs(d))) {
					t.Errorf("input %d %v, element %d (x = %g): gradient %g, central difference %g", i, in.shape, j, x, g, d)
				}
			}
			in.data[j] = x
			if err != nil {
				t.Fatalf("input %d, element %d: %v", i, j, err)
			}
		}
	}
}

// shapeOf evaluates f once and returns its result's shape.
func shapeOf(e *tensor.Engine, f checkFunc, inputs []hostIn) ([]int, error) {
	return tidy.Run(e, func() ([]int, error) {
		y := f(e, upload(e, inputs))
		return y.Shape(), y.Err()
	})
}

// upload makes the tensors of inputs.
func upload(e *tensor.Engine, inputs []hostIn) []*tensor.Tensor {
	ts := make([]*tensor.Tensor, len(inputs))
	for i, in := range inputs {
		ts[i] = tensorOf(e, in)
	}
	return ts
}

// checkAutocast is the dtype tapeGradients' tapes save activations in
// (Tape.SetAutocast): float32 but in the autocast tests.
var checkAutocast = tensor.Float32

// tapeGradients returns the gradients of f's result seeded with r, by a
// tape, read back.
func tapeGradients(e *tensor.Engine, f checkFunc, inputs []hostIn, r hostIn) ([][]float32, error) {
	return tidy.Run(e, func() ([][]float32, error) {
		xs := upload(e, inputs)
		tape := NewTape(e)
		if err := tape.SetAutocast(checkAutocast); err != nil {
			return nil, err
		}
		var y *tensor.Tensor
		if err := tape.Record(func() error {
			y = f(e, xs)
			return y.Err()
		}); err != nil {
			return nil, err
		}
		gs, err := tape.Gradients(y, xs, &Options{Seed: tensorOf(e, r)})
		if err != nil {
			return nil, err
		}
		out := make([][]float32, len(gs))
		for i, g := range gs {
			if out[i], err = g.Float32s(context.Background()); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
}

// weightedSum returns Σ r·f(inputs) in float64, computed from f's float32
// result.
func weightedSum(e *tensor.Engine, f checkFunc, inputs []hostIn, r hostIn) (float64, error) {
	return tidy.Run(e, func() (float64, error) {
		y := f(e, upload(e, inputs))
		v, err := y.Float32s(context.Background())
		if err != nil {
			return 0, err
		}
		if len(v) != len(r.data) {
			return 0, fmt.Errorf("f gave %d elements, then %d", len(r.data), len(v))
		}
		sum := 0.0
		for i, x := range v {
			sum += r.data[i] * float64(x)
		}
		return sum, nil
	})
}

// randShape returns a shape of rank 0 to maxRank with dimensions 1 to 3.
func randShape(rng *rand.Rand, maxRank int) []int {
	s := make([]int, rng.IntN(maxRank+1))
	for i := range s {
		s[i] = 1 + rng.IntN(3)
	}
	return s
}

// broadcastPair returns two shapes that broadcast to full: each drops some
// leading dimensions and sets some others to 1, so that broadcasting
// happens on each side.
func broadcastPair(rng *rand.Rand, full []int) (a, b []int) {
	side := func() []int {
		s := append([]int(nil), full[rng.IntN(len(full)+1):]...)
		for i := range s {
			if rng.IntN(3) == 0 {
				s[i] = 1
			}
		}
		return s
	}
	return side(), side()
}
