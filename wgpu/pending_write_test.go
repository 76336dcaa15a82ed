package wgpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// A queue write not yet submitted names its buffer as recorded work does:
// releasing the buffer and trimming the pool before the next submission
// must not destroy it under the write (wgpu-native may abort the process
// at submit, so the case runs in a child process).
func TestTrimAfterUnsubmittedWriteIsSafe(t *testing.T) {
	if !inSubprocess(t) {
		return
	}
	d := testgpu.Open(t)
	b, err := d.NewBuffer(1024, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, d.Write(b, 0, f32bytes(ramp(256, 1))))
	require.NoError(t, b.Release())
	require.NoError(t, d.Pool().Trim())
	require.NoError(t, d.Sync(ctxT(t)))
	c := upload(t, d, ramp(4, 2))
	defer c.Release()
	require.Equal(t, ramp(4, 2), readF32(t, d, c))
}
