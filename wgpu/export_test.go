package wgpu

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
