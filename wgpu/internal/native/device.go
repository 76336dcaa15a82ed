package native

import (
	"errors"
	"math"

	"github.com/cogentcore/webgpu/wgpu"
)

// Device is an open device with its queue.
type Device struct {
	adapter *wgpu.Adapter
	raw     *wgpu.Device
	queue   *wgpu.Queue
	limits  Limits // as granted
	// timestamps: opened with the timestamp-query feature (timestamp.go)
	timestamps bool
}

// RequestDevice opens a device on a, asking for the adapter's full limits,
// then for the default limits raised to the adapter's buffer and workgroup
// sizes, then for the defaults: the GL backend refuses the first
// (BINDING.md). It checks that the shim's mirrors of the binding's handles
// still match (shim.go). On success the device owns a and releases it with
// itself; on failure a is still the caller's.
func (a *Adapter) RequestDevice(label string) (*Device, error) {
	full := boundedLimits(a.raw.GetLimits().Limits)
	compute := wgpu.DefaultLimits()
	compute.MaxBufferSize = full.MaxBufferSize
	compute.MaxStorageBufferBindingSize = full.MaxStorageBufferBindingSize
	compute.MaxComputeWorkgroupStorageSize = full.MaxComputeWorkgroupStorageSize
	compute.MaxComputeInvocationsPerWorkgroup = full.MaxComputeInvocationsPerWorkgroup
	compute.MaxComputeWorkgroupSizeX = full.MaxComputeWorkgroupSizeX
	compute.MaxComputeWorkgroupSizeY = full.MaxComputeWorkgroupSizeY
	compute.MaxComputeWorkgroupsPerDimension = full.MaxComputeWorkgroupsPerDimension
	compute.MaxStorageBuffersPerShaderStage = full.MaxStorageBuffersPerShaderStage
	var lastErr error
	features := a.timestampFeatures()
	for _, lim := range []*wgpu.Limits{&full, &compute, nil} {
		// Never DeviceLostCallback: the binding panics on it (BINDING.md).
		desc := &wgpu.DeviceDescriptor{Label: label, RequiredFeatures: features}
		if lim != nil {
			desc.RequiredLimits = &wgpu.RequiredLimits{Limits: *lim}
		}
		raw, err := a.raw.RequestDevice(desc)
		if err != nil && features != nil {
			desc.RequiredFeatures = nil // timing is worth less than the device
			raw, err = a.raw.RequestDevice(desc)
		}
		if err != nil {
			lastErr = err
			continue
		}
		d := &Device{adapter: a.raw, raw: raw, queue: raw.GetQueue(), limits: limitsOf(raw.GetLimits().Limits),
			timestamps: len(desc.RequiredFeatures) > 0}
		if err := d.checkShim(); err != nil {
			d.queue.Release()
			d.raw.Release()
			return nil, err
		}
		return d, nil
	}
	return nil, classify(lastErr)
}

// unboundedU64 is how an adapter reports a 64-bit limit it does not bound
// (an NVIDIA GPU's maximum buffer size through Vulkan), and also
// webgpu.h's "undefined": a request for it gets the default (256 MiB of
// buffer). boundedU64 stands for it in requests and reports.
const (
	unboundedU64 = math.MaxUint64
	boundedU64   = math.MaxInt64
)

// boundedLimits returns l with every unbounded 64-bit limit at boundedU64,
// so that a request for it asks for that much.
func boundedLimits(l wgpu.Limits) wgpu.Limits {
	for _, v := range []*uint64{&l.MaxBufferSize, &l.MaxStorageBufferBindingSize, &l.MaxUniformBufferBindingSize} {
		if *v == unboundedU64 {
			*v = boundedU64
		}
	}
	return l
}

// checkShim verifies, on a scratch buffer, that the shim's mirrors of the
// binding's handle types (shim.go) still match the binding.
func (d *Device) checkShim() error {
	b, err := d.CreateBuffer(4, UsageReadback)
	if err != nil {
		return err
	}
	defer func() { b.Destroy(); b.Release() }()
	if !rawLayoutOK(d.raw, b.raw, d.queue) {
		return &Error{Kind: Validation, Msg: "the binding's handle layout is not the one wgpu/internal/native/shim.go mirrors"}
	}
	return nil
}

// Limits returns the limits the device was granted.
func (d *Device) Limits() Limits { return d.limits }

// Release releases the queue, the device and its adapter. Destroy the
// device's buffers and release its other objects first.
func (d *Device) Release() {
	d.queue.Release()
	d.raw.Release()
	d.adapter.Release()
}

// Poll asks wgpu-native to run the callbacks of finished work, on the
// calling goroutine; if wait is true it first waits until the work
// submitted so far is done.
func (d *Device) Poll(wait bool) { d.raw.Poll(wait, nil) }

// WriteBuffer writes data (a multiple of 4 bytes) into b at offset through
// the queue: it reaches the GPU with the next submission, before that
// submission's commands.
func (d *Device) WriteBuffer(b *Buffer, offset uint64, data []byte) error {
	return classify(d.queue.WriteBuffer(b.raw, offset, data))
}

// Submit submits the command buffers, or, with none, the queue's pending
// writes, and releases them. A submission naming a destroyed buffer aborts
// the process inside wgpu-native (BINDING.md): callers make sure none does.
func (d *Device) Submit(cmds ...*CommandBuffer) {
	raws := make([]*wgpu.CommandBuffer, len(cmds))
	for i, c := range cmds {
		raws[i] = c.raw
	}
	d.queue.Submit(raws...)
	for _, c := range cmds {
		c.Release()
	}
}

// OnWorkDone asks for done to run when the work submitted so far is done.
// It runs inside a later Poll.
func (d *Device) OnWorkDone(done func()) {
	onWorkDone(d.queue, func(uint32) { done() })
}

// Usage is what a buffer is for: one of the runtime's four kinds.
type Usage int

// The usages.
const (
	UsageStorage  Usage = iota // kernel storage; copied to and from
	UsageReadback              // mapped for reading; copied to
	UsageUniform               // kernel parameters; written through the queue
	UsageUpload                // mapped for writing; copied from. Created mapped.
)

func (u Usage) flags() wgpu.BufferUsage {
	switch u {
	case UsageReadback:
		return wgpu.BufferUsageMapRead | wgpu.BufferUsageCopyDst
	case UsageUniform:
		return wgpu.BufferUsageUniform | wgpu.BufferUsageCopyDst
	case UsageUpload:
		return wgpu.BufferUsageMapWrite | wgpu.BufferUsageCopySrc
	}
	// QueryResolve lets a storage buffer receive timestamps (timestamp.go).
	return wgpu.BufferUsageStorage | wgpu.BufferUsageCopySrc | wgpu.BufferUsageCopyDst | wgpu.BufferUsageQueryResolve
}

// CreateBuffer creates a buffer of size bytes for usage. An upload buffer
// starts mapped, ready to be written.
func (d *Device) CreateBuffer(size uint64, usage Usage) (*Buffer, error) {
	raw, err := d.raw.CreateBuffer(&wgpu.BufferDescriptor{Size: size, Usage: usage.flags(), MappedAtCreation: usage == UsageUpload})
	if err != nil {
		return nil, classify(err)
	}
	return &Buffer{raw: raw}, nil
}

// Buffer is a GPU buffer.
type Buffer struct{ raw *wgpu.Buffer }

// Destroy frees the buffer's memory; work already submitted that names it
// still runs. The handle stays valid until Release.
func (b *Buffer) Destroy() { b.raw.Destroy() }

// Release lets go of the handle.
func (b *Buffer) Release() { b.raw.Release() }

// Mapped returns the first size bytes of a mapped buffer. They are valid
// until Unmap.
func (b *Buffer) Mapped(size uint64) []byte { return b.raw.GetMappedRange(0, uint(size)) }

// Unmap unmaps the buffer.
func (b *Buffer) Unmap() error { return classify(b.raw.Unmap()) }

// MapRead asks for the first size bytes of b to be mapped for reading;
// done runs with the outcome inside the Poll that settles it. A validation
// error is returned at once, and done may still run (with a failure).
func (d *Device) MapRead(b *Buffer, size uint64, done func(MapStatus)) error {
	return mapBuffer(d.raw, b.raw, wgpu.MapModeRead, size, done)
}

// MapWrite is MapRead for writing.
func (d *Device) MapWrite(b *Buffer, size uint64, done func(MapStatus)) error {
	return mapBuffer(d.raw, b.raw, wgpu.MapModeWrite, size, done)
}

// MapStatus is the outcome of a map request.
type MapStatus uint32

// The statuses the runtime tells apart, from webgpu.h.
const (
	MapSuccess    = MapStatus(wgpu.BufferMapAsyncStatusSuccess)
	MapDeviceLost = MapStatus(wgpu.BufferMapAsyncStatusDeviceLost)
)

func (s MapStatus) String() string { return wgpu.BufferMapAsyncStatus(s).String() }

// BindingType is how a kernel binds a buffer.
type BindingType int

// The binding types.
const (
	ReadOnlyStorage BindingType = iota // var<storage, read>
	Storage                            // var<storage, read_write>
	Uniform                            // var<uniform>
)

// LayoutEntry is one binding of a bind group layout: the binding at its
// index in the layout's entries.
type LayoutEntry struct {
	Type BindingType
	// MinSize, when not 0, makes pipeline creation check that the shader
	// needs no more of the binding than that.
	MinSize uint64
}

// BindGroupLayout is the layout of a kernel's bindings.
type BindGroupLayout struct{ raw *wgpu.BindGroupLayout }

// CreateBindGroupLayout creates a layout of compute bindings 0, 1, ... as
// entries say.
func (d *Device) CreateBindGroupLayout(label string, entries []LayoutEntry) (*BindGroupLayout, error) {
	es := make([]wgpu.BindGroupLayoutEntry, len(entries))
	for i, e := range entries {
		t := wgpu.BufferBindingTypeReadOnlyStorage
		switch e.Type {
		case Storage:
			t = wgpu.BufferBindingTypeStorage
		case Uniform:
			t = wgpu.BufferBindingTypeUniform
		}
		es[i] = wgpu.BindGroupLayoutEntry{Binding: uint32(i), Visibility: wgpu.ShaderStageCompute,
			Buffer: wgpu.BufferBindingLayout{Type: t, MinBindingSize: e.MinSize}}
	}
	l, err := d.raw.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: label, Entries: es})
	if err != nil {
		return nil, classify(err)
	}
	return &BindGroupLayout{raw: l}, nil
}

// Release lets go of the layout.
func (l *BindGroupLayout) Release() { l.raw.Release() }

// Pipeline is a compiled compute pipeline.
type Pipeline struct{ raw *wgpu.ComputePipeline }

// CreatePipeline compiles WGSL source and builds a compute pipeline of its
// entry point over one bind group of layout. A shader that does not compile,
// or needs more than layout gives it, returns an *Error of kind Compile
// holding the compiler's message.
func (d *Device) CreatePipeline(label, source, entry string, layout *BindGroupLayout) (*Pipeline, error) {
	module, err := d.raw.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
		Label:          label,
		WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: source},
	})
	if err != nil {
		return nil, compileError(err)
	}
	defer module.Release()
	pl, err := d.raw.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{Label: label, BindGroupLayouts: []*wgpu.BindGroupLayout{layout.raw}})
	if err != nil {
		return nil, classify(err)
	}
	defer pl.Release()
	p, err := d.raw.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{
		Label:   label,
		Layout:  pl,
		Compute: wgpu.ProgrammableStageDescriptor{Module: module, EntryPoint: entry},
	})
	if err != nil {
		return nil, compileError(err)
	}
	return &Pipeline{raw: p}, nil
}

// Release lets go of the pipeline.
func (p *Pipeline) Release() { p.raw.Release() }

// BufferBinding binds Size bytes of Buffer at Offset.
type BufferBinding struct {
	Buffer *Buffer
	Offset uint64
	Size   uint64
}

// BindGroup binds buffers to a kernel's bindings.
type BindGroup struct{ raw *wgpu.BindGroup }

// CreateBindGroup binds entries to bindings 0, 1, ... of layout.
func (d *Device) CreateBindGroup(label string, layout *BindGroupLayout, entries []BufferBinding) (*BindGroup, error) {
	es := make([]wgpu.BindGroupEntry, len(entries))
	for i, e := range entries {
		es[i] = wgpu.BindGroupEntry{Binding: uint32(i), Buffer: e.Buffer.raw, Offset: e.Offset, Size: e.Size}
	}
	bg, err := d.raw.CreateBindGroup(&wgpu.BindGroupDescriptor{Label: label, Layout: layout.raw, Entries: es})
	if err != nil {
		return nil, classify(err)
	}
	return &BindGroup{raw: bg}, nil
}

// Release lets go of the bind group; work that names it still runs.
func (g *BindGroup) Release() { g.raw.Release() }

// IsKind reports whether err is an *Error of kind k.
func IsKind(err error, k ErrorKind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}
