package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
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
