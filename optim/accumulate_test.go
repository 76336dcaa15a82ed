package optim_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// regression is a one-layer model, tanh(xW + b), its data (32 samples of
// 6 features, 4 targets each) and a mean squared error.
type regression struct {
	e    *tensor.Engine
	ps   []optim.Param
	x, y *tensor.Tensor
}

func newRegression(t *testing.T, e *tensor.Engine, seed uint64) *regression {
	r := rand.New(rand.NewPCG(seed, 45))
	keep := func(x *tensor.Tensor) *tensor.Tensor { x.Keep(); return x }
	m := &regression{e: e,
		ps: []optim.Param{
			{Name: "0.weight", T: keep(e.FromFloat32s(uniform(r, 6*4), 6, 4))},
			{Name: "0.bias", T: keep(e.FromFloat32s(uniform(r, 4), 4))},
		},
		x: keep(e.FromFloat32s(uniform(r, 32*6), 32, 6)),
		y: keep(e.FromFloat32s(uniform(r, 32*4), 32, 4)),
	}
	t.Cleanup(func() {
		disposeParams(m.ps)
		m.x.Dispose()
		m.y.Dispose()
	})
	return m
}

func (m *regression) tensors() []*tensor.Tensor {
	return []*tensor.Tensor{m.ps[0].T, m.ps[1].T}
}

// grads returns the gradients of the mean loss over rows [from, from+n),
// scaled by scale.
func (m *regression) grads(t *testing.T, from, n int, scale float32) []*tensor.Tensor {
	t.Helper()
	e := m.e
	_, gs, err := grad.ValueAndGrad(e, func(p []*tensor.Tensor) (*tensor.Tensor, error) {
		x := e.Slice(m.x, []int{from, 0}, []int{n, 6})
		y := e.Slice(m.y, []int{from, 0}, []int{n, 4})
		out := e.Tanh(e.Add(e.MatMul(x, p[0]), p[1]))
		loss := e.Mul(e.Mean(e.Square(e.Sub(out, y)), false), e.Scalar(scale))
		return loss, loss.Err()
	}, m.tensors(), nil)
	require.NoError(t, err)
	return gs
}

// Tolerance of gradient accumulation against one big batch: four float32
// sums of eight samples against one of 32, then 5 SGD steps: |a − b| ≤
// accTol·(1 + |b|).
const accTol = 1e-5

// Issue 20: four micro-batches of 8, each loss (a mean) divided by 4 and
// accumulated, give the gradients of one batch of 32 and, after 5 steps
// of SGD with momentum (which, unlike Adam, shows a wrong scale) with
// clipping, the same parameters, within accTol. Add is one dispatch per
// gradient and Zero none.
func TestAccumulatedMicroBatchesMatchOneBatch(t *testing.T) {
	e := testgpu.Engine(t)
	a, b := newRegression(t, e, 46), newRegression(t, e, 46)
	cfg := optim.SGDConfig{LR: 0.5, Momentum: 0.9}
	oa, err := optim.NewSGD(e, a.ps, cfg)
	require.NoError(t, err)
	defer oa.Dispose()
	ob, err := optim.NewSGD(e, b.ps, cfg)
	require.NoError(t, err)
	defer ob.Dispose()
	acc, err := optim.NewAccumulator(e, a.ps, optim.AccumulatorOptions{})
	require.NoError(t, err)
	defer acc.Dispose()
	for step := range 5 {
		for micro := range 4 {
			inScope(t, e, func() {
				gs := a.grads(t, 8*micro, 8, 0.25)
				require.NoError(t, e.Flush())
				before := e.Device().Stats().Dispatches
				require.NoError(t, acc.Add(gs))
				assert.EqualValues(t, len(gs), e.Device().Stats().Dispatches-before, "one dispatch per gradient")
				for _, g := range gs {
					assert.False(t, g.IsDisposed(), "the caller's gradients stay the caller's")
				}
			})
		}
		inScope(t, e, func() {
			want := b.grads(t, 0, 32, 1)
			got, err := acc.Grads()
			require.NoError(t, err)
			for i := range want {
				assertNear(t, a.ps[i].Name, f32s(t, got[i]), f32s(t, want[i]))
			}
			_, err = optim.ClipGradNorm(e, got, 0.2, optim.ClipOptions{})
			require.NoError(t, err)
			_, err = optim.ClipGradNorm(e, want, 0.2, optim.ClipOptions{})
			require.NoError(t, err)
			require.NoError(t, oa.Step(got))
			require.NoError(t, ob.Step(want))
		})
		require.NoError(t, e.Flush())
		before := e.Device().Stats().Dispatches
		acc.Zero()
		assert.Equal(t, before, e.Device().Stats().Dispatches, "step %d: Zero dispatches nothing", step)
	}
	for i := range a.ps {
		assertNear(t, a.ps[i].Name, f32s(t, a.ps[i].T), f32s(t, b.ps[i].T))
	}
}

func assertNear(t *testing.T, name string, got, want []float32) {
	t.Helper()
	require.Len(t, got, len(want), name)
	for i := range want {
		if d := math.Abs(float64(got[i]) - float64(want[i])); !(d <= accTol*(1+math.Abs(float64(want[i])))) {
			t.Fatalf("%s[%d] = %v, want %v", name, i, got[i], want[i])
		}
	}
}

// Issue 20: memory is flat over 100 accumulation cycles (4 micro-batches,
// Grads, clipping, an AdamW step, Zero): live tensors and bytes after the
// first cycle equal those after the 100th. Disposing the optimizer and
// the accumulator returns to the baseline.
func TestAccumulationMemoryIsFlat(t *testing.T) {
	for _, o := range []optim.AccumulatorOptions{{}, {SetToNone: true}} {
		t.Run(map[bool]string{false: "zero", true: "set to none"}[o.SetToNone], func(t *testing.T) {
			e := testgpu.Engine(t)
			m := newRegression(t, e, 47)
			baseline := e.Memory()
			opt, err := optim.NewAdamW(e, m.ps, optim.AdamWDefaults())
			require.NoError(t, err)
			acc, err := optim.NewAccumulator(e, opt.Params(), o)
			require.NoError(t, err)
			cycle := func() {
				for micro := range 4 {
					inScope(t, e, func() { require.NoError(t, acc.Add(m.grads(t, 8*micro, 8, 0.25))) })
				}
				inScope(t, e, func() {
					gs, err := acc.Grads()
					require.NoError(t, err)
					_, err = optim.ClipGradNorm(e, gs, 1, optim.ClipOptions{})
					require.NoError(t, err)
					require.NoError(t, opt.Step(gs))
				})
				acc.Zero()
			}
			cycle()
			first := e.Memory()
			for range 99 {
				cycle()
			}
			now := e.Memory()
			assert.Equal(t, first.Tensors, now.Tensors, "live tensors")
			assert.Equal(t, first.Bytes, now.Bytes, "live bytes")
			assert.Equal(t, first.Pool.LiveBytes, now.Pool.LiveBytes)
			acc.Dispose()
			opt.Dispose()
			assert.Equal(t, baseline.Tensors, e.Memory().Tensors)
			assert.Equal(t, baseline.Bytes, e.Memory().Bytes)
		})
	}
}

// Buffers are created at the first gradient, counted, and kept across
// scopes; Zero keeps them and makes them read as zeros (a parameter with
// no gradient in a cycle gets zeros), or with SetToNone frees them (nil:
// Step skips the parameter).
func TestAccumulatorZeroAndSetToNone(t *testing.T) {
	e := testgpu.Engine(t)
	w := e.Zeros(tensor.Float32, 3)
	defer w.Dispose()
	v := e.Zeros(tensor.Float32, 2)
	defer v.Dispose()
	ps := []optim.Param{{Name: "w", T: w}, {Name: "v", T: v}}
	for _, setToNone := range []bool{false, true} {
		acc, err := optim.NewAccumulator(e, ps, optim.AccumulatorOptions{SetToNone: setToNone})
		require.NoError(t, err)
		before := e.Memory()
		gs, err := acc.Grads()
		require.NoError(t, err)
		assert.Equal(t, []*tensor.Tensor{nil, nil}, gs, "no buffer before a gradient")
		inScope(t, e, func() {
			require.NoError(t, acc.Add([]*tensor.Tensor{e.FromFloat32s([]float32{1, 2, 3}, 3), nil}))
			require.NoError(t, acc.Add([]*tensor.Tensor{e.FromFloat32s([]float32{10, 20, 30}, 3), e.FromFloat32s([]float32{5, 6}, 2)}))
		})
		assert.Equal(t, before.Tensors+2, e.Memory().Tensors, "two buffers, counted, kept out of the scope")
		assert.Equal(t, before.Bytes+4*5, e.Memory().Bytes)
		gs, err = acc.Grads()
		require.NoError(t, err)
		assert.Equal(t, []float32{11, 22, 33}, f32s(t, gs[0]))
		assert.Equal(t, []float32{5, 6}, f32s(t, gs[1]))
		acc.Zero()
		inScope(t, e, func() { require.NoError(t, acc.Add([]*tensor.Tensor{e.FromFloat32s([]float32{7, 8, 9}, 3), nil})) })
		gs, err = acc.Grads()
		require.NoError(t, err)
		assert.Equal(t, []float32{7, 8, 9}, f32s(t, gs[0]), "the first Add after Zero starts afresh")
		if setToNone {
			assert.Nil(t, gs[1], "freed by Zero")
			assert.Equal(t, before.Tensors+1, e.Memory().Tensors)
		} else {
			assert.Equal(t, []float32{0, 0}, f32s(t, gs[1]), "zeros for a parameter without a gradient since Zero")
			assert.Equal(t, before.Tensors+2, e.Memory().Tensors, "Zero keeps the buffers")
		}
		acc.Dispose()
		acc.Dispose()
		assert.Equal(t, before.Tensors, e.Memory().Tensors)
		assert.Equal(t, before.Bytes, e.Memory().Bytes)
		acc.Zero() // harmless
	}
}

// Bad gradients add nothing and name the parameter and shapes; a buffer
// given back to Add is refused (it would double); a disposed Accumulator
// refuses everything.
func TestAccumulatorRefusesBadGradients(t *testing.T) {
	e := testgpu.Engine(t)
	w := e.Zeros(tensor.Float32, 4, 3)
	defer w.Dispose()
	b := e.Zeros(tensor.Float32, 3)
	defer b.Dispose()
	ps := []optim.Param{{Name: "0.weight", T: w}, {Name: "0.bias", T: b}}
	_, err := optim.NewAccumulator(e, []optim.Param{{Name: "x", T: w}, {Name: "x", T: b}}, optim.AccumulatorOptions{})
	assert.ErrorContains(t, err, `optim: accumulator: two parameters are named "x"`)
	acc, err := optim.NewAccumulator(e, ps, optim.AccumulatorOptions{})
	require.NoError(t, err)
	defer acc.Dispose()
	inScope(t, e, func() {
		good := []*tensor.Tensor{e.Ones(tensor.Float32, 4, 3), e.Ones(tensor.Float32, 3)}
		require.NoError(t, acc.Add(good))
		bufs, err := acc.Grads()
		require.NoError(t, err)
		for _, bad := range []struct {
			name  string
			grads []*tensor.Tensor
			kind  error
			text  string
		}{
			{"length", good[:1], optim.ErrArgument, "add: 1 gradients for 2 parameters"},
			{"shape", []*tensor.Tensor{good[0], e.Ones(tensor.Float32, 4)}, tensor.ErrShape, `gradient of "0.bias" is [4], the parameter [3]`},
			{"dtype", []*tensor.Tensor{e.Ones(tensor.Int32, 4, 3), nil}, tensor.ErrDType, `gradient of "0.weight" is int32`},
			{"its own buffer", []*tensor.Tensor{good[0], bufs[1]}, optim.ErrArgument, `gradient of "0.bias" shares its storage with the buffer of "0.bias"`},
		} {
			require.NoError(t, e.Flush())
			before := e.Device().Stats().Dispatches
			err := acc.Add(bad.grads)
			assert.ErrorIs(t, err, bad.kind, bad.name)
			assert.ErrorContains(t, err, "optim: accumulator: "+bad.text, bad.name)
			assert.Equal(t, before, e.Device().Stats().Dispatches, "%s: nothing added", bad.name)
		}
		assert.Equal(t, []float32{1, 1, 1}, f32s(t, bufs[1]))
	})
	acc.Dispose()
	assert.ErrorIs(t, acc.Add([]*tensor.Tensor{nil, nil}), optim.ErrDisposed)
	_, err = acc.Grads()
	assert.ErrorIs(t, err, optim.ErrDisposed)
}
