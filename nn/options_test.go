package nn_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Issue 20, item 4: the layer options PyTorch users rely on — LayerNorm
// over several trailing dimensions, BatchNorm's affine=False,
// track_running_stats=False and momentum=None, Embedding's padding_idx,
// the exact GELU as GELU's default — against float64 host references and
// finite differences.

// hostLayerNormShape normalises each block of the last size elements.
func hostLayerNormShape(x []float32, size int, eps float64, w, b []float32) []float64 {
	y := make([]float64, len(x))
	for r := 0; r < len(x)/size; r++ {
		row := x[r*size : (r+1)*size]
		mean, variance := meanVar(row, 1, size)
		for i, v := range row {
			y[r*size+i] = (float64(v) - mean[0]) / math.Sqrt(variance[0]+eps)
			if w != nil {
				y[r*size+i] = y[r*size+i]*float64(w[i]) + float64(b[i])
			}
		}
	}
	return y
}

func TestLayerNormOverTrailingDimensions(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	b := nn.NewBuilder(e, 2)
	l := b.LayerNormShape([]int{3, 4}, nn.WeightInit(nn.Uniform(0.5, 1.5)), nn.BiasInit(nn.Uniform(-1, 1)), nn.Eps(1e-3))
	plain := b.LayerNormShape([]int{2, 2, 3}, nn.NoAffine())
	one := b.LayerNormShape([]int{5})
	require.NoError(t, b.Err())
	defer l.Dispose()
	defer plain.Dispose()
	defer one.Dispose()
	assert.Equal(t, []string{"weight", "bias"}, names(l.Params()))
	assert.Equal(t, tensor.Shape{3, 4}, byName(t, l.Params(), "weight").Shape())
	assert.Equal(t, tensor.Shape{3, 4}, byName(t, l.Params(), "bias").Shape())
	assert.Empty(t, plain.Params(), "NoAffine: no weight, no bias")
	assert.Equal(t, tensor.Shape{5}, byName(t, one.Params(), "weight").Shape(), "a shape of rank 1 is LayerNorm(dim)")

	w, bias := read(t, byName(t, l.Params(), "weight")), read(t, byName(t, l.Params(), "bias"))
	xs := randFloats(rng, 2*3*4, -3, 3)
	x := e.FromFloat32s(xs, 2, 3, 4)
	defer x.Dispose()
	requireClose(t, hostLayerNormShape(xs, 12, 1e-3, w, bias), forward(t, e, l, x), 1e-4, "LayerNorm([3 4])")
	xs = randFloats(rng, 3*2*2*3, -3, 3)
	x2 := e.FromFloat32s(xs, 3, 2, 2, 3)
	defer x2.Dispose()
	requireClose(t, hostLayerNormShape(xs, 12, 1e-5, nil, nil), forward(t, e, plain, x2), 1e-4, "LayerNorm([2 2 3]), no affine")

	// The trailing dimensions must be the normalized shape.
	bad := e.FromFloat32s(make([]float32, 2*4*3), 2, 4, 3)
	defer bad.Dispose()
	live := e.NumTensors()
	y := l.Forward(bad)
	assert.ErrorIs(t, y.Err(), tensor.ErrShape)
	assert.ErrorContains(t, y.Err(), "nn: LayerNorm([3 4])")
	assert.ErrorContains(t, y.Err(), "[2 4 3]")
	y.Dispose()
	assert.Equal(t, live, e.NumTensors())
}

func TestLayerOptionGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	uniform := func(n int) []float32 { return randFloats(rng, n, -2, 2) }
	affine := []nn.Option{nn.WeightInit(nn.Uniform(0.5, 1.5)), nn.BiasInit(nn.Uniform(-1, 1))}
	for _, c := range []gradCase{
		{name: "LayerNorm over [3 4]", build: func(b *nn.Builder) nn.Module { return b.LayerNormShape([]int{3, 4}, affine...) }, shape: []int{2, 3, 4}, x: uniform(24)},
		{name: "LayerNorm over [2 3], no affine", build: func(b *nn.Builder) nn.Module { return b.LayerNormShape([]int{2, 3}, nn.NoAffine()) }, shape: []int{2, 2, 3}, x: uniform(12)},
		{name: "BatchNorm, no affine, training", build: func(b *nn.Builder) nn.Module { return b.BatchNorm(3, nn.NoAffine()) }, shape: []int{4, 3}, x: uniform(12), training: true},
		{name: "BatchNorm, no running statistics, inference", build: func(b *nn.Builder) nn.Module {
			return b.BatchNorm(3, append(affine, nn.NoRunningStats())...)
		}, shape: []int{2, 2, 3}, x: uniform(12)},
		{name: "BatchNorm, cumulative, training", build: func(b *nn.Builder) nn.Module {
			return b.BatchNorm(3, append(affine, nn.CumulativeMomentum())...)
		}, shape: []int{4, 3}, x: uniform(12), training: true},
		{name: "GELU (erf)", build: func(*nn.Builder) nn.Module { return nn.GELU() }, shape: []int{2, 5}, x: randFloats(rng, 10, -4, 4)},
		{name: "GELUTanh", build: func(*nn.Builder) nn.Module { return nn.GELUTanh() }, shape: []int{2, 5}, x: randFloats(rng, 10, -4, 4)},
		{name: "MaxPool2D, dilation 2, ceil mode", build: func(*nn.Builder) nn.Module {
			return nn.MaxPool2D(tensor.Pool2DOptions{Window: [2]int{2, 2}, Stride: [2]int{2, 1}, Dilation: [2]int{2, 2}, CeilMode: true})
		}, shape: []int{1, 6, 5, 2}, x: distinct(rng, 60)},
		{name: "AvgPool2D, counting the padding, ceil mode", build: func(*nn.Builder) nn.Module {
			return nn.AvgPool2D(tensor.Pool2DOptions{Window: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: tensor.Explicit(1, 1, 1, 1), CeilMode: true, CountIncludePad: true})
		}, shape: []int{2, 6, 5, 1}, x: uniform(60)},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkModuleGradient(t, e, c)
			require.Zero(t, e.NumTensors())
		})
	}
}

// GELU is the exact GELU, x·Φ(x), as PyTorch's nn.GELU() by default;
// GELUTanh the tanh approximation.
func TestGELUDefaultIsErf(t *testing.T) {
	e := testgpu.Engine(t)
	xs := []float32{-6, -3, -1, -0.25, 0, 0.5, 1, 2.5, 8}
	x := e.FromFloat32s(xs, len(xs))
	defer x.Dispose()
	exact, approx := make([]float64, len(xs)), make([]float64, len(xs))
	for i, v := range xs {
		f := float64(v)
		exact[i] = f / 2 * math.Erfc(-f/math.Sqrt2)
		approx[i] = 0.5 * f * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(f+0.044715*f*f*f)))
	}
	gelu, tanh := nn.GELU(), nn.GELUTanh()
	defer gelu.Dispose()
	defer tanh.Dispose()
	got := forward(t, e, gelu, x)
	requireClose(t, exact, got, 2e-6, "GELU")
	requireClose(t, approx, forward(t, e, tanh, x), 2e-6, "GELUTanh")
	// They differ by more than rounding (about 3e-4 at -3 and 2.5).
	assert.Greater(t, math.Abs(exact[1]-approx[1]), 1e-4)
}

// BatchNorm with NoAffine has no parameters; with NoRunningStats no
// buffers, and it normalises with the batch's statistics in both modes.
func TestBatchNormWithoutAffineOrRunningStats(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	const c = 3
	b := nn.NewBuilder(e, 1)
	noAffine := b.BatchNorm(c, nn.NoAffine())
	noStats := b.BatchNorm(c, nn.NoRunningStats())
	neither := b.BatchNorm(c, nn.NoAffine(), nn.NoRunningStats(), nn.CumulativeMomentum())
	require.NoError(t, b.Err())
	defer noAffine.Dispose()
	defer noStats.Dispose()
	defer neither.Dispose()
	assert.Empty(t, noAffine.Params())
	assert.Equal(t, []string{"running_mean", "running_var"}, names(noAffine.Buffers()))
	assert.Equal(t, []string{"weight", "bias"}, names(noStats.Params()))
	assert.Empty(t, noStats.Buffers())
	assert.Empty(t, nn.StateDict(neither), "CumulativeMomentum does nothing without running statistics, as in PyTorch")

	xs := randFloats(rng, 5*c, -2, 3)
	x := e.FromFloat32s(xs, 5, c)
	defer x.Dispose()
	mean, variance := meanVar(xs, c, 0)
	want := make([]float64, len(xs))
	for i, v := range xs {
		want[i] = (float64(v) - mean[i%c]) / math.Sqrt(variance[i%c]+1e-5)
	}
	for _, l := range []*nn.BatchNorm{noAffine, noStats, neither} {
		for _, training := range []bool{true, false} {
			l.SetTraining(training)
			if l == noAffine && !training {
				continue // inference uses the running statistics
			}
			requireClose(t, want, forward(t, e, l, x), 1e-4, "batch statistics")
		}
	}
	// Without running statistics, one value per channel is refused in
	// inference mode too.
	one := e.FromFloat32s(xs[:c], 1, c)
	defer one.Dispose()
	noStats.SetTraining(false)
	y := noStats.Forward(one)
	assert.ErrorIs(t, y.Err(), tensor.ErrShape)
	y.Dispose()
}

// With CumulativeMomentum (momentum=None) the running statistics are the
// plain averages of the batches' (the variance unbiased), and
// num_batches_tracked counts the batches, as in PyTorch.
func TestBatchNormCumulativeMomentum(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	const c = 2
	b := nn.NewBuilder(e, 3)
	l := b.BatchNorm(c, nn.CumulativeMomentum())
	require.NoError(t, b.Err())
	defer l.Dispose()
	assert.Equal(t, []string{"running_mean", "running_var", "num_batches_tracked"}, names(l.Buffers()))
	count := byName(t, l.Buffers(), "num_batches_tracked")
	assert.Equal(t, tensor.Int32, count.DType())
	assert.Equal(t, tensor.Shape{}, count.Shape())
	sumMean, sumVar := make([]float64, c), make([]float64, c)
	for step := 1; step <= 4; step++ {
		xs := randFloats(rng, 3*2*c, -1+float64(step), 2+2*float64(step))
		x := e.FromFloat32s(xs, 3, 2, c)
		forward(t, e, l, x)
		x.Dispose()
		mean, variance := meanVar(xs, c, 0)
		n := float64(len(xs) / c)
		for k := range c {
			sumMean[k] += mean[k]
			sumVar[k] += variance[k] * n / (n - 1)
		}
		wantMean, wantVar := make([]float64, c), make([]float64, c)
		for k := range c {
			wantMean[k], wantVar[k] = sumMean[k]/float64(step), sumVar[k]/float64(step)
		}
		requireClose(t, wantMean, read(t, byName(t, l.Buffers(), "running_mean")), 1e-5, "running_mean")
		requireClose(t, wantVar, read(t, byName(t, l.Buffers(), "running_var")), 1e-4, "running_var")
		got, err := count.Int32s(context.Background())
		require.NoError(t, err)
		assert.Equal(t, []int32{int32(step)}, got)
	}
	// Inference neither counts nor blends.
	l.SetTraining(false)
	x := e.FromFloat32s(randFloats(rng, 2*c, -1, 1), 2, c)
	defer x.Dispose()
	forward(t, e, l, x)
	got, err := count.Int32s(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []int32{4}, got)
}

// A checkpoint saves num_batches_tracked with the running statistics and
// loads it back, strictly: training resumes with the right weight 1/k.
func TestBatchNormCumulativeCheckpoint(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	b := nn.NewBuilder(e, 3)
	l := b.BatchNorm(2, nn.CumulativeMomentum())
	fresh := b.BatchNorm(2, nn.CumulativeMomentum())
	require.NoError(t, b.Err())
	defer l.Dispose()
	defer fresh.Dispose()
	for range 3 {
		x := e.FromFloat32s(randFloats(rng, 8, -2, 2), 4, 2)
		forward(t, e, l, x)
		x.Dispose()
	}
	var buf bytes.Buffer
	require.NoError(t, checkpoint.Save(context.Background(), &buf, nn.StateDict(l), checkpoint.SaveOptions{}))
	report, err := checkpoint.Load(context.Background(), e, bytes.NewReader(buf.Bytes()), int64(buf.Len()), nn.StateDict(fresh), checkpoint.LoadOptions{})
	require.NoError(t, err)
	assert.Empty(t, report.Ignored, "num_batches_tracked is the layer's")
	for _, name := range []string{"running_mean", "running_var"} {
		assert.Equal(t, read(t, byName(t, l.Buffers(), name)), read(t, byName(t, fresh.Buffers(), name)), name)
	}
	got, err := byName(t, fresh.Buffers(), "num_batches_tracked").Int32s(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []int32{3}, got)
}

// Embedding's padding row starts as zeros, gets no gradient, and reads
// as its current values; the other rows are those Embedding draws.
func TestEmbeddingPaddingIndex(t *testing.T) {
	e := testgpu.Engine(t)
	const num, dim, pad = 5, 3, 2
	b1, b2 := nn.NewBuilder(e, 9), nn.NewBuilder(e, 9)
	padded := b1.EmbeddingPadded(num, dim, pad)
	plain := b2.Embedding(num, dim)
	fromEnd := b1.EmbeddingPadded(num, dim, -1)
	require.NoError(t, b1.Err())
	require.NoError(t, b2.Err())
	defer padded.Dispose()
	defer plain.Dispose()
	defer fromEnd.Dispose()
	wp, w := read(t, byName(t, padded.Params(), "weight")), read(t, byName(t, plain.Params(), "weight"))
	for i := range w {
		if i/dim == pad {
			assert.Zero(t, wp[i], "the padding row starts as zeros")
		} else {
			assert.Equal(t, w[i], wp[i], "the other rows are Embedding's")
		}
	}
	assert.Equal(t, make([]float32, dim), read(t, byName(t, fromEnd.Params(), "weight"))[(num-1)*dim:], "padding index -1 is the last row")

	// A padding row written by hand reads as written.
	weight := byName(t, padded.Params(), "weight")
	vals := make([]float32, num*dim)
	for i := range vals {
		vals[i] = float32(i + 1)
	}
	src := e.FromFloat32s(vals, num, dim)
	require.NoError(t, e.Assign(weight, src))
	src.Dispose()
	idx := []int32{pad, 0, pad - num, 4, pad, 1}
	indices := e.FromInt32s(idx, 2, 3)
	defer indices.Dispose()
	var want []float32
	for _, i := range idx {
		r := (int(i) + num) % num
		want = append(want, vals[r*dim:(r+1)*dim]...)
	}
	assert.Equal(t, want, forward(t, e, padded, indices))

	// The gradient: dy's rows summed into the rows picked, none into the
	// padding row.
	dyv := randFloats(rngFor(t), len(idx)*dim, -1, 1)
	g, err := tidy.Run(e, func() ([]float32, error) {
		tape := grad.NewTape(e)
		var y *tensor.Tensor
		if err := tape.Record(func() error { y = padded.Forward(indices); return y.Err() }); err != nil {
			return nil, err
		}
		gs, err := tape.Gradients(y, []*tensor.Tensor{weight}, &grad.Options{Seed: e.FromFloat32s(dyv, 2, 3, dim)})
		if err != nil {
			return nil, err
		}
		return gs[0].Float32s(context.Background())
	})
	require.NoError(t, err)
	wantG := make([]float64, num*dim)
	for k, i := range idx {
		r := (int(i) + num) % num
		if r == pad {
			continue
		}
		for j := range dim {
			wantG[r*dim+j] += float64(dyv[k*dim+j])
		}
	}
	requireClose(t, wantG, g, 1e-6, "the weight's gradient")
	for j := range dim {
		assert.Zero(t, g[pad*dim+j], "the padding row gets no gradient")
	}
}

// Bad options are errors of the Builder naming the layer; nothing is
// left live.
func TestLayerOptionErrors(t *testing.T) {
	e := testgpu.Engine(t)
	for _, c := range []struct {
		name  string
		build func(b *nn.Builder) nn.Module
		want  string
	}{
		{"padding index past the rows", func(b *nn.Builder) nn.Module { return b.EmbeddingPadded(4, 2, 4) }, "padding index 4 is outside [-4, 4)"},
		{"padding index before the rows", func(b *nn.Builder) nn.Module { return b.EmbeddingPadded(4, 2, -5) }, "padding_idx=-5"},
		{"Momentum and CumulativeMomentum", func(b *nn.Builder) nn.Module {
			return b.BatchNorm(3, nn.Momentum(0.2), nn.CumulativeMomentum())
		}, "exclude each other"},
		{"NoAffine with an initialiser", func(b *nn.Builder) nn.Module { return b.LayerNorm(3, nn.NoAffine(), nn.WeightInit(nn.Ones)) }, "do not apply with NoAffine"},
		{"a normalized shape with a zero", func(b *nn.Builder) nn.Module { return b.LayerNormShape([]int{3, 0}) }, "nn: LayerNorm([3 0]): size [3 0] must be positive"},
		{"an empty normalized shape", func(b *nn.Builder) nn.Module { return b.LayerNormShape(nil) }, "must be positive"},
		{"NoRunningStats on a LayerNorm", func(b *nn.Builder) nn.Module { return b.LayerNorm(3, nn.NoRunningStats()) }, "option NoRunningStats does not apply"},
		{"NoAffine on a Linear", func(b *nn.Builder) nn.Module { return b.Linear(3, 2, nn.NoAffine()) }, "option NoAffine does not apply"},
	} {
		live := e.NumTensors()
		b := nn.NewBuilder(e, 1)
		m := c.build(b)
		err := b.Err()
		require.Error(t, err, c.name)
		assert.True(t, errors.Is(err, tensor.ErrArgument), "%s: %v", c.name, err)
		assert.Contains(t, err.Error(), c.want, c.name)
		x := e.Zeros(tensor.Float32, 2, 3)
		y := m.Forward(x)
		assert.Error(t, y.Err(), c.name)
		y.Dispose()
		x.Dispose()
		m.Dispose()
		assert.Equal(t, live, e.NumTensors(), "%s: a tensor was left behind", c.name)
	}
}
