package checkpoint_test

import (
	"bytes"
	"context"
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

// dropoutNet is a model with dropout between two layers, built from seed.
func dropoutNet(t *testing.T, e *tensor.Engine) (*nn.Sequential, *optim.SGD) {
	b := nn.NewBuilder(e, 42)
	m := nn.NewSequential(b.Linear(6, 16), nn.ReLU(), b.Dropout(0.5), b.Linear(16, 2))
	require.NoError(t, b.Err())
	opt, err := optim.NewSGD(e, m.Params(), optim.SGDConfig{LR: 0.01, Momentum: 0.5})
	require.NoError(t, err)
	return m, opt
}

// trainSteps takes n steps of m on one fixed batch.
func trainSteps(t *testing.T, e *tensor.Engine, m nn.Module, opt optim.Optimizer, n int) {
	t.Helper()
	for range n {
		_, err := tidy.Run(e, func() (struct{}, error) {
			x := e.FromFloat32s(ramp(24, 0.1), 4, 6)
			y := e.FromFloat32s([]float32{1, -1, 0.5, 2, -0.5, 0, 1, 1}, 4, 2)
			_, grads, err := grad.ValueAndGrad(e, func([]*tensor.Tensor) (*tensor.Tensor, error) {
				return loss.MeanSquaredError(e, m.Forward(x), y, loss.Mean), nil
			}, nn.Tensors(m.Params()), nil)
			if err != nil {
				return struct{}{}, err
			}
			return struct{}{}, opt.Step(grads)
		})
		require.NoError(t, err)
	}
}

// A run with dropout saved at step 3 and resumed in a new process (a new
// model and optimizer from the same seed) ends bit for bit where the
// uninterrupted run ends: SaveModel keeps Dropout's step count. Resumed
// without it, the masks repeat those of steps 1 to 3 and the run differs.
func TestResumeWithDropoutIsExact(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()

	straight, sOpt := dropoutNet(t, e)
	defer straight.Dispose()
	defer sOpt.Dispose()
	trainSteps(t, e, straight, sOpt, 6)
	want := bytesOf(t, straight.Params())

	first, fOpt := dropoutNet(t, e)
	trainSteps(t, e, first, fOpt, 3)
	var file bytes.Buffer
	require.NoError(t, checkpoint.SaveModel(ctx, &file, first, checkpoint.SaveOptions{Optimizer: fOpt,
		Metadata: map[string]string{"schedule": `{"step":3}`}}))
	fOpt.Dispose()
	first.Dispose()

	for _, restore := range []bool{true, false} {
		resumed, rOpt := dropoutNet(t, e)
		r := bytes.NewReader(file.Bytes())
		if restore {
			rep, err := checkpoint.LoadModel(ctx, e, r, r.Size(), resumed, checkpoint.LoadOptions{Optimizer: rOpt})
			require.NoError(t, err)
			assert.Empty(t, rep.Ignored)
			assert.Equal(t, map[string]string{"schedule": `{"step":3}`}, rep.Metadata, "the caller's metadata, without the step counts")
			assert.Equal(t, uint64(3), resumed.Layer(2).(*nn.Dropout).Steps())
		} else {
			_, err := checkpoint.Load(ctx, e, r, r.Size(), nn.StateDict(resumed), checkpoint.LoadOptions{Optimizer: rOpt})
			require.NoError(t, err)
		}
		trainSteps(t, e, resumed, rOpt, 3)
		if restore {
			assert.Equal(t, want, bytesOf(t, resumed.Params()), "resumed with Dropout's step count: bit for bit")
		} else {
			assert.NotEqual(t, want, bytesOf(t, resumed.Params()), "without it the masks repeat: the test can tell")
		}
		rOpt.Dispose()
		resumed.Dispose()
	}
}

// Conversions that cannot apply are refused before anything is written
// or changed; Save and Load, which do not know the model, refuse to
// convert.
func TestModelLayoutConversionsThatCannotApply(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	b := nn.NewBuilder(e, 1)
	noChannels := nn.NewSequential(nn.NewFlatten(), b.Linear(12, 3))
	oddChannels := nn.NewSequential(b.Conv2D(1, 5, [2]int{1, 1}), nn.NewFlatten(), b.Linear(12, 3))
	require.NoError(t, b.Err())
	defer noChannels.Dispose()
	defer oddChannels.Dispose()
	before := e.Memory()

	var file bytes.Buffer
	err := checkpoint.SaveModel(ctx, &file, noChannels, checkpoint.SaveOptions{Layout: checkpoint.PyTorch})
	assert.ErrorIs(t, err, checkpoint.ErrArgument)
	assert.ErrorContains(t, err, `cannot reorder "1.weight"`)
	assert.ErrorContains(t, err, "no layer before the Flatten at 0 gives the channel count")
	err = checkpoint.SaveModel(ctx, &file, oddChannels, checkpoint.SaveOptions{Layout: checkpoint.PyTorch})
	assert.ErrorIs(t, err, checkpoint.ErrArgument)
	assert.ErrorContains(t, err, `its 12 input features are not a multiple of the 5 channels`)
	assert.Zero(t, file.Len(), "nothing written")
	err = checkpoint.SaveModel(ctx, &file, noChannels, checkpoint.SaveOptions{Layout: checkpoint.Layout(7)})
	assert.ErrorIs(t, err, checkpoint.ErrArgument)

	// A native file of noChannels loads natively, but not as PyTorch's.
	require.NoError(t, checkpoint.SaveModel(ctx, &file, noChannels, checkpoint.SaveOptions{}))
	r := bytes.NewReader(file.Bytes())
	_, err = checkpoint.LoadModel(ctx, e, r, r.Size(), noChannels, checkpoint.LoadOptions{Layout: checkpoint.PyTorch})
	assert.ErrorIs(t, err, checkpoint.ErrArgument)
	_, err = checkpoint.LoadModel(ctx, e, r, r.Size(), noChannels, checkpoint.LoadOptions{})
	assert.NoError(t, err)

	err = checkpoint.Save(ctx, &file, noChannels.Params(), checkpoint.SaveOptions{Layout: checkpoint.PyTorch})
	assert.ErrorContains(t, err, "use SaveModel")
	_, err = checkpoint.Load(ctx, e, r, r.Size(), noChannels.Params(), checkpoint.LoadOptions{Layout: checkpoint.PyTorch})
	assert.ErrorContains(t, err, "use LoadModel")
	assert.Equal(t, before.Tensors, e.Memory().Tensors, "no tensor left behind")
}

// A PyTorch file whose Conv2d weight has the wrong shape is refused with
// the shape the file should hold in PyTorch's layout, and nothing of the
// model changes.
func TestLoadModelNamesShapesInTheFilesLayout(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	b := nn.NewBuilder(e, 1)
	small := nn.NewSequential(b.Conv2D(2, 3, [2]int{3, 1}))
	other := nn.NewSequential(b.Conv2D(2, 4, [2]int{3, 1}))
	require.NoError(t, b.Err())
	defer small.Dispose()
	defer other.Dispose()

	var file bytes.Buffer
	require.NoError(t, checkpoint.SaveModel(ctx, &file, other, checkpoint.SaveOptions{Layout: checkpoint.PyTorch}))
	keep := bytesOf(t, small.Params())
	before := e.Memory()
	r := bytes.NewReader(file.Bytes())
	_, err := checkpoint.LoadModel(ctx, e, r, r.Size(), small, checkpoint.LoadOptions{Layout: checkpoint.PyTorch})
	assert.ErrorIs(t, err, checkpoint.ErrMismatch)
	assert.ErrorContains(t, err, `"0.weight" is [4 2 3 1] in the file, [3 2 3 1] in the model`)
	assert.Equal(t, keep, bytesOf(t, small.Params()), "nothing written")
	assert.Equal(t, before.Tensors, e.Memory().Tensors, "no temporary left")
}
