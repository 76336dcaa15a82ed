package grad

import (
	"context"
	"math"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Issue 19: a rule that returns one tensor for two inputs (Add's dy for
// both, when neither broadcasts) lost it to the first input's
// accumulation, which disposed it, and the second input's failed ("clone:
// input 0: tensor 11 was disposed"). Each program below reuses an operand
// so that the first input already has a gradient when Add's arrives; each
// is differentiated by a tape and by ValueAndGrad, for x alone, for x and
// b, and for b and x, and must leave nothing live.
func TestGradientsThroughSharedOperands(t *testing.T) {
	e := testgpu.Engine(t)
	xs := []float64{1, 2, 3, 4}
	bs := []float64{1, 1, 1, 1}
	each := func(f func(x, b float64) float64) []float64 {
		out := make([]float64, len(xs))
		for i := range xs {
			out[i] = f(xs[i], bs[i])
		}
		return out
	}
	sech2 := func(v float64) float64 { return 1 - math.Tanh(v)*math.Tanh(v) }
	for _, c := range []struct {
		name   string
		f      func(x, b *tensor.Tensor) *tensor.Tensor
		dx, db []float64
		tol    float64 // relative to max(1, |want|); 0: exact
	}{
		{
			"sum((x+b)*x)",
			func(x, b *tensor.Tensor) *tensor.Tensor { return e.Sum(e.Mul(e.Add(x, b), x), false) },
			[]float64{3, 5, 7, 9}, []float64{1, 2, 3, 4}, 0, // as torch gives
		},
		{
			"sum((x+x)+x)",
			func(x, _ *tensor.Tensor) *tensor.Tensor { return e.Sum(e.Add(e.Add(x, x), x), false) },
			[]float64{3, 3, 3, 3}, []float64{0, 0, 0, 0}, 0,
		},
		{
			"sum(x+b)+sum(exp(x))",
			func(x, b *tensor.Tensor) *tensor.Tensor {
				return e.Add(e.Sum(e.Add(x, b), false), e.Sum(e.Exp(x), false))
			},
			each(func(x, _ float64) float64 { return 1 + math.Exp(x) }), []float64{1, 1, 1, 1}, 2e-6,
		},
		{
			"sum(tanh(x+b)*x)",
			func(x, b *tensor.Tensor) *tensor.Tensor { return e.Sum(e.Mul(e.Tanh(e.Add(x, b)), x), false) },
			each(func(x, b float64) float64 { return math.Tanh(x+b) + x*sech2(x+b) }),
			each(func(x, b float64) float64 { return x * sech2(x+b) }), 1e-5,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			x, b := tensorOf(e, hostIn{[]int{4}, xs}), tensorOf(e, hostIn{[]int{4}, bs})
			defer disposeAll(x, b)
			base := usageOf(e)
			for _, wrt := range []struct {
				name string
				ts   []*tensor.Tensor
				want [][]float64
			}{
				{"x", []*tensor.Tensor{x}, [][]float64{c.dx}},
				{"x, b", []*tensor.Tensor{x, b}, [][]float64{c.dx, c.db}},
				{"b, x", []*tensor.Tensor{b, x}, [][]float64{c.db, c.dx}},
			} {
				for _, via := range []string{"tape", "ValueAndGrad"} {
					got, err := sharedGradients(e, via, wrt.ts, func([]*tensor.Tensor) *tensor.Tensor { return c.f(x, b) })
					if err != nil {
						t.Errorf("%s, wrt %s: %v", via, wrt.name, err)
						continue
					}
					for i, w := range wrt.want {
						if !closeTo(got[i], w, c.tol) {
							t.Errorf("%s, wrt %s: gradient %d %v, want %v", via, wrt.name, i, got[i], w)
						}
					}
					if u := usageOf(e); u != base {
						t.Errorf("%s, wrt %s: %+v live after, %+v before", via, wrt.name, u, base)
					}
				}
			}
		})
	}
}

// The realistic case: a mean squared error of noisy weights plus
// an L2 penalty, mse(w+noise, t) + 0.01·Σw², through ValueAndGrad. The
// gradient 2(w+noise-t)/n + 0.02w is exact in float32 for these dyadic
// values but for one rounding of the sum, made here the same way.
func TestGradientOfNoisyWeightsWithPenalty(t *testing.T) {
	e := testgpu.Engine(t)
	ws := []float32{0.5, -1, 2, 0.25}
	noise := []float32{0.25, -0.5, 0.5, 0}
	targets := []float32{1, 0, 1, -1}
	w := e.FromFloat32s(ws, 4)
	nt, tt := e.FromFloat32s(noise, 4), e.FromFloat32s(targets, 4)
	defer disposeAll(w, nt, tt)
	f := func(ps []*tensor.Tensor) *tensor.Tensor {
		mse := loss.MeanSquaredError(e, e.Add(ps[0], nt), tt, loss.Mean)
		return e.Add(mse, e.Mul(e.Scalar(0.01), e.Sum(e.Square(ps[0]), false)))
	}
	want := make([]float64, len(ws))
	value := 0.0
	for i := range ws {
		d := ws[i] + noise[i] - targets[i]
		penalty := float32(float32(0.01) * (2 * ws[i])) // exact: 2w is a power of 2
		want[i] = float64(float32(d/2) + penalty)
		value += float64(d*d)/4 + 0.01*float64(ws[i]*ws[i])
	}
	base := usageOf(e)
	for _, via := range []string{"ValueAndGrad", "tape"} {
		got, err := sharedGradients(e, via, []*tensor.Tensor{w}, f)
		if err != nil {
			t.Fatalf("%s: %v", via, err)
		}
		if !closeTo(got[0], want, 0) {
			t.Errorf("%s: gradient %v, want %v", via, got[0], want)
		}
		if u := usageOf(e); u != base {
			t.Errorf("%s: %+v live after, %+v before", via, u, base)
		}
	}
	v, gs, err := ValueAndGrad(e, func(ps []*tensor.Tensor) (*tensor.Tensor, error) {
		y := f(ps)
		return y, y.Err()
	}, []*tensor.Tensor{w}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := floats(t, v); math.Abs(float64(got[0])-value) > 1e-6 {
		t.Errorf("value %v, want %v", got[0], value)
	}
	v.Dispose()
	tidy.Dispose(gs)
}

// sharedGradients differentiates f(wrt) with respect to wrt by a tape
// ("tape") or by ValueAndGrad, reads the gradients back and frees them.
func sharedGradients(e *tensor.Engine, via string, wrt []*tensor.Tensor, f func([]*tensor.Tensor) *tensor.Tensor) ([][]float32, error) {
	return tidy.Run(e, func() ([][]float32, error) {
		var gs []*tensor.Tensor
		if via == "tape" {
			tape := NewTape(e)
			var y *tensor.Tensor
			if err := tape.Record(func() error { y = f(wrt); return y.Err() }); err != nil {
				return nil, err
			}
			var err error
			if gs, err = tape.Gradients(y, wrt, &Options{NoPath: ZeroGradient}); err != nil {
				return nil, err
			}
		} else {
			var err error
			if _, gs, err = ValueAndGrad(e, func(ps []*tensor.Tensor) (*tensor.Tensor, error) {
				y := f(ps)
				return y, y.Err()
			}, wrt, &Options{NoPath: ZeroGradient}); err != nil { // sum((x+x)+x) has none for b
				return nil, err
			}
		}
		out := make([][]float32, len(gs))
		for i, g := range gs {
			v, err := g.Float32s(context.Background())
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	})
}

// closeTo reports whether got is want within tol·max(1, |want|) at each
// element (exactly, for tol 0).
func closeTo(got []float32, want []float64, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i, w := range want {
		if !(math.Abs(float64(got[i])-w) <= tol*math.Max(1, math.Abs(w))) {
			return false
		}
	}
	return true
}

// The gradient of an intermediate asked for with the inputs stays the
// caller's while Add passes it on to both its sides, and a kept tape
// gives the same gradients twice: y = Σ h·x, h = x+x, so dy/dh = x and
// dy/dx = 4x.
func TestSharedOperandsWithAnIntermediateAndAKeptTape(t *testing.T) {
	e := testgpu.Engine(t)
	base := usageOf(e)
	err := tidy.Do(e, func() error {
		x := e.FromFloat32s([]float32{1, 2, 3, 4}, 4)
		tape := NewTape(e)
		var h, y *tensor.Tensor
		if err := tape.Record(func() error {
			h = e.Add(x, x)
			y = e.Sum(e.Mul(h, x), false)
			return y.Err()
		}); err != nil {
			return err
		}
		want := [][]float64{{1, 2, 3, 4}, {4, 8, 12, 16}, {4, 8, 12, 16}}
		for pass := range 2 {
			gs, err := tape.Gradients(y, []*tensor.Tensor{h, x, x}, &Options{Keep: pass == 0})
			if err != nil {
				return err
			}
			for i, g := range gs {
				if got := floats(t, g); !closeTo(got, want[i], 0) {
					t.Errorf("pass %d: gradient %d %v, want %v", pass, i, got, want[i])
				}
			}
			tidy.Dispose(gs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if u := usageOf(e); u != base {
		t.Errorf("%+v live after, %+v before", u, base)
	}
}
