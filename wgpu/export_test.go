package wgpu

import "github.com/cogentcore/webgpu/wgpu"

// Hooks for the external tests (package wgpu_test), which cannot reach
// unexported state and cannot be internal tests: testgpu imports wgpu.

// SizeClass exposes sizeClass.
var SizeClass = sizeClass

// Choose exposes the adapter choice.
var Choose = choose

// DestroyPendingStaging flushes, then destroys the staging buffer of every
// readback whose map is pending, as a driver-side destroy would, and returns
// how many it destroyed.
func DestroyPendingStaging(d *Device) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = d.flushLocked()
	n := 0
	for s := range d.pending {
		if rb, ok := s.(*readback); ok {
			d.pool.destroy(rb.staging)
			n++
		}
	}
	return n
}

// ReportAsync sends err down the path of errors no call can return.
func ReportAsync(d *Device, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reportLocked(err)
}

// DestroyParamChunks destroys the parameter buffers of the open batch, so
// that writing them fails when the batch is flushed and the batch is not
// submitted, as a batch the driver rejects is not. Their handles are
// released by release, to be called after the flush.
func DestroyParamChunks(d *Device) (release func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var raws []*wgpu.Buffer
	for _, c := range d.rec.params {
		c.buf.raw.Destroy()
		c.buf.destroyed = true
		d.pool.stats.Frees++
		raws = append(raws, c.buf.raw)
	}
	return func() {
		for _, raw := range raws {
			raw.Release()
		}
	}
}
