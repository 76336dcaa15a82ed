package nn_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Linear computes x·Wᵀ + b with the weight in PyTorch's [out, in] layout,
// for a batch, for a single vector and for batch dimensions of rank 2.
func TestLinearMatchesHost(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	b := nn.NewBuilder(e, 1)
	l := b.Linear(3, 4, nn.BiasInit(nn.Uniform(-1, 1)))
	require.NoError(t, b.Err())
	defer l.Dispose()
	assert.Equal(t, []string{"weight", "bias"}, names(l.Params()))
	assert.Equal(t, tensor.Shape{4, 3}, byName(t, l.Params(), "weight").Shape())
	w, bias := read(t, byName(t, l.Params(), "weight")), read(t, byName(t, l.Params(), "bias"))

	xs := randFloats(rng, 6*3, -2, 2)
	for _, shape := range [][]int{{6, 3}, {3}, {2, 3, 3}} {
		x := e.FromFloat32s(xs[:size(shape)], shape...)
		got := forward(t, e, l, x)
		x.Dispose()
		requireClose(t, matVecT(xs, size(shape)/3, 3, w, 4, bias), got, 1e-5, "Linear")
	}

	nb := nn.NewBuilder(e, 1)
	noBias := nb.Linear(3, 4, nn.NoBias())
	require.NoError(t, nb.Err())
	defer noBias.Dispose()
	assert.Equal(t, []string{"weight"}, names(noBias.Params()))
	x := e.FromFloat32s(xs[:6], 2, 3)
	defer x.Dispose()
	requireClose(t, matVecT(xs, 2, 3, read(t, noBias.Params()[0].T), 4, nil), forward(t, e, noBias, x), 1e-5, "Linear without bias")
}

func size(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// hostNorm normalises rows of x [rows, dim] by their mean and biased
// variance, then scales by w and shifts by b.
func hostLayerNorm(x []float32, dim int, eps float64, w, b []float32) []float64 {
	y := make([]float64, len(x))
	for r := 0; r < len(x)/dim; r++ {
		row := x[r*dim : (r+1)*dim]
		mean, variance := meanVar(row, 1, dim)
		for i, v := range row {
			y[r*dim+i] = (float64(v)-mean[0])/math.Sqrt(variance[0]+eps)*float64(w[i]) + float64(b[i])
		}
	}
	return y
}

// meanVar returns the mean and biased variance of each of the c channels
// of x, the last axis of stride 1 (x is [n, c] flattened; dim = c).
func meanVar(x []float32, c, _ int) (mean, variance []float64) {
	n := len(x) / c
	mean, variance = make([]float64, c), make([]float64, c)
	for i, v := range x {
		mean[i%c] += float64(v) / float64(n)
	}
	for i, v := range x {
		d := float64(v) - mean[i%c]
		variance[i%c] += d * d / float64(n)
	}
	return mean, variance
}

func TestLayerNormMatchesHost(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	b := nn.NewBuilder(e, 1)
	l := b.LayerNorm(5, nn.WeightInit(nn.Uniform(0.5, 1.5)), nn.BiasInit(nn.Uniform(-1, 1)), nn.Eps(1e-3))
	require.NoError(t, b.Err())
	defer l.Dispose()
	w, bias := read(t, byName(t, l.Params(), "weight")), read(t, byName(t, l.Params(), "bias"))
	xs := randFloats(rng, 2*3*5, -3, 3)
	x := e.FromFloat32s(xs, 2, 3, 5)
	defer x.Dispose()
	want := hostLayerNorm(xs, 5, 1e-3, w, bias)
	requireClose(t, want, forward(t, e, l, x), 1e-4, "LayerNorm, training mode")
	l.SetTraining(false)
	requireClose(t, want, forward(t, e, l, x), 1e-4, "LayerNorm, inference mode")
}

// BatchNorm in training mode normalises NHWC data per channel with the
// batch's statistics and moves its running statistics toward them as
// PyTorch does (unbiased variance, momentum); in inference mode it
// normalises with the running statistics.
func TestBatchNormMatchesPyTorch(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	const c, momentum, eps = 3, 0.25, 1e-5
	b := nn.NewBuilder(e, 1)
	l := b.BatchNorm(c, nn.Momentum(momentum), nn.WeightInit(nn.Uniform(0.5, 1.5)), nn.BiasInit(nn.Uniform(-1, 1)))
	require.NoError(t, b.Err())
	defer l.Dispose()
	assert.Equal(t, []string{"weight", "bias"}, names(l.Params()))
	assert.Equal(t, []string{"running_mean", "running_var"}, names(l.Buffers()))
	assert.Equal(t, []string{"weight", "bias", "running_mean", "running_var"}, names(nn.StateDict(l)))
	w, bias := read(t, byName(t, l.Params(), "weight")), read(t, byName(t, l.Params(), "bias"))

	runMean, runVar := []float64{0, 0, 0}, []float64{1, 1, 1}
	for step := range 3 {
		xs := randFloats(rng, 2*2*3*c, -2+float64(step), 3)
		x := e.FromFloat32s(xs, 2, 2, 3, c) // NHWC
		got := forward(t, e, l, x)
		x.Dispose()
		mean, variance := meanVar(xs, c, 0)
		n := float64(len(xs) / c)
		want := make([]float64, len(xs))
		for i, v := range xs {
			k := i % c
			want[i] = (float64(v)-mean[k])/math.Sqrt(variance[k]+eps)*float64(w[k]) + float64(bias[k])
		}
		requireClose(t, want, got, 1e-4, "BatchNorm, training mode")
		for k := range c {
			runMean[k] = (1-momentum)*runMean[k] + momentum*mean[k]
			runVar[k] = (1-momentum)*runVar[k] + momentum*variance[k]*n/(n-1)
		}
		requireClose(t, runMean, read(t, byName(t, l.Buffers(), "running_mean")), 1e-5, "running_mean")
		requireClose(t, runVar, read(t, byName(t, l.Buffers(), "running_var")), 1e-5, "running_var")
	}

	l.SetTraining(false)
	xs := randFloats(rng, 4*c, -2, 2)
	x := e.FromFloat32s(xs, 4, c)
	defer x.Dispose()
	version := byName(t, l.Buffers(), "running_mean").Version()
	want := make([]float64, len(xs))
	for i, v := range xs {
		k := i % c
		want[i] = (float64(v)-runMean[k])/math.Sqrt(runVar[k]+eps)*float64(w[k]) + float64(bias[k])
	}
	requireClose(t, want, forward(t, e, l, x), 1e-4, "BatchNorm, inference mode")
	assert.Equal(t, version, byName(t, l.Buffers(), "running_mean").Version(), "inference must not update the running statistics")

	// In training mode on another engine of the device, the running
	// statistics are updated by that engine: the input's.
	other := testgpu.EngineOn(t, e.Device())
	l.SetTraining(true)
	y := other.FromFloat32s(xs, 4, c)
	defer y.Dispose()
	require.NoError(t, tidy.Do(other, func() error { return l.Forward(y).Err() }))
	assert.Equal(t, version+1, byName(t, l.Buffers(), "running_mean").Version())
}

func TestEmbeddingGathersRows(t *testing.T) {
	e := testgpu.Engine(t)
	b := nn.NewBuilder(e, 1)
	l := b.Embedding(5, 3)
	require.NoError(t, b.Err())
	defer l.Dispose()
	w := read(t, byName(t, l.Params(), "weight"))
	idx := e.FromInt32s([]int32{4, 0, 2, 4, -1, 7}, 2, 3)
	defer idx.Dispose()
	got, err := tidy.Run(e, func() ([]float32, error) {
		y := l.Forward(idx)
		assert.Equal(t, tensor.Shape{2, 3, 3}, y.Shape())
		return y.Float32s(context.Background())
	})
	require.NoError(t, err)
	var want []float64
	for _, i := range []int{4, 0, 2, 4, 4, -1} { // -1 counts from the end; 7 is out of range: zeros
		for j := range 3 {
			if i < 0 {
				want = append(want, 0)
			} else {
				want = append(want, float64(w[i*3+j]))
			}
		}
	}
	requireClose(t, want, got, 0, "Embedding")
}

// Dropout in training mode keeps about 1−p of the elements, scaled by
// 1/(1−p), with a fresh mask each step that the seed and the step alone
// fix; in inference mode it passes x through.
func TestDropoutMasks(t *testing.T) {
	e := testgpu.Engine(t)
	const p, n = 0.3, 4096
	x := e.Ones(tensor.Float32, n)
	defer x.Dispose()
	masks := func(seed uint64) [][]float32 {
		b := nn.NewBuilder(e, seed)
		d := b.Dropout(p)
		require.NoError(t, b.Err())
		defer d.Dispose()
		out := [][]float32{forward(t, e, d, x), forward(t, e, d, x)}
		assert.EqualValues(t, 2, d.Steps())
		d.SetTraining(false)
		assert.Equal(t, read(t, x), forward(t, e, d, x), "inference mode is the identity")
		assert.EqualValues(t, 2, d.Steps(), "inference draws no mask")
		return out
	}
	first := masks(3)
	for _, m := range first {
		kept := 0
		for _, v := range m {
			switch v {
			case 0:
			case 1 / (1 - p):
				kept++
			default:
				t.Fatalf("element %g: want 0 or %g", v, 1/(1-p))
			}
		}
		assert.InDelta(t, (1-p)*n, kept, 4*math.Sqrt(n*p*(1-p)), "elements kept")
	}
	assert.NotEqual(t, first[0], first[1], "each step draws a fresh mask")
	assert.Equal(t, first, masks(3), "the seed and the step fix the masks")
	assert.NotEqual(t, first, masks(4), "another root seed, other masks")

	// The edges: p = 1 drops everything, p = 0 nothing; neither leaves a
	// tensor behind outside a scope.
	base := live(t, e)
	b := nn.NewBuilder(e, 1)
	all, none := b.Dropout(1), b.Dropout(0)
	require.NoError(t, b.Err())
	for _, c := range []struct {
		d    *nn.Dropout
		want float32
	}{{all, 0}, {none, 1}} {
		y := c.d.Forward(x)
		v := read(t, y)
		y.Dispose()
		assert.Equal(t, c.want, v[0])
		assert.Equal(t, c.want, v[n-1])
		assert.Equal(t, base, live(t, e), "Dropout(%g) outside a scope", c.want)
	}
}

func TestActivationsAndFlatten(t *testing.T) {
	e := testgpu.Engine(t)
	xs := []float32{-2, -0.5, 0, 0.5, 1, 3}
	x := e.FromFloat32s(xs, 2, 3)
	defer x.Dispose()
	for _, c := range []struct {
		m  nn.Module
		op func(*tensor.Tensor) *tensor.Tensor
	}{
		{nn.ReLU(), e.Relu},
		{nn.LeakyReLU(0.1), func(x *tensor.Tensor) *tensor.Tensor { return e.LeakyRelu(x, 0.1) }},
		{nn.GELU(), e.GeluErf}, // the exact GELU, PyTorch's default (issue 20)
		{nn.GELUTanh(), e.Gelu},
		{nn.Tanh(), e.Tanh},
		{nn.Sigmoid(), e.Sigmoid},
		{nn.Softmax(), func(x *tensor.Tensor) *tensor.Tensor { return e.Softmax(x, 1) }},
		{nn.LogSoftmax(), func(x *tensor.Tensor) *tensor.Tensor { return e.LogSoftmax(x, 1) }},
	} {
		want, err := tidy.Run(e, func() ([]float32, error) { return c.op(x).Float32s(context.Background()) })
		require.NoError(t, err)
		assert.Equal(t, want, forward(t, e, c.m, x))
		assert.Empty(t, c.m.Params())
		c.m.Dispose()
	}
	img := e.FromFloat32s(make([]float32, 2*3*4*5), 2, 3, 4, 5)
	defer img.Dispose()
	_, err := tidy.Run(e, func() (any, error) {
		f := nn.NewFlatten().Forward(img)
		assert.Equal(t, tensor.Shape{2, 60}, f.Shape())
		assert.Equal(t, tensor.Shape{6, 1}, nn.NewFlatten().Forward(e.Reshape(x, 6)).Shape())
		return nil, f.Err()
	})
	require.NoError(t, err)
}

// A Sequential names its modules' tensors by index, as PyTorch's state
// dict does, nested Sequentials included, and sets every module's mode.
func TestSequentialNamesAndModes(t *testing.T) {
	e := testgpu.Engine(t)
	b := nn.NewBuilder(e, 1)
	m := nn.NewSequential(
		b.Linear(4, 8),
		nn.ReLU(),
		b.BatchNorm(8),
		nn.NewSequential(b.Dropout(0.5), b.Linear(8, 2, nn.NoBias())),
	)
	require.NoError(t, b.Err())
	defer m.Dispose()
	assert.Equal(t, []string{"0.weight", "0.bias", "2.weight", "2.bias", "3.1.weight"}, names(m.Params()))
	assert.Equal(t, []string{"2.running_mean", "2.running_var"}, names(m.Buffers()))
	assert.Equal(t, []string{"encoder.2.running_mean", "encoder.2.running_var"}, names(nn.Prefixed("encoder", m.Buffers())))
	assert.True(t, m.Training())
	m.SetTraining(false)
	assert.False(t, m.Training())
	assert.False(t, m.Layer(3).(*nn.Sequential).Layer(0).Training())
	x := e.Ones(tensor.Float32, 3, 4)
	defer x.Dispose()
	assert.Len(t, forward(t, e, m, x), 6)
}

// Bad input gets an error naming the layer and the shapes, and leaves
// nothing live; so does a layer the Builder refused to make.
func TestForwardErrorsNameTheLayer(t *testing.T) {
	e := testgpu.Engine(t)
	b := nn.NewBuilder(e, 1)
	m := nn.NewSequential(b.Linear(4, 8), nn.ReLU(), b.BatchNorm(8), b.Embedding(3, 2))
	require.NoError(t, b.Err())
	defer m.Dispose()
	before := live(t, e)
	for _, c := range []struct {
		name string
		run  func() *tensor.Tensor
		kind error
		text string
	}{
		{"Linear, wrong features", func() *tensor.Tensor { return m.Forward(e.Ones(tensor.Float32, 2, 5)) }, tensor.ErrShape, "nn: Sequential: module 0: nn: Linear(4, 8): input float32 [2 5]: last dimension 5, want 4"},
		{"Linear, int32", func() *tensor.Tensor { return m.Layer(0).Forward(e.Zeros(tensor.Int32, 2, 4)) }, tensor.ErrDType, "nn: Linear(4, 8): input int32 [2 4]: want float32"},
		{"BatchNorm, one value per channel", func() *tensor.Tensor { return m.Layer(2).Forward(e.Ones(tensor.Float32, 1, 8)) }, tensor.ErrShape, "more than one value per channel"},
		{"BatchNorm, rank 1", func() *tensor.Tensor { return m.Layer(2).Forward(e.Ones(tensor.Float32, 8)) }, tensor.ErrShape, "want rank 2 or more"},
		{"Embedding, float indices", func() *tensor.Tensor { return m.Layer(3).Forward(e.Ones(tensor.Float32, 8)) }, tensor.ErrDType, "nn: Embedding(3, 2)"},
		{"nil input", func() *tensor.Tensor { return m.Layer(0).Forward(nil) }, tensor.ErrArgument, "nil input"},
		{"disposed input", func() *tensor.Tensor {
			x := e.Ones(tensor.Float32, 2, 4)
			x.Dispose()
			return m.Forward(x)
		}, tensor.ErrDisposed, "module 0"},
	} {
		err := tidy.Do(e, func() error { return c.run().Err() })
		assert.ErrorIs(t, err, c.kind, c.name)
		assert.ErrorContains(t, err, c.text, c.name)
		assert.Equal(t, before, live(t, e), c.name)
	}
}

// The Builder keeps its first error: bad sizes, an option a layer does not
// take, a bad probability or momentum. A refused layer owns nothing and its
// Forward returns the error; later layers are not made.
func TestBuilderKeepsItsFirstError(t *testing.T) {
	e := testgpu.Engine(t)
	for _, c := range []struct {
		name  string
		build func(b *nn.Builder) nn.Module
		kind  error
		text  string
	}{
		{"zero features", func(b *nn.Builder) nn.Module { return b.Linear(0, 3) }, tensor.ErrArgument, "nn: Linear(0, 3): features must be positive"},
		{"option not taken", func(b *nn.Builder) nn.Module { return b.Linear(2, 3, nn.Momentum(0.5)) }, tensor.ErrArgument, "option Momentum does not apply"},
		{"nil initialiser", func(b *nn.Builder) nn.Module { return b.Linear(2, 3, nn.WeightInit(nil)) }, tensor.ErrArgument, "nil initialiser"},
		{"dropout above 1", func(b *nn.Builder) nn.Module { return b.Dropout(1.5) }, tensor.ErrArgument, "probability outside [0, 1]"},
		{"momentum above 1", func(b *nn.Builder) nn.Module { return b.BatchNorm(3, nn.Momentum(2)) }, tensor.ErrArgument, "Momentum(2) is outside [0, 1]"},
		{"NaN momentum", func(b *nn.Builder) nn.Module {
			return b.BatchNorm(3, nn.Momentum(float32(math.NaN())))
		}, tensor.ErrArgument, "Momentum(NaN) is outside [0, 1]"},
		{"negative eps", func(b *nn.Builder) nn.Module { return b.LayerNorm(3, nn.Eps(-1)) }, tensor.ErrArgument, "Eps(-1) is not finite and non-negative"},
		{"infinite eps", func(b *nn.Builder) nn.Module {
			return b.BatchNorm(3, nn.Eps(float32(math.Inf(1))))
		}, tensor.ErrArgument, "Eps(+Inf) is not finite"},
		// Issue 19, item 13: an initialiser's disposed tensor became a
		// parameter that failed only in Forward.
		{"initialiser returning a disposed tensor", func(b *nn.Builder) nn.Module {
			return b.Linear(2, 3, nn.WeightInit(func(e *tensor.Engine, _ uint64, shape []int, _, _ int) *tensor.Tensor {
				t := e.Zeros(tensor.Float32, shape...)
				t.Dispose()
				return t
			}))
		}, tensor.ErrDisposed, "nn: Linear(2, 3): weight: initialiser returned a disposed tensor"},
		{"initialiser of the wrong shape", func(b *nn.Builder) nn.Module {
			return b.Embedding(3, 2, nn.WeightInit(func(e *tensor.Engine, _ uint64, _ []int, _, _ int) *tensor.Tensor {
				return e.Zeros(tensor.Float32, 2)
			}))
		}, tensor.ErrShape, "initialiser made float32 [2], want float32 [3 2]"},
		{"initialiser failing part-way", func(b *nn.Builder) nn.Module {
			return b.Linear(2, 3, nn.BiasInit(func(e *tensor.Engine, _ uint64, _ []int, _, _ int) *tensor.Tensor {
				return e.Zeros(tensor.Float32, -1)
			}))
		}, tensor.ErrShape, "nn: Linear(2, 3): bias"},
	} {
		b := nn.NewBuilder(e, 1)
		good := b.Linear(2, 2)
		bad := c.build(b)
		after := b.LayerNorm(2)
		assert.ErrorIs(t, b.Err(), c.kind, c.name)
		assert.ErrorContains(t, b.Err(), c.text, c.name)
		assert.Len(t, good.Params(), 2, c.name)
		assert.Empty(t, nn.StateDict(bad), c.name)
		assert.Empty(t, after.Params(), c.name)
		for _, m := range []nn.Module{bad, after} {
			x := e.Ones(tensor.Float32, 2, 2)
			err := m.Forward(x).Err()
			x.Dispose()
			assert.ErrorIs(t, err, c.kind, c.name)
			assert.ErrorContains(t, err, c.text, c.name)
		}
		nn.NewSequential(good, bad, after).Dispose()
		assert.Zero(t, e.NumTensors(), c.name)
	}
	assert.True(t, errors.Is(nn.NewBuilder(nil, 1).Err(), tensor.ErrArgument))
}
