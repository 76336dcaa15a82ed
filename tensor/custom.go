package tensor

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Kernel is a compute kernel written by the caller in WGSL, which
// Engine.RunKernel runs on tensors: an op the library lacks, as tfjs's
// custom kernels and PyTorch's custom ops add one. A Kernel is a plain
// description, safe to share between goroutines and engines; its pipeline
// is compiled once per device and cached (see Key).
//
// # Bindings
//
// The kernel's @group(0) bindings are, in this order:
//
//   - @binding(0) to @binding(n-1): the n inputs, in the order of
//     Launch.Inputs, as var<storage, read>;
//   - the next u bindings: the u tensors updated in place, in the order
//     of Launch.InOut, as var<storage, read_write> (none in most
//     launches, so that the outputs follow the inputs);
//   - the next m bindings: the m outputs, in the order of Launch.Outputs,
//     as var<storage, read_write>;
//   - @binding(n+u+m): the uniform block, a struct whose first 16 bytes
//     are the launch header and whose next bytes are Launch.Params.
//
// Each tensor is bound whole, as a contiguous row-major array of its
// dtype's WGSL type (array<f32>, array<i32> or array<u32>; an
// array<vec4<f32>> and the like when the sizes allow, or
// array<atomic<u32>> for an output). arrayLength may exceed the tensor's
// size by up to three elements (bindings cover whole 16-byte words): take
// sizes from the header or the params, not from arrayLength. A shader
// that declares an input read_write, a binding the list above lacks, or a
// uniform block larger than the one bound fails to compile, and RunKernel
// reports it.
//
// # Threads and the header
//
// RunKernel runs Launch.Threads invocations, numbered 0 to Threads-1, in
// workgroups of Workgroup invocations, whose @workgroup_size(Workgroup)
// the shader declares. The grid is the library's: it may be two-
// dimensional (past 65,535 workgroups) and a large launch is cut into
// several dispatches (see Work), whole workgroups each. An invocation
// finds its number, and each dispatch its range, in the header:
//
//	struct Params {
//		first: u32,   // the first invocation of this dispatch
//		end: u32,     // one past its last: invocations i >= end return
//		row: u32,     // invocations per step of global_invocation_id.y
//		threads: u32, // Launch.Threads
//		// Launch.Params follow, one 4-byte member each, in order.
//	}
//	@group(0) @binding(2) var<uniform> p: Params; // with 1 input, 1 output
//
//	@compute @workgroup_size(256)
//	fn main(@builtin(global_invocation_id) id: vec3<u32>) {
//		let i = p.first + id.x + id.y * p.row;
//		if (i >= p.end) { return; }
//		...
//	}
//
// RunKernel refuses a shader whose only @workgroup_size attribute, in
// literals, disagrees with Workgroup: with 64 declared and the default
// 256, three elements in four would go unwritten.
//
// Invocation i belongs to workgroup i / Workgroup, and a workgroup's
// invocations always run in one dispatch, so workgroup memory and
// barriers work as usual (the invocations past end of the last workgroup
// must reach the barriers too: test i >= end after them).
//
// CPU adapters stop a loop silently after 65,535 trips (see package
// shaders): a kernel that loops more must cut its loop in pieces. The
// workgroup memory a shader declares is not checked against the device's
// MaxComputeWorkgroupStorageSize (the wgpu-native under the binding
// creates such a pipeline without a word): stay within it.
type Kernel struct {
	// Name names the kernel in errors, pipeline labels and reports.
	Name string
	// Key identifies the compiled pipeline on a device. Empty, the key is
	// Name with a hash of Source and Entry, so that a changed source
	// compiles anew. Set, it stands for the source: a Kernel with another
	// Source or Entry under a Key already compiled on the device runs the
	// pipeline compiled first, without compiling its own, as
	// wgpu.Device.KernelFor does. Launches with other numbers of
	// inputs, outputs or params compile pipelines of their own.
	Key string
	// Source is the WGSL.
	Source string
	// Entry is the entry point; "main" when empty.
	Entry string
	// Workgroup is the number of invocations per workgroup, which the
	// shader must declare as @workgroup_size(Workgroup): one-dimensional,
	// at most the device's limits. 0 means kernels.WorkgroupSize (256).
	Workgroup int
	// Work estimates the cost of one invocation, in the units of
	// wgpu.Work (about a nanosecond of a CPU adapter); 0 means
	// DefaultInvocationWork. The engine cuts a launch into dispatches of
	// whole workgroups within the device's work budget, so that no
	// submission runs long enough to break a CPU adapter; state a larger
	// Work for invocations that loop.
	Work float64
}

// DefaultInvocationWork is the work assumed for an invocation of a Kernel
// with no Work of its own: a few loads, some arithmetic and a store, as
// the library's elementwise kernels (and wgpu.Device.Dispatch, per
// workgroup of 256, with no estimate).
const DefaultInvocationWork = 16

// KernelHeaderSize is the size in bytes of the header that starts a
// Kernel's uniform block; Launch.Params start at this offset.
const KernelHeaderSize = 16

// Out describes an output a Kernel writes: the engine allocates a tensor
// of Shape and DType for it.
type Out struct {
	Shape Shape
	DType DType
	// Zeroed fills the output with zeros before the kernel runs, for
	// kernels that accumulate (atomics, histograms) or write only some
	// elements. Otherwise its contents are unspecified until the kernel
	// writes them.
	Zeroed bool
}

// Launch is what Engine.RunKernel runs a Kernel on.
type Launch struct {
	// Inputs are bound read-only, in order, from @binding(0). They may be
	// views (Reshape shares storage) or results of ops not yet run: the
	// kernel sees each input's values, contiguous and row-major.
	Inputs []*Tensor
	// InOut are existing tensors the kernel updates in place (an optimizer
	// writes a parameter and its state in one kernel), bound read_write
	// after the inputs and before the outputs, in order: the kernel reads
	// and writes their own storage, as Engine.Assign does, so every view
	// of it sees the new values and its Version goes up by one. Like
	// Assign's, the writes are ordered with every other op: an op or a
	// readback called before RunKernel sees the old values. Each must be
	// a live tensor of the engine's device whose storage no input and no
	// other InOut shares (WebGPU binds a buffer writable once per
	// dispatch).
	InOut []*Tensor
	// Outputs are allocated by the engine and bound read_write after the
	// inputs and InOut, in order. A launch has at least one output or one
	// InOut.
	Outputs []Out
	// Threads is the number of invocations to run, at most MaxElements; 0
	// runs none.
	Threads int
	// Params are the caller's parameters, each a float32, an int32 or a
	// uint32, encoded little-endian at byte KernelHeaderSize+4i of the uniform
	// block: the shader declares them as f32, i32 or u32 members after the
	// header, in order (a vecN member covers N of them where WGSL's
	// alignment puts it at their offset: vec2 at a multiple of 8 bytes,
	// vec3 and vec4 at a multiple of 16). The block is rounded up to a
	// whole number of 16-byte words and is at most 16 KiB.
	Params []any
}

// RunKernel runs k over l.Threads invocations, reading l.Inputs and
// updating l.InOut in place, and returns one new tensor per output in
// l.Outputs, written by k (an empty slice when l has only InOut). The
// results are ordinary tensors: counted by Memory, created at the caller's
// line, tracked by the innermost tidy scope, and read back like any other.
// Like every op it is recorded, not run: it is submitted with the batch.
//
// It never panics on bad input. A launch that fails (an input nil,
// disposed, carrying an error or on another device; a bad output shape or
// dtype; a param of another type; WGSL that does not compile, or whose
// bindings disagree with the launch; more bindings or params than the
// device allows) returns tensors that each carry an *OpError naming the
// kernel and the input shapes (an input carrying an error passes that
// error on, as with every op), and holds nothing: one tensor if l asks
// for no output. A failed launch writes no InOut and bumps no Version. A
// compile error wraps wgpu.ErrCompile and holds the compiler's message. Like every op, RunKernel belongs to the Engine's
// goroutine.
func (e *Engine) RunKernel(k Kernel, l Launch) []*Tensor {
	return e.runKernel(callerSite(), k, l)
}

func (e *Engine) runKernel(site stack, k Kernel, l Launch) []*Tensor {
	name := fmt.Sprintf("kernel %q", k.Name)
	failAll := func(bad *Tensor) []*Tensor { return errTensors(e, bad, len(l.Outputs)) }
	o, bad := e.begin(name, site, slices.Concat(l.Inputs, l.InOut)...)
	if bad != nil {
		return failAll(bad)
	}
	defer o.end()
	if err := o.checkLaunch(k, l); err != nil {
		return failAll(e.errTensor(err))
	}
	for _, t := range l.InOut {
		if err := o.beforeWrite(t); err != nil {
			return failAll(e.errTensor(err))
		}
	}
	kern, err := o.compileCustom(k, l)
	if err != nil {
		return failAll(e.errTensor(err))
	}
	outs, err := o.allocOutputs(l.Outputs)
	if err != nil {
		return failAll(e.errTensor(err))
	}
	if err := o.launch(kern, k, l, outs); err != nil {
		for _, t := range outs {
			t.Dispose()
		}
		return failAll(e.errTensor(err))
	}
	for _, t := range l.InOut {
		t.st.version.Add(1)
	}
	return outs
}

// errTensors returns n tensors carrying bad's error (one if n is 0), so
// that a caller indexing its outputs finds the error in each.
func errTensors(e *Engine, bad *Tensor, n int) []*Tensor {
	out := []*Tensor{bad}
	for range n - 1 {
		out = append(out, e.errTensor(bad.err))
	}
	return out
}

// workgroup is k's workgroup size.
func (k Kernel) workgroup() int {
	if k.Workgroup == 0 {
		return kernels.WorkgroupSize
	}
	return k.Workgroup
}

// work is k's work per invocation.
func (k Kernel) work() float64 {
	if k.Work == 0 {
		return DefaultInvocationWork
	}
	return k.Work
}

// checkLaunch validates k and l against each other and the device's
// limits, before anything is compiled or allocated.
func (o *op) checkLaunch(k Kernel, l Launch) error {
	fail := func(kind error, format string, args ...any) error {
		return opErr(o.name, o.shapes(), kind, format, args...)
	}
	lim := o.e.dev.Limits()
	wg := k.workgroup()
	switch {
	case k.Name == "" || k.Source == "":
		return fail(ErrArgument, "a kernel needs a Name and a Source")
	case wg < 0:
		return fail(ErrArgument, "workgroup of %d invocations", wg)
	case uint64(wg) > uint64(min(lim.MaxComputeWorkgroupSizeX, lim.MaxComputeInvocationsPerWorkgroup)):
		return fail(wgpu.ErrLimit, "workgroup of %d invocations, the device allows %d", wg, min(lim.MaxComputeWorkgroupSizeX, lim.MaxComputeInvocationsPerWorkgroup))
	case k.Work < 0 || math.IsNaN(k.Work) || math.IsInf(k.Work, 0):
		return fail(ErrArgument, "work per invocation %v", k.Work)
	case l.Threads < 0 || l.Threads > MaxElements:
		return fail(ErrArgument, "%d threads; at most %d (MaxElements)", l.Threads, MaxElements)
	case len(l.Outputs) == 0 && len(l.InOut) == 0:
		return fail(ErrArgument, "no outputs and no InOut: a kernel writes at least one")
	}
	if err := checkInOutAliasing(l); err != nil {
		return fail(ErrArgument, "%v", err)
	}
	if dims, ok := declaredWorkgroup(k.Source); ok && (dims != [3]int{wg, 1, 1}) {
		return fail(ErrArgument, "the shader declares @workgroup_size%v and Workgroup is %d: a Kernel's workgroup is one-dimensional, and the two must agree", dims, wg)
	}
	for i, out := range l.Outputs {
		if !out.DType.valid() || out.DType.narrow() {
			return fail(ErrDType, "output %d has dtype %v; a kernel's outputs are float32, int32 or uint32", i, out.DType)
		}
		if err := out.Shape.check(); err != nil {
			return fail(ErrShape, "output %d: %v", i, err)
		}
		if b := max(16, (4*uint64(out.Shape.Size())+15)&^15); b > lim.MaxStorageBufferBindingSize {
			return fail(wgpu.ErrLimit, "output %d %v is %d B, the device binds at most %d B", i, out.Shape, b, lim.MaxStorageBufferBindingSize)
		}
	}
	for i, t := range slices.Concat(l.Inputs, l.InOut) {
		if b := t.st.buf.BindingSize(); b > lim.MaxStorageBufferBindingSize {
			return fail(wgpu.ErrLimit, "input %d is %d B, the device binds at most %d B", i, b, lim.MaxStorageBufferBindingSize)
		}
	}
	for i, p := range l.Params {
		switch p.(type) {
		case float32, int32, uint32:
		default:
			return fail(ErrArgument, "param %d is %T; want float32, int32 or uint32", i, p)
		}
	}
	return nil
}

// checkInOutAliasing returns an error if a tensor of l.InOut shares its
// storage with an input or another InOut.
func checkInOutAliasing(l Launch) error {
	for i, t := range l.InOut {
		for j, in := range l.Inputs {
			if in.st == t.st {
				return fmt.Errorf("InOut %d shares its storage with input %d", i, j)
			}
		}
		for j, u := range l.InOut[:i] {
			if u.st == t.st {
				return fmt.Errorf("InOut %d shares its storage with InOut %d", i, j)
			}
		}
	}
	return nil
}

// declaredWorkgroup returns the workgroup size src declares, if it
// declares one of literal dimensions (missing ones are 1) in its only
// @workgroup_size attribute: a source with several, or with constants or
// overrides in it, is not checked.
func declaredWorkgroup(src string) (dims [3]int, ok bool) {
	const attr = "@workgroup_size("
	if strings.Count(src, attr) != 1 {
		return dims, false
	}
	args, _, found := strings.Cut(src[strings.Index(src, attr)+len(attr):], ")")
	parts := strings.Split(strings.TrimSuffix(strings.TrimSpace(args), ","), ",")
	if !found || len(parts) > 3 {
		return dims, false
	}
	dims = [3]int{1, 1, 1}
	for i, a := range parts {
		n, err := strconv.Atoi(strings.TrimRight(strings.TrimSpace(a), "iu"))
		if err != nil {
			return dims, false
		}
		dims[i] = n
	}
	return dims, true
}

// paramsSize is the size of the uniform block of n params: the header
// and the params in whole 16-byte words.
func paramsSize(n int) int { return (KernelHeaderSize + 4*n + 15) &^ 15 }

// paramsBlock encodes params after a zero header (see paramsSize). The
// params were checked by checkLaunch.
func paramsBlock(params []any) []byte {
	b := make([]byte, paramsSize(len(params)))
	for i, p := range params {
		var w uint32
		switch v := p.(type) {
		case float32:
			w = math.Float32bits(v)
		case int32:
			w = uint32(v)
		case uint32:
			w = v
		}
		binary.LittleEndian.PutUint32(b[KernelHeaderSize+4*i:], w)
	}
	return b
}

// compileCustom returns k's pipeline for l's bindings and params,
// compiling it on the first launch of its key on the device.
func (o *op) compileCustom(k Kernel, l Launch) (*wgpu.Kernel, error) {
	nin, nout := len(l.Inputs), len(l.InOut)+len(l.Outputs)
	size := uint64(paramsSize(len(l.Params)))
	// InOut and outputs bind alike (read_write): only their sum matters.
	key := fmt.Sprintf("custom/%s/%dr%dw%dB", k.cacheKey(), nin, nout, size)
	kern, err := o.e.dev.KernelFor(key, func() wgpu.KernelSpec {
		bindings := make([]wgpu.Access, 0, nin+nout)
		for range nin {
			bindings = append(bindings, wgpu.ReadOnly)
		}
		for range nout {
			bindings = append(bindings, wgpu.ReadWrite)
		}
		return wgpu.KernelSpec{Name: k.Name, Source: k.Source, Entry: k.Entry,
			Bindings: bindings, Params: true, ParamsSize: size}
	})
	if err != nil {
		return nil, &OpError{Op: o.name, Shapes: o.shapes(), Err: err}
	}
	return kern, nil
}

// cacheKey is the key k's pipelines are cached by (see Kernel.Key).
func (k Kernel) cacheKey() string {
	if k.Key != "" {
		return "key:" + k.Key
	}
	h := fnv.New64a()
	h.Write([]byte(k.Entry))
	h.Write([]byte{0})
	h.Write([]byte(k.Source))
	return fmt.Sprintf("name:%s#%016x", k.Name, h.Sum64())
}

// allocOutputs allocates the outputs, recording the zero fill of those
// that ask for it (dispatched when the kernel binds them). On failure it
// disposes what it allocated.
func (o *op) allocOutputs(outs []Out) ([]*Tensor, error) {
	ts := make([]*Tensor, 0, len(outs))
	fail := func(err error) ([]*Tensor, error) {
		for _, t := range ts {
			t.Dispose()
		}
		return nil, err
	}
	for _, out := range outs {
		t, err := o.alloc(out.Shape.clone(), out.DType)
		if err != nil {
			return fail(err)
		}
		ts = append(ts, t)
		if out.Zeroed {
			n := fillNode(out.DType)
			n.Name = "zeros"
			if err := o.record(t, n, kernels.NodeParams{}, nil); err != nil {
				return fail(err)
			}
		}
	}
	return ts, nil
}

// launch records k's dispatches over l.Threads invocations: whole
// workgroups, cut into pieces within the device's work budget, each told
// its range in the header.
func (o *op) launch(kern *wgpu.Kernel, k Kernel, l Launch, outs []*Tensor) error {
	wg := k.workgroup()
	groups := (l.Threads + wg - 1) / wg
	pieces, err := o.e.split(groups, float64(wg)*k.work(), 1)
	if err != nil {
		return opErr(o.name, o.shapes(), wgpu.ErrLimit, "%v", err)
	}
	if len(pieces) == 0 {
		return nil
	}
	bufs := make([]*wgpu.Buffer, 0, len(l.Inputs)+len(l.InOut)+len(outs))
	for _, t := range slices.Concat(l.Inputs, l.InOut) {
		bufs = append(bufs, t.st.buf) // dispatched already by begin
	}
	for _, t := range outs {
		bufs = append(bufs, t.buf()) // dispatches a pending zero fill
	}
	for _, t := range outs {
		if err := t.st.err(); err != nil {
			return err
		}
	}
	block := paramsBlock(l.Params)
	for _, pc := range pieces {
		header := [4]uint32{uint32(pc.first * wg), uint32(min(pc.end*wg, l.Threads)), pc.row * uint32(wg), uint32(l.Threads)}
		for i, w := range header {
			binary.LittleEndian.PutUint32(block[4*i:], w)
		}
		if err := o.e.dev.DispatchWork(kern, pc.groups, pc.work, block, bufs...); err != nil {
			return &OpError{Op: o.name, Shapes: o.shapes(), Err: err}
		}
	}
	return nil
}
