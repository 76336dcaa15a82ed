package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
)

// cnn_train_step computes what it claims: its first loss is the host's
// for the parameters the Builder drew, the loss falls over the warm-up,
// and the timed steps leave the live tensors and bytes as they found
// them. It reports its processor time per step, and every tensor it made
// is gone after it. It takes 5 warm-up steps, past the loss's early peak
// at step 3, and 2 timed ones: the workload's 30 take 10–30 s here.
func TestCNNTrainStepPassesItsChecks(t *testing.T) {
	ctx := context.Background()
	e := testgpu.Engine(t)
	tr, err := newCNNTrainer(ctx, e)
	require.NoError(t, err)
	r, err := tr.time(ctx, 5, 2)
	tr.dispose()
	require.NoError(t, err)
	require.True(t, r.Ok, r.Check)
	assert.Equal(t, "ms/step", r.Unit)
	assert.Positive(t, r.Value)
	extra := map[string]Metric{}
	for _, m := range r.Extra {
		extra[m.Name] = m
	}
	assert.Equal(t, extra["live_tensors_before"].Value, extra["live_tensors_after"].Value)
	assert.Equal(t, float64(8), extra["live_tensors_before"].Value, "the 6 parameters and the batch's images and labels")
	if cpu, ok := extra["cpu"]; ok {
		assert.Equal(t, "ms/step", cpu.Unit)
		assert.Positive(t, cpu.Value)
	}
	assert.Zero(t, e.NumTensors())
}
