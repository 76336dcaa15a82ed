package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// A shorter run of the example: the loss falls below the text's unigram
// entropy (2.9 nats), memory is flat, the run resumed from step 30 ends
// bit for bit where the uninterrupted one does, and nothing is left live
// (run checks all four and fails otherwise).
func TestShortRunLearnsAndResumesExactly(t *testing.T) {
	d := testgpu.Open(t)
	c := defaults
	c.steps, c.warmup, c.saveAt, c.maxLoss, c.sample = 40, 10, 30, 2.8, 8
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), d, c, &out), out.String())
	assert.Contains(t, out.String(), "bit for bit the same weights")
	assert.True(t, strings.Contains(out.String(), "live tensors"), out.String())
}

// Trained with its activations saved in bfloat16 (grad.Options.Autocast),
// the model's loss curve stays within 0.05 + 5% of float32's at every
// 20th step of 60 (each run from the same initial values and batches).
func TestAutocastFollowsTheFloat32Curve(t *testing.T) {
	d := testgpu.Open(t)
	curve := func(autocast tensor.DType) []float32 {
		c := defaults
		c.steps, c.warmup, c.autocast = 60, 10, autocast
		e := tensor.New(d)
		tr, err := newTrainer(e, c, corpus(20000))
		require.NoError(t, err)
		defer tr.dispose()
		var losses []float32
		_, _, _, err = tr.train(context.Background(), 0, c.steps, -1, "", func(_ int, l float32) { losses = append(losses, l) })
		require.NoError(t, err)
		return losses
	}
	f32, bf := curve(tensor.Float32), curve(tensor.BFloat16)
	t.Logf("losses every 20 steps: float32 %v, bfloat16 activations %v", f32, bf)
	require.Len(t, bf, len(f32))
	for i := range f32 {
		assert.InDelta(t, f32[i], bf[i], 0.05+0.05*float64(f32[i]), "step %d", 20*(i+1))
	}
}
