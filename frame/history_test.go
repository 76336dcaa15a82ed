package frame_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/frame"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Each frame marks the memory history, where one records, so that a
// viewer compares frames.
func TestFramesMarkTheMemoryHistory(t *testing.T) {
	e := testgpu.Engine(t)
	c := frame.NewClock(e, 4)
	_, err := c.Next(context.Background()) // not recording: no mark
	require.NoError(t, err)
	require.NoError(t, e.RecordMemoryHistory(wgpu.HistoryOptions{}))
	defer e.Device().StopHistory()
	for range 2 {
		_, err := c.Next(context.Background())
		require.NoError(t, err)
	}
	h, err := e.Device().History()
	require.NoError(t, err)
	var marks []string
	for _, ev := range h.Events {
		if ev.Kind == wgpu.EventMark {
			marks = append(marks, h.Labels[ev.Label])
		}
	}
	require.Equal(t, []string{"frame 2", "frame 3"}, marks)
}
