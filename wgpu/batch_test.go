package wgpu_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// A dispatch whose parameter chunk passes the memory limit trims the pool,
// and the trim submits the open batch because a pooled buffer is named by
// it: the dispatch must then record into a new batch, not into the
// submitted one (the old code called BeginComputePass on a nil encoder, so
// the case runs in a child process).
func TestTrimWhileRecordingKeepsRecordingValid(t *testing.T) {
	if !inSubprocess(t) {
		return
	}
	opts := testgpu.DefaultOptions()
	opts.MemoryLimit = 48 << 10
	opts.BatchSize = 1000
	d := testgpu.OpenWith(t, opts)
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(64, 1))
	defer x.Release()
	y, err := d.NewBuffer(256, wgpu.UsageStorage)
	require.NoError(t, err)
	defer y.Release()
	z, err := d.NewBuffer(24<<10, wgpu.UsageStorage)
	require.NoError(t, err)
	params := make([]byte, 12<<10) // most of a parameter chunk
	copy(params, scaleParams(2, 64))
	require.NoError(t, d.Dispatch(k, groupsFor(64), params, x, z))
	require.NoError(t, z.Release()) // pooled, and named by the open batch
	copy(params, scaleParams(3, 64))
	require.NoError(t, d.Dispatch(k, groupsFor(64), params, x, y)) // a new chunk passes the limit
	assert.NotZero(t, d.Pool().Stats().OOMRetries, "the dispatch trimmed the pool")
	assert.Equal(t, ramp(64, 3), readF32(t, d, y))
	require.NoError(t, testgpu.CheckPoolStats(d.Pool().Stats()))
}

// A batch that fails at Finish rejects exactly the readbacks it contained,
// returns their staging buffers to the pool, drops its upload buffers, and
// leaves the pool's counts exact and the device usable.
func TestFailedBatchRejectsItsWorkAndLeavesNothingLive(t *testing.T) {
	d := testgpu.Open(t)
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(64, 1))
	defer x.Release()
	y, err := d.NewBuffer(256, wgpu.UsageStorage)
	require.NoError(t, err)
	defer y.Release()
	big, err := d.NewBuffer(1<<20, wgpu.UsageStorage)
	require.NoError(t, err)
	defer big.Release()
	require.NoError(t, d.Sync(ctxT(t)))
	require.NoError(t, wgpu.WaitForPollers(d)) // so that no poll submits the batch half-way
	before := d.Stats()

	first := d.ReadAsync(x, 0, 256)
	require.NoError(t, d.Write(big, 0, make([]byte, 1<<20))) // through an upload buffer
	require.NoError(t, d.Dispatch(k, groupsFor(64), scaleParams(2, 64), x, y))
	tiny, err := d.NewBuffer(4, wgpu.UsageStorage)
	require.NoError(t, err)
	defer tiny.Release()
	require.NoError(t, wgpu.PoisonBatch(d, tiny))
	second := d.ReadAsyncInto(y, 0, make([]byte, 256))
	err = d.Flush()
	require.ErrorIs(t, err, wgpu.ErrValidation)

	for i, p := range []*wgpu.Promise[[]byte]{first, second} {
		_, err := p.Await(ctxT(t))
		assert.ErrorIs(t, err, wgpu.ErrValidation, "readback %d of the failed batch", i)
	}
	assert.Equal(t, before.PendingReadbacks, d.Stats().PendingReadbacks)
	assert.Equal(t, before.PendingUploads, d.Stats().PendingUploads)
	for _, b := range d.LiveBuffers() {
		assert.False(t, b.Internal, "the failed batch left a %s buffer live", b.Usage)
	}
	require.NoError(t, testgpu.CheckPoolStats(d.Pool().Stats()))

	// The device goes on working (y, which the failed batch would have
	// written, needs contents first).
	require.NoError(t, d.Write(y, 0, make([]byte, 256)))
	require.NoError(t, d.Dispatch(k, groupsFor(64), scaleParams(3, 64), x, y))
	assert.Equal(t, ramp(64, 3), readF32(t, d, y))
	require.NoError(t, d.Write(big, 0, make([]byte, 1<<20)))
	got, err := d.ReadAsync(big, 1<<20-4, 4).Await(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, []byte{0, 0, 0, 0}, got)
}

// What a failed batch would have written is lost, and the buffers it would
// have written say so instead of handing out stale bytes: reading them, or
// dispatching over them, fails with the batch's error until a write of the
// whole buffer gives them contents again.
func TestFailedBatchMarksWhatItWouldHaveWritten(t *testing.T) {
	d := testgpu.Open(t)
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(64, 1))
	defer x.Release()
	y := upload(t, d, ramp(64, 7))
	defer y.Release()
	big, err := d.NewBuffer(1<<20, wgpu.UsageStorage)
	require.NoError(t, err)
	defer big.Release()
	tiny, err := d.NewBuffer(4, wgpu.UsageStorage)
	require.NoError(t, err)
	defer tiny.Release()
	require.NoError(t, d.Sync(ctxT(t)))
	require.NoError(t, wgpu.WaitForPollers(d)) // so that no poll submits the batch half-way

	require.NoError(t, d.Dispatch(k, groupsFor(64), scaleParams(2, 64), x, y)) // y lost
	require.NoError(t, d.Write(big, 0, make([]byte, 1<<20)))                   // big lost
	require.NoError(t, wgpu.PoisonBatch(d, tiny))
	require.ErrorIs(t, d.Flush(), wgpu.ErrValidation)

	for name, b := range map[string]*wgpu.Buffer{"dispatch output": y, "staged write": big} {
		_, err := d.ReadAsync(b, 0, 4).Await(ctxT(t))
		require.ErrorIs(t, err, wgpu.ErrValidation, name)
		assert.Contains(t, err.Error(), "lost", name)
	}
	require.ErrorIs(t, d.Dispatch(k, groupsFor(64), scaleParams(3, 64), y, x), wgpu.ErrValidation, "a lost input")
	assert.Equal(t, ramp(64, 1), readF32(t, d, x), "what the batch only read keeps its contents")

	require.NoError(t, d.Write(y, 0, f32bytes(ramp(64, 5)))) // whole: y has contents again
	assert.Equal(t, ramp(64, 5), readF32(t, d, y))
	require.NoError(t, d.Write(big, 4, make([]byte, 8))) // partial: big is still lost
	_, err = d.ReadAsync(big, 0, 4).Await(ctxT(t))
	require.ErrorIs(t, err, wgpu.ErrValidation)
	require.NoError(t, d.Write(big, 0, make([]byte, 1<<20)))
	_, err = d.ReadAsync(big, 0, 4).Await(ctxT(t))
	require.NoError(t, err)
}
