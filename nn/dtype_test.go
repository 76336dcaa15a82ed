package nn_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// tinyLM is a custom model: an embedding, a tensor field of its own, and a
// stack of layers that all take half-width tensors.
type tinyLM struct {
	Embed *nn.Embedding
	Pos   *tensor.Tensor
	Body  *nn.Sequential
}

func (m *tinyLM) Forward(x *tensor.Tensor) *tensor.Tensor {
	e := x.Engine()
	h := e.Add(m.Embed.Forward(x), m.Pos)
	defer h.Dispose()
	return m.Body.Forward(h)
}

func newTinyLM(t *testing.T, e *tensor.Engine) (*tinyLM, *nn.Model) {
	b := nn.NewBuilder(e, 7)
	lm := &tinyLM{
		Embed: b.Embedding(11, 8),
		Pos:   b.Parameter("pos", []int{5, 8}, nn.Normal(0.5)),
		Body:  nn.NewSequential(b.Linear(8, 16), nn.GELU(), b.Dropout(0.1), b.LayerNorm(16), b.Linear(16, 11), nn.LogSoftmax()),
	}
	require.NoError(t, b.Err())
	m, err := nn.NewModel(lm)
	require.NoError(t, err)
	return lm, m
}

// A model converted to float16 or bfloat16 holds its parameters in that
// dtype, to the byte, under the same names; its forward in inference mode
// takes inputs of that dtype and stays close to float32's; converted back
// to float32 it holds the rounded values exactly; disposed, nothing stays.
func TestToDtypeConvertsAModelInPlace(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	for _, dt := range []tensor.DType{tensor.Float16, tensor.BFloat16} {
		lm, m := newTinyLM(t, e)
		m.SetTraining(false)
		ids := e.FromInt32s([]int32{1, 4, 10, 0, 3}, 5)
		want, err := tidy.Run(e, func() (*tensor.Tensor, error) { y := m.Forward(ids); return y, y.Err() })
		require.NoError(t, err)
		wv, err := want.Float32s(ctx)
		require.NoError(t, err)
		want.Dispose()
		names := func() []string {
			var out []string
			for _, p := range nn.StateDict(m) {
				out = append(out, p.Name)
			}
			return out
		}
		before := names()
		var elements uint64
		for _, p := range nn.StateDict(m) {
			elements += uint64(p.T.Size())
		}
		oldPos := lm.Pos

		require.NoError(t, nn.ToDtype(m, dt))
		assert.Equal(t, before, names())
		assert.NotSame(t, oldPos, lm.Pos, "the tensor field was replaced")
		var half uint64
		for _, p := range nn.StateDict(m) {
			require.Equal(t, dt, p.T.DType(), p.Name)
			assert.Equal(t, tensor.CategoryParameter, tensor.CategoryOf(p.T), p.Name)
			half += uint64((2*p.T.Size() + 3) &^ 3)
		}
		var f32, got uint64
		for _, d := range e.ByDType() {
			switch d.DType {
			case tensor.Float32:
				f32 += d.Bytes
			case dt:
				got += d.Bytes
			}
		}
		assert.Equal(t, uint64(0), f32, "no float32 copy stays")
		assert.Equal(t, half, got, "the parameters' bytes in %s", dt)
		assert.LessOrEqual(t, float64(got), 0.501*float64(4*elements)+4*float64(len(before)))

		y, err := tidy.Run(e, func() (*tensor.Tensor, error) { y := m.Forward(ids); return y, y.Err() })
		require.NoError(t, err)
		require.Equal(t, dt, y.DType())
		yv, err := y.Float32s(ctx)
		require.NoError(t, err)
		tol := 0.05
		if dt == tensor.BFloat16 {
			tol = 0.3
		}
		for i := range wv {
			require.InDelta(t, wv[i], yv[i], tol*math.Max(1, math.Abs(float64(wv[i]))), "element %d", i)
		}
		require.NoError(t, tidy.Do(e, func() error {
			bad := lm.Body.Forward(e.FromFloat32s(make([]float32, 40), 5, 8))
			require.ErrorIs(t, bad.Err(), tensor.ErrDType, "a float32 input to a converted layer")
			return nil
		}))

		// Back to float32: the rounded values, exactly.
		halfPos, err := lm.Pos.Float32s(ctx)
		require.NoError(t, err)
		require.NoError(t, nn.ToDtype(m, tensor.Float32))
		require.Equal(t, tensor.Float32, lm.Pos.DType())
		back, err := lm.Pos.Float32s(ctx)
		require.NoError(t, err)
		require.Equal(t, halfPos, back)

		require.ErrorIs(t, nn.ToDtype(m, tensor.Int32), tensor.ErrDType)
		tidy.Dispose([]*tensor.Tensor{ids, y})
		m.Dispose()
		require.Zero(t, e.Memory().Tensors, "nothing left")
	}
}

// A transformer block converted to float16 or bfloat16 runs causal
// self-attention (the composed path) close to its float32 self.
func TestToDtypeRunsATransformerLayer(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	for _, dt := range []tensor.DType{tensor.Float16, tensor.BFloat16} {
		b := nn.NewBuilder(e, 3)
		l := b.TransformerLayer(nn.TransformerConfig{D: 16, Heads: 2, FeedForward: 32, NormFirst: true, Activation: nn.GELU()})
		require.NoError(t, b.Err())
		l.SetTraining(false)
		x := e.RandNormal(5, 0, 1, 2, 5, 16)
		o := nn.AttendOptions{Causal: true}
		y32 := l.ForwardMasked(x, o)
		want, err := y32.Float32s(ctx)
		require.NoError(t, err)
		y32.Dispose()
		require.NoError(t, nn.ToDtype(l, dt))
		err = tidy.Do(e, func() error {
			y := l.ForwardMasked(e.Cast(x, dt), o)
			require.NoError(t, y.Err())
			require.Equal(t, dt, y.DType())
			got, err := y.Float32s(ctx)
			require.NoError(t, err)
			tol := 0.05
			if dt == tensor.BFloat16 {
				tol = 0.3
			}
			for i := range want {
				require.InDelta(t, want[i], got[i], tol*math.Max(1, math.Abs(float64(want[i]))), "%s element %d", dt, i)
			}
			return nil
		})
		require.NoError(t, err)
		x.Dispose()
		l.Dispose()
	}
}

// A CNN of Conv2D, BatchNorm, pooling and Linear layers converted to
// float16 or bfloat16 predicts, in inference mode, within 0.05 (float16)
// and 0.3 (bfloat16) of float32, its parameters and buffers at half their
// bytes.
func TestToDtypeConvertsACNN(t *testing.T) {
	e := testgpu.Engine(t)
	xs := make([]float32, 2*8*8*3)
	for i := range xs {
		xs[i] = float32(math.Sin(float64(i) / 3))
	}
	for _, dt := range []tensor.DType{tensor.Float16, tensor.BFloat16} {
		b := nn.NewBuilder(e, 5)
		m := nn.NewSequential(b.Conv2D(3, 8, [2]int{3, 3}, nn.Pad(tensor.Same())), b.BatchNorm(8), nn.ReLU(),
			nn.MaxPool2D(tensor.Pool2DOptions{Window: [2]int{2, 2}}), b.Conv2D(8, 4, [2]int{3, 3}),
			nn.AvgPool2D(tensor.Pool2DOptions{Window: [2]int{2, 2}}), nn.NewFlatten(), b.Linear(4, 5))
		require.NoError(t, b.Err())
		m.SetTraining(false)
		x := e.FromFloat32s(xs, 2, 8, 8, 3)
		want := runForward(t, e, m, x)
		require.NoError(t, nn.ToDtype(m, dt))
		for _, p := range nn.StateDict(m) {
			if p.T.DType().IsFloat() {
				require.Equal(t, dt, p.T.DType(), p.Name)
			}
		}
		xh := e.Cast(x, dt)
		got := runForward(t, e, m, xh)
		tol := 0.05
		if dt == tensor.BFloat16 {
			tol = 0.3
		}
		for i := range want {
			require.InDelta(t, want[i], got[i], tol*math.Max(1, math.Abs(float64(want[i]))), "%s: element %d", dt, i)
		}
		y := m.Forward(x)
		require.ErrorIs(t, y.Err(), tensor.ErrDType, "a float32 input to a %s model", dt)
		tidy.Dispose([]*tensor.Tensor{x, xh, y})
		m.Dispose()
	}
}
