package checkpoint_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// torchCNN is torch_roundtrip.py's cnn() with channels last.
func torchCNN(b *nn.Builder) *nn.Sequential {
	same := nn.Pad(tensor.Same())
	return nn.NewSequential(
		b.Conv2D(3, 8, [2]int{3, 3}, same, nn.NoBias()), b.BatchNorm(8), nn.ReLU(),
		nn.MaxPool2D(tensor.Pool2DOptions{Window: [2]int{2, 2}, Stride: [2]int{2, 2}}),
		b.Conv2D(8, 16, [2]int{3, 3}, same), nn.ReLU(), nn.NewFlatten(), b.Linear(16*4*4, 10))
}

// torchMLP is torch_roundtrip.py's mlp().
func torchMLP(b *nn.Builder) *nn.Sequential {
	return nn.NewSequential(b.Linear(20, 32), b.BatchNorm(32), nn.ReLU(), b.Dropout(0.1), b.Linear(32, 5))
}

// runPython runs torch_roundtrip.py mode dir and returns its output.
func runPython(t *testing.T, py, mode, dir string) []byte {
	t.Helper()
	out, err := exec.Command(py, filepath.Join("testdata", "torch_roundtrip.py"), mode, dir).CombinedOutput()
	require.NoError(t, err, "torch_roundtrip.py %s: %s", mode, out)
	return out
}

// PyTorch trains a CNN (Conv2d, BatchNorm2d, MaxPool, Flatten, Linear) and
// an MLP with BatchNorm1d and Dropout with Adam; each loads here in one
// call, converting the layouts, and computes torch's outputs; the CNN
// takes one more Adam step from torch's optimizer state; both are saved
// back in PyTorch's layout and torch loads them with strict=True and
// finds the outputs, the parameters after the step and the optimizer
// state it computes itself.
func TestPyTorchRoundTrip(t *testing.T) {
	py := testgpu.Torch(t)
	e := testgpu.Engine(t)
	ctx := context.Background()
	dir := t.TempDir()
	runPython(t, py, "train", dir)

	for _, c := range []struct {
		name      string
		make      func(*nn.Builder) *nn.Sequential
		converted []string
		step      bool
	}{
		{"cnn", torchCNN, []string{"0.weight", "4.weight", "7.weight"}, true},
		{"mlp", torchMLP, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := e.Memory()
			b := nn.NewBuilder(e, 1)
			model := c.make(b)
			require.NoError(t, b.Err())
			defer model.Dispose()
			opt, err := optim.NewAdam(e, model.Params(), optim.AdamConfig{LR: 1e-2, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
			require.NoError(t, err)
			defer opt.Dispose()

			rep, err := checkpoint.LoadModelFile(ctx, e, filepath.Join(dir, c.name+"_torch.safetensors"), model,
				checkpoint.LoadOptions{Layout: checkpoint.PyTorch, Optimizer: opt})
			require.NoError(t, err)
			var converted []string
			for _, s := range rep.Converted {
				name, _, _ := cutColon(s)
				converted = append(converted, name)
			}
			assert.Equal(t, c.converted, converted, "every conversion is reported: %v", rep.Converted)
			assert.Contains(t, rep.Ignored, "1.num_batches_tracked")

			io, err := checkpoint.LoadTensorsFile(ctx, e, filepath.Join(dir, c.name+"_io.safetensors"))
			require.NoError(t, err)
			defer tidy.Dispose(nn.Tensors(io))
			x, y, targets := io[0].T, io[1].T, io[2].T
			if x.Rank() == 4 {
				x = e.Transpose(x, 0, 2, 3, 1) // NCHW to NHWC
				defer x.Dispose()
			}

			model.SetTraining(false)
			got := forward(t, e, model, x)
			want, err := y.Float32s(ctx)
			require.NoError(t, err)
			assert.InDeltaSlice(t, want, got, 2e-5, "torch's eval-mode outputs")

			if c.step {
				model.SetTraining(true)
				_, err := tidy.Run(e, func() (struct{}, error) {
					onehot := e.OneHot(targets, y.Shape()[1], 1, 0)
					_, grads, err := grad.ValueAndGrad(e, func([]*tensor.Tensor) (*tensor.Tensor, error) {
						return loss.SoftmaxCrossEntropy(e, model.Forward(x), onehot, loss.Mean), nil
					}, nn.Tensors(model.Params()), nil)
					if err != nil {
						return struct{}{}, err
					}
					return struct{}{}, opt.Step(grads)
				})
				require.NoError(t, err)
				model.SetTraining(false)
			}
			goY, err := tidy.Run(e, func() (*tensor.Tensor, error) { return model.Forward(x), nil })
			require.NoError(t, err)
			defer goY.Dispose()
			require.NoError(t, checkpoint.SaveFile(ctx, filepath.Join(dir, c.name+"_goy.safetensors"), []optim.Param{{Name: "y", T: goY}}, checkpoint.SaveOptions{}))
			require.NoError(t, checkpoint.SaveModelFile(ctx, filepath.Join(dir, c.name+"_wgt.safetensors"), model,
				checkpoint.SaveOptions{Layout: checkpoint.PyTorch, Optimizer: opt}))
			goY.Dispose()
			x.Dispose()
			tidy.Dispose(nn.Tensors(io))
			opt.Dispose()
			model.Dispose()
			assert.Equal(t, before.Tensors, e.Memory().Tensors, "memory is back to where it was")
		})
	}

	// A model written as a Go struct names its tensors as the same model
	// written as a PyTorch class: torch's file loads strictly and goes back.
	b := nn.NewBuilder(e, 2)
	custom := &customModel{TokEmb: b.Embedding(16, 8), PosEmb: e.Zeros(tensor.Float32, 4, 8), Heads: nn.NewModuleDict()}
	for range 2 {
		custom.Blocks = append(custom.Blocks, customBlock{LN1: b.LayerNorm(8), CAttn: b.Linear(8, 24),
			MLP: nn.NewSequential(b.Linear(8, 32), nn.GELU(), b.Linear(32, 8))})
	}
	require.NoError(t, custom.Heads.Set("lm", b.Linear(8, 16, nn.NoBias())))
	require.NoError(t, b.Err())
	m, err := nn.NewModel(custom)
	require.NoError(t, err)
	defer m.Dispose()
	_, err = checkpoint.LoadModelFile(ctx, e, filepath.Join(dir, "custom_torch.safetensors"), m, checkpoint.LoadOptions{Layout: checkpoint.PyTorch})
	require.NoError(t, err, "a strict load: the names match torch's")
	require.NoError(t, checkpoint.SaveModelFile(ctx, filepath.Join(dir, "custom_wgt.safetensors"), m, checkpoint.SaveOptions{Layout: checkpoint.PyTorch}))

	var res map[string]map[string]any
	out := runPython(t, py, "check", dir)
	require.NoError(t, json.Unmarshal(out, &res), "%s", out)
	t.Logf("torch's check: %s", out)
	for _, name := range []string{"cnn", "mlp"} {
		assert.Less(t, res[name]["output"], 2e-5, "%s: torch's outputs of the model saved here", name)
	}
	cnn := res["cnn"]
	assert.Less(t, cnn["params"], 1e-6, "the parameters after one Adam step here and in torch")
	assert.Less(t, cnn["exp_avg"], 1e-6)
	assert.Less(t, cnn["exp_avg_sq"], 1e-7)
	assert.Equal(t, []any{6.0}, cnn["steps"], "five steps in torch and one here")
	assert.Less(t, cnn["running"], 1e-6, "BatchNorm's running statistics after the step")
	assert.Equal(t, 0.0, res["custom"]["tensors"], "the custom model's tensors went there and back unchanged")
}

// customBlock and customModel are torch_roundtrip.py's Block and Custom.
type customBlock struct {
	LN1   *nn.LayerNorm
	CAttn *nn.Linear
	MLP   *nn.Sequential
}

type customModel struct {
	TokEmb *nn.Embedding
	PosEmb *tensor.Tensor
	Blocks []customBlock
	Heads  *nn.ModuleDict
}

// cutColon splits a Report.Converted entry at its first ": ".
func cutColon(s string) (string, string, bool) {
	for i := range len(s) - 1 {
		if s[i] == ':' && s[i+1] == ' ' {
			return s[:i], s[i+2:], true
		}
	}
	return s, "", false
}

// forward returns m's result on x, read back, freeing what it made.
func forward(t *testing.T, e *tensor.Engine, m nn.Module, x *tensor.Tensor) []float32 {
	t.Helper()
	v, err := tidy.Run(e, func() ([]float32, error) { return m.Forward(x).Float32s(context.Background()) })
	require.NoError(t, err)
	return v
}
