package wgpu

import (
	"errors"
	"fmt"

	"github.com/wgtensor/wgtensor/wgpu/internal/native"
)

// recorder holds the open batch: commands recorded into one encoder and not
// yet submitted. It is protected by Device.mu.
type recorder struct {
	enc        *native.Encoder
	seq        uint64 // the open batch's number; buffers it names carry it
	commands   int    // dispatches and copies in the open batch
	bindGroups []*native.BindGroup
	params     []*paramChunk
	readbacks  []*readback // copies recorded; their maps are requested after submit
	uploads    []*Buffer   // upload buffers copied from; mapped again after submit
	written    []*Buffer   // buffers the batch writes: dispatch outputs, staged-write destinations
}

// batch is what a closed batch leaves to settle once it is submitted, or
// once it fails.
type batch struct {
	readbacks []*readback
	uploads   []*Buffer
	written   []*Buffer
}

// closeBatch ends the open batch's bookkeeping once its encoder is gone:
// it releases the bind groups, returns the parameter chunks to the pool,
// starts the next batch, and returns what is left to settle.
func (r *recorder) closeBatch(d *Device) batch {
	for _, bg := range r.bindGroups {
		bg.Release()
	}
	for _, c := range r.params {
		d.pool.put(c.buf)
	}
	b := batch{readbacks: r.readbacks, uploads: r.uploads, written: r.written}
	r.bindGroups, r.params, r.readbacks, r.uploads, r.written, r.commands = nil, nil, nil, nil, nil, 0
	r.seq++
	return b
}

// paramChunk is a uniform buffer holding the parameter blocks of one batch's
// dispatches, written once just before the batch is submitted.
type paramChunk struct {
	buf  *Buffer
	data []byte
}

const paramChunkSize = 16 << 10

// names reports whether recorded, unsubmitted work names a.
func (r *recorder) names(a *allocation) bool { return r.enc != nil && a.lastBatch == r.seq }

// name marks the buffers as named by the open batch, so that their memory
// is not destroyed before the batch is submitted.
func (r *recorder) name(bufs ...*Buffer) {
	for _, b := range bufs {
		b.alloc.lastBatch = r.seq
	}
}

func (d *Device) encoderLocked() error {
	if d.rec.enc != nil {
		return nil
	}
	enc, err := d.dev.NewEncoder("wgtensor batch")
	if err != nil {
		e := fromBinding("create command encoder", err)
		d.noteErr(e)
		return e
	}
	d.rec.enc = enc
	return nil
}

// discard drops the open batch without submitting it (Close).
func (r *recorder) discard(d *Device) {
	if r.enc != nil {
		r.enc.Discard()
		r.enc = nil
	}
	r.closeBatch(d)
}

// Flush submits the recorded work now.
func (d *Device) Flush() error {
	if err := d.opened("flush"); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable("flush"); err != nil {
		return err
	}
	return d.flushLocked()
}

// flushLocked submits the open batch, then requests the maps of the
// readbacks it copies into. Everything a batch names was checked when it
// was recorded and no named buffer is destroyed before this submit, because
// a submit error would abort the process inside wgpu-native.
func (d *Device) flushLocked() error {
	r := &d.rec
	if r.enc == nil {
		if d.unsubmittedWrites > 0 {
			// Queue writes reach the GPU only with a submission.
			d.dev.Submit()
			d.stats.Submits++
			d.unsubmittedWrites = 0
		}
		return nil
	}
	var err error
	for _, c := range r.params {
		if werr := d.dev.WriteBuffer(c.buf.raw, 0, c.data); werr != nil && err == nil {
			err = fromBinding("write kernel parameters", werr)
		}
	}
	d.resolveStampsLocked()
	cmd, ferr := r.enc.Finish()
	r.enc = nil
	if ferr != nil && err == nil {
		err = fromBinding(fmt.Sprintf("finish batch of %d commands", r.commands), ferr)
	}
	switch {
	case err == nil:
		d.dev.Submit(cmd)
		d.stats.Submits++
		d.unsubmittedWrites = 0
	case cmd != nil:
		cmd.Release()
	}
	b := r.closeBatch(d)
	d.settleStampsLocked(err)
	if err != nil {
		d.noteErr(err)
		d.failBatchLocked(err, b)
	} else {
		for _, rb := range b.readbacks {
			rb.requestMap(d)
		}
		d.remapUploadsLocked(b.uploads)
	}
	return err
}

// failBatchLocked settles the work of a batch that was not submitted:
// its readbacks reject with err and their staging buffers, which no map
// holds, go back to the pool; its upload buffers, left unmapped, are
// destroyed; the buffers it would have written are marked lost with err
// (see checkContents); err reaches the error scopes. Nothing the batch
// named stays live or pending.
func (d *Device) failBatchLocked(err error, b batch) {
	for _, w := range b.written {
		if w.live && w.lost == nil {
			w.lost = err
		}
	}
	for _, rb := range b.readbacks {
		d.pending.readbacks.remove(rb)
		rb.reclaim(d)
		rb.p.settle(nil, err)
	}
	d.dropUploadsLocked(b.uploads)
	d.reportLocked(err)
}

// Dispatch records kernel k over groups workgroups, with bufs bound in the
// order of k's bindings and params (if k takes them, at least its
// ParamsSize bytes) as its uniform block. The work is submitted with its
// batch. A dispatch with a zero group count records nothing. Everything
// the dispatch names is validated first: a bad argument, or a buffer whose
// contents a failed batch lost, returns an error and records nothing. Its
// work is estimated from its group count (see DispatchWork).
func (d *Device) Dispatch(k *Kernel, groups [3]uint32, params []byte, bufs ...*Buffer) error {
	return d.dispatch(k, groups, groupsWork(groups), params, bufs)
}

// dispatch is Dispatch with the dispatch's estimated work; a running
// Timer times it (timing.go).
func (d *Device) dispatch(k *Kernel, groups [3]uint32, work Work, params []byte, bufs []*Buffer) error {
	if d != nil {
		if t := d.timer.Load(); t != nil {
			return d.timedDispatch(t, k, groups, work, params, bufs)
		}
	}
	return d.dispatchNow(k, groups, work, params, bufs)
}

// dispatchNow records a dispatch into the open batch.
func (d *Device) dispatchNow(k *Kernel, groups [3]uint32, work Work, params []byte, bufs []*Buffer) error {
	op := fmt.Sprintf("dispatch %q over %v workgroups", k.Name(), groups)
	if err := d.opened(op); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(op); err != nil {
		return err
	}
	if err := d.checkDispatch(op, k, groups, params, bufs); err != nil {
		return err
	}
	if groups[0] == 0 || groups[1] == 0 || groups[2] == 0 {
		return nil
	}
	if err := d.makeRoomLocked(work); err != nil {
		return err
	}
	return d.recordDispatchLocked(op, k, groups, work, params, bufs)
}

// recordDispatchLocked records a validated dispatch into the open batch.
// Allocating its parameter slot can trim the pool for memory, and the trim
// can submit the open batch, so the slot comes first and the batch's
// encoder is taken only after it.
func (d *Device) recordDispatchLocked(op string, k *Kernel, groups [3]uint32, work Work, params []byte, bufs []*Buffer) error {
	entries := make([]native.BufferBinding, 0, len(bufs)+1)
	for _, b := range bufs {
		entries = append(entries, native.BufferBinding{Buffer: b.raw, Size: b.BindingSize()})
	}
	if k.spec.Params {
		chunk, off, err := d.paramSlotLocked(params)
		if err != nil {
			return err
		}
		entries = append(entries, native.BufferBinding{Buffer: chunk.buf.raw, Offset: off, Size: uniformBindingSize(params)})
	}
	bg, err := d.dev.CreateBindGroup(k.spec.Name, k.layout, entries)
	if err != nil {
		e := fromBinding(op, err)
		d.noteErr(e)
		return e
	}
	if err := d.encoderLocked(); err != nil {
		bg.Release()
		return err
	}
	r := &d.rec
	r.bindGroups = append(r.bindGroups, bg)
	d.encodeDispatchLocked(k, bg, groups, bufs)
	r.name(bufs...)
	for i, b := range bufs {
		if k.spec.Bindings[i] == ReadWrite {
			r.written = append(r.written, b)
		}
	}
	r.commands++
	d.stats.Dispatches++
	if full := d.addWorkLocked(work); full || r.commands >= d.opts.BatchSize {
		return d.flushLocked()
	}
	return nil
}

// uniformBindingSize is the size of the binding of a parameter block:
// whole 16-byte words, as uniform buffers are laid out.
func uniformBindingSize(params []byte) uint64 { return (uint64(len(params)) + 15) &^ 15 }

// BindingSize is the size a storage binding of b covers, which Dispatch
// checks against Limits.MaxStorageBufferBindingSize: its size rounded up
// to whole 16-byte words, so that an array of vec4s has at least one
// element even over an empty buffer (WebGPU refuses a binding smaller than
// one element, and the refusal poisons the whole batch). The bytes past
// b's size lie inside its capacity: at least 256 bytes, and a multiple of
// 16 except for buffers near the device's largest. It is 0 for no buffer.
func (b *Buffer) BindingSize() uint64 {
	if b == nil {
		return 0
	}
	return min(b.capacity, max(16, (b.size+15)&^15))
}

// checkDispatch validates a dispatch before anything is recorded: an invalid
// command would poison the whole batch at Finish. Callers hold d.mu.
func (d *Device) checkDispatch(op string, k *Kernel, groups [3]uint32, params []byte, bufs []*Buffer) error {
	if k == nil || k.pipeline == nil {
		return newError(op, ErrInvalidArgument, "not a kernel from Device.Kernel")
	}
	if cached, ok := d.kernels[k.spec.key()]; !ok || cached != k {
		return newError(op, ErrInvalidArgument, "kernel belongs to another device")
	}
	if len(bufs) != len(k.spec.Bindings) {
		return newError(op, ErrInvalidArgument, fmt.Sprintf("kernel takes %d buffers, got %d", len(k.spec.Bindings), len(bufs)))
	}
	if err := d.checkParams(op, k, params); err != nil {
		return err
	}
	for i, n := range groups {
		if n > d.limits.MaxComputeWorkgroupsPerDimension {
			return newError(op, ErrLimit, fmt.Sprintf("%d workgroups in dimension %d, the device allows %d", n, i, d.limits.MaxComputeWorkgroupsPerDimension))
		}
	}
	for i, b := range bufs {
		what := fmt.Sprintf("buffer %d", i)
		if err := d.checkBuffer(op, what, b); err != nil {
			return err
		}
		if err := checkContents(op, what, b); err != nil {
			return err
		}
		if b.BindingSize() > d.limits.MaxStorageBufferBindingSize {
			return newError(op, ErrLimit, fmt.Sprintf("buffer %d is %d B, the device binds at most %d B", i, b.size, d.limits.MaxStorageBufferBindingSize))
		}
		if k.spec.Bindings[i] == ReadWrite {
			for j, c := range bufs {
				if j != i && c == b {
					return newError(op, ErrInvalidArgument, fmt.Sprintf("buffer %d is written and also bound at %d", i, j))
				}
			}
		}
	}
	return nil
}

// checkParams validates a dispatch's parameter block against the kernel's
// declared uniform block and the limits its binding meets.
func (d *Device) checkParams(op string, k *Kernel, params []byte) error {
	n := uint64(len(params))
	switch {
	case !k.spec.Params && n > 0:
		return newError(op, ErrInvalidArgument, fmt.Sprintf("kernel takes no params, got %d bytes", n))
	case k.spec.Params && n < k.spec.ParamsSize:
		return newError(op, ErrInvalidArgument, fmt.Sprintf("%d bytes of params, the kernel's uniform block is %d B", n, k.spec.ParamsSize))
	case uniformBindingSize(params) > min(paramChunkSize, d.limits.MaxUniformBufferBindingSize):
		return newError(op, ErrLimit, fmt.Sprintf("%d bytes of params, the device binds at most %d B", n, min(paramChunkSize, d.limits.MaxUniformBufferBindingSize)))
	}
	return nil
}

// checkBuffer validates a buffer named by a call: one of this device's
// live storage buffers. what names it in the error. Callers hold d.mu.
func (d *Device) checkBuffer(op, what string, b *Buffer) error {
	switch {
	case b == nil || b.d == nil:
		return newError(op, ErrInvalidArgument, what+" is not a buffer from NewBuffer")
	case b.d != d:
		return newError(op, ErrInvalidArgument, what+" belongs to another device")
	case !b.live:
		return newError(op, ErrDisposed, fmt.Sprintf("%s (id %d)", what, b.id))
	case b.usage != UsageStorage:
		return newError(op, ErrInvalidArgument, fmt.Sprintf("%s is a %s buffer", what, b.usage))
	}
	return nil
}

// checkContents refuses to read a buffer whose contents were lost: a
// batch that would have written it failed. A write of the whole buffer
// gives it contents again. Callers hold d.mu.
func checkContents(op, what string, b *Buffer) error {
	if b.lost == nil {
		return nil
	}
	var kind error = ErrOperation
	var e *Error
	if errors.As(b.lost, &e) {
		kind = e.Kind
	}
	return newError(op, kind, fmt.Sprintf("%s (id %d) lost its contents when a batch that writes it failed: %v", what, b.id, b.lost))
}

// checkRange validates a transfer of n bytes at offset within b, with sums
// that cannot wrap.
func checkRange(op string, b *Buffer, offset, n uint64) error {
	if offset > b.size || n > b.size-offset {
		return newError(op, ErrInvalidArgument, fmt.Sprintf("%d B at %d do not fit a buffer of %d B", n, offset, b.size))
	}
	return nil
}

// paramSlotLocked copies params into the batch's parameter chunk and returns
// the chunk and the slot's offset.
func (d *Device) paramSlotLocked(params []byte) (*paramChunk, uint64, error) {
	r := &d.rec
	align := uint64(max(d.limits.MinUniformBufferOffsetAlignment, 16))
	slot := (uint64(len(params)) + align - 1) / align * align
	var c *paramChunk
	if n := len(r.params); n > 0 && uint64(len(r.params[n-1].data))+slot <= paramChunkSize {
		c = r.params[n-1]
	} else {
		buf, err := d.newBufferLocked(paramChunkSize, UsageUniform, nil, true)
		if err != nil {
			return nil, 0, err
		}
		r.name(buf)
		c = &paramChunk{buf: buf, data: make([]byte, 0, paramChunkSize)}
		r.params = append(r.params, c)
	}
	off := uint64(len(c.data))
	c.data = append(c.data, params...)
	c.data = append(c.data, make([]byte, slot-uint64(len(params)))...)
	return c, off, nil
}

// Write copies data into b at offset. It is ordered after all work recorded
// before it: if recorded work names b, that work is submitted first, since
// queue writes run before the next submission's commands. A write of the
// whole buffer gives it contents again after a failed batch lost them.
func (d *Device) Write(b *Buffer, offset uint64, data []byte) error {
	op := fmt.Sprintf("write %d B at %d into buffer %d", len(data), offset, b.ID())
	if err := d.opened(op); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(op); err != nil {
		return err
	}
	if err := d.checkBuffer(op, "the buffer", b); err != nil {
		return err
	}
	if err := checkRange(op, b, offset, uint64(len(data))); err != nil {
		return err
	}
	if offset%4 != 0 {
		return newError(op, ErrInvalidArgument, "offset must be a multiple of 4")
	}
	if len(data) == 0 {
		return nil
	}
	if offset == 0 && uint64(len(data)) == b.size {
		b.lost = nil // the write gives b new contents (lost again if its batch fails)
	}
	if len(data) >= stagedWriteMin {
		return d.writeStagedLocked(op, b, offset, data)
	}
	if d.rec.names(b.alloc) {
		if err := d.flushLocked(); err != nil {
			return err
		}
	}
	if len(data)%4 != 0 {
		padded := make([]byte, (len(data)+3)&^3)
		copy(padded, data)
		// The pad lands past Size but inside Capacity: harmless.
		data = padded
	}
	if err := d.dev.WriteBuffer(b.raw, offset, data); err != nil {
		e := fromBinding(op, err)
		d.noteErr(e)
		return e
	}
	d.stats.Writes++
	d.unsubmittedWrites += uint64(len(data))
	if d.unsubmittedWrites >= maxUnsubmittedWrites {
		// wgpu-native stages every write in memory of its own until the
		// submission that carries it is done: bound that memory.
		return d.flushLocked()
	}
	return nil
}

// maxUnsubmittedWrites is how many bytes of queue writes may wait for a
// submission before Write submits them.
const maxUnsubmittedWrites = 64 << 20
