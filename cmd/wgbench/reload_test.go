package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
)

// model_reload's cycles leave the live tensors and bytes as they found
// them, its predictions match the host's, and Trim gives every reserved
// byte back.
func TestModelReloadIsFlat(t *testing.T) {
	e := testgpu.Engine(t)
	r, err := modelReload.run(context.Background(), e)
	require.NoError(t, err)
	require.True(t, r.Ok, r.Check)
	require.Equal(t, "ms/cycle", r.Unit)
	extra := map[string]float64{}
	for _, m := range r.Extra {
		extra[m.Name] = m.Value
	}
	require.Equal(t, extra["live_before"], extra["live_after"])
	require.Zero(t, extra["reserved_after_trim"])
	require.Greater(t, extra["file"], 10e6, "a 10 MB file")
	require.Zero(t, e.NumTensors())
}
