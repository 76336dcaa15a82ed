package wgpu

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/wgtensor/wgtensor/wgpu/internal/native"
)

// readback copies part of a buffer into a staging buffer and maps it.
// Its fields are protected by Device.mu, except status, which the map
// callback sets under Device.firedMu before handing it over, and dst.
type readback struct {
	p       *Promise[[]byte]
	staging *Buffer
	skip    uint64 // bytes of the staging copy before the first byte asked for
	size    uint64 // bytes asked for
	status  native.MapStatus
	// poisonOf, with Options.Poison, names the storage buffer read from an
	// offset that is a multiple of 4, whose bytes must not hold PoisonWord.
	poisonOf string

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
	if err := r.enc.Copy(b.raw, lo, staging.raw, 0, hi-lo); err != nil {
		// The encoder is now invalid; Finish will report it for the batch.
		d.pool.put(staging)
		return RejectedWith[[]byte](fromBinding(op, err))
	}
	r.name(b, staging)
	rb := &readback{p: newPromise[[]byte](d.await), staging: staging, skip: offset - lo, size: size, dst: dst}
	if d.opts.Poison && b.usage == UsageStorage && !b.internal && offset%4 == 0 {
		rb.poisonOf = fmt.Sprintf("buffer %d (%d B at %d, created at %s)", b.id, size, offset, b.site)
	}
	if dst != nil {
		rb.p.abandon = rb.detach
	}
	d.pending.readbacks.add(rb)
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
	err := d.dev.MapRead(rb.staging.raw, rb.staging.capacity, func(st native.MapStatus) {
		d.fire(func(f *requestList) { rb.status = st; f.readbacks = append(f.readbacks, rb) })
	})
	if err != nil {
		// Settle now; a late callback finds rb no longer pending.
		d.pending.readbacks.remove(rb)
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

// complete settles rb from its map status and reclaims the staging buffer;
// a successful map's bytes are copied out by the function it returns.
func (rb *readback) complete(d *Device) (finish func()) {
	st := rb.staging
	if rb.status == native.MapSuccess && !st.alloc.destroyed {
		mapped := st.raw.Mapped(st.capacity)[rb.skip : rb.skip+rb.size]
		// The copy, milliseconds for a large read, runs outside d.mu, so
		// that others go on recording work meanwhile. The staging buffer
		// stays mapped and out of the pool until it is done, and Close, the
		// one call that could destroy it, waits for the poll that runs this.
		// Until it settles, rb counts as pending in Stats.
		d.copyingReadbacks++
		return func() {
			data := rb.copyOut(mapped)
			bad := -1
			if rb.poisonOf != "" {
				bad = poisoned(data) // before the lock: a scan of the whole read
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			d.copyingReadbacks--
			err := st.raw.Unmap()
			rb.reclaim(d)
			if err != nil {
				rb.p.settle(nil, fromBinding("unmap staging buffer", err))
				return
			}
			if bad >= 0 {
				rb.p.settle(nil, newError("read "+rb.poisonOf, ErrPoisoned, fmt.Sprintf("word %d is %#08x", bad, PoisonWord)))
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
	case rb.status == native.MapDeviceLost:
		err = newError(op, ErrDeviceLost, "")
	default:
		err = newError(op, ErrOperation, rb.status.String())
	}
	rb.reclaim(d)
	rb.p.settle(nil, err)
	return nil
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
