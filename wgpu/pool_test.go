package wgpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

func TestSizeClass(t *testing.T) {
	for in, want := range map[uint64]uint64{
		0: 256, 1: 256, 256: 256, 257: 512, 64 << 10: 64 << 10,
		64<<10 + 1: 80 << 10, 100 << 10: 112 << 10, 1 << 20: 1 << 20, 1<<20 + 1: 1<<20 + 256<<10,
		64 << 20: 64 << 20,
	} {
		assert.Equal(t, want, wgpu.SizeClass(in), "size %d", in)
	}
	for n := uint64(1); n < 1<<30; n = n*3 + 7 {
		c := wgpu.SizeClass(n)
		assert.GreaterOrEqual(t, c, n)
		assert.LessOrEqual(t, float64(c), float64(n)*1.25+256, "slack of size %d", n)
	}
}

func TestPoolAllocReleaseReuseTrim(t *testing.T) {
	d := testgpu.Open(t)
	p := d.Pool()
	base := p.Stats()
	a, err := d.NewBuffer(1000, wgpu.UsageStorage)
	require.NoError(t, err)
	b, err := d.NewBuffer(5000, wgpu.UsageStorage)
	require.NoError(t, err)
	s := p.Stats()
	assert.Equal(t, base.LiveBuffers+2, s.LiveBuffers)
	assert.Equal(t, base.LiveBytes+1024+5120, s.LiveBytes, "bytes are size classes")
	assert.Equal(t, base.Allocs+2, s.Allocs)

	require.NoError(t, a.Release())
	assert.ErrorIs(t, a.Release(), wgpu.ErrDisposed, "double release is an error, not a corruption")
	s = p.Stats()
	assert.Equal(t, base.PooledBuffers+1, s.PooledBuffers)
	assert.Equal(t, base.PooledBytes+1024, s.PooledBytes)

	c, err := d.NewBuffer(900, wgpu.UsageStorage) // same class as a
	require.NoError(t, err)
	s = p.Stats()
	assert.Equal(t, base.Reuses+1, s.Reuses)
	assert.Equal(t, base.Allocs+2, s.Allocs, "reuse allocates nothing")
	assert.Equal(t, uint64(900), c.Size())
	u, err := d.NewBuffer(900, wgpu.UsageUniform) // same class, other usage: not reused
	require.NoError(t, err)
	assert.Equal(t, base.Allocs+3, p.Stats().Allocs)

	for _, x := range []*wgpu.Buffer{b, c, u} {
		require.NoError(t, x.Release())
	}
	s = p.Stats()
	assert.Equal(t, s.LiveBytes+s.PooledBytes, s.ReservedBytes)
	assert.Equal(t, base.PeakLiveBytes+1024+5120+1024, s.PeakLiveBytes)
	require.NoError(t, p.Trim())
	s = p.Stats()
	assert.Zero(t, s.PooledBuffers)
	assert.Zero(t, s.PooledBytes)
	assert.Equal(t, s.LiveBytes, s.ReservedBytes)
	assert.Equal(t, s.Allocs, s.Frees+uint64(s.LiveBuffers))
	require.NoError(t, testgpu.CheckPoolStats(s))
}

func TestOversizedBufferLeavesPoolUnchanged(t *testing.T) {
	d := testgpu.Open(t)
	before := d.Pool().Stats()
	_, err := d.NewBuffer(d.Limits().MaxBufferSize+1, wgpu.UsageStorage)
	require.ErrorIs(t, err, wgpu.ErrLimit)
	assert.Contains(t, err.Error(), "max buffer size")
	assert.Equal(t, before, d.Pool().Stats())
}

func TestBindingLargerThanTheDeviceBindsIsRefused(t *testing.T) {
	d := testgpu.Open(t)
	lim := d.Limits()
	if lim.MaxBufferSize <= lim.MaxStorageBufferBindingSize {
		t.Skipf("this device binds whole buffers (max buffer %d B)", lim.MaxBufferSize)
	}
	big, err := d.NewBuffer(lim.MaxStorageBufferBindingSize+4, wgpu.UsageStorage)
	require.NoError(t, err)
	defer big.Release()
	small := upload(t, d, ramp(4, 1))
	defer small.Release()
	err = d.Dispatch(scaleKernel(t, d), groupsFor(4), scaleParams(1, 4), small, big)
	require.ErrorIs(t, err, wgpu.ErrLimit)
	assert.Contains(t, err.Error(), "binds at most")
}

func TestMemoryLimitTrimsThenFails(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.MemoryLimit = 1 << 20
	d := testgpu.OpenWith(t, opts)
	p := d.Pool()
	held, err := d.NewBuffer(512<<10, wgpu.UsageStorage)
	require.NoError(t, err)
	spare, err := d.NewBuffer(256<<10, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, spare.Release()) // pooled: 768 KiB reserved

	more, err := d.NewBuffer(384<<10, wgpu.UsageStorage) // fits only once spare is trimmed
	require.NoError(t, err)
	s := p.Stats()
	assert.EqualValues(t, 1, s.OOMRetries)
	assert.Zero(t, s.PooledBytes, "the limit trimmed the pool")
	assert.LessOrEqual(t, s.ReservedBytes, uint64(1<<20))

	before := p.Stats()
	_, err = d.NewBuffer(256<<10, wgpu.UsageStorage)
	require.ErrorIs(t, err, wgpu.ErrOutOfMemory)
	msg := err.Error()
	assert.Contains(t, msg, "live 2 buffers, 896.00 KiB", "the error summarises what is live")
	assert.Contains(t, msg, "pool_test.go:", "and where it was allocated")
	assert.Equal(t, before, p.Stats(), "a refused allocation changes nothing")

	_, err = d.NewBuffer(2<<20, wgpu.UsageStorage)
	require.ErrorIs(t, err, wgpu.ErrOutOfMemory, "larger than the whole limit")

	p.SetMemoryLimit(0)
	big, err := d.NewBuffer(2<<20, wgpu.UsageStorage)
	require.NoError(t, err, "0 removes the limit")
	for _, b := range []*wgpu.Buffer{held, more, big} {
		require.NoError(t, b.Release())
	}
}

// Trim must not destroy a pooled buffer that recorded, unsubmitted work
// names: wgpu-native would abort the process at submit.
func TestTrimWithRecordedWorkIsSafe(t *testing.T) {
	d := testgpu.Open(t)
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(64, 1))
	y, err := d.NewBuffer(256, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, d.Dispatch(k, groupsFor(64), scaleParams(2, 64), x, y))
	p := d.ReadAsync(y, 0, 256)
	require.NoError(t, x.Release())
	require.NoError(t, y.Release())
	require.NoError(t, d.Pool().Trim())
	got, err := p.Await(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, ramp(64, 2), bytesF32(got))
}

// Only a GL device reports the driver's buffer count. The report counts
// the GL hub alone, and a Vulkan device used to pass off GL's count (of
// other devices' buffers) as its own.
func TestDriverBuffersOnlyOnGL(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.Backend = wgpu.BackendVulkan
	d := testgpu.OpenWith(t, opts)
	if d.Info().Backend == wgpu.BackendGL {
		t.Skip("WGT_BACKEND chose GL, whose driver keeps the count")
	}
	s := d.Stats()
	assert.False(t, s.HasDriverBuffers, "a %s device has no driver count", d.Info().Backend)
	assert.Zero(t, s.DriverBuffers)
}

// The pool's count of buffers agrees with the driver's own count, where the
// driver keeps one (wgpu-native's report covers the GL backend only).
func TestPoolAgreesWithDriverBuffers(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.Backend = wgpu.BackendGL
	d := testgpu.OpenWith(t, opts)
	if d.Info().Backend != wgpu.BackendGL {
		t.Skipf("WGT_BACKEND chose %s; the driver's count exists on GL only", d.Info().Backend)
	}
	check := func(step string) {
		t.Helper()
		require.NoError(t, d.Sync(ctxT(t)))
		ds := d.Stats()
		n, ok := ds.DriverBuffers, ds.HasDriverBuffers
		require.True(t, ok, "GL reports buffer counts")
		s := d.Pool().Stats()
		assert.EqualValues(t, s.LiveBuffers+s.PooledBuffers, n, "%s: driver holds %d buffers, pool %s", step, n, s)
	}
	check("open")
	var bufs []*wgpu.Buffer
	for i := range 10 {
		b, err := d.NewBuffer(uint64(1000*(i+1)), wgpu.UsageStorage)
		require.NoError(t, err)
		bufs = append(bufs, b)
	}
	check("allocate 10")
	for _, b := range bufs[:6] {
		require.NoError(t, b.Release())
	}
	check("release 6")
	for i := range 3 {
		b, err := d.NewBuffer(uint64(1000*(i+1)), wgpu.UsageStorage)
		require.NoError(t, err)
		bufs[i] = b
	}
	assert.EqualValues(t, 3, d.Pool().Stats().Reuses)
	check("reuse 3")
	require.NoError(t, d.Pool().Trim())
	check("trim")
	for _, b := range append(bufs[:3], bufs[6:]...) {
		require.NoError(t, b.Release())
	}
	require.NoError(t, d.Pool().Trim())
	check("release all and trim")
}

func TestResetPeaks(t *testing.T) {
	d := testgpu.Open(t)
	p := d.Pool()
	big, err := d.NewBuffer(1<<20, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, big.Release())
	require.NoError(t, p.Trim())
	small, err := d.NewBuffer(4096, wgpu.UsageStorage)
	require.NoError(t, err)
	defer small.Release()
	assert.Equal(t, uint64(1<<20), p.Stats().PeakLiveBytes, "the peak remembers the big buffer")
	p.ResetPeaks()
	s := p.Stats()
	assert.Equal(t, s.LiveBytes, s.PeakLiveBytes)
	assert.Equal(t, s.ReservedBytes, s.PeakReservedBytes)
	assert.Equal(t, uint64(4096), s.PeakLiveBytes)
}

func TestUnknownUsageIsRefusedByName(t *testing.T) {
	d := testgpu.Open(t)
	for _, u := range []wgpu.Usage{-1, 4, 99} {
		_, err := d.NewBuffer(16, u)
		require.ErrorIs(t, err, wgpu.ErrInvalidArgument)
		assert.Contains(t, err.Error(), u.String())
		assert.NotContains(t, err.Error(), "storage", "an unknown usage is not called storage")
	}
}

// Issue 19, item 2: with Options.Poison every storage buffer the pool
// hands out, new or reused, holds PoisonWord until written, and a
// readback that finds it fails: an unwritten element never shows a
// released buffer's bytes. A written buffer reads back as usual.
func TestPoisonFillsWhatThePoolHandsOut(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.Poison = true
	d := testgpu.OpenWith(t, opts)
	ctx := context.Background()
	old, err := d.NewBuffer(64, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, d.Write(old, 0, make([]byte, 64)))
	_, err = d.ReadAsync(old, 0, 64).Await(ctx)
	require.NoError(t, err, "a written buffer reads back")
	require.NoError(t, old.Release())

	reused, err := d.NewBuffer(64, wgpu.UsageStorage)
	require.NoError(t, err)
	defer reused.Release()
	assert.Equal(t, uint64(1), d.Pool().Stats().Reuses, "the released buffer's memory serves the new one")
	require.NoError(t, d.Write(reused, 0, make([]byte, 60))) // the last word unwritten
	_, err = d.ReadAsync(reused, 0, 64).Await(ctx)
	assert.ErrorIs(t, err, wgpu.ErrPoisoned)
	assert.ErrorContains(t, err, "word 15 is 0xffbadbad")
	got, err := d.ReadAsync(reused, 0, 60).Await(ctx)
	require.NoError(t, err, "the written words alone read back")
	assert.Equal(t, make([]byte, 60), got)

	fresh, err := d.NewBuffer(1<<20, wgpu.UsageStorage)
	require.NoError(t, err)
	defer fresh.Release()
	_, err = d.ReadAsync(fresh, 4096, 4).Await(ctx)
	assert.ErrorIs(t, err, wgpu.ErrPoisoned, "a new buffer is poisoned too")
}
