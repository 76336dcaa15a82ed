package wgpu

// Hooks for the external tests (package wgpu_test), which cannot reach
// unexported state and cannot be internal tests: testgpu imports wgpu.

// SizeClass exposes sizeClass.
var SizeClass = sizeClass

// CapacityFor exposes capacityFor.
var CapacityFor = capacityFor

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
			d.pool.destroy(rb.staging.alloc)
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

// PoisonBatch records into the open batch a dispatch of k with params over
// bufs without Dispatch's checks, so that a dispatch WebGPU refuses at
// Finish fails the batch as a driver failure would: for tests of what a
// failed batch leaves behind.
func PoisonBatch(d *Device, k *Kernel, params []byte, bufs ...*Buffer) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.recordDispatchLocked("poison batch", k, [3]uint32{1, 1, 1}, params, bufs)
}
