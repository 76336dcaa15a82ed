package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
)

// Every way trains the MLP to at least 95% accuracy on the spirals (94%
// with its weights quantized to int8), the bfloat16 activations' run to
// a loss within 0.01 + 10% of the float32 tape's, and leaves nothing live
// (testgpu's check at the end of each subtest).
func TestSpiralsReach95Percent(t *testing.T) {
	var first score
	for i, a := range apis {
		t.Run(a.name, func(t *testing.T) {
			e := testgpu.Engine(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			s, err := trainAndScore(ctx, e, a)
			require.NoError(t, err)
			if i == 0 {
				first = s
			}
			assert.NoError(t, s.check(first))
			assert.Zero(t, e.NumTensors())
			t.Logf("%s: loss %.4f, accuracy %.3f after %d steps, %.3f with int8 weights", a.name, s.loss, s.acc, steps, s.acc8)
		})
	}
}
