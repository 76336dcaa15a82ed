package nn_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// buildNet makes the model the memory tests use: every kind of layer with
// tensors (Linear, LayerNorm, BatchNorm with its buffers) and Dropout.
func buildNet(t testing.TB, e *tensor.Engine) *nn.Sequential {
	t.Helper()
	b := nn.NewBuilder(e, 3)
	m := nn.NewSequential(
		b.Linear(6, 16), b.BatchNorm(16), nn.ReLU(), b.Dropout(0.2),
		b.Linear(16, 16), b.LayerNorm(16), nn.GELU(),
		b.Linear(16, 3),
	)
	require.NoError(t, b.Err())
	return m
}

// netBytes is what buildNet's tensors hold: the weights, biases, the
// norms' scales and shifts, and BatchNorm's two running statistics.
const (
	netTensors = 2 + 4 + 2 + 2 + 2
	netBytes   = 4 * ((6*16 + 16) + 4*16 + (16*16 + 16) + 2*16 + (16*3 + 3))
)

// trainStep records one training step of m on (x, labels) on a tape and
// lets opt update the parameters in place. It runs in the caller's scope.
func trainStep(e *tensor.Engine, m nn.Module, opt optim.Optimizer, x, labels *tensor.Tensor) (*tensor.Tensor, error) {
	tape := grad.NewTape(e)
	defer tape.Dispose()
	var l *tensor.Tensor
	if err := tape.Record(func() error {
		l = loss.SoftmaxCrossEntropy(e, m.Forward(x), labels, loss.Mean)
		return l.Err()
	}); err != nil {
		return nil, err
	}
	gs, err := tape.Gradients(l, nn.Tensors(m.Params()), nil)
	if err != nil {
		return nil, err
	}
	return l, opt.Step(gs)
}

// A model holds exactly its parameters and buffers; after it has trained
// (so Dropout stepped, BatchNorm updated its statistics, Adam made its
// state) and predicted, its Dispose and the optimizer's return the engine
// and the device to the baseline, to the byte. The model's tensors survive
// the tidy scope they were built in (they are Kept).
func TestModelDisposeReturnsToTheBaseline(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	x := e.FromFloat32s(randFloats(rngFor(t), 8*6, -1, 1), 8, 6)
	labels := e.FromInt32s([]int32{0, 1, 2, 0, 1, 2, 0, 1}, 8)
	defer tidy.Dispose([]*tensor.Tensor{x, labels})
	base := live(t, e)

	m, err := tidy.Run(e, func() (*nn.Sequential, error) { return buildNet(t, e), nil })
	require.NoError(t, err)
	withModel := live(t, e)
	assert.Equal(t, base.Tensors+netTensors, withModel.Tensors)
	assert.Equal(t, base.Bytes+netBytes, withModel.Bytes)
	assert.Equal(t, base.Buffers+netTensors, withModel.Buffers, "one buffer per tensor")

	opt, err := optim.NewAdam(e, m.Params(), optim.AdamDefaults())
	require.NoError(t, err)
	for range 3 {
		require.NoError(t, tidy.Do(e, func() error { _, err := trainStep(e, m, opt, x, labels); return err }))
	}
	assert.Equal(t, withModel.Tensors+2*len(m.Params()), live(t, e).Tensors, "the model and Adam's two moments per parameter")
	m.SetTraining(false)
	_, err = tidy.Run(e, func() ([]float32, error) { return m.Forward(x).Float32s(ctx) })
	require.NoError(t, err)

	opt.Dispose()
	assert.Equal(t, withModel, live(t, e), "after the optimizer's Dispose")
	m.Dispose()
	assert.Equal(t, base, live(t, e), "after the model's Dispose")
	assert.Empty(t, nn.StateDict(m), "a disposed model lists nothing")
	m.Dispose() // twice is harmless
	assert.ErrorIs(t, tidy.Do(e, func() error { return m.Forward(x).Err() }), tensor.ErrDisposed)
	assert.Equal(t, base, live(t, e))
}

// Predicting in inference mode under tidy, 200 times, leaves nothing: the
// live figures after each prediction are those before the first, exactly.
func TestPredictUnderTidyLeavesNothing(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	m := buildNet(t, e)
	defer m.Dispose()
	m.SetTraining(false)
	x := e.FromFloat32s(randFloats(rngFor(t), 8*6, -1, 1), 8, 6)
	defer x.Dispose()
	base := live(t, e)
	var first []float32
	for i := range 200 {
		y, err := tidy.Run(e, func() ([]float32, error) { return m.Forward(x).Float32s(ctx) })
		require.NoError(t, err)
		if i == 0 {
			first = y
		}
		require.Equal(t, first, y, "prediction %d", i)
		require.Equal(t, base, live(t, e), "after prediction %d", i)
	}
}

// In training mode Dropout and BatchNorm keep nothing per step beyond what
// they own: forward passes, and whole training steps with Adam after the
// first (which makes Adam's state), leave the live figures as they were,
// exactly; BatchNorm's running statistics are written in place (their
// version counts the steps).
func TestTrainingModeStepsLeaveNothing(t *testing.T) {
	e := testgpu.Engine(t)
	m := buildNet(t, e)
	defer m.Dispose()
	x := e.FromFloat32s(randFloats(rngFor(t), 8*6, -1, 1), 8, 6)
	labels := e.FromInt32s([]int32{0, 1, 2, 0, 1, 2, 0, 1}, 8)
	defer tidy.Dispose([]*tensor.Tensor{x, labels})
	runningMean := byName(t, m.Buffers(), "1.running_mean")

	base := live(t, e)
	for i := range 50 {
		require.NoError(t, tidy.Do(e, func() error { return m.Forward(x).Err() }))
		require.Equal(t, base, live(t, e), "after forward %d", i)
	}
	assert.EqualValues(t, 50, runningMean.Version(), "one in-place update of the running mean per forward")
	assert.EqualValues(t, 50, m.Layer(3).(*nn.Dropout).Steps())

	opt, err := optim.NewAdam(e, m.Params(), optim.AdamDefaults())
	require.NoError(t, err)
	defer opt.Dispose()
	var afterFirst liveFigures
	for i := range 50 {
		require.NoError(t, tidy.Do(e, func() error { _, err := trainStep(e, m, opt, x, labels); return err }))
		if i == 0 {
			afterFirst = live(t, e)
			continue
		}
		require.Equal(t, afterFirst, live(t, e), "after step %d", i)
	}
	assert.Equal(t, base.Tensors+2*len(m.Params()), afterFirst.Tensors, "Adam's state and nothing else")
}

// A transformer layer frees each intermediate as soon as the next op has
// used it, as PyTorch's reference counting does: in either norm placement
// its forward pass holds at most two [batch, T, FeedForward] results of
// the feed-forward block at once (the activation's input and output) and
// eight of the stream's width. Holding each sublayer's results until the
// layer returned took ten of the stream's width.
func TestTransformerLayerFreesIntermediatesAsItGoes(t *testing.T) {
	e := testgpu.Engine(t)
	const batch, T, D, F = 2, 16, 32, 512
	wide, narrow := uint64(4*batch*T*F), uint64(4*batch*T*D)
	for _, normFirst := range []bool{false, true} {
		b := nn.NewBuilder(e, 5)
		l := b.TransformerLayer(nn.TransformerConfig{D: D, Heads: 4, FeedForward: F, NormFirst: normFirst, Activation: nn.GELU()})
		require.NoError(t, b.Err())
		x := e.RandNormal(7, 0, 1, batch, T, D)
		require.NoError(t, e.Flush())
		pool := e.Device().Pool()
		pool.ResetPeaks()
		base := pool.Stats().LiveBytes
		y := l.Forward(x)
		require.NoError(t, y.Err())
		peak := pool.Stats().PeakLiveBytes - base
		t.Logf("normFirst %v: peak %d B over the inputs: %.2f wide results", normFirst, peak, float64(peak)/float64(wide))
		assert.LessOrEqual(t, peak, 2*wide+8*narrow, "normFirst %v", normFirst)
		tidy.Dispose([]*tensor.Tensor{x, y})
		l.Dispose()
	}
}
