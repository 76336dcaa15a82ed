package wgpu_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// reenter calls back into d as an OnSettled callback may: it reads the figures,
// polls, submits and reads back through the device. Every call must return,
// with or without an error (the device may be closed or lost by now).
func reenter(d *wgpu.Device, x *wgpu.Buffer) {
	_ = d.Stats()
	_ = d.Pool().Stats()
	_ = d.LiveBuffers()
	_ = d.Poll(false)
	_ = d.Flush()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _ = d.ReadAsync(x, 0, 4).Await(ctx)
}

// waitCalled fails t unless called receives within a minute: a callback
// that deadlocks on a lock its settler holds never sends.
func waitCalled(t *testing.T, called <-chan error, path string) error {
	t.Helper()
	select {
	case err := <-called:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s: the OnSettled callback did not return: it ran under a lock it needs", path)
		return nil
	}
}

// Callbacks run under no lock of the package, whichever path settles the
// promise: each callback here calls back into the device.
func TestOnSettledCallbacksMayCallTheDevice(t *testing.T) {
	type settlePath struct {
		name string
		// run registers cb on a promise and makes the promise settle by
		// this path; wantErr is what it settles with.
		run     func(t *testing.T, d *wgpu.Device, x *wgpu.Buffer, cb func([]byte, error))
		wantErr error
	}
	paths := []settlePath{
		{name: "fulfilled readback", run: func(t *testing.T, d *wgpu.Device, x *wgpu.Buffer, cb func([]byte, error)) {
			p := d.ReadAsync(x, 0, 8)
			p.OnSettled(cb)
			_, err := p.Await(ctxT(t))
			require.NoError(t, err)
		}},
		{name: "rejected readback", wantErr: wgpu.ErrAborted, run: func(t *testing.T, d *wgpu.Device, x *wgpu.Buffer, cb func([]byte, error)) {
			p := d.ReadAsync(x, 0, 8)
			p.OnSettled(cb)
			require.Equal(t, 1, wgpu.DestroyPendingStaging(d))
			_, err := p.Await(ctxT(t))
			require.ErrorIs(t, err, wgpu.ErrAborted)
		}},
		{name: "failed batch", wantErr: wgpu.ErrValidation, run: func(t *testing.T, d *wgpu.Device, x *wgpu.Buffer, cb func([]byte, error)) {
			y, err := d.NewBuffer(x.Size(), wgpu.UsageStorage)
			require.NoError(t, err)
			defer y.Release()
			require.NoError(t, d.Dispatch(scaleKernel(t, d), groupsFor(64), scaleParams(2, 64), x, y))
			p := d.ReadAsync(y, 0, 8)
			p.OnSettled(cb)
			release := wgpu.DestroyParamChunks(d)
			defer release()
			require.Error(t, d.Flush())
		}},
		{name: "cancelled await", run: func(t *testing.T, d *wgpu.Device, x *wgpu.Buffer, cb func([]byte, error)) {
			p := d.ReadAsync(x, 0, 8)
			p.OnSettled(cb)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := p.Await(ctx)
			require.ErrorIs(t, err, context.Canceled)
		}},
		{name: "Chain", run: func(t *testing.T, d *wgpu.Device, x *wgpu.Buffer, cb func([]byte, error)) {
			q := wgpu.Chain(d.ReadAsync(x, 0, 8), func(b []byte) ([]byte, error) {
				reenter(d, x)
				return b, nil
			})
			q.OnSettled(cb)
			_, err := q.Await(ctxT(t))
			require.NoError(t, err)
		}},
		{name: "Resolved", run: func(t *testing.T, d *wgpu.Device, x *wgpu.Buffer, cb func([]byte, error)) {
			wgpu.Resolved([]byte{1}).OnSettled(cb)
		}},
		{name: "RejectedWith", wantErr: wgpu.ErrInvalidArgument, run: func(t *testing.T, d *wgpu.Device, x *wgpu.Buffer, cb func([]byte, error)) {
			wgpu.RejectedWith[[]byte](&wgpu.Error{Op: "test", Kind: wgpu.ErrInvalidArgument}).OnSettled(cb)
		}},
	}
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			d := testgpu.Open(t)
			x := upload(t, d, ramp(64, 1))
			defer x.Release()
			called := make(chan error, 1)
			path.run(t, d, x, func(_ []byte, err error) {
				reenter(d, x)
				called <- err
			})
			err := waitCalled(t, called, path.name)
			if path.wantErr == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, path.wantErr)
			}
		})
	}
}

// The paths that settle everything at once: device loss, Close, and the
// work-done and lost promises.
func TestOnSettledCallbacksMayCallTheDeviceOnLossAndClose(t *testing.T) {
	for _, end := range []struct {
		name    string
		wantErr error
		end     func(d *wgpu.Device)
	}{
		{"InjectLoss", wgpu.ErrDeviceLost, func(d *wgpu.Device) { d.InjectLoss("injected by test") }},
		{"Close", wgpu.ErrClosed, func(d *wgpu.Device) { _ = d.Close() }},
	} {
		t.Run(end.name, func(t *testing.T) {
			d := testgpu.OpenUnchecked(t, testgpu.DefaultOptions())
			defer d.Close()
			x := upload(t, d, ramp(64, 1))
			called, lost := make(chan error, 2), make(chan error, 1)
			submitted := d.ReadAsync(x, 0, 8)
			require.NoError(t, d.Flush())
			recorded := d.ReadAsync(x, 0, 8)
			for _, p := range []*wgpu.Promise[[]byte]{submitted, recorded} {
				p.OnSettled(func(_ []byte, err error) { reenter(d, x); called <- err })
			}
			d.Lost().OnSettled(func(_ wgpu.LostInfo, err error) { reenter(d, x); lost <- err })
			end.end(d)
			for range 2 {
				assert.ErrorIs(t, waitCalled(t, called, end.name), end.wantErr)
			}
			assert.NoError(t, waitCalled(t, lost, end.name+" (lost)"))
			require.NoError(t, x.Release())
		})
	}
}

func TestWorkDoneCallbackMayCallTheDevice(t *testing.T) {
	d := testgpu.Open(t)
	x := upload(t, d, ramp(64, 1))
	defer x.Release()
	called := make(chan error, 1)
	w := d.WorkDone()
	w.OnSettled(func(_ struct{}, err error) { reenter(d, x); called <- err })
	_, err := w.Await(ctxT(t))
	require.NoError(t, err)
	assert.NoError(t, waitCalled(t, called, "work done"))
}

// Stats counts a readback as pending until its promise settles, including
// while its bytes are being copied out after the map.
func TestPendingReadbacksCountedUntilSettled(t *testing.T) {
	d := testgpu.Open(t)
	x := upload(t, d, ramp(64, 1))
	defer x.Release()
	const n = 64
	promises := make([]*wgpu.Promise[[]byte], n)
	for i := range promises {
		promises[i] = d.ReadAsync(x, 0, 256)
	}
	var undercounts atomic.Int32
	var wg sync.WaitGroup
	wg.Add(n)
	for _, p := range promises {
		p.OnSettled(func([]byte, error) {
			defer wg.Done()
			counted := d.Stats().PendingReadbacks // first: promises only settle, never unsettle
			pending := 0
			for _, q := range promises {
				if q.State() == wgpu.PromisePending {
					pending++
				}
			}
			if counted < pending {
				undercounts.Add(1)
			}
		})
	}
	require.NoError(t, d.Flush())
	for _, p := range promises {
		_, err := p.Await(ctxT(t))
		require.NoError(t, err)
	}
	wg.Wait()
	assert.Zero(t, undercounts.Load(), "callbacks saw fewer readbacks counted than were pending")
	assert.Zero(t, d.Stats().PendingReadbacks)
}
