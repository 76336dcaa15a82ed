package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
)

// Both APIs train the MLP to at least 95% accuracy on the spirals (94%
// with its weights quantized to int8), and leave nothing live (testgpu's
// check at the end of each subtest).
func TestSpiralsReach95Percent(t *testing.T) {
	for _, a := range apis {
		t.Run(a.name, func(t *testing.T) {
			e := testgpu.Engine(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			acc, acc8, err := trainAndScore(ctx, e, a)
			require.NoError(t, err)
			assert.GreaterOrEqual(t, acc, minAccuracy, "accuracy after %d steps", steps)
			assert.GreaterOrEqual(t, acc8, minAccuracy-0.01, "accuracy with int8 weights")
			assert.Zero(t, e.NumTensors())
			t.Logf("%s: accuracy %.3f after %d steps, %.3f with int8 weights", a.name, acc, steps, acc8)
		})
	}
}
