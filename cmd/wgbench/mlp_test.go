package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
