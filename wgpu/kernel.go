package wgpu

import (
	"fmt"
	"strings"

	"github.com/cogentcore/webgpu/wgpu"
)

// Access says how a kernel uses a storage binding.
type Access int

// The accesses.
const (
	ReadOnly  Access = iota // var<storage, read>
	ReadWrite               // var<storage, read_write>
)

// KernelSpec describes a compute kernel: WGSL whose entry point reads and
// writes storage buffers at @group(0) @binding(0), (1), ..., in the order of
// Bindings, and, if Params, a uniform buffer at the next binding.
type KernelSpec struct {
	Name     string   // names the kernel in errors and labels
	Key      string   // the pipeline cache's key; Name when empty. Equal keys must mean equal sources.
	Source   string   // WGSL
	Entry    string   // entry point; "main" when empty
	Bindings []Access // the storage bindings, in binding order
	Params   bool     // a uniform parameter block follows the storage bindings
}

func (s KernelSpec) key() string {
	if s.Key != "" {
		return s.Key
	}
	return s.Name
}

// Kernel is a compiled compute pipeline. Kernels are cached by key per
// device and live until the device closes. A Kernel is safe for concurrent
// use.
type Kernel struct {
	spec     KernelSpec
	pipeline *wgpu.ComputePipeline
	layout   *wgpu.BindGroupLayout
}

// Name returns the kernel's name.
func (k *Kernel) Name() string { return k.spec.Name }

// Kernel returns the compiled kernel for spec, compiling it on first use.
// A WGSL error is returned wrapping ErrCompile, with the kernel's name and
// the compiler's message.
func (d *Device) Kernel(spec KernelSpec) (*Kernel, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	key := spec.key()
	op := fmt.Sprintf("compile kernel %q", spec.Name)
	if err := d.usable(op); err != nil {
		return nil, err
	}
	if k, ok := d.kernels[key]; ok {
		return k, nil
	}
	if spec.Name == "" || spec.Source == "" {
		return nil, newError(op, ErrInvalidArgument, "a kernel needs a name and a source")
	}
	if n := uint32(len(spec.Bindings)); n > d.limits.MaxStorageBuffersPerShaderStage {
		return nil, newError(op, ErrLimit, fmt.Sprintf("%d storage bindings, the device allows %d", n, d.limits.MaxStorageBuffersPerShaderStage))
	}
	if spec.Entry == "" {
		spec.Entry = "main"
	}
	layout, err := d.layoutLocked(spec.Bindings, spec.Params)
	if err != nil {
		return nil, err
	}
	module, err := d.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
		Label:          spec.Name,
		WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: spec.Source},
	})
	if err != nil {
		return nil, compileError(op, err)
	}
	defer module.Release()
	pl, err := d.dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{Label: spec.Name, BindGroupLayouts: []*wgpu.BindGroupLayout{layout}})
	if err != nil {
		e := fromBinding(op, err)
		d.noteErr(e)
		return nil, e
	}
	defer pl.Release()
	pipeline, err := d.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{
		Label:   spec.Name,
		Layout:  pl,
		Compute: wgpu.ProgrammableStageDescriptor{Module: module, EntryPoint: spec.Entry},
	})
	if err != nil {
		return nil, compileError(op, err)
	}
	k := &Kernel{spec: spec, pipeline: pipeline, layout: layout}
	d.kernels[key] = k
	d.stats.KernelsCompiled++
	return k, nil
}

// KernelFor returns the kernel cached under key, calling build for its
// spec only on a miss: callers that generate WGSL pay for it once per
// device. build's spec must carry key as its Key.
func (d *Device) KernelFor(key string, build func() KernelSpec) (*Kernel, error) {
	d.mu.Lock()
	k, ok := d.kernels[key]
	d.mu.Unlock()
	if ok {
		return k, nil
	}
	spec := build()
	spec.Key = key
	return d.Kernel(spec)
}

func compileError(op string, err error) error {
	e := fromBinding(op, err)
	if e.Kind == ErrValidation {
		e.Kind = ErrCompile
	}
	return e
}

// layoutLocked returns the cached bind group layout for a binding signature.
func (d *Device) layoutLocked(bindings []Access, params bool) (*wgpu.BindGroupLayout, error) {
	var sig strings.Builder
	for _, a := range bindings {
		sig.WriteByte("rw"[a&1])
	}
	if params {
		sig.WriteByte('u')
	}
	if l, ok := d.layouts[sig.String()]; ok {
		return l, nil
	}
	entries := make([]wgpu.BindGroupLayoutEntry, 0, len(bindings)+1)
	for i, a := range bindings {
		t := wgpu.BufferBindingTypeReadOnlyStorage
		if a == ReadWrite {
			t = wgpu.BufferBindingTypeStorage
		}
		entries = append(entries, wgpu.BindGroupLayoutEntry{Binding: uint32(i), Visibility: wgpu.ShaderStageCompute, Buffer: wgpu.BufferBindingLayout{Type: t}})
	}
	if params {
		entries = append(entries, wgpu.BindGroupLayoutEntry{Binding: uint32(len(bindings)), Visibility: wgpu.ShaderStageCompute, Buffer: wgpu.BufferBindingLayout{Type: wgpu.BufferBindingTypeUniform}})
	}
	l, err := d.dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: "wgtensor " + sig.String(), Entries: entries})
	if err != nil {
		e := fromBinding("create bind group layout "+sig.String(), err)
		d.noteErr(e)
		return nil, e
	}
	d.layouts[sig.String()] = l
	return l, nil
}
