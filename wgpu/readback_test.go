package wgpu_test

import (
	"bytes"
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

func TestReadbackSizesAndOffsets(t *testing.T) {
	d := testgpu.Open(t)
	src := make([]byte, 1003)
	for i := range src {
		src[i] = byte(i * 7)
	}
	b, err := d.NewBuffer(uint64(len(src)), wgpu.UsageStorage)
	require.NoError(t, err)
	defer b.Release()
	require.NoError(t, d.Write(b, 0, src)) // not a multiple of 4: padded
	for _, c := range []struct{ off, n uint64 }{{0, 0}, {0, 1}, {0, 3}, {1, 1}, {2, 5}, {3, 4}, {5, 998}, {0, 1003}, {1002, 1}, {1003, 0}} {
		got, err := d.ReadAsync(b, c.off, c.n).Await(ctxT(t))
		require.NoError(t, err, "%+v", c)
		assert.Equal(t, src[c.off:c.off+c.n], got, "%+v", c)
	}
	_, err = d.ReadAsync(b, 1000, 4).Await(ctxT(t))
	assert.ErrorIs(t, err, wgpu.ErrInvalidArgument, "past the end")
	zero, err := d.ReadAsync(b, 0, 0).Await(ctxT(t))
	require.NoError(t, err)
	assert.NotNil(t, zero)
	assert.Empty(t, zero)
}

func TestReadback64MiB(t *testing.T) {
	d := testgpu.Open(t)
	n := 16 << 20
	v := ramp(n, 1)
	b := upload(t, d, v)
	got := readF32(t, d, b)
	require.Len(t, got, n)
	for i := 0; i < n; i += 4099 {
		require.Equal(t, v[i], got[i], "element %d", i)
	}
	require.Equal(t, v[n-1], got[n-1])
	require.NoError(t, b.Release())
}

func TestThousandPromisesFromEightGoroutines(t *testing.T) {
	d := testgpu.Open(t)
	const n, workers = 1000, 8
	src := ramp(1000, 1)
	b := upload(t, d, src)
	promises := make([]*wgpu.Promise[[]byte], n)
	for i := range promises {
		promises[i] = d.ReadAsync(b, uint64(4*i), 4)
	}
	require.NoError(t, b.Release(), "releasing the source with readbacks pending is safe")
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				got, err := promises[i].Await(context.Background())
				if err != nil {
					errs <- err
					continue
				}
				if v := bytesF32(got)[0]; v != src[i] {
					t.Errorf("promise %d = %v, want %v", i, v, src[i])
				}
			}
		}()
	}
	// The same promise awaited from several goroutines gives one answer.
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := promises[n-1].Await(context.Background())
			if err != nil || bytesF32(got)[0] != src[n-1] {
				t.Errorf("shared promise: %v %v", got, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Zero(t, d.Stats().PendingReadbacks)
}

// spinWGSL keeps each invocation busy for a while, so a readback behind it
// is still pending when a short context runs out.
const spinWGSL = `
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	var acc = f32(id.x);
	for (var i = 0u; i < 20000u; i++) { acc = acc * 0.999 + 1.0; }
	y[id.x] = acc;
}
`

// spinReadback records a dispatch of spinWGSL and a readback of its output.
func spinReadback(t *testing.T, d *wgpu.Device, dst []byte) (*wgpu.Promise[[]byte], *wgpu.Buffer) {
	t.Helper()
	k, err := d.Kernel(wgpu.KernelSpec{Name: "spin", Source: spinWGSL, Bindings: []wgpu.Access{wgpu.ReadWrite}})
	require.NoError(t, err)
	y, err := d.NewBuffer(4*64*256, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, d.Dispatch(k, [3]uint32{256, 1, 1}, nil, y))
	if dst != nil {
		return d.ReadAsyncInto(y, 0, dst), y
	}
	return d.ReadAsync(y, 0, 16), y
}

// cancelled returns a context that is already done.
func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// waitSettled waits for p to settle, which something other than the test
// (the poller an Await started) must bring about.
func waitSettled[T any](t *testing.T, p *wgpu.Promise[T]) {
	t.Helper()
	select {
	case <-p.Done():
	case <-ctxT(t).Done():
		t.Fatal("the promise never settled: nothing submitted or polled its work")
	}
}

// An Await whose context is done before it starts still submits the work
// and leaves a poller to settle the promise and reclaim its staging buffer.
func TestCancelledAwaitReclaimsStaging(t *testing.T) {
	d := testgpu.Open(t)
	p, y := spinReadback(t, d, nil)
	defer y.Release()
	_, err := p.Await(cancelled())
	require.ErrorIs(t, err, context.Canceled)
	waitSettled(t, p)
	for _, b := range d.LiveBuffers() {
		assert.NotEqual(t, wgpu.UsageReadback, b.Usage, "staging buffer %d still live", b.ID)
	}
	assert.Zero(t, d.Stats().PendingReadbacks)
	got, err := p.Await(context.Background())
	require.NoError(t, err)
	assert.Len(t, got, 16)
}

// After an Await of ReadAsyncInto's promise gives up, nothing writes into
// the caller's slice; the promise resolves with the bytes elsewhere.
func TestCancelledReadIntoLeavesDstAlone(t *testing.T) {
	d := testgpu.Open(t)
	dst := bytes.Repeat([]byte{0xAB}, 16)
	p, y := spinReadback(t, d, dst)
	defer y.Release()
	_, err := p.Await(cancelled())
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, testgpu.Settle(d, testgpu.Timeout))
	waitSettled(t, p)
	assert.Equal(t, bytes.Repeat([]byte{0xAB}, 16), dst, "the readback wrote into dst after its Await gave up")
	got, err := p.Await(context.Background())
	require.NoError(t, err)
	require.Len(t, got, 16)
	assert.NotSame(t, &dst[0], &got[0])
	assert.NotEqual(t, dst, got, "the spin kernel's output is not 0xAB bytes")
}

// The same through a promise derived from it. (A test of its own: a second
// GL device polled while the first one's poller runs aborts in wgpu-native
// with EGL's BadAccess.)
func TestCancelledChainLeavesDstAlone(t *testing.T) {
	d := testgpu.Open(t)
	dst := bytes.Repeat([]byte{0xAB}, 16)
	p, y := spinReadback(t, d, dst)
	defer y.Release()
	q := wgpu.Chain(p, func(b []byte) (int, error) { return len(b), nil })
	_, err := q.Await(cancelled())
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, testgpu.Settle(d, testgpu.Timeout))
	waitSettled(t, p)
	assert.Equal(t, bytes.Repeat([]byte{0xAB}, 16), dst, "the readback wrote into dst after an Await of a promise derived from it gave up")
}

func TestReleaseSourceWhileReadbackPending(t *testing.T) {
	d := testgpu.Open(t)
	want := ramp(4096, 2)
	x := upload(t, d, want)
	p := d.ReadAsync(x, 0, x.Size())
	require.NoError(t, x.Release())
	// Reuse the same pooled buffer at once and overwrite it.
	x2, err := d.NewBuffer(x.Size(), wgpu.UsageStorage)
	require.NoError(t, err)
	assert.EqualValues(t, 1, d.Pool().Stats().Reuses)
	require.NoError(t, d.Write(x2, 0, f32bytes(ramp(4096, -1))))
	require.NoError(t, d.Pool().Trim())
	got, err := p.Await(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, want, bytesF32(got), "the readback sees the bytes from when it was recorded")
	assert.Equal(t, ramp(4096, -1), readF32(t, d, x2))
	require.NoError(t, x2.Release())
}

func TestDestroyedStagingRejectsWithAbort(t *testing.T) {
	d := testgpu.Open(t)
	x := upload(t, d, ramp(64, 1))
	p := d.ReadAsync(x, 0, x.Size())
	require.Equal(t, 1, wgpu.DestroyPendingStaging(d))
	_, err := p.Await(ctxT(t))
	require.ErrorIs(t, err, wgpu.ErrAborted)
	assert.Contains(t, err.Error(), "destroyed while its map was pending")
	assert.Equal(t, wgpu.PromiseRejected, p.State())
	// The device is unharmed.
	assert.Equal(t, ramp(64, 1), readF32(t, d, x))
	require.NoError(t, x.Release())
}

func TestPromisesSettleOnlyWhenPolled(t *testing.T) {
	d := testgpu.Open(t)
	x := upload(t, d, ramp(64, 1))
	p := d.ReadAsync(x, 0, 8)
	thenRan := make(chan struct{})
	p.OnSettled(func([]byte, error) { close(thenRan) })
	require.NoError(t, d.Flush())
	time.Sleep(20 * time.Millisecond)
	assert.Equal(t, wgpu.PromisePending, p.State(), "submitted and finished on the GPU, but nobody polled")
	require.NoError(t, d.Poll(true))
	assert.Equal(t, wgpu.PromiseFulfilled, p.State())
	<-thenRan // the callback runs once the promise settled, on a goroutine of its own
	doubled := wgpu.Chain(p, func(b []byte) (float32, error) { return 2 * bytesF32(b)[1], nil })
	v, err := doubled.Await(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, float32(2), v)
	require.NoError(t, x.Release())
}

func TestBackgroundPollerSettlesWithoutAwait(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.PollInterval = time.Millisecond
	d := testgpu.OpenWith(t, opts)
	x := upload(t, d, ramp(64, 1))
	p := d.ReadAsync(x, 0, 8)
	require.NoError(t, d.Flush())
	select {
	case <-p.Done():
	case <-time.After(time.Minute):
		t.Fatal("the background poller did not settle the promise")
	}
	require.NoError(t, x.Release())
}

func TestWorkDone(t *testing.T) {
	d := testgpu.Open(t)
	k, err := d.Kernel(wgpu.KernelSpec{Name: "spin", Source: spinWGSL, Bindings: []wgpu.Access{wgpu.ReadWrite}})
	require.NoError(t, err)
	y, err := d.NewBuffer(4*64, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, d.Dispatch(k, [3]uint32{1, 1, 1}, nil, y))
	_, err = d.WorkDone().Await(ctxT(t))
	require.NoError(t, err)
	require.NoError(t, y.Release())
}

// The binding's own MapAsync keeps its callback handle in memory that a GC
// may free before the callback runs; wgtensor's shim must not. Forcing
// collections between map requests and the poll exercises exactly that.
func TestMapCallbacksSurviveGC(t *testing.T) {
	d := testgpu.Open(t)
	x := upload(t, d, ramp(64, 1))
	for range 20 {
		var ps []*wgpu.Promise[[]byte]
		for i := range 32 {
			ps = append(ps, d.ReadAsync(x, uint64(4*i), 4))
		}
		require.NoError(t, d.Flush())
		runtime.GC()
		garbage := make([][]byte, 0, 4096)
		for i := range 4096 {
			garbage = append(garbage, make([]byte, 8+i%3))
		}
		_ = garbage
		require.NoError(t, d.Poll(true))
		for i, p := range ps {
			got, err := p.Await(ctxT(t))
			require.NoError(t, err)
			require.Equal(t, float32(i), bytesF32(got)[0])
		}
	}
	require.NoError(t, x.Release())
}

// doneAfter is a context that cancels itself the nth time Done is called,
// so that a test can end a context part way through a loop that checks it,
// without a clock.
type doneAfter struct {
	context.Context
	cancel context.CancelFunc
	calls  atomic.Int32
	n      int32
}

func newDoneAfter(n int32) *doneAfter {
	ctx, cancel := context.WithCancel(context.Background())
	return &doneAfter{Context: ctx, cancel: cancel, n: n}
}

func (c *doneAfter) Done() <-chan struct{} {
	if c.calls.Add(1) == c.n {
		c.cancel()
	}
	return c.Context.Done()
}

// The spin in Await checks the context between polls: a promise that no
// poll can settle (its OnSettled callback is held until Await returns) and a
// context that ends on its third check leave Await nothing else to return on.
func TestSpinningAwaitHonoursCancellation(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.SpinWait = time.Hour // the spin alone would never give up
	d := testgpu.OpenWith(t, opts)
	x := upload(t, d, ramp(64, 1))
	defer x.Release()
	hold := make(chan struct{})
	q := wgpu.Chain(d.ReadAsync(x, 0, 16), func(b []byte) ([]byte, error) {
		<-hold
		return b, nil
	})
	ctx := newDoneAfter(3)
	defer ctx.cancel()
	_, err := q.Await(ctx)
	require.ErrorIs(t, err, context.Canceled)
	close(hold)
	got, err := q.Await(ctxT(t))
	require.NoError(t, err)
	assert.Len(t, got, 16)
}

func TestAwaitWithoutSpinning(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.SpinWait = -1
	d := testgpu.OpenWith(t, opts)
	x := upload(t, d, ramp(64, 1))
	defer x.Release()
	for range 10 {
		assert.Equal(t, ramp(64, 1), readF32(t, d, x))
	}
}

// A storm of readbacks whose Awaits give up at once: every one is still
// submitted and settled by the poller the Awaits leave behind, without the
// test polling, and the staging memory goes back to the pool and, on Trim,
// to the driver. (They used to stay recorded and pending, each holding its
// staging buffer, until something else polled.)
func TestCancellationStormSettlesAndReturnsMemory(t *testing.T) {
	d := testgpu.Open(t)
	x := upload(t, d, ramp(8192, 1))
	defer x.Release()
	baseline := d.Pool().Stats()
	const n = 2000
	promises := make([]*wgpu.Promise[[]byte], 0, n)
	for i := range n {
		var p *wgpu.Promise[[]byte]
		if i%2 == 0 {
			p = d.ReadAsync(x, 0, x.Size())
		} else {
			p = d.ReadAsyncInto(x, 0, make([]byte, x.Size()))
		}
		if _, err := p.Await(cancelled()); err != nil { // else the poller left by earlier Awaits was first
			require.ErrorIs(t, err, context.Canceled)
		}
		promises = append(promises, p)
	}
	for _, p := range promises {
		waitSettled(t, p)
		require.Equal(t, wgpu.PromiseFulfilled, p.State())
	}
	assert.Zero(t, d.Stats().PendingReadbacks)
	require.NoError(t, d.Pool().Trim())
	after := d.Pool().Stats()
	assert.Equal(t, baseline.LiveBuffers, after.LiveBuffers, "no staging buffer is left live")
	assert.Zero(t, after.PooledBuffers)
	assert.Equal(t, baseline.LiveBytes, after.ReservedBytes, "the driver holds only what was live before the storm")
}
