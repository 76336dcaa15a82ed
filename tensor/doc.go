// Package tensor is wgtensor's tensor library: n-dimensional arrays of
// float32, int32 or uint32 on a WebGPU device, with NumPy-style
// broadcasting, matrix products, reductions and shape ops, all computed by
// WGSL kernels from package shaders.
//
// # Overview
//
//	e := tensor.New(device)
//	a := e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
//	b := e.Relu(e.MatMul(a, a))        // recorded, batched, not yet run
//	v, err := b.Float32s(ctx)          // submits, waits, reads back
//	a.Dispose(); b.Dispose()           // storage back to the pool at once
//
// # Fusion
//
// Elementwise ops (arithmetic, comparisons, Where, Cast, the activations,
// Fill, Range, the random generators) are not dispatched as they are
// called: an Engine holds a run of them over one output shape and
// dispatches it as one generated kernel when something needs its results,
// such as a readback, another kind of op, Engine.Flush or frame.Next. Ops
// in a run read each other's results from registers, so relu(a*b + a)
// reads a and b once and writes one result. Results are bit for bit those
// of unfused ops (SetFusion turns fusion off). Memory is unaffected:
// outputs are allocated when an op is called, and a result disposed before
// the dispatch is not computed at all.
//
// # Transfers
//
// FromFloat32s and its kin upload the caller's slice without converting
// it; uploads of 1 MiB or more go through pooled staging buffers. Float32s
// and its kin copy from the mapped staging buffer straight into the result,
// and ReadInto reads into a slice the caller reuses.
//
// # Bounded submissions
//
// Every op estimates the work of its dispatches; one larger than the
// device's work budget (wgpu.Device.WorkBudget: about 50 ms on a CPU
// adapter, far more on a GPU) is split into several over ranges of
// its elements, rows, tiles or inner dimension, and the device submits its
// batch before the budget is passed, so that no submission runs long
// enough to break a CPU adapter. Results do not depend on the split.
// Reductions and softmax over rows longer than 65,536 elements reduce
// segments of each row first, on every device.
//
// # Memory
//
// Every tensor owns (or shares, for Reshape and Clone) a buffer from the
// device's pool, recorded with the line of code that created it; Dispose
// returns it. Engine.LiveTensors lists what is live and where it came from.
// Intermediate tensors an op needs internally are disposed by the op.
//
// # Errors
//
// Ops never panic on user input. A bad op (shape mismatch, bad axis, wrong
// dtype, disposed input, out of memory) returns a tensor whose Err reports
// an *OpError naming the op and the input shapes; ops on that tensor return
// the same error, and its readbacks reject with it. Test with errors.Is
// against ErrShape, ErrDType, ErrAxis, ErrArgument, ErrDisposed,
// ErrConcurrentUse or the device's errors (wgpu.ErrOutOfMemory, ...).
//
// # Concurrency
//
// An Engine belongs to one goroutine at a time; concurrent ops on one
// Engine are detected and fail with ErrConcurrentUse. Create one Engine per
// goroutine: Engines are cheap, and many share one Device safely. Dispose
// and readbacks are safe from any goroutine.
//
// # Precision
//
// Arithmetic is IEEE float32 on the device. Transcendental functions (exp,
// log, sin, tanh, ...) follow the backend's precision, within about 1e-5
// relative on lavapipe; Gelu is the tanh approximation. Integer division
// or modulo by zero gives an unspecified value rather than an error.
package tensor
