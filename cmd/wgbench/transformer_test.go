package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
)

// The data and initial values are the definition's: its check values
// (bench/transformer_train_step.md).
func TestTransformerDataMatchesTheDefinition(t *testing.T) {
	h := gptData()
	assert.Equal(t, []int32{61, 62, 20, 20, 27, 10, 8, 45, 47, 40, 59, 22, 34, 28, 21, 35}, h.inputs[:16])
	assert.Equal(t, []int32{32, 61, 48, 9}, h.inputs[gptContext:gptContext+4], "sequence 1")
	assert.Equal(t, h.inputs[1:gptContext], h.targets[:gptContext-1], "targets are the inputs shifted by one")
	var sum int32
	for b := range gptBatch {
		sum += h.inputs[b*gptContext] // the first id of each sequence, then every target
		for _, id := range h.targets[b*gptContext : (b+1)*gptContext] {
			sum += id
		}
	}
	assert.Equal(t, int32(32270), sum, "the sum of all 1040 ids")

	sumOf := func(v []float32) (s float64) {
		for _, x := range v {
			s += float64(x)
		}
		return s
	}
	tok := gptUniform(311, gptVocab*gptD)
	assert.Equal(t, []float32{-0.0099707544, -0.010659634, -0.018828189}, tok[:3])
	assert.InDelta(t, -0.90718821, sumOf(tok), 1e-6)
	wqkv := gptUniform(320, gptD*3*gptD)
	assert.Equal(t, []float32{-0.027875487, -0.029024241, 0.034432102}, wqkv[:3])
	assert.InDelta(t, 6.3056821, sumOf(wqkv), 1e-5)
	assert.Equal(t, []float32{0.00089158991, -0.034236412}, gptUniform(341, 2))
}

// The workload passes its checks: step 1's loss is the definition's
// float64 value to 1e-4, the loss falls, memory is flat.
func TestTransformerTrainStepPassesItsChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("30 training steps")
	}
	e := testgpu.Engine(t)
	r, err := transformerTrainStep.run(context.Background(), e)
	require.NoError(t, err)
	assert.True(t, r.Ok, r.Check)
	assert.Positive(t, r.Value)
}
