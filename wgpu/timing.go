package wgpu

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// TimingSource says how a DispatchTiming's Duration was measured.
type TimingSource int

// The sources.
const (
	// WallTime: the dispatch was submitted alone, after the GPU had
	// finished everything before it, and waited for; its Duration is the
	// host's wall time from recording it to the GPU reporting it done, so
	// it includes the submission's own cost.
	WallTime TimingSource = iota
	// GPUTimestamps: timestamp queries written by the GPU at the start
	// and end of the dispatch's compute pass (the adapter's
	// timestamp-query feature). wgpu-native exposes no timestamp period,
	// so ticks are taken as nanoseconds, which lavapipe's and NVIDIA's
	// Vulkan drivers count; other drivers' durations may be scaled.
	GPUTimestamps
)

func (s TimingSource) String() string {
	if s == GPUTimestamps {
		return "gpu timestamps"
	}
	return "wall time of lone submissions"
}

// DispatchTiming is one dispatch that ran while a Timer was running.
type DispatchTiming struct {
	Kernel  string    // the kernel's name (KernelSpec.Name)
	Key     string    // the kernel's cache key (KernelSpec.Key, or Name)
	Groups  [3]uint32 // the workgroups dispatched
	Read    uint64    // bytes of the buffers bound read-only (their sizes)
	Written uint64    // bytes of the buffers bound read-write (their sizes)
	// Start is when the dispatch began: with WallTime since the Timer
	// started, with GPUTimestamps since the first dispatch timed began.
	Start time.Duration
	// Duration is how long it ran, measured as Source says.
	Duration time.Duration
	Source   TimingSource
}

// TimingReport is what a Timer saw: every dispatch recorded on the device
// while it ran, in the order they were recorded, and the memory that
// buffers other than the runtime's own (staging, parameters) took.
type TimingReport struct {
	Dispatches []DispatchTiming
	Source     TimingSource // how the durations were measured
	// NewBytes is the capacity of the buffers handed out while the timer
	// ran (new or reused from the pool), as Pool.Stats counts bytes.
	NewBytes uint64
	// PeakBytes is the most capacity those buffers and the ones live when
	// the timer started held at once while it ran.
	PeakBytes uint64
	// Elapsed is the wall time from StartTiming to Stop.
	Elapsed time.Duration
}

// Timer times every dispatch recorded on its device, from StartTiming to
// Stop, whichever goroutine records it. It does not touch the pool's own
// figures (Pool.Stats peaks stay as they are).
//
// Where the device has timestamp queries (the adapter's timestamp-query
// feature), each dispatch runs in a compute pass of its own whose start
// and end the GPU stamps (GPUTimestamps); batches are submitted as usual.
// Elsewhere, or with WGT_TIMESTAMPS=0 in the environment, each dispatch is
// submitted on its own and waited for (WallTime), so timed work runs
// slower and no dispatch overlaps another.
//
// A Timer is safe for concurrent use; dispatches recorded from several
// goroutines while it runs are recorded one at a time.
type Timer struct {
	d     *Device
	began time.Time

	mu sync.Mutex // serialises timed dispatches and Stop

	// Protected by d.mu.
	records []DispatchTiming
	stamps  *stamps // nil: wall time
	stopped bool
}

// memWatch follows the bytes of buffers other than the runtime's own while
// a Timer runs. It is protected by Device.mu.
type memWatch struct {
	live, peak, added uint64
}

// handedOut notes a buffer handed out; w may be nil.
func (w *memWatch) handedOut(b *Buffer) {
	if w == nil || b.internal {
		return
	}
	w.live += b.capacity
	w.added += b.capacity
	w.peak = max(w.peak, w.live)
}

// released notes a buffer put back; w may be nil.
func (w *memWatch) released(b *Buffer) {
	if w == nil || b.internal {
		return
	}
	w.live -= b.capacity
}

// StartTiming starts a Timer on d. Only one Timer runs on a device at a
// time: while another runs, StartTiming returns an error wrapping
// ErrInvalidArgument. Stop the Timer to end it.
func (d *Device) StartTiming() (*Timer, error) {
	const op = "start timing"
	if err := d.opened(op); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(op); err != nil {
		return nil, err
	}
	if d.timer.Load() != nil {
		return nil, newError(op, ErrInvalidArgument, "another timer is running on the device")
	}
	w := &memWatch{}
	for b := range d.pool.live {
		w.handedOut(b)
	}
	w.added = 0
	t := &Timer{d: d, began: time.Now()}
	if d.dev.Timestamps() && os.Getenv("WGT_TIMESTAMPS") != "0" {
		t.stamps = d.newStampsLocked() // nil if they cannot be had
	}
	d.pool.watch = w
	d.timer.Store(t)
	return t, nil
}

// HasTimestamps reports whether d can time dispatches with the GPU's
// timestamp queries: whether its adapter offers the timestamp-query
// feature. A Timer uses them unless WGT_TIMESTAMPS=0.
func (d *Device) HasTimestamps() bool {
	return d.opened("has timestamps") == nil && d.dev.Timestamps()
}

// Source says how t measures dispatches.
func (t *Timer) Source() TimingSource {
	if t == nil || t.stamps == nil {
		return WallTime
	}
	return GPUTimestamps
}

// Stop ends the timer, waits until the GPU has finished the work recorded
// while it ran (ctx bounds the wait), and reports what it saw. A second
// Stop returns an error wrapping ErrInvalidArgument. Whatever the wait
// returns, the timer is stopped and its device free for another.
func (t *Timer) Stop(ctx context.Context) (TimingReport, error) {
	const op = "stop timing"
	if t == nil || t.d == nil {
		return TimingReport{}, newError(op, ErrInvalidArgument, "not a timer from StartTiming")
	}
	t.mu.Lock() // waits for a timed dispatch in progress
	defer t.mu.Unlock()
	d := t.d
	d.mu.Lock()
	stopped := t.stopped
	t.stopped = true
	d.mu.Unlock()
	if stopped {
		return TimingReport{}, newError(op, ErrInvalidArgument, "the timer was stopped already")
	}
	var err error
	if t.stamps != nil {
		err = t.harvest(ctx)
	}
	d.mu.Lock()
	w := d.pool.watch
	d.pool.watch = nil
	d.timer.Store(nil)
	rep := TimingReport{Dispatches: t.keptRecordsLocked(), Source: t.Source(), NewBytes: w.added, PeakBytes: w.peak, Elapsed: time.Since(t.began)}
	t.records = nil
	d.mu.Unlock()
	if t.stamps != nil {
		t.stamps.release()
	}
	if err == nil {
		_, err = d.WorkDone().Await(ctx)
	}
	return rep, err
}

// keptRecordsLocked returns the records of the dispatches that ran: those
// of a batch that failed are dropped.
func (t *Timer) keptRecordsLocked() []DispatchTiming {
	return slices.DeleteFunc(t.records, func(r DispatchTiming) bool { return r.Duration < 0 })
}

// timedDispatch records a dispatch while t runs. With timestamps it is
// recorded as usual (recordDispatchLocked stamps it); otherwise it waits
// for the GPU to finish what came before, records the dispatch, submits
// it and waits for it, and notes the time that took.
func (d *Device) timedDispatch(t *Timer, k *Kernel, groups [3]uint32, work Work, params []byte, bufs []*Buffer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stamps != nil {
		if err := t.makeRoom(); err != nil {
			return err
		}
		return d.dispatchNow(k, groups, work, params, bufs)
	}
	d.mu.Lock()
	stopped := t.stopped
	d.mu.Unlock()
	if stopped { // stopped while this dispatch waited for t.mu
		return d.dispatchNow(k, groups, work, params, bufs)
	}
	op := fmt.Sprintf("timed dispatch %q", k.Name())
	if _, err := d.WorkDone().Await(context.Background()); err != nil {
		return wrapTimed(op, err)
	}
	start := time.Now()
	if err := d.dispatchNow(k, groups, work, params, bufs); err != nil {
		return err
	}
	if groups[0] == 0 || groups[1] == 0 || groups[2] == 0 {
		return nil // recorded nothing
	}
	if _, err := d.WorkDone().Await(context.Background()); err != nil {
		return wrapTimed(op, err)
	}
	rec := dispatchRecord(k, groups, bufs)
	rec.Start, rec.Duration, rec.Source = start.Sub(t.began), time.Since(start), WallTime
	d.mu.Lock()
	t.records = append(t.records, rec)
	d.mu.Unlock()
	return nil
}

// dispatchRecord describes a dispatch, its times left to fill in.
func dispatchRecord(k *Kernel, groups [3]uint32, bufs []*Buffer) DispatchTiming {
	rec := DispatchTiming{Kernel: k.spec.Name, Key: k.spec.key(), Groups: groups}
	for i, b := range bufs {
		if k.spec.Bindings[i] == ReadWrite {
			rec.Written += b.size
		} else {
			rec.Read += b.size
		}
	}
	return rec
}

// wrapTimed names op in err unless err is already one of ours.
func wrapTimed(op string, err error) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	return fmt.Errorf("wgpu: %s: %w", op, err)
}

// timerSlot is the Device's running Timer, read without a lock by every
// dispatch: nil, the common case, costs one atomic load.
type timerSlot = atomic.Pointer[Timer]
