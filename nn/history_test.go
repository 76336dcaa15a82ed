package nn_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// historySample is the engine's and device's figures after some event of
// the history.
type historySample struct {
	events int // events recorded (kept and dropped) when it was taken
	mem    tensor.Memory
	dev    wgpu.DeviceStats
}

// sampleHistory flushes e's work and takes its figures.
func sampleHistory(t *testing.T, e *tensor.Engine) historySample {
	t.Helper()
	d := e.Device()
	require.NoError(t, d.Sync(context.Background()))
	h, err := d.History()
	require.NoError(t, err)
	return historySample{events: len(h.Events) + int(h.Dropped), mem: e.Memory(), dev: d.Stats()}
}

// A training loop's history replays, after every step, to exactly the
// figures Engine.Memory and Device.Stats give (and on GL to the driver's
// own count of buffers); every live storage buffer is a tensor's, filed
// under a category; and the categories are the ones the layers say.
func TestTrainingHistoryAccountsForEveryByte(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s(randFloats(rngFor(t), 8*6, -1, 1), 8, 6)
	labels := e.FromInt32s([]int32{0, 1, 2, 0, 1, 2, 0, 1}, 8)
	defer tidy.Dispose([]*tensor.Tensor{x, labels})
	m, err := tidy.Run(e, func() (*nn.Sequential, error) { return buildNet(t, e), nil })
	require.NoError(t, err)
	defer m.Dispose()
	opt, err := optim.NewAdam(e, m.Params(), optim.AdamDefaults())
	require.NoError(t, err)
	defer opt.Dispose()

	require.NoError(t, e.RecordMemoryHistory(wgpu.HistoryOptions{}))
	defer e.Device().StopHistory()
	samples := []historySample{sampleHistory(t, e)}
	for range 4 {
		func() {
			defer e.Label("train")()
			l, err := tidy.Run(e, func() (*tensor.Tensor, error) { return trainStep(e, m, opt, x, labels) })
			require.NoError(t, err)
			l.Dispose()
		}()
		samples = append(samples, sampleHistory(t, e))
	}
	h, err := e.MemoryHistory()
	require.NoError(t, err)
	require.NoError(t, h.Check())

	for _, s := range samples {
		i := s.events - int(h.Dropped) - 1
		live, err := h.Live(i)
		require.NoError(t, err)
		var tot wgpu.HistoryTotals
		_, err = h.Replay(func(j int, t wgpu.HistoryTotals) {
			if j == i {
				tot = t
			}
		})
		require.NoError(t, err)
		p := s.mem.Pool
		assert.Equal(t, p.LiveBuffers, tot.LiveBuffers, "after event %d", i)
		assert.Equal(t, p.LiveBytes, tot.LiveBytes, "after event %d", i)
		assert.Equal(t, p.PooledBuffers, tot.PooledBuffers, "after event %d", i)
		assert.Equal(t, p.ReservedBytes, tot.ReservedBytes(), "after event %d", i)
		if s.dev.HasDriverBuffers {
			assert.Equal(t, s.dev.DriverBuffers, uint64(tot.LiveBuffers+tot.PooledBuffers), "the driver's buffers after event %d", i)
		}
		storages := 0
		for _, b := range live {
			if b.Usage != wgpu.UsageStorage {
				continue
			}
			storages++
			require.GreaterOrEqual(t, b.Tag, int32(0), "live storage buffer %d (%d B) after event %d has no description", b.Buffer, b.Bytes, i)
			require.NotZero(t, b.Tensor)
		}
		assert.Equal(t, s.mem.Storages, storages, "storage buffers after event %d", i)
	}

	cats := map[string]bool{}
	scopes := map[string]bool{}
	for _, tag := range h.Tags {
		cats[tag.Category] = true
		scopes[tag.Scope] = true
	}
	for _, c := range []tensor.Category{tensor.CategoryParameter, tensor.CategoryBuffer, tensor.CategoryOptimizerState,
		tensor.CategoryGradient, tensor.CategoryUser, tensor.CategoryActivation} {
		assert.True(t, cats[c.String()], "no buffer filed under %q; got %v", c, cats)
	}
	assert.True(t, scopes["train"], "scopes %v", scopes)
	var marks []string
	for _, ev := range h.Events {
		if ev.Kind == wgpu.EventMark {
			marks = append(marks, h.Labels[ev.Label])
		}
	}
	assert.Equal(t, []string{"adam step 1", "adam step 2", "adam step 3", "adam step 4"}, marks)
	require.NotNil(t, h.Engine)
	assert.Equal(t, e.Memory().Tensors, h.Engine.Tensors)
}

// Activations that only a tape holds are filed as saved for backward;
// parameters the tape saves stay parameters; gradients are gradients.
func TestTapeSavedActivationsAreFiledAsSaved(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, -2, 3, -4}, 2, 2)
	defer x.Dispose()
	w := nn.NewBuilder(e, 1).Parameter("w", []int{2, 2}, nn.Constant(0.5))
	defer w.Dispose()
	assert.Equal(t, tensor.CategoryParameter, tensor.CategoryOf(w))
	assert.Equal(t, tensor.CategoryUser, tensor.CategoryOf(x))
	require.NoError(t, e.RecordMemoryHistory(wgpu.HistoryOptions{}))
	defer e.Device().StopHistory()

	tape := grad.NewTape(e)
	defer tape.Dispose()
	var h, y *tensor.Tensor
	require.NoError(t, tape.Record(func() error {
		h = e.MatMul(x, w)
		sq := e.Mul(h, h)
		defer sq.Dispose()
		y = e.Sum(sq, false)
		return y.Err()
	}))
	defer y.Dispose()
	assert.Equal(t, tensor.CategoryActivation, tensor.CategoryOf(h), "the user holds it")
	require.NoError(t, e.Flush())
	h.Dispose() // only the tape holds it now
	hist, err := e.Device().History()
	require.NoError(t, err)
	last := hist.Events[len(hist.Events)-1]
	require.Equal(t, wgpu.EventTag, last.Kind)
	assert.Equal(t, tensor.CategorySaved.String(), hist.Tags[last.Tag].Category)
	assert.Equal(t, "[2 2]", hist.Tags[last.Tag].Shape)

	gs, err := tape.Gradients(y, []*tensor.Tensor{w}, nil)
	require.NoError(t, err)
	defer tidy.Dispose(gs)
	assert.Equal(t, tensor.CategoryGradient, tensor.CategoryOf(gs[0]))
	assert.Equal(t, tensor.CategoryParameter, tensor.CategoryOf(w), "saved by the tape, still a parameter")
}
