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
