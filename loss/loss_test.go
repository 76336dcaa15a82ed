package loss_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/tensor"
)

func read(t *testing.T, x *tensor.Tensor) []float64 {
	t.Helper()
	require.NoError(t, x.Err())
	v, err := x.Float32s(context.Background())
	require.NoError(t, err)
	out := make([]float64, len(v))
	for i, f := range v {
		out[i] = float64(f)
	}
	return out
}

func randVals(r *rand.Rand, n int, scale float64) ([]float32, []float64) {
	f := make([]float32, n)
	d := make([]float64, n)
	for i := range f {
		f[i] = float32((r.Float64()*2 - 1) * scale)
		d[i] = float64(f[i])
	}
	return f, d
}

// reduced is what each Reduction makes of per-element losses in float64.
func reduced(per []float64) map[string][]float64 {
	s := 0.0
	for _, v := range per {
		s += v
	}
	return map[string][]float64{"none": per, "sum": {s}, "mean": {s / float64(len(per))}}
}

var reductions = map[string]loss.Reduction{"none": loss.None, "sum": loss.Sum, "mean": loss.Mean, "nil": nil}

// checkReductions compares every reduction of a loss with the float64
// reference per element, within rel relative to the magnitude (plus abs).
func checkReductions(t *testing.T, name string, f func(loss.Reduction) *tensor.Tensor, per []float64, rel, abs float64) {
	t.Helper()
	want := reduced(per)
	want["nil"] = want["mean"]
	mag := 0.0
	for _, v := range per {
		mag += math.Abs(v)
	}
	for rn, r := range reductions {
		got := f(r)
		v := read(t, got)
		got.Dispose()
		require.Len(t, v, len(want[rn]), "%s %s", name, rn)
		for i, w := range want[rn] {
			scale := math.Abs(w)
			if rn == "sum" {
				scale = mag
			} else if rn != "none" {
				scale = mag / float64(len(per))
			}
			assert.InDelta(t, w, v[i], rel*scale+abs, "%s %s element %d", name, rn, i)
		}
	}
}

func TestSoftmaxCrossEntropyReductions(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(1, 2))
	const rows, classes = 9, 5
	xf, xd := randVals(r, rows*classes, 1e4)
	labels := make([]int32, rows)
	for i := range labels {
		labels[i] = int32(r.IntN(classes))
	}
	per := make([]float64, rows)
	for i := range rows {
		row := xd[i*classes : (i+1)*classes]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, v)
		}
		s := 0.0
		for _, v := range row {
			s += math.Exp(v - m)
		}
		per[i] = (m - row[labels[i]]) + math.Log(s)
	}
	x := e.FromFloat32s(xf, rows, classes)
	defer x.Dispose()
	y := e.FromInt32s(labels, rows)
	defer y.Dispose()
	checkReductions(t, "softmax cross-entropy at ±1e4", func(red loss.Reduction) *tensor.Tensor {
		return loss.SoftmaxCrossEntropy(e, x, y, red)
	}, per, 2e-6, 1e-6)
}

func TestSigmoidCrossEntropyReductions(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(3, 4))
	xf, xd := randVals(r, 24, 8)
	zf := make([]float32, 24)
	per := make([]float64, 24)
	for i := range zf {
		zf[i] = float32(r.IntN(2))
		per[i] = math.Max(xd[i], 0) - xd[i]*float64(zf[i]) + math.Log1p(math.Exp(-math.Abs(xd[i])))
	}
	x := e.FromFloat32s(xf, 4, 6)
	defer x.Dispose()
	z := e.FromFloat32s(zf, 4, 6)
	defer z.Dispose()
	checkReductions(t, "binary cross-entropy", func(red loss.Reduction) *tensor.Tensor {
		return loss.SigmoidCrossEntropy(e, x, z, red)
	}, per, 2e-6, 1e-6)
}

func TestMeanSquaredErrorReductions(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(5, 6))
	pf, pd := randVals(r, 15, 3)
	tf, td := randVals(r, 5, 3)
	per := make([]float64, 15)
	for i := range per {
		d := pd[i] - td[i%5]
		per[i] = d * d
	}
	p := e.FromFloat32s(pf, 3, 5)
	defer p.Dispose()
	y := e.FromFloat32s(tf, 5)
	defer y.Dispose()
	checkReductions(t, "mean squared error, broadcast targets", func(red loss.Reduction) *tensor.Tensor {
		return loss.MeanSquaredError(e, p, y, red)
	}, per, 2e-6, 1e-6)
}

// A bad argument gives a tensor carrying the refusing op's error; nothing
// is left live (the leak check of testgpu.Engine).
func TestLossErrors(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 2, 3)
	defer x.Dispose()
	bad := e.Zeros(tensor.Float32, 4)
	defer bad.Dispose()
	labels := e.Zeros(tensor.Uint32, 2)
	defer labels.Dispose()
	for name, c := range map[string]struct {
		y    *tensor.Tensor
		want error
	}{
		"softmax cross-entropy, uint32 labels": {loss.SoftmaxCrossEntropy(e, x, labels, loss.Sum), tensor.ErrDType},
		"binary cross-entropy, shapes":         {loss.SigmoidCrossEntropy(e, x, bad, nil), tensor.ErrShape},
		"squared error, shapes":                {loss.MeanSquaredError(e, x, bad, loss.None), tensor.ErrShape},
	} {
		assert.ErrorIs(t, c.y.Err(), c.want, name)
		c.y.Dispose()
	}
}

// The tensors a loss returns are attributed to the caller's line, not to
// package loss.
func TestLossSiteIsTheCallersLine(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
	defer x.Dispose()
	y := e.FromInt32s([]int32{0, 1}, 2)
	defer y.Dispose()
	for name, l := range map[string]*tensor.Tensor{
		"softmax cross-entropy": loss.SoftmaxCrossEntropy(e, x, y, loss.None),
		"binary cross-entropy":  loss.SigmoidCrossEntropy(e, x, x, loss.Mean),
		"squared error":         loss.MeanSquaredError(e, x, x, loss.Sum),
	} {
		assert.Contains(t, l.Site().String(), "loss/loss_test.go:", name)
		l.Dispose()
	}
}
