package tensor_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// xentMeanBits is v's bits, so that NaNs compare equal.
func xentMeanBits(v []float32) []uint32 {
	out := make([]uint32, len(v))
	for i, x := range v {
		out[i] = math.Float32bits(x)
	}
	return out
}

// SoftmaxCrossEntropyMean is bit for bit Mean(SoftmaxCrossEntropy), and
// its gradient bit for bit SoftmaxCrossEntropyGrad with dy·(1/rows)
// broadcast over the rows (what Mean's gradient gives);
// SoftmaxCrossEntropyWeightedSum is Sum(Mul(losses, w)) and its gradient
// SoftmaxCrossEntropyGrad with dy·w; over labels and
// probabilities, one row and none, odd classes, rows past a workgroup,
// labels out of range (NaN), extreme logits, and the float64 reference.
func TestSoftmaxCrossEntropyMeanAndWeightedSumAreTheComposedOps(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(22, 1))
	for _, s := range [][]int{{5}, {1, 3}, {4, 7}, {2, 3, 33}, {300, 10}, {0, 4}, {70, 1}} {
		rowShape, c := s[:len(s)-1], s[len(s)-1]
		rows := size(rowShape)
		xv := randF32(r, size(s), -4, 4)
		if size(s) > 3 {
			xv[0], xv[1], xv[2] = 1e4, -1e4, 1e4-1
		}
		labels := make([]int32, rows)
		for i := range labels {
			labels[i] = int32(r.IntN(c))
		}
		pv := randF32(r, size(s), 0, 1)
		for _, target := range []string{"labels", "out of range", "probabilities"} {
			err := tidy.Do(e, func() error {
				x := e.FromFloat32s(xv, s...)
				var tt *tensor.Tensor
				switch target {
				case "labels":
					tt = e.FromInt32s(labels, rowShape...)
				case "out of range":
					bad := append([]int32(nil), labels...)
					if len(bad) > 0 {
						bad[len(bad)-1] = int32(c)
					}
					tt = e.FromInt32s(bad, rowShape...)
				default:
					tt = e.FromFloat32s(pv, s...)
				}
				m := e.SoftmaxCrossEntropyMean(x, tt)
				require.Equal(t, tensor.Shape{}, m.Shape())
				want := e.Mean(e.SoftmaxCrossEntropy(x, tt), false)
				got := f32s(t, m)
				assert.Equal(t, xentMeanBits(f32s(t, want)), xentMeanBits(got), "%v %s: the mean", s, target)
				if target == "labels" {
					ref := xentRef(xentWiden(xv), c, labels, nil)
					mean := 0.0
					for _, v := range ref {
						mean += v
					}
					mean /= float64(len(ref))
					if rows == 0 {
						assert.True(t, math.IsNaN(float64(got[0])), "the mean of no rows")
					} else {
						assert.InDelta(t, mean, float64(got[0]), 1e-5*math.Max(1, math.Abs(mean)), "%v: against float64", s)
					}
				}
				if target == "out of range" && rows > 0 {
					assert.True(t, math.IsNaN(float64(got[0])), "%v: a label out of range", s)
				}
				dy := e.Scalar(-1.75)
				dx := e.SoftmaxCrossEntropyMeanGrad(x, tt, dy)
				require.Equal(t, tensor.Shape(s), dx.Shape())
				g := e.Mul(e.Fill(tensor.Float32, float64(1/float32(max(rows, 1))), rowShape...), dy)
				wantDx := e.SoftmaxCrossEntropyGrad(x, tt, g)
				assert.Equal(t, xentMeanBits(f32s(t, wantDx)), xentMeanBits(f32s(t, dx)), "%v %s: the gradient", s, target)
				// Weighted: weights of every sign, zero and subnormal among
				// them (but for WGT_FLOAT32's emulation of a device that
				// flushes subnormals, which the elementwise ops apply and the
				// kernels do not: see SoftmaxCrossEntropyWeightedSum).
				wv := randF32(r, rows, -2, 2)
				if rows > 2 {
					wv[0], wv[1] = 0, 1e-40
					if e.Device().Float32().FlushesSubnormals {
						wv[1] = 1e-30
					}
				}
				w := e.FromFloat32s(wv, rowShape...)
				ws := e.SoftmaxCrossEntropyWeightedSum(x, tt, w)
				require.Equal(t, tensor.Shape{}, ws.Shape())
				wantWs := e.Sum(e.Mul(e.SoftmaxCrossEntropy(x, tt), w), false)
				assert.Equal(t, xentMeanBits(f32s(t, wantWs)), xentMeanBits(f32s(t, ws)), "%v %s: the weighted sum", s, target)
				wdx := e.SoftmaxCrossEntropyWeightedSumGrad(x, tt, w, dy)
				wantWdx := e.SoftmaxCrossEntropyGrad(x, tt, e.Mul(e.BroadcastTo(dy, rowShape...), w))
				assert.Equal(t, xentMeanBits(f32s(t, wantWdx)), xentMeanBits(f32s(t, wdx)), "%v %s: the weighted sum's gradient", s, target)
				return nil
			})
			require.NoError(t, err)
		}
	}
}

// xentWiden widens v.
func xentWiden(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func TestSoftmaxCrossEntropyMeanErrors(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 2, 3)
	labels := e.Zeros(tensor.Int32, 2)
	labels3 := e.Zeros(tensor.Int32, 3)
	probs := e.Zeros(tensor.Float32, 2, 3)
	s := e.Scalar(1)
	rowDy := e.Zeros(tensor.Float32, 2)
	intDy := e.Zeros(tensor.Int32)
	u := e.Zeros(tensor.Uint32, 2)
	defer tidy.Dispose([]*tensor.Tensor{x, labels, labels3, probs, s, rowDy, intDy, u})
	for _, c := range []struct {
		name, op string
		kind     error
		y        func() *tensor.Tensor
	}{
		{"labels of the wrong shape", "softmax_cross_entropy_mean", tensor.ErrShape, func() *tensor.Tensor { return e.SoftmaxCrossEntropyMean(x, labels3) }},
		{"uint32 targets", "softmax_cross_entropy_mean", tensor.ErrDType, func() *tensor.Tensor { return e.SoftmaxCrossEntropyMean(x, u) }},
		{"scalar logits", "softmax_cross_entropy_mean", tensor.ErrShape, func() *tensor.Tensor { return e.SoftmaxCrossEntropyMean(s, labels) }},
		{"a dy per row", "softmax_cross_entropy_mean_grad", tensor.ErrShape, func() *tensor.Tensor { return e.SoftmaxCrossEntropyMeanGrad(x, labels, rowDy) }},
		{"an int32 dy", "softmax_cross_entropy_mean_grad", tensor.ErrDType, func() *tensor.Tensor { return e.SoftmaxCrossEntropyMeanGrad(x, labels, intDy) }},
		{"probabilities of the wrong shape", "softmax_cross_entropy_mean_grad", tensor.ErrShape, func() *tensor.Tensor { return e.SoftmaxCrossEntropyMeanGrad(x, rowDy, s) }},
		{"weights of the wrong shape", "softmax_cross_entropy_weighted_sum", tensor.ErrShape, func() *tensor.Tensor { return e.SoftmaxCrossEntropyWeightedSum(x, labels, s) }},
		{"int32 weights", "softmax_cross_entropy_weighted_sum", tensor.ErrDType, func() *tensor.Tensor { return e.SoftmaxCrossEntropyWeightedSum(x, labels, labels) }},
		{"weighted labels of the wrong shape", "softmax_cross_entropy_weighted_sum", tensor.ErrShape, func() *tensor.Tensor { return e.SoftmaxCrossEntropyWeightedSum(x, labels3, rowDy) }},
		{"a weighted dy per row", "softmax_cross_entropy_weighted_sum_grad", tensor.ErrShape, func() *tensor.Tensor { return e.SoftmaxCrossEntropyWeightedSumGrad(x, labels, rowDy, rowDy) }},
		{"an int32 weighted dy", "softmax_cross_entropy_weighted_sum_grad", tensor.ErrDType, func() *tensor.Tensor { return e.SoftmaxCrossEntropyWeightedSumGrad(x, labels, rowDy, intDy) }},
		{"weights of the wrong shape, gradient", "softmax_cross_entropy_weighted_sum_grad", tensor.ErrShape, func() *tensor.Tensor { return e.SoftmaxCrossEntropyWeightedSumGrad(x, labels, x, s) }},
	} {
		live := e.NumTensors()
		err := c.y().Err()
		var oe *tensor.OpError
		require.True(t, errors.As(err, &oe), "%s: %v", c.name, err)
		assert.ErrorIs(t, err, c.kind, c.name)
		assert.Equal(t, c.op, oe.Op, c.name)
		assert.Equal(t, live, e.NumTensors(), c.name)
	}
	ok := e.SoftmaxCrossEntropyMeanGrad(x, probs, s)
	assert.NoError(t, ok.Err())
	ok.Dispose()
}
