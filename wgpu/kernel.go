package wgpu

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wgtensor/wgtensor/wgpu/internal/native"
)

// Access says how a kernel uses a storage binding.
type Access int

// The accesses.
const (
	ReadOnly  Access = iota // var<storage, read>
	ReadWrite               // var<storage, read_write>
)

// minStorageBinding is the least that Dispatch binds of a storage buffer
// (Buffer.BindingSize), and so the most a kernel's storage binding may
// need.
const minStorageBinding = 16

// valid reports whether a is one of the accesses.
func (a Access) valid() bool { return a == ReadOnly || a == ReadWrite }

// KernelSpec describes a compute kernel: WGSL whose entry point reads and
// writes storage buffers at @group(0) @binding(0), (1), ..., in the order of
// Bindings, and, if Params, a uniform buffer of ParamsSize bytes at the
// next binding. A storage binding may need at most 16 bytes, the least
// that Dispatch binds (see Buffer.BindingSize): a runtime array's element
// is at most a vec4, with nothing before it. A shader that needs more
// fails to compile.
type KernelSpec struct {
	Name     string   // names the kernel in errors and labels
	Key      string   // the pipeline cache's key; Name when empty. Equal keys must mean equal sources.
	Source   string   // WGSL
	Entry    string   // entry point; "main" when empty
	Bindings []Access // the storage bindings, in binding order
	Params   bool     // a uniform parameter block follows the storage bindings
	// ParamsSize is the size in bytes of the WGSL struct of the uniform
	// block, required with Params. Compiling checks that the struct fits
	// it, and Dispatch refuses a parameter block shorter than it.
	ParamsSize uint64
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
	pipeline *native.Pipeline
	layout   *native.BindGroupLayout
}

// Name returns the kernel's name; "" for a nil Kernel.
func (k *Kernel) Name() string {
	if k == nil {
		return ""
	}
	return k.spec.Name
}

// Kernel returns the compiled kernel for spec, compiling it on first use.
// A WGSL error is returned wrapping ErrCompile, with the kernel's name and
// the compiler's message; a spec that is invalid in itself, or whose key
// is cached with other bindings or another parameter block, returns
// ErrInvalidArgument. A failed compile caches nothing.
func (d *Device) Kernel(spec KernelSpec) (*Kernel, error) {
	op := fmt.Sprintf("compile kernel %q", spec.Name)
	if err := d.opened(op); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	key := spec.key()
	if err := d.usable(op); err != nil {
		return nil, err
	}
	if k, ok := d.kernels[key]; ok {
		if !sameLayout(k.spec, spec) {
			return nil, newError(op, ErrInvalidArgument, fmt.Sprintf("key %q is compiled with bindings %v and a %d B parameter block", key, k.spec.Bindings, k.spec.ParamsSize))
		}
		return k, nil
	}
	if err := d.checkSpec(op, spec); err != nil {
		return nil, err
	}
	layout, err := d.layoutLocked(spec)
	if err != nil {
		return nil, err
	}
	return d.compileLocked(op, spec, layout)
}

// compileLocked builds spec's pipeline over layout and caches the kernel
// under spec's key. A failure caches nothing.
func (d *Device) compileLocked(op string, spec KernelSpec, layout *native.BindGroupLayout) (*Kernel, error) {
	if spec.Entry == "" {
		spec.Entry = "main"
	}
	spec.Bindings = slices.Clone(spec.Bindings) // the caller's slice may change
	pipeline, err := d.dev.CreatePipeline(spec.Name, spec.Source, spec.Entry, layout)
	if err != nil {
		e := fromBinding(op, err)
		d.noteErr(e)
		return nil, e
	}
	k := &Kernel{spec: spec, pipeline: pipeline, layout: layout}
	d.kernels[spec.key()] = k
	d.stats.KernelsCompiled++
	return k, nil
}

// checkSpec validates what a spec says about itself and the limits its
// layout meets.
func (d *Device) checkSpec(op string, spec KernelSpec) error {
	if spec.Name == "" || spec.Source == "" {
		return newError(op, ErrInvalidArgument, "a kernel needs a name and a source")
	}
	for i, a := range spec.Bindings {
		if !a.valid() {
			return newError(op, ErrInvalidArgument, fmt.Sprintf("binding %d has access %d; want ReadOnly or ReadWrite", i, int(a)))
		}
	}
	if n := len(spec.Bindings); uint64(n) > uint64(d.limits.MaxStorageBuffersPerShaderStage) {
		return newError(op, ErrLimit, fmt.Sprintf("%d storage bindings, the device allows %d", n, d.limits.MaxStorageBuffersPerShaderStage))
	}
	maxParams := min(paramChunkSize, d.limits.MaxUniformBufferBindingSize)
	switch {
	case spec.Params && spec.ParamsSize == 0:
		return newError(op, ErrInvalidArgument, "a kernel with Params declares ParamsSize, the size of its uniform struct")
	case !spec.Params && spec.ParamsSize != 0:
		return newError(op, ErrInvalidArgument, fmt.Sprintf("ParamsSize is %d B but Params is false", spec.ParamsSize))
	case spec.ParamsSize > maxParams:
		return newError(op, ErrLimit, fmt.Sprintf("a %d B parameter block, the device binds at most %d B", spec.ParamsSize, maxParams))
	}
	return nil
}

// sameLayout reports whether two specs shape the same bind group layout.
func sameLayout(a, b KernelSpec) bool {
	return slices.Equal(a.Bindings, b.Bindings) && a.Params == b.Params && a.ParamsSize == b.ParamsSize
}

// KernelFor returns the kernel cached under key, calling build for its
// spec only on a miss: callers that generate WGSL pay for it once per
// device. build's spec must carry key as its Key.
func (d *Device) KernelFor(key string, build func() KernelSpec) (*Kernel, error) {
	op := fmt.Sprintf("compile kernel %q", key)
	if err := d.opened(op); err != nil {
		return nil, err
	}
	if build == nil {
		return nil, newError(op, ErrInvalidArgument, "no spec builder")
	}
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

// layoutLocked returns the cached bind group layout for a validated spec's
// bindings and parameter block. The cache's key names everything that
// shapes the layout, so a layout is shared only by specs it fits.
func (d *Device) layoutLocked(spec KernelSpec) (*native.BindGroupLayout, error) {
	var sig strings.Builder
	for _, a := range spec.Bindings {
		sig.WriteByte("rw"[a])
	}
	if spec.Params {
		fmt.Fprintf(&sig, "u%d", spec.ParamsSize)
	}
	if l, ok := d.layouts[sig.String()]; ok {
		return l, nil
	}
	entries := make([]native.LayoutEntry, 0, len(spec.Bindings)+1)
	for _, a := range spec.Bindings {
		t := native.ReadOnlyStorage
		if a == ReadWrite {
			t = native.Storage
		}
		entries = append(entries, native.LayoutEntry{Type: t, MinSize: minStorageBinding})
	}
	if spec.Params {
		// The minimum binding sizes make pipeline creation check that the
		// shader needs no more than Dispatch binds: a shader that needed
		// more would fail the whole batch at submission instead.
		entries = append(entries, native.LayoutEntry{Type: native.Uniform, MinSize: spec.ParamsSize})
	}
	l, err := d.dev.CreateBindGroupLayout("wgtensor "+sig.String(), entries)
	if err != nil {
		e := fromBinding("create bind group layout "+sig.String(), err)
		d.noteErr(e)
		return nil, e
	}
	d.layouts[sig.String()] = l
	return l, nil
}
