package wgpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// TestTimerRecordsEachDispatch: every dispatch recorded while a timer runs
// is reported once, in order, with its kernel, groups, the bytes it binds
// read-only and read-write, and a positive duration; the results are
// those of an untimed run, and nothing recorded after Stop is reported.
func TestTimerRecordsEachDispatch(t *testing.T) {
	d := testgpu.Open(t)
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(1000, 1))
	defer x.Release()
	y, err := d.NewBuffer(4000, wgpu.UsageStorage)
	require.NoError(t, err)
	defer y.Release()
	require.NoError(t, d.Dispatch(k, groupsFor(1000), scaleParams(2, 1000), x, y)) // before: not timed

	tm, err := d.StartTiming()
	require.NoError(t, err)
	require.NoError(t, d.Dispatch(k, groupsFor(1000), scaleParams(3, 1000), x, y))
	require.NoError(t, d.Dispatch(k, [3]uint32{0, 1, 1}, scaleParams(3, 1000), x, y)) // records nothing
	require.NoError(t, d.Dispatch(k, groupsFor(500), scaleParams(4, 500), x, y))
	rep, err := tm.Stop(ctxT(t))
	require.NoError(t, err)
	require.NoError(t, d.Dispatch(k, groupsFor(1000), scaleParams(5, 1000), x, y)) // after: not timed

	require.Len(t, rep.Dispatches, 2)
	require.Equal(t, wgpu.WallTime, rep.Source)
	for i, g := range [][3]uint32{groupsFor(1000), groupsFor(500)} {
		r := rep.Dispatches[i]
		require.Equal(t, "scale", r.Kernel)
		require.Equal(t, "scale", r.Key)
		require.Equal(t, g, r.Groups)
		require.Equal(t, uint64(4000), r.Read)
		require.Equal(t, uint64(4000), r.Written)
		require.Positive(t, r.Duration)
		require.Equal(t, wgpu.WallTime, r.Source)
	}
	require.GreaterOrEqual(t, rep.Dispatches[1].Start, rep.Dispatches[0].Start+rep.Dispatches[0].Duration)
	require.GreaterOrEqual(t, rep.Elapsed, rep.Dispatches[1].Start+rep.Dispatches[1].Duration)
	got := readF32(t, d, y)
	require.Equal(t, float32(5*999), got[999])
}

// TestTimerMemory: NewBytes counts the buffers handed out while the timer
// runs and PeakBytes the most live at once, the runtime's own staging and
// parameter buffers aside; the pool's own peak is left as it was.
func TestTimerMemory(t *testing.T) {
	d := testgpu.Open(t)
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(1024, 1)) // 4 KiB live before
	defer x.Release()
	d.Pool().ResetPeaks()
	poolPeak := d.Pool().Stats().PeakLiveBytes

	tm, err := d.StartTiming()
	require.NoError(t, err)
	a, err := d.NewBuffer(8192, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, d.Dispatch(k, groupsFor(1024), scaleParams(2, 1024), x, a))
	require.NoError(t, a.Release())
	b, err := d.NewBuffer(4096, wgpu.UsageStorage) // reuses nothing of a's size class
	require.NoError(t, err)
	defer b.Release()
	rep, err := tm.Stop(ctxT(t))
	require.NoError(t, err)

	require.Equal(t, uint64(8192+4096), rep.NewBytes)
	require.Equal(t, uint64(4096+8192), rep.PeakBytes)
	require.Len(t, rep.Dispatches, 1)
	require.Equal(t, uint64(4096), rep.Dispatches[0].Read)
	require.Equal(t, uint64(8192), rep.Dispatches[0].Written)
	require.GreaterOrEqual(t, d.Pool().Stats().PeakLiveBytes, poolPeak, "the pool's peak is its own")
}

// TestTimerOneAtATime: a second timer on a device fails clearly while one
// runs, a timer stops once, and a new timer starts after Stop.
func TestTimerOneAtATime(t *testing.T) {
	d := testgpu.Open(t)
	tm, err := d.StartTiming()
	require.NoError(t, err)
	_, err = d.StartTiming()
	require.ErrorIs(t, err, wgpu.ErrInvalidArgument)
	require.ErrorContains(t, err, "another timer")
	_, err = tm.Stop(ctxT(t))
	require.NoError(t, err)
	_, err = tm.Stop(ctxT(t))
	require.ErrorIs(t, err, wgpu.ErrInvalidArgument)
	var nilTimer *wgpu.Timer
	_, err = nilTimer.Stop(ctxT(t))
	require.ErrorIs(t, err, wgpu.ErrInvalidArgument)
	tm, err = d.StartTiming()
	require.NoError(t, err)
	_, err = tm.Stop(ctxT(t))
	require.NoError(t, err)
	var zero *wgpu.Device
	_, err = zero.StartTiming()
	require.ErrorIs(t, err, wgpu.ErrInvalidArgument)
}

// TestTimerBadDispatch: a dispatch the device refuses while a timer runs
// returns the device's error and is not reported.
func TestTimerBadDispatch(t *testing.T) {
	d := testgpu.Open(t)
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(64, 1))
	defer x.Release()
	tm, err := d.StartTiming()
	require.NoError(t, err)
	err = d.Dispatch(k, groupsFor(64), scaleParams(2, 64), x) // one buffer short
	require.ErrorIs(t, err, wgpu.ErrInvalidArgument)
	rep, err := tm.Stop(ctxT(t))
	require.NoError(t, err)
	require.Empty(t, rep.Dispatches)
}
