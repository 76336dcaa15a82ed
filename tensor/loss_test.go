package tensor_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// xentRef is softmax cross-entropy in float64 of rows of c logits against
// probabilities p (or, with p nil, labels).
func xentRef(x []float64, c int, labels []int32, p []float64) []float64 {
	rows := len(x) / max(c, 1)
	out := make([]float64, rows)
	for r := range rows {
		row := x[r*c : (r+1)*c]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, v)
		}
		s := 0.0
		for _, v := range row {
			s += math.Exp(v - m)
		}
		lse := m + math.Log(s)
		if p == nil {
			if y := labels[r]; y < 0 || int(y) >= c {
				out[r] = math.NaN()
			} else {
				out[r] = lse - row[y]
			}
			continue
		}
		for j, v := range row {
			out[r] += p[r*c+j] * (lse - v)
		}
	}
	return out
}

// Softmax cross-entropy against a float64 reference, with labels and with
// probabilities, on random logits of scale 3 and of scale 1e4 (where a
// naive softmax overflows). Tolerance: 2e-6 relative to the loss plus
// float32's resolution of the row's logit range (1e4 · 2^-24 ≈ 6e-4 at
// scale 1e4), since the logits themselves are rounded to float32.
func TestSoftmaxCrossEntropyAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		shape []int
		scale float64
	}{
		{[]int{1}, 3}, {[]int{4, 1}, 3}, {[]int{7, 10}, 3}, {[]int{2, 3, 33}, 3},
		{[]int{300, 5}, 3}, {[]int{3, 2000}, 3}, {[]int{16, 10}, 1e4}, {[]int{0, 4}, 3},
	} {
		n := size(c.shape)
		cl := c.shape[len(c.shape)-1]
		rows := n / cl
		xv := make([]float32, n)
		x64 := make([]float64, n)
		for i := range xv {
			xv[i] = float32((r.Float64()*2 - 1) * c.scale)
			x64[i] = float64(xv[i])
		}
		labels := make([]int32, rows)
		for i := range labels {
			labels[i] = int32(r.IntN(cl))
		}
		pv := make([]float32, n)
		p64 := make([]float64, n)
		for i := range rows {
			total := 0.0
			for j := range cl {
				p64[i*cl+j] = r.Float64()
				total += p64[i*cl+j]
			}
			for j := range cl {
				pv[i*cl+j] = float32(p64[i*cl+j] / total)
				p64[i*cl+j] = float64(pv[i*cl+j])
			}
		}
		x := e.FromFloat32s(xv, c.shape...)
		y := e.FromInt32s(labels, c.shape[:len(c.shape)-1]...)
		p := e.FromFloat32s(pv, c.shape...)
		sparse, dense := e.SoftmaxCrossEntropy(x, y), e.SoftmaxCrossEntropy(x, p)
		tol := 1e-6 * c.scale
		for _, k := range []struct {
			name string
			got  *tensor.Tensor
			want []float64
		}{{"labels", sparse, xentRef(x64, cl, labels, nil)}, {"probabilities", dense, xentRef(x64, cl, nil, p64)}} {
			require.NoError(t, k.got.Err())
			assert.Equal(t, tensor.Shape(c.shape[:len(c.shape)-1]), k.got.Shape())
			got := f32s(t, k.got)
			for i, w := range k.want {
				require.False(t, math.IsNaN(float64(got[i])) || math.IsInf(float64(got[i]), 0), "%v %s row %d: %v", c.shape, k.name, i, got[i])
				require.InDelta(t, w, float64(got[i]), 2e-6*math.Abs(w)+tol, "%v scale %g %s row %d", c.shape, c.scale, k.name, i)
			}
		}
		for _, d := range []*tensor.Tensor{x, y, p, sparse, dense} {
			d.Dispose()
		}
	}
}

// Logits of ±1e4 where the label's logit is the largest give a loss of
// exactly log(1 + Σ exp(x_j - m)) ≈ 0, not the rounding of 1e4 - 1e4.
func TestSoftmaxCrossEntropyExtremeLogits(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1e4, -1e4, 0, -1e4, 1e4, 1e4 - 1, 1e4, 1e4, -1e4}, 3, 3)
	defer x.Dispose()
	y := e.FromInt32s([]int32{0, 2, 2}, 3)
	defer y.Dispose()
	l := e.SoftmaxCrossEntropy(x, y)
	defer l.Dispose()
	got := f32s(t, l)
	assert.InDelta(t, 0, got[0], 1e-7)
	assert.InDelta(t, 1+math.Log(1+math.Exp(-1)), got[1], 1e-6)
	assert.InDelta(t, 2e4+math.Log(2), got[2], 1e-2)
	bad := e.FromInt32s([]int32{3, -1, 1}, 3)
	defer bad.Dispose()
	lb := e.SoftmaxCrossEntropy(x, bad)
	defer lb.Dispose()
	v := f32s(t, lb)
	assert.True(t, math.IsNaN(float64(v[0])) && math.IsNaN(float64(v[1])), "labels out of range give NaN: %v", v)
	assert.InDelta(t, math.Log(2), v[2], 1e-6)
}

// sigmoidXentRef is max(x,0) - x·z + log1p(exp(-|x|)) in float64.
func sigmoidXentRef(x, z float64) float64 {
	return math.Max(x, 0) - x*z + math.Log1p(math.Exp(-math.Abs(x)))
}

// Binary cross-entropy from logits, broadcasting targets, against float64:
// within 1e-6 relative plus 1e-7 of the loss · |x| where x·z cancels
// against max(x, 0). Large logits (±1e4, ±30) keep a tiny positive loss
// to full relative precision (log1p).
func TestSigmoidCrossEntropyAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	xv := []float32{-1e4, -30, -20, -1, -1e-3, 0, 1e-3, 0.5, 1, 17, 30, 1e4}
	zv := []float32{0, 1, 0.25}
	x := e.FromFloat32s(xv, 4, 1, 3)
	defer x.Dispose()
	z := e.FromFloat32s(zv, 3)
	defer z.Dispose()
	zc := e.Reshape(z, 1, 3, 1)
	defer zc.Dispose()
	l := e.SigmoidCrossEntropy(x, zc)
	defer l.Dispose()
	require.NoError(t, l.Err())
	assert.Equal(t, tensor.Shape{4, 3, 3}, l.Shape())
	got := f32s(t, l)
	for i := range 4 {
		for j := range 3 {
			for k := range 3 {
				xx, zz := float64(xv[i*3+k]), float64(zv[j])
				w := sigmoidXentRef(xx, zz)
				assert.InDelta(t, w, float64(got[(i*3+j)*3+k]), 1e-6*math.Abs(w)+1e-7*math.Max(1, math.Abs(xx)), "x %g z %g", xx, zz)
			}
		}
	}
	// z = 0 and z = 1 at large |x|: the loss is e^-|x|, tiny but not 0.
	small := e.FromFloat32s([]float32{-30, 30}, 2)
	defer small.Dispose()
	tz := e.FromFloat32s([]float32{0, 1}, 2)
	defer tz.Dispose()
	ls := e.SigmoidCrossEntropy(small, tz)
	defer ls.Dispose()
	for _, v := range f32s(t, ls) {
		assert.InEpsilon(t, math.Exp(-30), v, 1e-5)
	}
}

func TestLossOpErrors(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 2, 3)
	defer x.Dispose()
	xi := e.Zeros(tensor.Int32, 2, 3)
	defer xi.Dispose()
	y := e.Zeros(tensor.Int32, 2)
	defer y.Dispose()
	y3 := e.Zeros(tensor.Int32, 3)
	defer y3.Dispose()
	yu := e.Zeros(tensor.Uint32, 2)
	defer yu.Dispose()
	p := e.Zeros(tensor.Float32, 2, 4)
	defer p.Dispose()
	s := e.Scalar(1)
	defer s.Dispose()
	empty := e.Zeros(tensor.Float32, 2, 0)
	defer empty.Dispose()
	dy := e.Ones(tensor.Float32, 2)
	defer dy.Dispose()
	y3f := e.Ones(tensor.Float32, 3)
	defer y3f.Dispose()
	for _, c := range []struct {
		name string
		y    *tensor.Tensor
		want error
	}{
		{"int logits", e.SoftmaxCrossEntropy(xi, y), tensor.ErrDType},
		{"uint32 labels", e.SoftmaxCrossEntropy(x, yu), tensor.ErrDType},
		{"labels of the wrong shape", e.SoftmaxCrossEntropy(x, y3), tensor.ErrShape},
		{"probabilities of the wrong shape", e.SoftmaxCrossEntropy(x, p), tensor.ErrShape},
		{"scalar logits", e.SoftmaxCrossEntropy(s, y), tensor.ErrShape},
		{"no classes", e.SoftmaxCrossEntropy(empty, y), tensor.ErrShape},
		{"grad of int logits", e.SoftmaxCrossEntropyGrad(xi, y, dy), tensor.ErrDType},
		{"grad of labels of the wrong shape", e.SoftmaxCrossEntropyGrad(x, y3, dy), tensor.ErrShape},
		{"grad with dy of the wrong shape", e.SoftmaxCrossEntropyGrad(x, y, y3f), tensor.ErrShape},
		{"grad with int dy", e.SoftmaxCrossEntropyGrad(x, y, y), tensor.ErrDType},
		{"int binary logits", e.SigmoidCrossEntropy(xi, x), tensor.ErrDType},
		{"shapes that do not broadcast", e.SigmoidCrossEntropy(x, p), tensor.ErrShape},
	} {
		assert.ErrorIs(t, c.y.Err(), c.want, c.name)
		c.y.Dispose()
	}
}

// SoftmaxCrossEntropyGrad against float64: dy · (softmax - one-hot) with
// labels (one out of range: no one-hot), dy · (softmax·Σt - t) with
// probabilities, at logits of scale 3 and 1e4.
func TestSoftmaxCrossEntropyGradAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(13, 14))
	for _, c := range []struct {
		shape []int
		scale float64
	}{{[]int{1}, 3}, {[]int{7, 10}, 3}, {[]int{2, 3, 33}, 3}, {[]int{300, 5}, 3}, {[]int{16, 10}, 1e4}, {[]int{0, 4}, 3}} {
		n := size(c.shape)
		cl := c.shape[len(c.shape)-1]
		rows := n / cl
		xv, pv, gv := make([]float32, n), make([]float32, n), make([]float32, rows)
		for i := range xv {
			xv[i] = float32((r.Float64()*2 - 1) * c.scale)
			pv[i] = float32(r.Float64())
		}
		labels := make([]int32, rows)
		for i := range labels {
			labels[i] = int32(r.IntN(cl))
			gv[i] = float32(r.Float64()*2 - 1)
		}
		if rows > 1 {
			labels[1] = int32(cl) // out of range
		}
		x := e.FromFloat32s(xv, c.shape...)
		y := e.FromInt32s(labels, c.shape[:len(c.shape)-1]...)
		p := e.FromFloat32s(pv, c.shape...)
		g := e.FromFloat32s(gv, c.shape[:len(c.shape)-1]...)
		sparse, dense := e.SoftmaxCrossEntropyGrad(x, y, g), e.SoftmaxCrossEntropyGrad(x, p, g)
		for _, k := range []struct {
			name string
			got  *tensor.Tensor
		}{{"labels", sparse}, {"probabilities", dense}} {
			require.NoError(t, k.got.Err())
			assert.Equal(t, tensor.Shape(c.shape), k.got.Shape())
			got := f32s(t, k.got)
			for row := range rows {
				xs := xv[row*cl : (row+1)*cl]
				m := math.Inf(-1)
				for _, v := range xs {
					m = math.Max(m, float64(v))
				}
				s, mass := 0.0, 0.0
				for j, v := range xs {
					s += math.Exp(float64(v) - m)
					mass += float64(pv[row*cl+j])
				}
				for j, v := range xs {
					soft := math.Exp(float64(v)-m) / s
					want := soft
					if k.name == "probabilities" {
						want = soft*mass - float64(pv[row*cl+j])
					} else if int(labels[row]) == j {
						want--
					}
					want *= float64(gv[row])
					require.InDelta(t, want, float64(got[row*cl+j]), 1e-6, "%v scale %g %s [%d %d]", c.shape, c.scale, k.name, row, j)
				}
			}
		}
		for _, d := range []*tensor.Tensor{x, y, p, g, sparse, dense} {
			d.Dispose()
		}
	}
}
