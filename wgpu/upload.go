package wgpu

import "github.com/wgtensor/wgtensor/wgpu/internal/native"

// Large writes go through upload buffers of the runtime's own rather than
// Queue.WriteBuffer, for which wgpu-native allocates a staging buffer per
// call: on a CPU adapter every page of that fresh memory faults in, and a
// 64 MiB write spends most of its time there. A pooled upload buffer is
// kept mapped. A write copies into it, unmaps it and records a copy into
// the destination, in order with the batch's other commands. Once the batch
// is submitted the upload buffer is mapped again, and it returns to the
// pool when that map settles.

// stagedWriteMin is the smallest write that goes through an upload buffer;
// below it, wgpu-native's own staging (suballocated from memory it keeps)
// costs less than a map request.
const stagedWriteMin = 1 << 20

// uploadMap is the map request that readies a used upload buffer again.
// status is set by the map callback under Device.firedMu.
type uploadMap struct {
	staging *Buffer
	status  native.MapStatus
}

// complete returns the upload buffer to the pool, mapped, or destroys it if
// the map failed. Called under Device.mu.
func (u *uploadMap) complete(d *Device) {
	if u.status == native.MapSuccess {
		d.pool.put(u.staging)
	} else {
		d.pool.drop(u.staging)
	}
}

// writeStagedLocked writes data into b at offset through an upload buffer.
// The caller has validated the write.
func (d *Device) writeStagedLocked(op string, b *Buffer, offset uint64, data []byte) error {
	size := (uint64(len(data)) + 3) &^ 3
	if err := d.makeRoomLocked(copyWork(size)); err != nil {
		return err
	}
	st, err := d.uploadBufferLocked(size)
	if err != nil {
		return err
	}
	mapped := st.raw.Mapped(st.capacity)
	copyParallel(mapped, data)
	clear(mapped[len(data):size]) // the pad to a whole word
	if err := st.raw.Unmap(); err != nil {
		d.pool.drop(st)
		return fromBinding(op, err)
	}
	if err := d.encoderLocked(); err != nil {
		d.pool.drop(st)
		return err
	}
	r := &d.rec
	if err := r.enc.Copy(st.raw, 0, b.raw, offset, size); err != nil {
		// Validated above, so this is the driver's failure; the batch's
		// Finish reports it to everything in the batch.
		d.pool.drop(st)
		return fromBinding(op, err)
	}
	r.name(b, st)
	r.uploads = append(r.uploads, st)
	r.written = append(r.written, b)
	r.commands++
	d.stats.Writes++
	d.unsubmittedWrites += size
	if full := d.addWorkLocked(copyWork(size)); full || r.commands >= d.opts.BatchSize || d.unsubmittedWrites >= maxUnsubmittedWrites {
		return d.flushLocked()
	}
	return nil
}

// uploadBufferLocked returns a mapped upload buffer of at least size bytes:
// a pooled one, one whose map has settled since the last poll, or a new one.
func (d *Device) uploadBufferLocked(size uint64) (*Buffer, error) {
	capacity, _ := capacityFor(size, d.limits.MaxBufferSize)
	if len(d.pool.free[poolKey{capacity, UsageUpload}]) == 0 && len(d.pending.uploads) > 0 {
		d.settleUploadsLocked()
	}
	return d.newBufferLocked(size, UsageUpload, nil, true)
}

// settleUploadsLocked polls the device without waiting and returns the
// upload buffers whose maps have settled to the pool. Other requests the
// poll completes are left for the next poll to settle.
func (d *Device) settleUploadsLocked() {
	d.dev.Poll(false)
	d.firedMu.Lock()
	settled := d.fired.uploads
	d.fired.uploads = nil
	d.firedMu.Unlock()
	for _, u := range settled {
		if d.pending.uploads.remove(u) {
			u.complete(d)
		}
	}
}

// remapUploadsLocked asks for the upload buffers of a just-submitted batch
// to be mapped again.
func (d *Device) remapUploadsLocked(uploads []*Buffer) {
	for _, st := range uploads {
		u := &uploadMap{staging: st}
		d.pending.uploads.add(u)
		err := d.dev.MapWrite(st.raw, st.capacity, func(status native.MapStatus) {
			d.fire(func(f *requestList) { u.status = status; f.uploads = append(f.uploads, u) })
		})
		if err != nil {
			d.pending.uploads.remove(u)
			d.pool.drop(st)
		}
	}
}

// dropUploadsLocked destroys the upload buffers of a batch that was not
// submitted: they are unmapped and no longer fit the pool.
func (d *Device) dropUploadsLocked(uploads []*Buffer) {
	for _, st := range uploads {
		d.pool.drop(st)
	}
}
