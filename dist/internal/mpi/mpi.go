//go:build mpi

// Package mpi is the small cgo binding to an MPI library (Open MPI's
// libmpi, found through pkg-config's ompi-c) that package dist runs on:
// initialisation, the ranks, and the nonblocking collectives dist polls
// with deadlines. It is built only with the build tag mpi; without it,
// Open reports that MPI is not built in (see open_off.go).
//
// MPI runs at MPI_THREAD_SERIALIZED: a World's methods take its lock, so
// they are safe from any goroutine, and MPI is never entered by two
// threads at once. Errors return (MPI_ERRORS_RETURN) instead of aborting
// the process, as MPI's default handler would.
package mpi

/*
#cgo pkg-config: ompi-c
#include <mpi.h>
#include <stdlib.h>

static int wg_init(int *provided) {
	// Open MPI catches SIGSEGV, SIGBUS, SIGFPE and SIGABRT to print a
	// backtrace unless told not to; Go's runtime needs them (a nil
	// dereference is a Go panic), so leave them alone unless the user set
	// opal_signal.
	setenv("OMPI_MCA_opal_signal", "", 0);
	int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, provided);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

static int wg_initialized(int *flag) { return MPI_Initialized(flag); }
static int wg_finalized(int *flag) { return MPI_Finalized(flag); }

static int wg_world(int *rank, int *size) {
	int rc = MPI_Comm_rank(MPI_COMM_WORLD, rank);
	if (rc != MPI_SUCCESS) return rc;
	return MPI_Comm_size(MPI_COMM_WORLD, size);
}

// wg_local gives the rank and size among the processes of this node.
static int wg_local(int *rank, int *size) {
	MPI_Comm local;
	int rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
	if (rc != MPI_SUCCESS) return rc;
	MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
	rc = MPI_Comm_rank(local, rank);
	if (rc == MPI_SUCCESS) rc = MPI_Comm_size(local, size);
	MPI_Comm_free(&local);
	return rc;
}

static int wg_iallreduce_sum_f32(void *buf, int n, MPI_Request *req) {
	return MPI_Iallreduce(MPI_IN_PLACE, buf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, req);
}

static int wg_iallgather(const void *send, int n, void *recv, MPI_Request *req) {
	return MPI_Iallgather(send, n, MPI_BYTE, recv, n, MPI_BYTE, MPI_COMM_WORLD, req);
}

static int wg_ibcast(void *buf, int n, int root, MPI_Request *req) {
	return MPI_Ibcast(buf, n, MPI_BYTE, root, MPI_COMM_WORLD, req);
}

static int wg_ibarrier(MPI_Request *req) { return MPI_Ibarrier(MPI_COMM_WORLD, req); }

static int wg_test(MPI_Request *req, int *done) { return MPI_Test(req, done, MPI_STATUS_IGNORE); }

static int wg_finalize(void) { return MPI_Finalize(); }

static int wg_abort(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }

static void wg_error_string(int code, char *buf, int *n) { MPI_Error_string(code, buf, n); }

static int wg_max_error_string(void) { return MPI_MAX_ERROR_STRING; }

static int wg_thread_serialized(void) { return MPI_THREAD_SERIALIZED; }
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"
)

// Built reports whether the binding is built in (the build tag mpi).
const Built = true

// World is MPI_COMM_WORLD of an initialised MPI.
type World struct {
	mu                           sync.Mutex
	rank, size, local, localSize int
	done                         bool // finalised
	// inflight holds the requests not yet complete: one abandoned by its
	// caller (a timeout) stays here, its buffers pinned and reachable,
	// since MPI may still write into them.
	inflight map[*Request]struct{}
}

// Open initialises MPI (MPI_Init_thread at MPI_THREAD_SERIALIZED, errors
// returned) and returns the world. MPI can be initialised once per
// process: a second Open fails, as does one after Finalize.
func Open() (*World, error) {
	var init, fin C.int
	C.wg_initialized(&init)
	C.wg_finalized(&fin)
	if init != 0 || fin != 0 {
		return nil, errors.New("mpi: already initialised in this process (MPI allows it once)")
	}
	var provided C.int
	if rc := C.wg_init(&provided); rc != C.MPI_SUCCESS {
		return nil, mpiErr("MPI_Init_thread", rc)
	}
	w := &World{inflight: map[*Request]struct{}{}}
	if provided < C.wg_thread_serialized() {
		C.wg_finalize()
		return nil, fmt.Errorf("mpi: the library provides thread level %d, below MPI_THREAD_SERIALIZED", int(provided))
	}
	var r, s, lr, ls C.int
	if rc := C.wg_world(&r, &s); rc != C.MPI_SUCCESS {
		return nil, mpiErr("MPI_Comm_rank", rc)
	}
	if rc := C.wg_local(&lr, &ls); rc != C.MPI_SUCCESS {
		return nil, mpiErr("MPI_Comm_split_type", rc)
	}
	w.rank, w.size, w.local, w.localSize = int(r), int(s), int(lr), int(ls)
	return w, nil
}

// Rank, Size, LocalRank and LocalSize are this process's rank and the
// world's size, and the same among the processes of this node.
func (w *World) Rank() int      { return w.rank }
func (w *World) Size() int      { return w.size }
func (w *World) LocalRank() int { return w.local }
func (w *World) LocalSize() int { return w.localSize }

// Request is a nonblocking collective in flight. Its buffers are pinned
// until Test reports it done (or the process ends).
type Request struct {
	w   *World
	req *C.MPI_Request // an allocation of its own: C may take no pointer into a struct holding Go pointers
	pin runtime.Pinner
	op  string
}

// maxCount is the most elements one MPI call moves (a C int).
const maxCount = math.MaxInt32

// start runs the C call that starts a collective, under w's lock, with
// bufs pinned for as long as it is in flight.
func (w *World) start(op string, n int, bufs []unsafe.Pointer, call func(r *C.MPI_Request) C.int) (*Request, error) {
	if n > maxCount {
		return nil, fmt.Errorf("mpi: %s of %d elements: at most %d in one call", op, n, maxCount)
	}
	r := &Request{w: w, op: op, req: new(C.MPI_Request)}
	for _, b := range bufs {
		if b != nil {
			r.pin.Pin(b)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		r.pin.Unpin()
		return nil, errors.New("mpi: " + op + " after Finalize")
	}
	if rc := call(r.req); rc != C.MPI_SUCCESS {
		r.pin.Unpin()
		return nil, mpiErr(op, rc)
	}
	w.inflight[r] = struct{}{}
	return r, nil
}

// AllReduceSum starts the sum, over the world, of buf in place.
func (w *World) AllReduceSum(buf []float32) (*Request, error) {
	p := unsafe.Pointer(unsafe.SliceData(buf))
	return w.start("MPI_Iallreduce", len(buf), []unsafe.Pointer{p}, func(r *C.MPI_Request) C.int {
		return C.wg_iallreduce_sum_f32(p, C.int(len(buf)), r)
	})
}

// AllGather starts gathering each rank's send into recv, rank by rank:
// len(recv) must be Size()·len(send).
func (w *World) AllGather(send, recv []byte) (*Request, error) {
	if len(recv) != w.size*len(send) {
		return nil, fmt.Errorf("mpi: all-gather of %d B into %d B among %d ranks", len(send), len(recv), w.size)
	}
	s, d := unsafe.Pointer(unsafe.SliceData(send)), unsafe.Pointer(unsafe.SliceData(recv))
	return w.start("MPI_Iallgather", len(recv), []unsafe.Pointer{s, d}, func(r *C.MPI_Request) C.int {
		return C.wg_iallgather(s, C.int(len(send)), d, r)
	})
}

// Broadcast starts sending root's buf to every rank's.
func (w *World) Broadcast(buf []byte, root int) (*Request, error) {
	p := unsafe.Pointer(unsafe.SliceData(buf))
	return w.start("MPI_Ibcast", len(buf), []unsafe.Pointer{p}, func(r *C.MPI_Request) C.int {
		return C.wg_ibcast(p, C.int(len(buf)), C.int(root), r)
	})
}

// Barrier starts a barrier.
func (w *World) Barrier() (*Request, error) {
	return w.start("MPI_Ibarrier", 0, nil, func(r *C.MPI_Request) C.int { return C.wg_ibarrier(r) })
}

// Test reports whether r has completed, moving it on (MPI progresses
// nonblocking collectives inside its calls). Once it reports true or an
// error, r's buffers are the caller's again.
func (r *Request) Test() (bool, error) {
	r.w.mu.Lock()
	defer r.w.mu.Unlock()
	var done C.int
	rc := C.wg_test(r.req, &done)
	if rc != C.MPI_SUCCESS || done != 0 {
		r.pin.Unpin()
		delete(r.w.inflight, r)
	}
	if rc != C.MPI_SUCCESS {
		return false, mpiErr(r.op, rc)
	}
	return done != 0, nil
}

// Finalize ends MPI (MPI_Finalize): every rank must call it, with no
// collective in flight. Calls after the first do nothing.
func (w *World) Finalize() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	w.done = true
	if rc := C.wg_finalize(); rc != C.MPI_SUCCESS {
		return mpiErr("MPI_Finalize", rc)
	}
	return nil
}

// mpiErr returns the error of an MPI call, with MPI's words for it.
func mpiErr(op string, rc C.int) error {
	buf := make([]byte, int(C.wg_max_error_string()))
	var n C.int
	C.wg_error_string(rc, (*C.char)(unsafe.Pointer(&buf[0])), &n)
	return fmt.Errorf("mpi: %s: %s (error %d)", op, string(buf[:n]), int(rc))
}
