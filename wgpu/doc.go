// Package wgpu is wgtensor's device runtime: it opens a WebGPU device
// through wgpu-native, owns every GPU buffer in an exactly counted pool,
// batches compute dispatches into few queue submissions, and reads results
// back through promises.
//
// Everything above it speaks in Devices, Buffers, Kernels and Promises;
// nothing above it touches WebGPU itself.
//
// # Overview
//
//	d, err := wgpu.Open(ctx, wgpu.Options{Backend: wgpu.BackendVulkan})
//	buf, err := d.NewBuffer(4096, wgpu.UsageStorage) // from the pool
//	err = d.Write(buf, 0, data)                      // upload
//	k, err := d.Kernel(wgpu.KernelSpec{...})         // compiled once per device
//	err = d.Dispatch(k, groups, params, buf)         // recorded, not yet submitted
//	out, err := d.ReadAsync(buf, 0, 4096).Await(ctx) // submits, maps, copies
//	buf.Release()                                    // back to the pool
//	d.Pool().Trim()                                  // pooled memory back to the driver
//	err = d.Close()                                  // reports what was still live
//
// # Invariants
//
//   - Every buffer is counted: [PoolStats] adds up to what the device holds
//     from the driver (on the GL backend, where the driver keeps a count,
//     [DeviceStats].DriverBuffers cross-checks it).
//   - A buffer named by recorded but unsubmitted work is never destroyed
//     before that work is submitted (wgpu-native aborts the process on such
//     a submission): Trim, the memory limit and Close flush first.
//   - Releasing a buffer with a pending readback is safe: the copy was
//     recorded first, and queue order runs it first.
//   - Every NewBuffer returns a new *Buffer handle, also when the pool
//     reuses memory: a released handle stays released (ErrDisposed) for
//     ever, and a handle's size, capacity and usage never change.
//   - Everything a dispatch names is validated when it is recorded (the
//     buffers, the workgroup counts, the parameter block against the
//     kernel's declared ParamsSize), so one bad call returns its error and
//     records nothing. A batch that fails anyway at submission rejects the
//     readbacks it holds with that error, returns their staging buffers to
//     the pool and drops its upload buffers: nothing it named stays live
//     or pending, and the error also reaches the error scopes. The
//     buffers it would have written lost their contents: reading them
//     (ReadAsync, or Dispatch binding them) fails with the batch's error
//     until a Write of the whole buffer gives them contents again.
//   - Every offset and size check is safe from wrapping past 2^64, and a
//     buffer's capacity never passes Limits.MaxBufferSize.
//   - No submission carries more estimated work than the device's budget
//     (WorkBudget; see Work), unless a single dispatch or copy does, and
//     then it is submitted alone: a submission that runs for more than
//     about five seconds breaks lavapipe. Callers that know a dispatch's
//     work pass it to DispatchWork and split what passes the budget.
//   - Writes are ordered after the work recorded before them. Small ones
//     go through the queue; writes of 1 MiB or more through pooled upload
//     buffers kept mapped, copied in order with the batch.
//
// # Float32 arithmetic
//
// WGSL lets a device flush subnormals and divide or take square roots to
// within 2.5 ulp; GPUs do (an NVIDIA GPU through Vulkan does all three),
// lavapipe does neither. Open measures each device with one small kernel
// on buffers of its own, once per adapter in a process, and
// Device.Float32 reports what it found, for code generators that keep
// results exact (the tensor package's elementwise ops do).
// Options.Float32, or WGT_FLOAT32=flush,div,sqrt, adds departures to
// assume, so that any device computes what a GPU with them computes.
// Options.Poison (WGT_POISON=1) fills every storage buffer the pool hands
// out with PoisonWord and fails readbacks that find it: a debugging mode
// for kernels that leave elements unwritten.
//
// # Timing
//
// StartTiming starts a Timer that times every dispatch recorded on the
// device until Timer.Stop, whichever goroutine records it, and follows the
// bytes handed out meanwhile without touching the pool's own peaks. Where
// the adapter offers timestamp queries (lavapipe does; llvmpipe through GL
// does not), each timed dispatch gets a compute pass of its own whose start
// and end the GPU stamps (GPUTimestamps); elsewhere, or with
// WGT_TIMESTAMPS=0, each is submitted alone and waited for (WallTime), so
// timed work runs slower. One Timer runs on a device at a time.
// tensor.Engine.Profile builds kernel profiles on it.
//
// # Concurrency
//
// A Device, its Pool, its Kernels and Promises are safe for concurrent use
// by multiple goroutines. Nil and zero values are safe too: methods on a
// nil or zero Device, Pool, Buffer or Kernel return an error or a zero
// value, never panic. GPU calls are serialised on the device's lock;
// polling runs outside it, so a goroutine awaiting a readback does not stop
// others from recording work. On the GL backend every device of the
// process shares one lock, polls included: wgpu-native's GL devices share
// one EGL context, which two threads must never use at once. Await first
// polls without blocking for up to Options.SpinWait, then sleeps until a
// poller goroutine settles its promise.
//
// No user code runs while the package holds a lock: settling a promise
// never runs its OnSettled callbacks; they start on a goroutine of their own, so
// a callback may call any method of the Device, including Poll and Await.
// Options.OnUncapturedError runs on a goroutine of its own too.
//
// # Errors
//
// Errors are *Error values that wrap a sentinel (ErrDeviceLost,
// ErrOutOfMemory, ErrClosed, ErrDisposed, ErrLimit, ErrCompile, ...) with the
// operation that failed; test for them with errors.Is. After the device is
// lost or closed, every call fails fast with that error and every pending
// promise is rejected with it.
package wgpu
