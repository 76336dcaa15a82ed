package native

// #include "shim.h"
import "C"

import (
	"sync"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// The binding's Buffer.MapAsync and Queue.OnSubmittedWorkDone pass wgpu-native
// the address of a cgo.Handle that lives in Go memory nothing references once
// the call returns. A garbage collection between the call and the poll that
// runs the callback frees it, and the callback then panics ("misuse of an
// invalid Handle") or runs another request's callback. These two calls are
// therefore made here, with a plain integer id as the user data and a
// registry that maps ids back to their requests.

// The binding's handle types, mirrored to reach the C handles they wrap.
// v0.23.0 is the only version of the binding we build with; rawLayoutOK
// checks the mirrors at device open.
type (
	rawDevice struct{ ref C.WGPUDevice }
	rawBuffer struct {
		device C.WGPUDevice
		ref    C.WGPUBuffer
	}
	rawQueue struct {
		device C.WGPUDevice
		ref    C.WGPUQueue
	}
)

func cDevice(d *wgpu.Device) C.WGPUDevice { return (*rawDevice)(unsafe.Pointer(d)).ref }
func cBuffer(b *wgpu.Buffer) C.WGPUBuffer { return (*rawBuffer)(unsafe.Pointer(b)).ref }
func cQueue(q *wgpu.Queue) C.WGPUQueue    { return (*rawQueue)(unsafe.Pointer(q)).ref }

// rawLayoutOK reports whether the mirrored layouts agree with the binding's
// values: the buffer's device is the device, and neither handle is nil.
func rawLayoutOK(d *wgpu.Device, b *wgpu.Buffer, q *wgpu.Queue) bool {
	rb := (*rawBuffer)(unsafe.Pointer(b))
	rq := (*rawQueue)(unsafe.Pointer(q))
	return cDevice(d) != nil && rb.ref != nil && rb.device == cDevice(d) && rq.device == cDevice(d) && rq.ref != nil
}

// callbacks maps the ids handed to wgpu-native to the functions that settle
// their requests. Callbacks run on whichever goroutine is inside wgpu-native
// when they fire (usually the poller), so they must not take the runtime's
// device lock.
var callbacks struct {
	mu   sync.Mutex
	next uintptr
	fns  map[uintptr]func(status uint32)
}

func registerCallback(fn func(status uint32)) uintptr {
	callbacks.mu.Lock()
	defer callbacks.mu.Unlock()
	if callbacks.fns == nil {
		callbacks.fns = make(map[uintptr]func(uint32))
	}
	callbacks.next++
	callbacks.fns[callbacks.next] = fn
	return callbacks.next
}

func takeCallback(id uintptr) func(uint32) {
	callbacks.mu.Lock()
	defer callbacks.mu.Unlock()
	fn := callbacks.fns[id]
	delete(callbacks.fns, id)
	return fn
}

//export wgtMapDone
func wgtMapDone(status C.uint32_t, id C.uintptr_t) {
	if fn := takeCallback(uintptr(id)); fn != nil {
		fn(uint32(status))
	}
}

//export wgtWorkDone
func wgtWorkDone(status C.uint32_t, id C.uintptr_t) {
	if fn := takeCallback(uintptr(id)); fn != nil {
		fn(uint32(status))
	}
}

// mapBuffer asks wgpu-native to map the first size bytes of b in mode;
// done runs with the map status when a poll settles it. A validation error
// is returned at once, and done may still run (with a failure status).
func mapBuffer(d *wgpu.Device, b *wgpu.Buffer, mode wgpu.MapMode, size uint64, done func(MapStatus)) error {
	id := registerCallback(func(status uint32) { done(MapStatus(status)) })
	var msg [1024]C.char
	if C.wgt_map(cDevice(d), cBuffer(b), C.uint32_t(mode), C.size_t(size), C.uintptr_t(id), &msg[0], C.size_t(len(msg))) != 0 {
		m := C.GoString(&msg[0])
		return &Error{Kind: kindOf(m), Msg: m}
	}
	return nil
}

// onWorkDone asks for done to run when the work submitted to q so far is done.
func onWorkDone(q *wgpu.Queue, done func(status uint32)) {
	C.wgt_work_done(cQueue(q), C.uintptr_t(registerCallback(done)))
}
