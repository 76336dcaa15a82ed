package wgpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Writes of 1 MiB or more go through the runtime's upload buffers; smaller
// ones through the queue. Both must land the same bytes, at any offset and
// length, and be ordered after the work recorded before them.

func TestStagedWritesLandExactly(t *testing.T) {
	d := testgpu.Open(t)
	const n = 3<<20 + 13 // past the staging threshold, not a multiple of 4
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i*31 + i>>9)
	}
	b, err := d.NewBuffer(n+8, wgpu.UsageStorage)
	require.NoError(t, err)
	defer b.Release()
	for _, off := range []uint64{0, 4} {
		require.NoError(t, d.Write(b, off, src))
		got, err := d.ReadAsync(b, off, n).Await(ctxT(t))
		require.NoError(t, err)
		require.Equal(t, src, got, "offset %d", off)
	}
	assert.Zero(t, d.Stats().PendingReadbacks)
}

func TestStagedWriteIsOrderedWithRecordedWork(t *testing.T) {
	d := testgpu.Open(t)
	k := scaleKernel(t, d)
	const n = 1 << 19 // 2 MiB of floats: a staged write
	x := upload(t, d, ramp(n, 1))
	y, err := d.NewBuffer(4*n, wgpu.UsageStorage)
	require.NoError(t, err)
	z, err := d.NewBuffer(4*n, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, d.Dispatch(k, groupsFor(n), scaleParams(10, n), x, y))
	require.NoError(t, d.Write(x, 0, f32bytes(ramp(n, -1))))
	require.NoError(t, d.Dispatch(k, groupsFor(n), scaleParams(2, n), x, z))
	assert.Equal(t, ramp(n, 10), readF32(t, d, y), "work recorded before the write sees x as it was")
	assert.Equal(t, ramp(n, -2), readF32(t, d, z), "work recorded after the write sees the new x")
	for _, b := range []*wgpu.Buffer{x, y, z} {
		require.NoError(t, b.Release())
	}
}

func TestUploadBuffersAreReusedAndTrimmed(t *testing.T) {
	d := testgpu.Open(t)
	data := f32bytes(ramp(1<<20, 1)) // 4 MiB
	b, err := d.NewBuffer(uint64(len(data)), wgpu.UsageStorage)
	require.NoError(t, err)
	defer b.Release()
	for range 3 {
		require.NoError(t, d.Write(b, 0, data))
		require.NoError(t, d.Sync(ctxT(t)))
	}
	require.NoError(t, testgpu.Settle(d, testgpu.Timeout))
	st := d.Pool().Stats()
	assert.Equal(t, uint64(2), st.Allocs, "the target and one upload buffer, reused")
	assert.Equal(t, 1, st.PooledBuffers, "the upload buffer is back in the pool, mapped")
	require.NoError(t, d.Pool().Trim())
	assert.Zero(t, d.Pool().Stats().PooledBytes)
	require.NoError(t, d.Write(b, 0, data), "a trimmed upload buffer is replaced")
	assert.Equal(t, ramp(1<<20, 1), readF32(t, d, b))
}

func TestManyStagedWritesWithoutPollingStayBounded(t *testing.T) {
	d := testgpu.Open(t)
	data := f32bytes(ramp(1<<18, 1)) // 1 MiB
	b, err := d.NewBuffer(uint64(len(data)), wgpu.UsageStorage)
	require.NoError(t, err)
	defer b.Release()
	for range 300 {
		require.NoError(t, d.Write(b, 0, data))
	}
	st := d.Pool().Stats()
	assert.Less(t, st.PeakReservedBytes, uint64(200<<20), "upload buffers are recycled without an explicit poll: %v", st)
	assert.Equal(t, ramp(1<<18, 1), readF32(t, d, b))
}

func TestUploadUsageIsTheRuntimesOwn(t *testing.T) {
	d := testgpu.Open(t)
	_, err := d.NewBuffer(1<<20, wgpu.UsageUpload)
	assert.ErrorIs(t, err, wgpu.ErrInvalidArgument)
	assert.Zero(t, d.Pool().Stats().Allocs)
}

func TestWriteAloneReachesTheGPUOnSync(t *testing.T) {
	d := testgpu.Open(t)
	b, err := d.NewBuffer(64, wgpu.UsageStorage)
	require.NoError(t, err)
	defer b.Release()
	before := d.Stats().Submits
	require.NoError(t, d.Write(b, 0, f32bytes(ramp(16, 1))))
	require.NoError(t, d.Sync(ctxT(t)))
	assert.Equal(t, before+1, d.Stats().Submits, "Sync submits a queue write even with no command recorded")
}

func TestReadAsyncInto(t *testing.T) {
	d := testgpu.Open(t)
	v := ramp(1000, 1)
	b := upload(t, d, v)
	defer b.Release()
	dst := make([]byte, 40)
	got, err := d.ReadAsyncInto(b, 8, dst).Await(ctxT(t))
	require.NoError(t, err)
	assert.Same(t, &dst[0], &got[0], "resolves with the caller's slice")
	assert.Equal(t, v[2:12], bytesF32(dst))

	big := make([]byte, 4000) // large enough for nothing special; the whole buffer
	_, err = d.ReadAsyncInto(b, 0, big).Await(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, v, bytesF32(big))

	empty, err := d.ReadAsyncInto(b, 0, nil).Await(ctxT(t))
	require.NoError(t, err)
	assert.Empty(t, empty)
	_, err = d.ReadAsyncInto(b, 3996, make([]byte, 8)).Await(context.Background())
	assert.ErrorIs(t, err, wgpu.ErrInvalidArgument, "past the end")
}

func TestReadback64MiBInto(t *testing.T) {
	d := testgpu.Open(t)
	n := 16 << 20
	v := ramp(n, 1)
	b := upload(t, d, v)
	defer b.Release()
	dst := make([]byte, 4*n)
	_, err := d.ReadAsyncInto(b, 0, dst).Await(ctxT(t))
	require.NoError(t, err)
	got := bytesF32(dst)
	for i := 0; i < n; i += 4099 {
		require.Equal(t, v[i], got[i], "element %d", i)
	}
	require.Equal(t, v[n-1], got[n-1])
}
