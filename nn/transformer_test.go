package nn_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// The attention layers' gradients, of their input and every parameter,
// against float64 central differences (grad_test.go's harness).
func TestAttentionLayerGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	uniform := func(n int) []float32 { return randFloats(rng, n, -1, 1) }
	cases := []gradCase{
		{name: "MultiheadAttention", build: func(b *nn.Builder) nn.Module {
			return b.MultiheadAttention(4, 2, nn.AttentionConfig{})
		}, shape: []int{2, 3, 4}, x: uniform(24)},
		{name: "MultiheadAttention, causal, one head", build: func(b *nn.Builder) nn.Module {
			return b.MultiheadAttention(4, 1, nn.AttentionConfig{Causal: true})
		}, shape: []int{1, 5, 4}, x: uniform(20)},
		{name: "MultiheadAttention, dropout, training", build: func(b *nn.Builder) nn.Module {
			return b.MultiheadAttention(4, 2, nn.AttentionConfig{Dropout: 0.3})
		}, shape: []int{2, 3, 4}, x: uniform(24), training: true},
		{name: "TransformerLayer, post-norm", build: func(b *nn.Builder) nn.Module {
			return b.TransformerLayer(nn.TransformerConfig{D: 4, Heads: 2, FeedForward: 6})
		}, shape: []int{2, 3, 4}, x: uniform(24)},
		{name: "TransformerLayer, pre-norm, causal, GELU, dropout", build: func(b *nn.Builder) nn.Module {
			return b.TransformerLayer(nn.TransformerConfig{D: 4, Heads: 2, FeedForward: 6, NormFirst: true, Causal: true,
				Activation: nn.GELU(), Dropout: 0.2})
		}, shape: []int{1, 4, 4}, x: uniform(16), training: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkModuleGradient(t, e, c)
			require.Zero(t, e.NumTensors(), "%s left tensors", c.name)
		})
	}
}

// The layers compute what PyTorch's nn.MultiheadAttention and
// nn.TransformerEncoderLayer (batch_first) compute, loaded from PyTorch's
// state dicts as they are: self- and cross-attention, a causal mask, key
// padding, post- and pre-norm, ReLU and GELU.
func TestAttentionLayersMatchPyTorch(t *testing.T) {
	py := testgpu.Torch(t)
	e := testgpu.Engine(t)
	ctx := context.Background()
	dir := t.TempDir()
	out, err := exec.Command(py, filepath.Join("testdata", "torch_attention.py"), dir).CombinedOutput()
	require.NoError(t, err, "%s", out)

	const d, heads, ff = 8, 2, 16
	for _, name := range []string{"mha", "mha_causal", "mha_padded", "mha_cross",
		"layer_post", "layer_post_causal", "layer_pre_gelu", "layer_pre_gelu_causal"} {
		t.Run(name, func(t *testing.T) {
			b := nn.NewBuilder(e, 1)
			var m nn.Module
			var mha *nn.MultiheadAttention
			var layer *nn.TransformerLayer
			if strings.HasPrefix(name, "mha") {
				mha = b.MultiheadAttention(d, heads, nn.AttentionConfig{})
				m = mha
			} else {
				c := nn.TransformerConfig{D: d, Heads: heads, FeedForward: ff}
				if strings.Contains(name, "pre_gelu") {
					c.NormFirst, c.Activation = true, nn.GELU()
				}
				layer = b.TransformerLayer(c)
				m = layer
			}
			require.NoError(t, b.Err())
			defer m.Dispose()
			_, err := checkpoint.LoadModelFile(ctx, e, filepath.Join(dir, name+"_model.safetensors"), m, checkpoint.LoadOptions{})
			require.NoError(t, err, "PyTorch's state dict loads strictly")
			io, err := checkpoint.LoadTensorsFile(ctx, e, filepath.Join(dir, name+"_io.safetensors"))
			require.NoError(t, err)
			defer tidy.Dispose(nn.Tensors(io))
			byName := map[string]*tensor.Tensor{}
			for _, p := range io {
				byName[p.Name] = p.T
			}
			x := byName["x"]
			m.SetTraining(false)
			causal := strings.HasSuffix(name, "causal")
			got, err := tidy.Run(e, func() ([]float32, error) {
				var y *tensor.Tensor
				switch {
				case name == "mha_cross":
					y = mha.Attend(x, byName["kv"], byName["kv"], nn.AttendOptions{})
				case name == "mha_padded":
					y = mha.Attend(x, x, x, nn.AttendOptions{KeyPadding: byName["pad"]})
				case mha != nil:
					y = mha.Attend(x, x, x, nn.AttendOptions{Causal: causal})
				default:
					y = layer.ForwardMasked(x, nn.AttendOptions{Causal: causal})
				}
				return y.Float32s(ctx)
			})
			require.NoError(t, err)
			assert.InDeltaSlice(t, read(t, byName["y"]), got, 2e-5)
		})
	}
}

// Bad configurations and inputs are refused with the layer and the shapes
// named, and leave nothing live.
func TestAttentionLayersRefuseBadInput(t *testing.T) {
	e := testgpu.Engine(t)
	b := nn.NewBuilder(e, 1)
	bad := b.MultiheadAttention(6, 4, nn.AttentionConfig{})
	assert.ErrorContains(t, b.Err(), "nn: MultiheadAttention(6, 4): 4 heads do not divide d = 6")
	assert.Empty(t, bad.Params())
	b = nn.NewBuilder(e, 1)
	b.TransformerLayer(nn.TransformerConfig{D: 8, Heads: 3, FeedForward: 4})
	assert.ErrorContains(t, b.Err(), "3 heads do not divide D = 8")
	b = nn.NewBuilder(e, 1)
	b.MultiheadAttention(8, 2, nn.AttentionConfig{Dropout: 1})
	assert.ErrorContains(t, b.Err(), "dropout 1 outside [0, 1)")

	b = nn.NewBuilder(e, 1)
	mha := b.MultiheadAttention(4, 2, nn.AttentionConfig{})
	require.NoError(t, b.Err())
	defer mha.Dispose()
	x := e.Zeros(tensor.Float32, 2, 3, 4)
	defer x.Dispose()
	before := e.NumTensors()
	for _, c := range []struct {
		name string
		y    func() *tensor.Tensor
		want string
	}{
		{"rank 2", func() *tensor.Tensor { return mha.Forward(e.Zeros(tensor.Float32, 3, 4)) }, "want rank 3 or more"},
		{"wrong d", func() *tensor.Tensor { return mha.Forward(e.Zeros(tensor.Float32, 2, 3, 5)) }, "last dimension 5, want 4"},
		{"mask shape", func() *tensor.Tensor {
			return mha.Attend(x, x, x, nn.AttendOptions{Mask: e.Zeros(tensor.Float32, 4, 3)})
		}, "mask float32 [4 3] does not broadcast to the scores [2 2 3 3]"},
		{"mask dtype", func() *tensor.Tensor {
			return mha.Attend(x, x, x, nn.AttendOptions{Mask: e.Zeros(tensor.Int32, 3, 3)})
		}, "mask int32 [3 3] does not broadcast"},
		{"padding shape", func() *tensor.Tensor {
			return mha.Attend(x, x, x, nn.AttendOptions{KeyPadding: e.Zeros(tensor.Uint32, 3, 2)})
		}, "key padding [3 2], want [2 3]"},
		{"key batch", func() *tensor.Tensor {
			return mha.Attend(x, e.Zeros(tensor.Float32, 1, 3, 4), e.Zeros(tensor.Float32, 1, 3, 4), nn.AttendOptions{})
		}, "do not fit the query"},
	} {
		y, err := tidy.Run(e, func() (*tensor.Tensor, error) { return c.y(), nil })
		require.NoError(t, err)
		assert.ErrorIs(t, y.Err(), tensor.ErrShape, c.name)
		assert.ErrorContains(t, y.Err(), "nn: MultiheadAttention(4, 2)", c.name)
		assert.ErrorContains(t, y.Err(), c.want, c.name)
		y.Dispose()
	}
	assert.Equal(t, before, e.NumTensors(), "nothing left live")
}
