package grad

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Tolerances: checkGradient's (fdAtol, fdRtol in check_test.go); the
// values of the losses are checked against float64 in package loss.

var lossReductions = map[string]loss.Reduction{"mean": loss.Mean, "sum": loss.Sum, "none": loss.None}

func TestSoftmaxCrossEntropyGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, shape := range [][]int{{4, 5}, {2, 3, 4}, {1, 1}, {3}} {
		rows := size(shape[:len(shape)-1])
		classes := shape[len(shape)-1]
		labels := make([]int32, rows)
		for i := range labels {
			labels[i] = int32(rng.IntN(classes))
		}
		probs := randIn(rng, 0, 1, shape...)
		for name, r := range lossReductions {
			t.Run(fmt.Sprintf("%v labels %s", shape, name), func(t *testing.T) {
				checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
					y := e.FromInt32s(labels, shape[:len(shape)-1]...)
					return loss.SoftmaxCrossEntropy(e, x[0], y, r)
				}, randIn(rng, -3, 3, shape...))
			})
			t.Run(fmt.Sprintf("%v probabilities %s", shape, name), func(t *testing.T) {
				checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
					return loss.SoftmaxCrossEntropy(e, x[0], x[1], r)
				}, randIn(rng, -3, 3, shape...), probs)
			})
		}
	}
	// Logits through a transpose (a layout another op made).
	checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
		return loss.SoftmaxCrossEntropy(e, e.Transpose(x[0]), e.FromInt32s([]int32{2, 0}, 2), loss.Sum)
	}, randIn(rng, -3, 3, 3, 2))
}

// At logits of ±1e4 (where finite differences cannot step) the gradient
// is softmax - one-hot, computed in float64: within 1e-6.
func TestSoftmaxCrossEntropyGradientAtExtremeLogits(t *testing.T) {
	e := testgpu.Engine(t)
	x := []float32{1e4, -1e4, 1e4 - 1, -1e4, 1e4, 1e4, 0, -1e4, 5}
	labels := []int32{2, 0, 1}
	var want []float64
	for r := range 3 {
		row := x[3*r : 3*r+3]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, float64(v))
		}
		s := 0.0
		for _, v := range row {
			s += math.Exp(float64(v) - m)
		}
		for j, v := range row {
			g := math.Exp(float64(v)-m) / s
			if int32(j) == labels[r] {
				g--
			}
			want = append(want, g)
		}
	}
	got, err := tidy.Run(e, func() ([]float32, error) {
		xt := e.FromFloat32s(x, 3, 3)
		tape := NewTape(e)
		defer tape.Dispose()
		var l *tensor.Tensor
		if err := tape.Record(func() error {
			l = loss.SoftmaxCrossEntropy(e, xt, e.FromInt32s(labels, 3), loss.Sum)
			return l.Err()
		}); err != nil {
			return nil, err
		}
		gs, err := tape.Gradients(l, []*tensor.Tensor{xt}, nil)
		if err != nil {
			return nil, err
		}
		return floats(t, gs[0]), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if math.IsNaN(float64(got[i])) || math.Abs(float64(got[i])-w) > 1e-6 {
			t.Fatalf("gradient %v, want %v", got, want)
		}
	}
}

func TestSigmoidCrossEntropyGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, c := range []struct{ x, z []int }{{[]int{3, 4}, []int{3, 4}}, {[]int{2, 3}, []int{3}}, {[]int{3}, []int{2, 1}}} {
		for name, r := range lossReductions {
			t.Run(fmt.Sprintf("%v %v %s", c.x, c.z, name), func(t *testing.T) {
				checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
					return loss.SigmoidCrossEntropy(e, x[0], x[1], r)
				}, randIn(rng, -4, 4, c.x...), randIn(rng, 0, 1, c.z...))
			})
		}
	}
}

func TestMeanSquaredErrorGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, c := range []struct{ p, y []int }{{[]int{3, 4}, []int{3, 4}}, {[]int{2, 3}, []int{1, 3}}, {[]int{5}, []int{}}} {
		for name, r := range lossReductions {
			t.Run(fmt.Sprintf("%v %v %s", c.p, c.y, name), func(t *testing.T) {
				checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
					return loss.MeanSquaredError(e, x[0], x[1], r)
				}, randIn(rng, -2, 2, c.p...), randIn(rng, -2, 2, c.y...))
			})
		}
	}
}

// The gradient of softmax cross-entropy with probability targets ran a
// log-softmax for the targets' gradient even when only the logits' was
// asked for (targets are data, as a rule); likewise scatter-add gathered
// the updates' gradient when only the destination's was asked for.
func TestLossAndScatterAddSkipGradientsNoOneAskedFor(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	err := tidy.Do(e, func() error {
		x := e.RandNormal(1, 0, 1, 4, 5)
		probs := e.Softmax(e.RandNormal(2, 0, 1, 4, 5), -1)
		dst := e.RandNormal(3, 0, 1, 6)
		updates := e.RandNormal(4, 0, 1, 3)
		idx := e.FromInt32s([]int32{0, 2, 5}, 3)
		for _, c := range []struct {
			name   string
			f      func() *tensor.Tensor
			wrt    *tensor.Tensor
			kernel string // the kernel the backward must not run
		}{
			{"softmax_cross_entropy", func() *tensor.Tensor { return loss.SoftmaxCrossEntropy(e, x, probs, loss.Mean) }, x, "log_softmax"},
			{"scatter_add", func() *tensor.Tensor { return e.Sum(e.ScatterAdd(dst, idx, updates, 0), false) }, dst, "gather"},
		} {
			tape := NewTape(e)
			var y *tensor.Tensor
			if err := tape.Record(func() error { y = c.f(); return y.Err() }); err != nil {
				return err
			}
			p, err := e.Profile(ctx, func() error { _, err := tape.Gradients(y, []*tensor.Tensor{c.wrt}, nil); return err })
			if err != nil {
				return err
			}
			if calls := p.Total(c.kernel).Calls; calls != 0 {
				t.Errorf("%s: the backward for one input ran %s %d times, for the other's gradient", c.name, c.kernel, calls)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The gradient of a mean cross-entropy against int32 labels is two
// dispatches: the mean's backward (dy/n over the rows, one fused fill+mul:
// the seed of one is uploaded, not computed) and one kernel for softmax
// minus one-hot, scaled by it; no ones, range, copy or separate softmax.
func TestSoftmaxCrossEntropyMeanGradientDispatches(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	xs := make([]float32, 128*10)
	for i := range xs {
		xs[i] = float32(rng.Float64()*6 - 3)
	}
	x := e.FromFloat32s(xs, 128, 10)
	defer x.Dispose()
	labels := make([]int32, 128)
	for i := range labels {
		labels[i] = int32(rng.IntN(10))
	}
	y := e.FromInt32s(labels, 128)
	defer y.Dispose()
	var l *tensor.Tensor
	var gs []*tensor.Tensor
	p, err := e.Profile(context.Background(), func() error {
		var err error
		l, gs, err = ValueAndGrad(e, func(ps []*tensor.Tensor) (*tensor.Tensor, error) {
			l := loss.SoftmaxCrossEntropy(e, ps[0], y, loss.Mean)
			return l, l.Err()
		}, []*tensor.Tensor{x}, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Dispose()
	defer tidy.Dispose(gs)
	var names []string
	for _, d := range p.Dispatches {
		names = append(names, d.Kernel)
	}
	// The forward pass is softmax_xent and mean.
	if len(names) > 4 {
		t.Errorf("%d dispatches %v; want at most 4 (2 forward, 2 backward)", len(names), names)
	}
}
