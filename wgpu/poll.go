package wgpu

import (
	"context"
	"time"

	"github.com/wgtensor/wgtensor/wgpu/internal/native"
)

// Requests settle when wgpu-native runs their callbacks, and it runs them
// only inside a poll, on the polling goroutine. A callback takes only
// Device.firedMu: it records its outcome and adds its request to
// Device.fired. The poll then settles the fired requests that are still
// pending, under Device.mu, and copies readbacks' bytes out under no lock.
// Loss and Close settle every pending request at once instead; a callback
// that fires after that finds its request no longer pending.

// requests are the device's requests waiting for their callbacks, one set
// per kind. Protected by Device.mu.
type requests struct {
	readbacks set[*readback]  // staging buffers being mapped for reading
	uploads   set[*uploadMap] // upload buffers being mapped again for reuse
	workDones set[*workDone]  // WorkDone promises
}

func newRequests() requests {
	return requests{readbacks: set[*readback]{}, uploads: set[*uploadMap]{}, workDones: set[*workDone]{}}
}

func (r requests) empty() bool {
	return len(r.readbacks) == 0 && len(r.uploads) == 0 && len(r.workDones) == 0
}

// requestList lists requests whose callbacks fired, in the order they
// fired within each kind. Protected by Device.firedMu.
type requestList struct {
	readbacks []*readback
	uploads   []*uploadMap
	workDones []*workDone
}

func (l requestList) len() int { return len(l.readbacks) + len(l.uploads) + len(l.workDones) }

// set is a set of requests of one kind.
type set[T comparable] map[T]struct{}

func (s set[T]) add(x T) { s[x] = struct{}{} }

// remove takes x out of s and reports whether it was there.
func (s set[T]) remove(x T) bool {
	_, ok := s[x]
	delete(s, x)
	return ok
}

// fire records a callback's outcome: add sets it and appends the request
// to the fired list. Callbacks run inside wgpu-native, on whichever
// goroutine polls, so fire takes only d.firedMu.
func (d *Device) fire(add func(*requestList)) {
	d.firedMu.Lock()
	add(&d.fired)
	d.firedMu.Unlock()
}

// takeFired empties the fired list and returns what it held.
func (d *Device) takeFired() requestList {
	d.firedMu.Lock()
	defer d.firedMu.Unlock()
	f := d.fired
	d.fired = requestList{}
	return f
}

// rejectPendingLocked settles every pending request with err (the device
// is lost or closing) and takes back what they held.
func (d *Device) rejectPendingLocked(err error) {
	for rb := range d.pending.readbacks {
		rb.p.settle(nil, err)
		// No new work is accepted from here on, so the staging buffer
		// cannot be handed to another readback while its map is pending.
		rb.reclaim(d)
	}
	for u := range d.pending.uploads {
		if !d.closed { // Close destroys every buffer itself
			d.pool.drop(u.staging)
		}
	}
	for w := range d.pending.workDones {
		w.p.settle(struct{}{}, err)
	}
	d.pending = newRequests()
}

// workDone is a WorkDone request.
type workDone struct{ p *Promise[struct{}] }

// WorkDone submits the recorded work and returns a promise that settles
// when the GPU has finished everything submitted so far, like WebGPU's
// queue.onSubmittedWorkDone().
func (d *Device) WorkDone() *Promise[struct{}] {
	if err := d.opened("work done"); err != nil {
		return RejectedWith[struct{}](err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable("work done"); err != nil {
		return RejectedWith[struct{}](err)
	}
	if err := d.flushLocked(); err != nil {
		return RejectedWith[struct{}](err)
	}
	w := &workDone{p: newPromise[struct{}](d.await)}
	d.pending.workDones.add(w)
	d.dev.OnWorkDone(func() {
		d.fire(func(f *requestList) { f.workDones = append(f.workDones, w) })
	})
	return w.p
}

// Sync submits the recorded work and waits until the GPU has finished it.
func (d *Device) Sync(ctx context.Context) error {
	_, err := d.WorkDone().Await(ctx)
	return err
}

// Poll submits the recorded work, asks wgpu-native to run the callbacks of
// finished work (waiting for the GPU if wait is true), and settles the
// promises they complete. Their OnSettled callbacks start on goroutines of
// their own (see Promise.OnSettled); Poll does not wait for them.
func (d *Device) Poll(wait bool) error {
	_, err := d.poll(wait)
	return err
}

// poll is Poll; it also reports whether any request settled.
func (d *Device) poll(wait bool) (progressed bool, err error) {
	if err := d.opened("poll"); err != nil {
		return false, err
	}
	d.pollMu.Lock()
	defer d.pollMu.Unlock()
	return d.pollLocked(wait)
}

// pollLocked is poll for a caller that holds d.pollMu.
func (d *Device) pollLocked(wait bool) (progressed bool, err error) {
	d.mu.Lock()
	if err := d.usable("poll"); err != nil {
		d.mu.Unlock()
		return false, err
	}
	ferr := d.flushLocked()
	if d.mu == &glMu {
		d.dev.Poll(wait) // see glMu
	} else {
		d.mu.Unlock() // others record work meanwhile
		d.dev.Poll(wait)
		d.mu.Lock()
	}
	fired := d.takeFired()
	finishes := d.settleFiredLocked(fired)
	d.mu.Unlock()
	for _, finish := range finishes {
		finish()
	}
	return fired.len() > 0, ferr
}

// settleFiredLocked settles the fired requests that are still pending and
// returns the work that finishes readbacks, to run with d.pollMu held and
// d.mu not held. A map that reports device loss loses the device, and the
// requests settled after it are rejected.
func (d *Device) settleFiredLocked(fired requestList) (finishes []func()) {
	for _, rb := range fired.readbacks {
		d.noteMapStatus(rb.status)
		if d.pending.readbacks.remove(rb) {
			if finish := rb.complete(d); finish != nil {
				finishes = append(finishes, finish)
			}
		} else if !rb.reclaimed && !d.closed {
			// Settled earlier (by loss); reclaim its staging buffer now.
			if rb.status == native.MapSuccess {
				_ = rb.staging.raw.Unmap()
			}
			rb.reclaim(d)
		}
	}
	for _, u := range fired.uploads {
		d.noteMapStatus(u.status)
		if d.pending.uploads.remove(u) {
			u.complete(d)
		}
	}
	for _, w := range fired.workDones {
		if d.pending.workDones.remove(w) {
			w.p.settle(struct{}{}, nil)
		}
	}
	return finishes
}

// noteMapStatus loses the device if a map reported its loss.
func (d *Device) noteMapStatus(s native.MapStatus) {
	if s == native.MapDeviceLost && d.state == nil {
		d.loseLocked(LostUnknown, "a map reported device loss")
	}
}

// await is what awaiting a device promise does: submit the recorded work,
// spin, and if the promise is still pending make sure a goroutine polls
// until nothing is.
func (d *Device) await(ctx context.Context, done <-chan struct{}) {
	d.mu.Lock()
	if d.state != nil {
		d.mu.Unlock()
		return
	}
	_ = d.flushLocked() // a failure rejects what it concerns
	d.mu.Unlock()
	d.spin(ctx, done)
	select {
	case <-done:
		return
	default:
	}
	d.mu.Lock()
	start := d.state == nil && !d.polling && !d.pending.empty()
	if start {
		d.polling = true
	}
	d.mu.Unlock()
	if start {
		go d.pollUntilSettled()
	}
}

// spin polls without blocking, yielding the processor between polls, until
// done closes, ctx ends or Options.SpinWait has passed. A short readback
// settles sooner than a thread blocked in a poll is woken, and no goroutine
// has to hand the result over, so a spinning Await returns in about half
// the time. One goroutine spins at a time; the others wait on the poller.
func (d *Device) spin(ctx context.Context, done <-chan struct{}) {
	if d.opts.SpinWait <= 0 || !d.spinning.CompareAndSwap(false, true) {
		return
	}
	defer d.spinning.Store(false)
	deadline := time.Now().Add(d.opts.SpinWait)
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		default:
		}
		if time.Now().After(deadline) {
			return
		}
		if d.pollMu.TryLock() { // else another goroutine polls already
			_, err := d.pollLocked(false)
			d.pollMu.Unlock()
			if err != nil {
				return
			}
		}
		yieldProcessor()
	}
}

// pollUntilSettled polls, waiting for the GPU, until no request is pending.
func (d *Device) pollUntilSettled() {
	for {
		progressed, err := d.poll(true)
		d.mu.Lock()
		if err != nil || d.state != nil || d.pending.empty() {
			d.polling = false
			d.mu.Unlock()
			return
		}
		d.mu.Unlock()
		if !progressed {
			time.Sleep(50 * time.Microsecond)
		}
	}
}

// backgroundPoll polls every interval until Close.
func (d *Device) backgroundPoll(every time.Duration) {
	defer close(d.pollerDone)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-d.stopPoller:
			return
		case <-t.C:
			if _, err := d.poll(false); err != nil {
				return
			}
		}
	}
}
