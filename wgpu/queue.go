package wgpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// recorder holds the open batch: commands recorded into one encoder and not
// yet submitted. It is protected by Device.mu.
type recorder struct {
	enc        *wgpu.CommandEncoder
	pass       *wgpu.ComputePassEncoder
	seq        uint64 // the open batch's number; buffers it names carry it
	commands   int    // dispatches and copies in the open batch
	bindGroups []*wgpu.BindGroup
	params     []*paramChunk
	readbacks  []*readback // copies recorded; their maps are requested after submit
	uploads    []*Buffer   // upload buffers copied from; mapped again after submit
}

// paramChunk is a uniform buffer holding the parameter blocks of one batch's
// dispatches, written once just before the batch is submitted.
type paramChunk struct {
	buf  *Buffer
	data []byte
}

const paramChunkSize = 16 << 10

// names reports whether recorded, unsubmitted work names b.
func (r *recorder) names(b *Buffer) bool { return r.enc != nil && b.lastBatch == r.seq }

func (r *recorder) endPass() {
	if r.pass != nil {
		r.pass.End()
		r.pass.Release()
		r.pass = nil
	}
}

func (d *Device) encoderLocked() error {
	if d.rec.enc != nil {
		return nil
	}
	enc, err := d.dev.CreateCommandEncoder(&wgpu.CommandEncoderDescriptor{Label: "wgtensor batch"})
	if err != nil {
		e := fromBinding("create command encoder", err)
		d.noteErr(e)()
		return e
	}
	d.rec.enc = enc
	return nil
}

// discard drops the open batch without submitting it (Close).
func (r *recorder) discard(d *Device) {
	r.endPass()
	if r.enc != nil {
		r.enc.Release()
		r.enc = nil
	}
	for _, bg := range r.bindGroups {
		bg.Release()
	}
	for _, c := range r.params {
		d.pool.put(c.buf)
	}
	r.bindGroups, r.params, r.readbacks, r.uploads, r.commands = nil, nil, nil, nil, 0
	r.seq++
}

// Flush submits the recorded work now.
func (d *Device) Flush() error {
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
			d.queue.Submit()
			d.stats.Submits++
			d.unsubmittedWrites = 0
		}
		return nil
	}
	r.endPass()
	var err error
	for _, c := range r.params {
		if werr := d.queue.WriteBuffer(c.buf.raw, 0, c.data); werr != nil && err == nil {
			err = fromBinding("write kernel parameters", werr)
		}
	}
	cmd, ferr := r.enc.Finish(nil)
	r.enc.Release()
	r.enc = nil
	if ferr != nil && err == nil {
		err = fromBinding(fmt.Sprintf("finish batch of %d commands", r.commands), ferr)
	}
	if err == nil {
		d.queue.Submit(cmd)
		d.stats.Submits++
		d.unsubmittedWrites = 0
	}
	if cmd != nil {
		cmd.Release()
	}
	for _, bg := range r.bindGroups {
		bg.Release()
	}
	for _, c := range r.params {
		d.pool.put(c.buf)
	}
	readbacks, uploads := r.readbacks, r.uploads
	r.bindGroups, r.params, r.readbacks, r.uploads, r.commands = nil, nil, nil, nil, 0
	r.seq++
	var afters []func()
	if err != nil {
		afters = append(afters, d.noteErr(err))
		for _, rb := range readbacks {
			d.unpend(rb)
			afters = append(afters, rb.fail(err))
		}
		d.dropUploadsLocked(uploads)
		d.reportLocked(err)
	} else {
		for _, rb := range readbacks {
			afters = append(afters, rb.requestMap(d))
		}
		d.remapUploadsLocked(uploads)
	}
	runAll(afters)()
	return err
}

// Dispatch records kernel k over groups workgroups, with bufs bound in the
// order of k's bindings and params (if k takes them) as its uniform block.
// The work is submitted with its batch. A dispatch with a zero group count
// records nothing. Its work is estimated from its group count (see
// DispatchWork).
func (d *Device) Dispatch(k *Kernel, groups [3]uint32, params []byte, bufs ...*Buffer) error {
	return d.dispatch(k, groups, groupsWork(groups), params, bufs)
}

func (d *Device) dispatch(k *Kernel, groups [3]uint32, work Work, params []byte, bufs []*Buffer) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	op := fmt.Sprintf("dispatch %q over %v workgroups", k.spec.Name, groups)
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
	if err := d.encoderLocked(); err != nil {
		return err
	}
	entries := make([]wgpu.BindGroupEntry, 0, len(bufs)+1)
	for i, b := range bufs {
		entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(i), Buffer: b.raw, Size: b.BindingSize()})
	}
	if k.spec.Params {
		chunk, off, err := d.paramSlotLocked(params)
		if err != nil {
			return err
		}
		entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(len(bufs)), Buffer: chunk.buf.raw, Offset: off, Size: (uint64(len(params)) + 15) &^ 15})
	}
	bg, err := d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Label: k.spec.Name, Layout: k.layout, Entries: entries})
	if err != nil {
		e := fromBinding(op, err)
		d.noteErr(e)()
		return e
	}
	r := &d.rec
	r.bindGroups = append(r.bindGroups, bg)
	if r.pass == nil {
		r.pass = r.enc.BeginComputePass(nil)
	}
	r.pass.SetPipeline(k.pipeline)
	r.pass.SetBindGroup(0, bg, nil)
	r.pass.DispatchWorkgroups(groups[0], groups[1], groups[2])
	for _, b := range bufs {
		b.lastBatch = r.seq
	}
	r.commands++
	d.stats.Dispatches++
	if full := d.addWorkLocked(work); full || r.commands >= d.opts.BatchSize {
		return d.flushLocked()
	}
	return nil
}

// BindingSize is the size a storage binding of b covers, which Dispatch
// checks against Limits.MaxStorageBufferBindingSize: its size rounded up
// to whole 16-byte words, so that an array of vec4s has at least one
// element even over an empty buffer (WebGPU refuses a binding smaller than
// one element, and the refusal poisons the whole batch). The bytes past
// b's size lie inside its capacity: at least 256 bytes, and a multiple of
// 16 except for buffers near the device's largest.
func (b *Buffer) BindingSize() uint64 { return min(b.capacity, max(16, (b.size+15)&^15)) }

// checkDispatch validates a dispatch before anything is recorded: an invalid
// command would poison the whole batch at Finish.
func (d *Device) checkDispatch(op string, k *Kernel, groups [3]uint32, params []byte, bufs []*Buffer) error {
	if len(bufs) != len(k.spec.Bindings) {
		return newError(op, ErrInvalidArgument, fmt.Sprintf("kernel takes %d buffers, got %d", len(k.spec.Bindings), len(bufs)))
	}
	if k.spec.Params != (len(params) > 0) {
		return newError(op, ErrInvalidArgument, fmt.Sprintf("kernel takes params: %v, got %d bytes", k.spec.Params, len(params)))
	}
	if len(params) > paramChunkSize || uint64(len(params)) > d.limits.MaxUniformBufferBindingSize {
		return newError(op, ErrLimit, fmt.Sprintf("%d bytes of params", len(params)))
	}
	if cached, ok := d.kernels[k.spec.key()]; !ok || cached != k {
		return newError(op, ErrInvalidArgument, "kernel belongs to another device")
	}
	for i, n := range groups {
		if n > d.limits.MaxComputeWorkgroupsPerDimension {
			return newError(op, ErrLimit, fmt.Sprintf("%d workgroups in dimension %d, the device allows %d", n, i, d.limits.MaxComputeWorkgroupsPerDimension))
		}
	}
	for i, b := range bufs {
		switch {
		case b == nil:
			return newError(op, ErrInvalidArgument, fmt.Sprintf("buffer %d is nil", i))
		case b.d != d:
			return newError(op, ErrInvalidArgument, fmt.Sprintf("buffer %d belongs to another device", i))
		case !b.live:
			return newError(op, ErrDisposed, fmt.Sprintf("buffer %d (id %d)", i, b.id))
		case b.usage != UsageStorage:
			return newError(op, ErrInvalidArgument, fmt.Sprintf("buffer %d is a %s buffer", i, b.usage))
		case b.BindingSize() > d.limits.MaxStorageBufferBindingSize:
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
		buf, err := d.newBufferLocked(paramChunkSize, UsageUniform, 0, true)
		if err != nil {
			return nil, 0, err
		}
		buf.lastBatch = r.seq
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
// queue writes run before the next submission's commands.
func (d *Device) Write(b *Buffer, offset uint64, data []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	op := fmt.Sprintf("write %d B at %d into buffer %d", len(data), offset, b.id)
	if err := d.usable(op); err != nil {
		return err
	}
	switch {
	case b.d != d:
		return newError(op, ErrInvalidArgument, "buffer belongs to another device")
	case !b.live:
		return newError(op, ErrDisposed, "")
	case b.usage != UsageStorage:
		return newError(op, ErrInvalidArgument, fmt.Sprintf("a %s buffer", b.usage))
	case offset%4 != 0:
		return newError(op, ErrInvalidArgument, "offset must be a multiple of 4")
	case offset+uint64(len(data)) > b.size:
		return newError(op, ErrInvalidArgument, fmt.Sprintf("buffer holds %d B", b.size))
	}
	if len(data) == 0 {
		return nil
	}
	if len(data) >= stagedWriteMin {
		return d.writeStagedLocked(op, b, offset, data)
	}
	if d.rec.names(b) {
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
	if err := d.queue.WriteBuffer(b.raw, offset, data); err != nil {
		e := fromBinding(op, err)
		d.noteErr(e)()
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
