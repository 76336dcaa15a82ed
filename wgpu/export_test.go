package wgpu

import (
	"errors"
	"runtime"

	"github.com/wgtensor/wgtensor/wgpu/internal/native"
)

// Hooks for the external tests (package wgpu_test), which cannot reach
// unexported state and cannot be internal tests: testgpu imports wgpu.

// SizeClass exposes sizeClass.
var SizeClass = sizeClass

// CapacityFor exposes capacityFor.
var CapacityFor = capacityFor

// Float32ProbeInputs and JudgeFloat32Probe expose the float32 probe's
// inputs and its verdict on a device's outputs.
var (
	Float32ProbeInputs = float32ProbeInputs
	JudgeFloat32Probe  = judgeFloat32Probe
)

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
	for rb := range d.pending.readbacks {
		d.pool.destroy(rb.staging.alloc)
		n++
	}
	return n
}

// ReportAsync sends err down the path of errors no call can return.
func ReportAsync(d *Device, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reportLocked(err)
}

// PoisonBatch records into the open batch a dispatch that WebGPU refuses
// only at submission, as a driver failure would fail a batch: a kernel
// whose storage elements are 32 bytes over buf's binding of 16, compiled
// here past the layout rule that makes Kernel refuse it. For tests of what
// a failed batch leaves behind; buf must be a storage buffer of 16 bytes
// or less.
func PoisonBatch(d *Device, buf *Buffer) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	spec := KernelSpec{Name: "poison", Key: "test/poison", Bindings: []Access{ReadWrite}, Source: `
@group(0) @binding(0) var<storage, read_write> y: array<mat2x4<f32>>;
@compute @workgroup_size(1)
fn main() { y[0][0].x = 1.0; }`}
	k := d.kernels[spec.Key]
	if k == nil {
		layout, err := d.dev.CreateBindGroupLayout("poison", []native.LayoutEntry{{Type: native.Storage}})
		if err != nil {
			return err
		}
		d.layouts[spec.Key] = layout // Close releases it
		if k, err = d.compileLocked("poison", spec, layout); err != nil {
			return err
		}
	}
	return d.recordDispatchLocked("poison batch", k, [3]uint32{1, 1, 1}, 0, nil, []*Buffer{buf})
}

// DestroyParamChunks destroys the parameter buffers of the open batch, so
// that writing them fails when the batch is flushed and the batch is not
// submitted, as a batch the driver rejects is not. Their handles are
// released by release, to be called after the flush.
func DestroyParamChunks(d *Device) (release func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var raws []*native.Buffer
	for _, c := range d.rec.params {
		c.buf.raw.Destroy()
		c.buf.alloc.destroyed = true
		d.pool.stats.Frees++
		raws = append(raws, c.buf.raw)
	}
	return func() {
		for _, raw := range raws {
			raw.Release()
		}
	}
}

// WaitForPollers returns once no Await-driven poller goroutine of d's runs.
// Such a poller polls until nothing is pending, and each poll submits the
// open batch: a test that needs the ops it records next to share one batch
// (a failed batch's tests) calls it after Sync, when nothing is pending and
// a poller still running exits after its next poll. It returns an error if
// something is pending, for which a poller would never stop.
func WaitForPollers(d *Device) error {
	for {
		d.mu.Lock()
		polling, pending := d.polling, !d.pending.empty()
		d.mu.Unlock()
		switch {
		case !polling:
			return nil
		case pending:
			return errors.New("WaitForPollers: requests are pending; Sync first")
		}
		runtime.Gosched()
	}
}
