// Package native is the runtime's one door to wgpu-native: every call into
// the WebGPU binding (github.com/cogentcore/webgpu v0.23.0) and the cgo shim
// that routes around its defects live here, so that moving to another
// binding changes this package alone.
//
// Its API is shaped around what the runtime does, not around WebGPU's: list
// adapters and open a device on one; create buffers of the runtime's four
// usages, bind group layouts, compute pipelines and bind groups; encode a
// batch of compute passes and copies and submit it; write and map buffers;
// poll; and release. Errors come back as *Error, classified by Kind, with
// the binding's decorations stripped.
//
// # Defects routed around (see BINDING.md)
//
//   - The instance is created without a descriptor, which the binding
//     fills in half (wgpu-native then aborts); backends are chosen when
//     adapters are enumerated.
//   - The device-lost callback is never set: the binding passes it a Go
//     pointer cgo refuses. Loss is read from the errors calls return.
//   - Buffer maps and work-done requests go through the shim (shim.go), with
//     an integer id as the callback's user data: the binding's own calls
//     pass wgpu-native a pointer to Go memory that nothing keeps alive.
//   - The binding drops the WebGPU error type of every failed call; classify
//     reads the kind (out of memory, device lost) back from the message.
//   - A submission that names a destroyed buffer aborts the process inside
//     wgpu-native, and Submit cannot catch it: callers make sure none does.
//   - The GL adapter refuses its own full limits; RequestDevice falls back.
//   - A compute pass must be ended and released before the encoder
//     finishes; Encoder does both.
//   - Instance reports count only the GL hub (GLBufferCount).
//   - The binding's ComputePassDescriptor has no timestampWrites: a timed
//     pass is begun in the shim (timestamp.go). Devices are requested with
//     the timestamp-query feature where the adapter offers it.
//   - The binding's error scopes use WebGPU's validation filter (0); the
//     shim's once used 1, the out-of-memory filter, which let validation
//     errors through to wgpu-native's uncaptured handler, which aborts.
//   - wgpu-native logs to stderr unless told not to: logging is off unless
//     WGT_WGPU_LOG names a level.
//
// # Concurrency
//
// Nothing here takes a lock of its own except the shim's callback registry.
// wgpu-native's calls are safe from several threads, but the runtime
// serialises every call but Poll on its device lock, and on the GL backend
// Poll too (one EGL context serves every GL device of the process).
// Callbacks (map and work-done) run on the goroutine that polls, inside
// wgpu-native, and must not block on a lock the poller's caller holds.
package native
