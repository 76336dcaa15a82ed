package nn_test

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// runForward runs m on x in a scope and reads the result back.
func runForward(t *testing.T, e *tensor.Engine, m nn.Module, x *tensor.Tensor) []float32 {
	t.Helper()
	y, err := tidy.Run(e, func() (*tensor.Tensor, error) { y := m.Forward(x); return y, y.Err() })
	require.NoError(t, err)
	defer y.Dispose()
	v, err := y.Float32s(context.Background())
	require.NoError(t, err)
	return v
}

// relErr is the largest |a - b| over the largest |b|.
func relErr(a, b []float32) float64 {
	var d, m float64
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
		m = math.Max(m, math.Abs(float64(b[i])))
	}
	return d / m
}

// quantModels are models of every layer QuantizeInt8 converts, with an
// input each: an embedding and linears, a CNN, a transformer layer (its
// attention's packed and split projections).
func quantModels(t *testing.T, e *tensor.Engine) map[string]struct {
	m nn.Module
	x *tensor.Tensor
} {
	out := map[string]struct {
		m nn.Module
		x *tensor.Tensor
	}{}
	_, lm := newTinyLM(t, e)
	out["lm"] = struct {
		m nn.Module
		x *tensor.Tensor
	}{lm, e.FromInt32s([]int32{1, 4, 10, 0, 3}, 5)}
	b := nn.NewBuilder(e, 3)
	cnn := nn.NewSequential(b.Conv2D(3, 8, [2]int{3, 3}, nn.Pad(tensor.Same())), nn.ReLU(), b.Conv2D(8, 6, [2]int{3, 3}), nn.NewFlatten(), b.Linear(6*4*4, 10))
	tr := b.TransformerLayer(nn.TransformerConfig{D: 16, Heads: 4, FeedForward: 32})
	require.NoError(t, b.Err())
	xs := make([]float32, 2*6*6*3)
	for i := range xs {
		xs[i] = float32(math.Sin(float64(i)))
	}
	out["cnn"] = struct {
		m nn.Module
		x *tensor.Tensor
	}{cnn, e.FromFloat32s(xs, 2, 6, 6, 3)}
	out["transformer"] = struct {
		m nn.Module
		x *tensor.Tensor
	}{tr, e.FromFloat32s(xs[:2*5*16], 2, 5, 16)}
	return out
}

// QuantizeInt8 turns every weight into int8 and a float32 "_scale" buffer,
// to the byte; the model's output stays within 2% of float32's; a
// quantized model saves and loads as I8, refuses training and ToDtype,
// and DequantizeInt8 makes it float32 again, computing what the quantized
// one did.
func TestQuantizeInt8ConvertsWeightsInPlace(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	for name, c := range quantModels(t, e) {
		t.Run(name, func(t *testing.T) {
			defer c.m.Dispose()
			defer c.x.Dispose()
			c.m.SetTraining(false)
			want := runForward(t, e, c.m, c.x)
			var weightBytes, weights, channels uint64
			quantized := map[string]bool{}
			for _, p := range nn.StateDict(c.m) {
				last := p.Name[strings.LastIndex(p.Name, ".")+1:]
				if strings.HasSuffix(p.Name, "weight") && p.T.Rank() >= 2 && last != "norm1" {
					quantized[p.Name] = true
					weightBytes += uint64(4 * p.T.Size())
					weights += uint64(p.T.Size())
				}
			}
			require.NotEmpty(t, quantized)

			require.NoError(t, nn.QuantizeInt8(c.m))
			var int8Bytes, scaleBytes uint64
			for _, p := range nn.StateDict(c.m) {
				switch {
				case quantized[p.Name]:
					require.Equal(t, tensor.Int8, p.T.DType(), p.Name)
					assert.Equal(t, tensor.CategoryParameter, tensor.CategoryOf(p.T), p.Name)
					int8Bytes += uint64((p.T.Size() + 3) &^ 3)
				case strings.HasSuffix(p.Name, "_scale"):
					require.True(t, quantized[strings.TrimSuffix(p.Name, "_scale")], p.Name)
					require.Equal(t, tensor.Float32, p.T.DType())
					assert.Equal(t, tensor.CategoryBuffer, tensor.CategoryOf(p.T), p.Name)
					scaleBytes += uint64(4 * p.T.Size())
					channels += uint64(p.T.Size())
				default:
					require.Equal(t, tensor.Float32, p.T.DType(), p.Name)
				}
			}
			var got uint64
			for _, d := range e.ByDType() {
				if d.DType == tensor.Int8 {
					got += d.Bytes
				}
			}
			assert.Equal(t, int8Bytes, got, "the int8 bytes are the weights'")
			ratio := float64(int8Bytes+scaleBytes) / float64(weightBytes)
			t.Logf("%s: weights %d B in float32, %d B int8 + %d B scales (%.1f%%)", name, weightBytes, int8Bytes, scaleBytes, 100*ratio)
			assert.LessOrEqual(t, int8Bytes+scaleBytes, weights+4*channels+3*uint64(len(quantized)), "a byte a weight and a float a channel")

			q := runForward(t, e, c.m, c.x)
			t.Logf("%s: output within %.2g of float32 (relative to its largest)", name, relErr(q, want))
			assert.Less(t, relErr(q, want), 0.02, "quantized output against float32")

			// Checkpoints carry the int8 weights and their scales.
			var buf bytes.Buffer
			require.NoError(t, checkpoint.SaveModel(ctx, &buf, c.m, checkpoint.SaveOptions{}))
			saved := nn.StateDict(c.m)
			before := make([][]byte, len(saved))
			for i, p := range saved {
				before[i] = make([]byte, p.T.DType().Size()*p.T.Size())
				require.NoError(t, p.T.ReadBytes(ctx, 0, before[i]))
				require.NoError(t, e.WriteBytes(p.T, 0, make([]byte, (len(before[i])+3)&^3)))
			}
			_, err := checkpoint.LoadModel(ctx, e, bytes.NewReader(buf.Bytes()), int64(buf.Len()), c.m, checkpoint.LoadOptions{})
			require.NoError(t, err)
			for i, p := range nn.StateDict(c.m) {
				after := make([]byte, len(before[i]))
				require.NoError(t, p.T.ReadBytes(ctx, 0, after))
				require.Equal(t, before[i], after, "%s after a checkpoint", p.Name)
			}
			assert.Equal(t, q, runForward(t, e, c.m, c.x))

			// Not trainable; not convertible to a half dtype.
			_, err = optim.NewSGD(e, c.m.Params(), optim.SGDConfig{LR: 0.1})
			require.ErrorIs(t, err, tensor.ErrDType)
			require.ErrorContains(t, err, "int8")
			require.ErrorContains(t, err, "DequantizeInt8")
			require.ErrorIs(t, nn.ToDtype(c.m, tensor.Float16), tensor.ErrDType)

			// Dequantized: float32 weights of q·scale, the same outputs
			// but for rounding, and no scale buffers.
			require.NoError(t, nn.DequantizeInt8(c.m))
			for _, p := range nn.StateDict(c.m) {
				require.Equal(t, tensor.Float32, p.T.DType(), p.Name)
				require.False(t, strings.HasSuffix(p.Name, "_scale"), p.Name)
			}
			assert.Less(t, relErr(runForward(t, e, c.m, c.x), q), 1e-5)
			_, err = optim.NewSGD(e, c.m.Params(), optim.SGDConfig{LR: 0.1})
			require.NoError(t, err)
			assert.Zero(t, func() (n uint64) {
				for _, d := range e.ByDType() {
					if d.DType == tensor.Int8 {
						n += d.Bytes
					}
				}
				return n
			}(), "no int8 bytes stay")
		})
	}
}

// QuantizeInt8 refuses a half-width model, leaving it as it is.
func TestQuantizeInt8RefusesHalfModels(t *testing.T) {
	e := testgpu.Engine(t)
	_, m := newTinyLM(t, e)
	defer m.Dispose()
	require.NoError(t, nn.ToDtype(m, tensor.BFloat16))
	err := nn.QuantizeInt8(m)
	require.ErrorIs(t, err, tensor.ErrDType)
	require.ErrorContains(t, err, "bfloat16")
	for _, p := range nn.StateDict(m) {
		require.Equal(t, tensor.BFloat16, p.T.DType(), p.Name)
	}
}
