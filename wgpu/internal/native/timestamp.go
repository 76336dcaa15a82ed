package native

// #include "timestamp.h"
import "C"

import (
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// Timestamp queries time compute passes on the GPU where the adapter
// offers WebGPU's timestamp-query feature. The binding creates query sets
// and resolves them, but its ComputePassDescriptor leaves timestampWrites
// out, and CommandEncoder.WriteTimestamp needs a native feature that
// wgpu-native's header does not name: a timed pass is therefore begun in
// the shim (timestamp.c). Resolved values are the GPU's ticks; wgpu-native
// v0.19 exposes no timestamp period, so they are taken as nanoseconds,
// which is what lavapipe (and NVIDIA's Vulkan driver) report.

// More mirrors of the binding's handle types (see shim.go).
type (
	rawEncoder struct {
		device C.WGPUDevice
		ref    C.WGPUCommandEncoder
	}
	rawPipeline  struct{ ref C.WGPUComputePipeline }
	rawBindGroup struct{ ref C.WGPUBindGroup }
	rawQuerySet  struct{ ref C.WGPUQuerySet }
)

// timestampFeatures returns the features a device on a is requested with:
// timestamp-query where the adapter offers it.
func (a *Adapter) timestampFeatures() []wgpu.FeatureName {
	if a.raw.HasFeature(wgpu.FeatureNameTimestampQuery) {
		return []wgpu.FeatureName{wgpu.FeatureNameTimestampQuery}
	}
	return nil
}

// Timestamps reports whether the device can time compute passes with
// timestamp queries (DispatchTimed).
func (d *Device) Timestamps() bool { return d.timestamps }

// QuerySet is a set of timestamp queries.
type QuerySet struct {
	raw   *wgpu.QuerySet
	count uint32
}

// CreateTimestampQuerySet creates count timestamp queries. The device must
// have Timestamps.
func (d *Device) CreateTimestampQuerySet(label string, count uint32) (*QuerySet, error) {
	if !d.timestamps {
		return nil, &Error{Kind: Validation, Msg: "the device was not opened with the timestamp-query feature"}
	}
	raw, err := d.raw.CreateQuerySet(&wgpu.QuerySetDescriptor{Label: label, Type: wgpu.QueryTypeTimestamp, Count: count})
	if err != nil {
		return nil, classify(err)
	}
	return &QuerySet{raw: raw, count: count}, nil
}

// Count returns how many queries q holds.
func (q *QuerySet) Count() uint32 { return q.count }

// Release lets go of the query set; work that names it still runs.
func (q *QuerySet) Release() { q.raw.Release() }

// DispatchTimed records p over groups workgroups, with bg as its bind group
// 0, in a compute pass of its own that writes timestamp queries begin and
// end of q as it starts and ends. It ends the open pass first. As with
// Dispatch, an invalid dispatch invalidates the batch, and Finish reports
// it: the shim catches the error, which wgpu-native would otherwise treat
// as fatal.
func (e *Encoder) DispatchTimed(p *Pipeline, bg *BindGroup, groups [3]uint32, q *QuerySet, begin, end uint32) {
	e.endPass()
	enc := (*rawEncoder)(unsafe.Pointer(e.raw))
	var msg [256]C.char
	C.wgt_timed_dispatch(enc.device, enc.ref, (*rawPipeline)(unsafe.Pointer(p.raw)).ref, (*rawBindGroup)(unsafe.Pointer(bg.raw)).ref,
		C.uint32_t(groups[0]), C.uint32_t(groups[1]), C.uint32_t(groups[2]),
		(*rawQuerySet)(unsafe.Pointer(q.raw)).ref, C.uint32_t(begin), C.uint32_t(end), &msg[0], C.size_t(len(msg)))
}

// ResolveTimestamps records the resolution of queries [first, first+count)
// of q into dst at offset (a multiple of 256) as 8-byte tick counts. It
// ends the open pass first.
func (e *Encoder) ResolveTimestamps(q *QuerySet, first, count uint32, dst *Buffer, offset uint64) error {
	e.endPass()
	return classify(e.raw.ResolveQuerySet(q.raw, first, count, dst.raw, offset))
}
