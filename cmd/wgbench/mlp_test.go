package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/cputime"
	"github.com/wgtensor/wgtensor/internal/testgpu"
)

// The MLP workloads compute what they claim: the training loss falls and
// nothing is left live, and the forward pass, with a tape or without,
// gives the host's loss. Every tensor they make is gone after them.
func TestMLPWorkloadsPassTheirChecks(t *testing.T) {
	e := testgpu.Engine(t)
	for _, w := range []workload{mlpTrainStep(mlpSmokeSteps), mlpForward} {
		r, err := w.run(context.Background(), e)
		require.NoError(t, err, w.name)
		assert.True(t, r.Ok, "%s: %s", w.name, r.Check)
		assert.Positive(t, r.Value, w.name)
	}
}

// mlp_train_step reports its processor time per step, which a shared
// machine's load does not stretch, beside its time per step.
func TestMLPTrainStepReportsProcessorTime(t *testing.T) {
	if _, ok := cputime.Process(); !ok {
		t.Skip("no processor time on this platform")
	}
	e := testgpu.Engine(t)
	r, err := mlpTrainStep(mlpSmokeSteps).run(context.Background(), e)
	require.NoError(t, err)
	require.True(t, r.Ok, r.Check)
	var cpu *Metric
	for i, m := range r.Extra {
		if m.Name == "cpu" {
			cpu = &r.Extra[i]
		}
	}
	require.NotNil(t, cpu, "extras: %v", r.Extra)
	assert.Equal(t, "ms/step", cpu.Unit)
	assert.Positive(t, cpu.Value)
}

// A training workload's first loss must be the host's: a trainer told to
// expect another fails its check.
func TestTrainingChecksTheFirstLossAgainstTheHost(t *testing.T) {
	ctx := context.Background()
	e := testgpu.Engine(t)
	tr, err := newMLPTrainer(ctx, e)
	require.NoError(t, err)
	defer tr.dispose()
	tr.want += 0.01
	r, err := tr.time(ctx, 2, 1)
	require.NoError(t, err)
	assert.False(t, r.Ok, r.Check)
	assert.Contains(t, r.Check, fmt.Sprintf("(host %.4f)", tr.want))
}
