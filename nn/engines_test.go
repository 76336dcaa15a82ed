package nn_test

import (
	"context"
	"errors"
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

// A model trained on one engine from batches a producer goroutine makes
// on another engine of the device learns: under the training engine's
// tape each layer computes on the tape's engine (grad.EngineFor), so the
// tape records the forward pass, the loss falls, the Forward's result is
// the caller's (its scope frees it) and the device closes with nothing
// live. Before, the layers ran on the producer's engine, the tape saw
// none of it, the gradients were zeros with no error, the loss stayed
// constant and the Forward's result leaked.
func TestModelTrainsOnBatchesFromAnotherEngine(t *testing.T) {
	d := testgpu.Open(t)
	e := testgpu.EngineOn(t, d)
	const batch, steps = 32, 60
	xs, ls := spirals(3, 2, batch/2)

	batches := make(chan [2]*tensor.Tensor)
	done := make(chan struct{})
	go func() { // the producer: its own engine, its own goroutine
		defer close(batches)
		p := tensor.New(d)
		for range steps {
			b := [2]*tensor.Tensor{p.FromFloat32s(xs, batch, 2), p.FromInt32s(ls, batch)}
			select {
			case batches <- b:
			case <-done:
				tidy.Dispose(b[:])
				return
			}
		}
	}()
	defer close(done)

	b := nn.NewBuilder(e, 5)
	m := nn.NewSequential(b.Linear(2, 16), nn.Tanh(), b.LayerNorm(16), b.Linear(16, 2))
	require.NoError(t, b.Err())
	defer m.Dispose()
	opt, err := optim.NewSGD(e, m.Params(), optim.SGDConfig{LR: 0.5})
	require.NoError(t, err)
	defer opt.Dispose()

	var first, last float32
	i := 0
	for bt := range batches {
		l, err := tidy.Run(e, func() (float32, error) {
			defer tidy.Dispose(bt[:]) // the batch is the consumer's now
			l, err := trainStep(e, m, opt, bt[0], bt[1])
			if err != nil {
				return 0, err
			}
			v, err := l.Float32s(context.Background())
			return v[0], err
		})
		require.NoError(t, err, "step %d", i)
		if i == 0 {
			first = l
		}
		last = l
		i++
	}
	t.Logf("loss %.4f → %.4f in %d steps", first, last, i)
	assert.Less(t, last, first*0.9, "the loss falls")
	m.Dispose()
	opt.Dispose()
	for _, ti := range e.LiveTensors() {
		t.Errorf("tensor %d %v live at %s", ti.ID, ti.Shape, ti.Site.Chain())
	}
	testgpu.CheckAndClose(t, d)
}

// Ops the caller runs itself on another engine inside Record are not
// recorded (a tape records only its engine's ops): the loss then depends
// on no parameter and Gradients fails with grad.ErrNoPath naming the other
// engine, rather than returning zeros.
func TestOpsOnAnotherEngineFailClearly(t *testing.T) {
	d := testgpu.Open(t)
	e, other := testgpu.EngineOn(t, d), testgpu.EngineOn(t, d)
	b := nn.NewBuilder(e, 5)
	m := b.Linear(2, 2)
	require.NoError(t, b.Err())
	defer m.Dispose()
	x := other.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
	defer x.Dispose()
	require.NoError(t, tidy.Do(e, func() error {
		tape := grad.NewTape(e)
		var h *tensor.Tensor
		var l *tensor.Tensor
		require.NoError(t, tape.Record(func() error {
			w := nn.Tensors(m.Params())[0]
			h = other.MatMulT(x, w, false, true) // the caller's choice of engine: not recorded
			l = loss.MeanSquaredError(e, h, e.Zeros(tensor.Float32, 2, 2), loss.Mean)
			return l.Err()
		}))
		defer h.Dispose()
		_, err := tape.Gradients(l, nn.Tensors(m.Params()), nil)
		assert.True(t, errors.Is(err, grad.ErrNoPath), "%v", err)
		assert.ErrorContains(t, err, "another engine")
		return nil
	}))
}
