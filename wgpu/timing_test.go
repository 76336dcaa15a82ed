package wgpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// timingSources runs f once per way the test device can time dispatches:
// with timestamp queries where it has them, and with wall time
// (WGT_TIMESTAMPS=0) everywhere.
func timingSources(t *testing.T, f func(t *testing.T, want wgpu.TimingSource)) {
	t.Run("wall", func(t *testing.T) {
		t.Setenv("WGT_TIMESTAMPS", "0")
		f(t, wgpu.WallTime)
	})
	t.Run("timestamps", func(t *testing.T) {
		want := wgpu.WallTime
		if testgpu.Open(t).HasTimestamps() {
			want = wgpu.GPUTimestamps
		}
		f(t, want)
	})
}

// TestTimerRecordsEachDispatch: every dispatch recorded while a timer runs
// is reported once, in order, with its kernel, groups, the bytes it binds
// read-only and read-write, and a positive duration; the results are
// those of an untimed run, and nothing recorded after Stop is reported.
func TestTimerRecordsEachDispatch(t *testing.T) {
	timingSources(t, testTimerRecordsEachDispatch)
}

func testTimerRecordsEachDispatch(t *testing.T, source wgpu.TimingSource) {
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
	require.Equal(t, source, rep.Source)
	for i, g := range [][3]uint32{groupsFor(1000), groupsFor(500)} {
		r := rep.Dispatches[i]
		require.Equal(t, "scale", r.Kernel)
		require.Equal(t, "scale", r.Key)
		require.Equal(t, g, r.Groups)
		require.Equal(t, uint64(4000), r.Read)
		require.Equal(t, uint64(4000), r.Written)
		require.Positive(t, r.Duration)
		require.Less(t, r.Duration, rep.Elapsed, "ticks are nanoseconds")
		require.Equal(t, source, r.Source)
	}
	require.GreaterOrEqual(t, rep.Dispatches[1].Start, rep.Dispatches[0].Start+rep.Dispatches[0].Duration)
	if source == wgpu.WallTime { // timestamps count on the GPU's clock
		require.GreaterOrEqual(t, rep.Elapsed, rep.Dispatches[1].Start+rep.Dispatches[1].Duration)
	}
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

// TestTimerManyDispatches: more dispatches than a set of timestamp queries
// holds, in batches of one (each resolve skips to 256 bytes on), are all
// reported, in order, each with a positive duration.
func TestTimerManyDispatches(t *testing.T) {
	timingSources(t, func(t *testing.T, source wgpu.TimingSource) {
		opts := testgpu.DefaultOptions()
		opts.BatchSize = 1
		d := testgpu.OpenWith(t, opts)
		k := scaleKernel(t, d)
		x := upload(t, d, ramp(64, 1))
		defer x.Release()
		y, err := d.NewBuffer(256, wgpu.UsageStorage)
		require.NoError(t, err)
		defer y.Release()
		n := 300
		if source == wgpu.WallTime {
			n = 30 // each waits for the GPU; the count is not what is tested
		}
		tm, err := d.StartTiming()
		require.NoError(t, err)
		for i := range n {
			require.NoError(t, d.Dispatch(k, [3]uint32{uint32(1 + i%3), 1, 1}, scaleParams(float32(i), 64), x, y))
		}
		rep, err := tm.Stop(ctxT(t))
		require.NoError(t, err)
		require.Len(t, rep.Dispatches, n)
		for i, r := range rep.Dispatches {
			require.Equal(t, [3]uint32{uint32(1 + i%3), 1, 1}, r.Groups, "dispatch %d", i)
			require.Positive(t, r.Duration, "dispatch %d", i)
			if i > 0 {
				require.GreaterOrEqual(t, r.Start, rep.Dispatches[i-1].Start, "dispatch %d", i)
			}
		}
		require.Equal(t, float32(n-1)*63, readF32(t, d, y)[63])
	})
}

// TestTimerFailedBatch: the dispatches of a batch that fails at submission
// did not run and are not reported; those of earlier batches are. An
// invalid timed pass must not abort the process (the shim's error scope
// once filtered out-of-memory errors instead of validation errors), so the
// test runs in a child process.
func TestTimerFailedBatch(t *testing.T) {
	if !inSubprocess(t) {
		return
	}
	d := testgpu.Open(t)
	if !d.HasTimestamps() {
		t.Skip("no timestamp queries: a failed batch's dispatches are timed one at a time, alone")
	}
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(64, 1))
	defer x.Release()
	y, err := d.NewBuffer(256, wgpu.UsageStorage)
	require.NoError(t, err)
	defer y.Release()
	tiny, err := d.NewBuffer(4, wgpu.UsageStorage)
	require.NoError(t, err)
	defer tiny.Release()
	require.NoError(t, d.Sync(ctxT(t)))
	require.NoError(t, wgpu.WaitForPollers(d)) // so that no poll submits the batch half-way

	tm, err := d.StartTiming()
	require.NoError(t, err)
	require.NoError(t, d.Dispatch(k, groupsFor(64), scaleParams(2, 64), x, y))
	require.NoError(t, d.Flush())
	require.NoError(t, d.Dispatch(k, groupsFor(32), scaleParams(3, 32), x, y))
	require.NoError(t, wgpu.PoisonBatch(d, tiny))
	require.ErrorIs(t, d.Flush(), wgpu.ErrValidation)
	rep, err := tm.Stop(ctxT(t))
	require.NoError(t, err)
	require.Len(t, rep.Dispatches, 1)
	require.Equal(t, groupsFor(64), rep.Dispatches[0].Groups)
	require.Positive(t, rep.Dispatches[0].Duration)
	require.NotEmpty(t, d.UncapturedErrors())
}

// BenchmarkTimer is BenchmarkDispatch's batched case with no timer
// running ("off", to compare with BenchmarkDispatch/batched-64: what a
// dispatch pays for timing being possible, one atomic load) and with one
// ("on": what timing costs).
func BenchmarkTimer(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			d := testgpu.Open(b)
			k := scaleKernel(b, d)
			x := upload(b, d, ramp(1024, 1))
			defer x.Release()
			y, err := d.NewBuffer(4096, wgpu.UsageStorage)
			require.NoError(b, err)
			defer y.Release()
			var tm *wgpu.Timer
			if on {
				tm, err = d.StartTiming()
				require.NoError(b, err)
			}
			params := scaleParams(2, 1024)
			b.ResetTimer()
			for range b.N {
				if err := d.Dispatch(k, groupsFor(1024), params, x, y); err != nil {
					b.Fatal(err)
				}
			}
			require.NoError(b, d.Sync(ctxT(b)))
			b.StopTimer()
			if on {
				_, err := tm.Stop(ctxT(b))
				require.NoError(b, err)
			}
		})
	}
}

// TestTimerConcurrentDispatches: dispatches from several goroutines while
// a timer runs are each reported once; a Stop while a goroutine still
// dispatches reports what was recorded before it, every one complete.
func TestTimerConcurrentDispatches(t *testing.T) {
	timingSources(t, func(t *testing.T, source wgpu.TimingSource) {
		d := testgpu.Open(t)
		k := scaleKernel(t, d)
		x := upload(t, d, ramp(64, 1))
		defer x.Release()
		var ys [3]*wgpu.Buffer
		for i := range ys {
			y, err := d.NewBuffer(256, wgpu.UsageStorage)
			require.NoError(t, err)
			defer y.Release()
			ys[i] = y
		}
		const n = 20
		dispatch := func(y *wgpu.Buffer, count int) error {
			for range count {
				if err := d.Dispatch(k, groupsFor(64), scaleParams(2, 64), x, y); err != nil {
					return err
				}
			}
			return nil
		}
		tm, err := d.StartTiming()
		require.NoError(t, err)
		errs := make(chan error, 2)
		for _, y := range ys[:2] {
			go func() { errs <- dispatch(y, n) }()
		}
		require.NoError(t, <-errs)
		require.NoError(t, <-errs)
		rep, err := tm.Stop(ctxT(t))
		require.NoError(t, err)
		require.Len(t, rep.Dispatches, 2*n)

		tm, err = d.StartTiming()
		require.NoError(t, err)
		go func() { errs <- dispatch(ys[2], n) }()
		rep, err = tm.Stop(ctxT(t))
		require.NoError(t, err)
		require.NoError(t, <-errs)
		require.LessOrEqual(t, len(rep.Dispatches), n)
		for _, r := range rep.Dispatches {
			require.Equal(t, source, r.Source)
			require.Positive(t, r.Duration)
		}
	})
}
