package wgpu

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// readback copies part of a buffer into a staging buffer and maps it.
// Its fields are protected by Device.mu, except status, which the map
// callback sets under Device.doneMu before handing it over, and dst.
type readback struct {
	p       *Promise[[]byte]
	staging *Buffer
	skip    uint64 // bytes of the staging copy before the first byte asked for
	size    uint64 // bytes asked for
	status  uint32

	dstMu sync.Mutex // protects dst, and is held while bytes are copied into it
	dst   []byte     // where the bytes go; nil: a new slice
	// reclaimed: the staging buffer went back to the pool; it may since
	// serve another readback, so nothing here may touch it again.
	reclaimed bool
}

// reclaim returns the staging buffer to the pool, once.
func (rb *readback) reclaim(d *Device) {
	if rb.reclaimed || d.closed {
		return
	}
	rb.reclaimed = true
	if rb.staging.live {
		d.pool.put(rb.staging)
	}
}

// ReadAsync starts reading size bytes of b at offset back to the host and
// returns at once. The copy is recorded in the open batch, so it sees all
// work recorded before it; the batch is submitted when the promise is
// awaited, on Flush or Poll, or when the batch fills.
//
// Releasing b after ReadAsync returns is safe: the promise still resolves
// with the bytes b held when the copy was recorded. Offset and size need
// no alignment, but must lie within b's Size; reading 0 bytes resolves at
// once. A read of a buffer whose contents a failed batch lost is rejected
// with that batch's error.
func (d *Device) ReadAsync(b *Buffer, offset, size uint64) *Promise[[]byte] {
	return d.readAsync(b, offset, size, nil)
}

// ReadAsyncInto is ReadAsync into memory the caller owns: it reads len(dst)
// bytes of b at offset straight from the mapped staging buffer into dst, and
// the promise resolves with dst. It saves the allocation and the copy that
// ReadAsync's fresh slice costs, which matters for large reads. The caller
// must not touch dst until the promise settles or an Await of it returns
// an error; if it is rejected, dst's contents are unspecified.
//
// Once an Await of the promise gives up (its context is done), dst is
// detached: nothing writes into it after that Await returns (it waits for
// a copy already under way), and the promise, awaited again, resolves with
// the bytes in a new slice instead.
func (d *Device) ReadAsyncInto(b *Buffer, offset uint64, dst []byte) *Promise[[]byte] {
	if dst == nil {
		dst = []byte{}
	}
	return d.readAsync(b, offset, uint64(len(dst)), dst)
}

func (d *Device) readAsync(b *Buffer, offset, size uint64, dst []byte) *Promise[[]byte] {
	op := fmt.Sprintf("read %d B at %d from buffer %d", size, offset, b.ID())
	if err := d.opened(op); err != nil {
		return RejectedWith[[]byte](err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(op); err != nil {
		return RejectedWith[[]byte](err)
	}
	if err := d.checkBuffer(op, "the buffer", b); err != nil {
		return RejectedWith[[]byte](err)
	}
	if err := checkContents(op, "the buffer", b); err != nil {
		return RejectedWith[[]byte](err)
	}
	if err := checkRange(op, b, offset, size); err != nil {
		return RejectedWith[[]byte](err)
	}
	if size == 0 {
		if dst == nil {
			dst = []byte{}
		}
		return Resolved(dst)
	}
	lo := offset &^ 3
	hi := (offset + size + 3) &^ 3 // within Capacity, which is a multiple of 4
	if err := d.makeRoomLocked(copyWork(hi - lo)); err != nil {
		return RejectedWith[[]byte](err)
	}
	staging, err := d.newBufferLocked(hi-lo, UsageReadback, nil, true)
	if err != nil {
		return RejectedWith[[]byte](err)
	}
	if err := d.encoderLocked(); err != nil {
		d.pool.put(staging)
		return RejectedWith[[]byte](err)
	}
	r := &d.rec
	r.endPass()
	if err := r.enc.CopyBufferToBuffer(b.raw, lo, staging.raw, 0, hi-lo); err != nil {
		// The encoder is now invalid; Finish will report it for the batch.
		d.pool.put(staging)
		return RejectedWith[[]byte](fromBinding(op, err))
	}
	r.name(b, staging)
	rb := &readback{p: newPromise[[]byte](d.await), staging: staging, skip: offset - lo, size: size, dst: dst}
	if dst != nil {
		rb.p.abandon = rb.detach
	}
	d.pend(rb)
	r.readbacks = append(r.readbacks, rb)
	r.commands++
	d.stats.Copies++
	if full := d.addWorkLocked(copyWork(hi - lo)); full || r.commands >= d.opts.BatchSize {
		// An error here has rejected rb and reached the error scopes.
		_ = d.flushLocked()
	}
	return rb.p
}

// requestMap asks for the staging buffer to be mapped, after the batch that
// copies into it was submitted. Called under Device.mu.
func (rb *readback) requestMap(d *Device) {
	err := mapRead(d.dev, rb.staging.raw, rb.staging.capacity, d.whenMapped(rb, &rb.status))
	if err != nil {
		// Settle now; a late callback finds rb no longer pending.
		d.unpend(rb)
		rb.reclaim(d)
		rb.p.settle(nil, fromBinding(fmt.Sprintf("map %d B for readback", rb.size), err))
	}
}

// detach gives up the caller's slice: the bytes go to a new slice instead.
// It waits for a copy into dst already under way.
func (rb *readback) detach() {
	rb.dstMu.Lock()
	rb.dst = nil
	rb.dstMu.Unlock()
}

// copyOut copies the mapped bytes into dst, or into a new slice if there is
// none (or no more), and returns it.
func (rb *readback) copyOut(mapped []byte) []byte {
	rb.dstMu.Lock()
	defer rb.dstMu.Unlock()
	data := rb.dst
	if data == nil {
		data = make([]byte, rb.size)
	}
	copyParallel(data, mapped)
	return data
}

// whenMapped returns the callback of s's map request: it records the map's
// status in *status and hands s to the next poll to settle. It runs inside
// wgpu-native, on whichever goroutine polls, so it takes only d.doneMu.
func (d *Device) whenMapped(s settler, status *uint32) func(uint32) {
	return func(st uint32) {
		d.doneMu.Lock()
		*status = st
		d.done = append(d.done, s)
		d.doneMu.Unlock()
	}
}

// complete settles rb from its map status and reclaims the staging buffer;
// a successful map's bytes are copied out by the function it returns.
func (rb *readback) complete(d *Device) (finish func()) {
	st := rb.staging
	if rb.status == mapSuccess && !st.alloc.destroyed {
		mapped := st.raw.GetMappedRange(0, uint(st.capacity))[rb.skip : rb.skip+rb.size]
		// The copy, milliseconds for a large read, runs outside d.mu, so
		// that others go on recording work meanwhile. The staging buffer
		// stays mapped and out of the pool until it is done, and Close, the
		// one call that could destroy it, waits for the poll that runs this.
		// Until it settles, rb counts as pending in Stats.
		d.copyingReadbacks++
		return func() {
			data := rb.copyOut(mapped)
			d.mu.Lock()
			defer d.mu.Unlock()
			d.copyingReadbacks--
			err := st.raw.Unmap()
			rb.reclaim(d)
			if err != nil {
				rb.p.settle(nil, fromBinding("unmap staging buffer", err))
				return
			}
			rb.p.settle(data, nil)
		}
	}
	var err error
	op := fmt.Sprintf("map %d B for readback", rb.size)
	switch {
	case st.alloc.destroyed:
		err = newError(op, ErrAborted, "the staging buffer was destroyed while its map was pending")
	case rb.status == mapDeviceLost:
		err = newError(op, ErrDeviceLost, "")
	default:
		err = newError(op, ErrOperation, mapStatusString(rb.status))
	}
	rb.reclaim(d)
	rb.p.settle(nil, err)
	return nil
}

// fail settles rb with err; its caller reclaims the staging buffer.
func (rb *readback) fail(err error) { rb.p.settle(nil, err) }

// mapStatusOf is the status a map callback gave s, or mapSuccess for
// requests that are not maps.
func mapStatusOf(s settler) uint32 {
	switch s := s.(type) {
	case *readback:
		return s.status
	case *uploadMap:
		return s.status
	}
	return mapSuccess
}

// workDone is a WorkDone request.
type workDone struct{ p *Promise[struct{}] }

func (w *workDone) complete(*Device) func() { w.p.settle(struct{}{}, nil); return nil }
func (w *workDone) fail(err error)          { w.p.settle(struct{}{}, err) }

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
	d.pend(w)
	onWorkDone(d.queue, func(uint32) {
		d.doneMu.Lock()
		d.done = append(d.done, w)
		d.doneMu.Unlock()
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
// promises they complete. Their Then callbacks start on goroutines of their
// own (see Promise.Then); Poll does not wait for them.
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
		d.dev.Poll(wait, nil) // see glMu
	} else {
		d.mu.Unlock() // others record work meanwhile
		d.dev.Poll(wait, nil)
		d.mu.Lock()
	}
	d.doneMu.Lock()
	done := d.done
	d.done = nil
	d.doneMu.Unlock()
	var finishes []func()
	for _, s := range done {
		if mapStatusOf(s) == mapDeviceLost && d.state == nil {
			d.loseLocked(LostUnknown, "a map reported device loss")
		}
		if d.unpend(s) {
			if finish := s.complete(d); finish != nil {
				finishes = append(finishes, finish)
			}
		} else if rb, ok := s.(*readback); ok && !rb.reclaimed && !d.closed {
			// Settled earlier (by loss); reclaim its staging buffer now.
			if rb.status == mapSuccess {
				_ = rb.staging.raw.Unmap()
			}
			rb.reclaim(d)
		}
	}
	d.mu.Unlock()
	for _, finish := range finishes {
		finish()
	}
	return len(done) > 0, ferr
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
	start := d.state == nil && !d.polling && len(d.pending) > 0
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
		if err != nil || d.state != nil || len(d.pending) == 0 {
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

// copyParallel is copy for large transfers: one core does not saturate the
// memory bus, so slices of 8 MiB or more are copied in parallel chunks.
func copyParallel(dst, src []byte) {
	const chunk = 4 << 20
	n := min(len(dst), len(src))
	workers := min(runtime.GOMAXPROCS(0), n/chunk)
	if workers < 2 {
		copy(dst, src)
		return
	}
	per := (n/workers + 63) &^ 63
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			copy(dst[lo:hi], src[lo:hi])
		}()
	}
	wg.Wait()
}
