package grad

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Every float unary op's gradient against finite differences, on random
// shapes, with inputs in the op's domain and away from its kinks.
func TestUnaryGradients(t *testing.T) {
	e := testgpu.Engine(t)
	offInteger := func(rng *rand.Rand) func() float64 { // away from integers and halves
		return func() float64 { return float64(rng.IntN(5)-2) + 0.1 + 0.3*rng.Float64() + 0.5*float64(rng.IntN(2)) }
	}
	cases := []struct {
		name string
		op   func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor
		gen  func(rng *rand.Rand) func() float64
	}{
		{"neg", (*tensor.Engine).Neg, uniform(-3, 3)},
		{"abs", (*tensor.Engine).Abs, kinked(-3, 3, 0)},
		{"sign", (*tensor.Engine).Sign, kinked(-3, 3, 0)},
		{"square", (*tensor.Engine).Square, uniform(-3, 3)},
		{"relu", (*tensor.Engine).Relu, kinked(-3, 3, 0)},
		{"leaky_relu", func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.LeakyRelu(x, 0.2) }, kinked(-3, 3, 0)},
		{"floor", (*tensor.Engine).Floor, offInteger},
		{"ceil", (*tensor.Engine).Ceil, offInteger},
		{"round", (*tensor.Engine).Round, offInteger},
		{"exp", (*tensor.Engine).Exp, uniform(-2, 2)},
		{"log", (*tensor.Engine).Log, uniform(0.5, 3)},
		{"sqrt", (*tensor.Engine).Sqrt, uniform(0.5, 3)},
		{"rsqrt", (*tensor.Engine).Rsqrt, uniform(0.5, 3)},
		{"sin", (*tensor.Engine).Sin, uniform(-3, 3)},
		{"cos", (*tensor.Engine).Cos, uniform(-3, 3)},
		{"tanh", (*tensor.Engine).Tanh, uniform(-2, 2)},
		{"sigmoid", (*tensor.Engine).Sigmoid, uniform(-3, 3)},
		{"gelu", (*tensor.Engine).Gelu, uniform(-3, 3)},
		{"clip", func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Clip(x, -1, 1.5) }, kinked(-3, 3, -1, 1.5)},
		{"cast float32", func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Cast(x, tensor.Float32) }, uniform(-3, 3)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rngFor(t)
			shape := randShape(rng, 3)
			checkGradient(t, e, func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
				return c.op(e, in[0])
			}, genIn(shape, c.gen(rng)))
		})
	}
}

// uniform draws values in [lo, hi).
func uniform(lo, hi float64) func(rng *rand.Rand) func() float64 {
	return func(rng *rand.Rand) func() float64 { return awayFrom(rng, lo, hi, 0) }
}

// kinked draws values in [lo, hi) farther than 0.1 (ten steps) from kinks.
func kinked(lo, hi float64, kinks ...float64) func(rng *rand.Rand) func() float64 {
	return func(rng *rand.Rand) func() float64 { return awayFrom(rng, lo, hi, 0.1, kinks...) }
}

// Every float binary op's gradient, with broadcasting on each side summed
// back to each input's shape. Maximum and Minimum get inputs that never
// tie (ties are TestMaximumMinimumTies'); Mod gets quotients away from
// integers, where it jumps; Pow a positive base.
func TestBinaryGradients(t *testing.T) {
	e := testgpu.Engine(t)
	// Values on two interleaved grids: an a and a b are never within 0.1.
	gridA := func(rng *rand.Rand) func() float64 {
		return func() float64 { return 0.4*float64(rng.IntN(11)-5) + 0.1 }
	}
	gridB := func(rng *rand.Rand) func() float64 {
		return func() float64 { return 0.4*float64(rng.IntN(11)-5) + 0.3 }
	}
	// a/b = ±(k + u), u in [0.1, 0.9]: away from Mod's jumps.
	modA := func(rng *rand.Rand) func() float64 {
		return func() float64 { return 2 * (float64(rng.IntN(5)-2) + 0.1 + 0.8*rng.Float64()) }
	}
	modB := func(rng *rand.Rand) func() float64 { return func() float64 { return float64(2 * (2*rng.IntN(2) - 1)) } }
	cases := []struct {
		name   string
		op     func(e *tensor.Engine, a, b *tensor.Tensor) *tensor.Tensor
		ga, gb func(rng *rand.Rand) func() float64
	}{
		{"add", (*tensor.Engine).Add, uniform(-3, 3), uniform(-3, 3)},
		{"sub", (*tensor.Engine).Sub, uniform(-3, 3), uniform(-3, 3)},
		{"mul", (*tensor.Engine).Mul, uniform(-3, 3), uniform(-3, 3)},
		{"div", (*tensor.Engine).Div, uniform(-3, 3), kinkedAbs(0.5, 2)},
		{"pow", (*tensor.Engine).Pow, uniform(0.5, 2), uniform(-2, 2)},
		{"maximum", (*tensor.Engine).Maximum, gridA, gridB},
		{"minimum", (*tensor.Engine).Minimum, gridA, gridB},
		{"mod", (*tensor.Engine).Mod, modA, modB},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rngFor(t)
			full := randShape(rng, 3)
			sa, sb := broadcastPair(rng, full)
			checkGradient(t, e, func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
				return c.op(e, in[0], in[1])
			}, genIn(sa, c.ga(rng)), genIn(sb, c.gb(rng)))
		})
	}
}

// kinkedAbs draws values with magnitude in [lo, hi), of either sign.
func kinkedAbs(lo, hi float64) func(rng *rand.Rand) func() float64 {
	return func(rng *rand.Rand) func() float64 {
		return func() float64 { return (lo + (hi-lo)*rng.Float64()) * float64(2*rng.IntN(2)-1) }
	}
}

// Where's gradient goes to a where the condition holds and to b elsewhere,
// each summed back to its shape; the condition gets none.
func TestWhereGradient(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	full := []int{2, 3, 2}
	sa, sb := broadcastPair(rng, full)
	cond := make([]uint32, size(full))
	for i := range cond {
		cond[i] = uint32(rng.IntN(2))
	}
	checkGradient(t, e, func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
		return e.Where(e.FromUint32s(cond, full...), in[0], in[1])
	}, randIn(rng, -3, 3, sa...), randIn(rng, -3, 3, sb...))
}

// MatMul and MatMulT: plain, batched, with broadcast batches, and with
// each side transposed.
func TestMatMulGradients(t *testing.T) {
	e := testgpu.Engine(t)
	cases := []struct {
		name   string
		ba, bb []int // batch dimensions
		ta, tb bool
	}{
		{"plain", nil, nil, false, false},
		{"transB", nil, nil, false, true},
		{"transA", nil, nil, true, false},
		{"both", nil, nil, true, true},
		{"batched", []int{2}, []int{2}, false, false},
		{"broadcast a", []int{1, 2}, []int{3, 1}, true, false},
		{"broadcast b", []int{2}, nil, false, true},
		{"broadcast both transposed", []int{2, 1}, []int{3}, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rngFor(t)
			M, K, N := 1+rng.IntN(3), 1+rng.IntN(3), 1+rng.IntN(3)
			a, b := []int{M, K}, []int{K, N}
			if c.ta {
				a = []int{K, M}
			}
			if c.tb {
				b = []int{N, K}
			}
			checkGradient(t, e, func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
				return e.MatMulT(in[0], in[1], c.ta, c.tb)
			}, randIn(rng, -2, 2, slices.Concat(c.ba, a)...), randIn(rng, -2, 2, slices.Concat(c.bb, b)...))
		})
	}
}

// At a tie Maximum and Minimum send half of the gradient to each side (as
// PyTorch); elsewhere all of it to the winner.
func TestMaximumMinimumTies(t *testing.T) {
	e := testgpu.Engine(t)
	for _, op := range []struct {
		name   string
		f      func(e *tensor.Engine, a, b *tensor.Tensor) *tensor.Tensor
		wa, wb []float32
	}{
		{"maximum", (*tensor.Engine).Maximum, []float32{0.5, 1, 0}, []float32{0.5, 0, 1}},
		{"minimum", (*tensor.Engine).Minimum, []float32{0.5, 0, 1}, []float32{0.5, 1, 0}},
	} {
		err := tidy.Do(e, func() error {
			a := e.FromFloat32s([]float32{1, 3, -1}, 3)
			b := e.FromFloat32s([]float32{1, 2, 0}, 3)
			tape := NewTape(e)
			var y *tensor.Tensor
			if err := tape.Record(func() error { y = op.f(e, a, b); return y.Err() }); err != nil {
				return err
			}
			gs, err := tape.Gradients(y, []*tensor.Tensor{a, b}, &Options{Seed: e.Ones(tensor.Float32, 3)})
			if err != nil {
				return err
			}
			if ga, gb := floats(t, gs[0]), floats(t, gs[1]); !slices.Equal(ga, op.wa) || !slices.Equal(gb, op.wb) {
				t.Errorf("%s: gradients %v and %v, want %v and %v", op.name, ga, gb, op.wa, op.wb)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Pow's gradient with respect to the exponent is 0 where the base is not
// positive, where ln a is not real, rather than NaN.
func TestPowExponentGradientAtNonPositiveBase(t *testing.T) {
	e := testgpu.Engine(t)
	err := tidy.Do(e, func() error {
		a := e.FromFloat32s([]float32{0, -2, 2}, 3)
		b := e.FromFloat32s([]float32{2, 2, 2}, 3)
		tape := NewTape(e)
		var y *tensor.Tensor
		if err := tape.Record(func() error { y = e.Pow(a, b); return y.Err() }); err != nil {
			return err
		}
		gs, err := tape.Gradients(y, []*tensor.Tensor{a, b}, &Options{Seed: e.Ones(tensor.Float32, 3)})
		if err != nil {
			return err
		}
		ga, gb := floats(t, gs[0]), floats(t, gs[1])
		wantA, wantB := []float32{0, -4, 4}, []float32{0, 0, float32(4 * math.Log(2))}
		for i := range ga {
			if math.Abs(float64(ga[i]-wantA[i])) > 1e-5 || math.Abs(float64(gb[i]-wantB[i])) > 1e-5 {
				t.Errorf("element %d: gradients %v, %v; want %v, %v", i, ga[i], gb[i], wantA[i], wantB[i])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Clip passes the gradient at its bounds, as inside them (PyTorch's
// clamp), and none outside.
func TestClipPassesAtItsBounds(t *testing.T) {
	e := testgpu.Engine(t)
	err := tidy.Do(e, func() error {
		x := e.FromFloat32s([]float32{-1, 1.5, 2, -3, 0}, 5)
		tape := NewTape(e)
		var y *tensor.Tensor
		if err := tape.Record(func() error { y = e.Clip(x, -1, 1.5); return y.Err() }); err != nil {
			return err
		}
		gs, err := tape.Gradients(y, []*tensor.Tensor{x}, &Options{Seed: e.Ones(tensor.Float32, 5)})
		if err != nil {
			return err
		}
		if got, want := floats(t, gs[0]), []float32{1, 1, 0, 0, 1}; !slices.Equal(got, want) {
			t.Errorf("gradient %v, want %v", got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
