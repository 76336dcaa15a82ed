package wgpu

import (
	"errors"
	"strings"

	"github.com/wgtensor/wgtensor/wgpu/internal/native"
)

// Sentinel errors. Every error the package returns wraps one of them in an
// *Error that names the failed operation, so errors.Is works on all of them.
var (
	// ErrNoAdapter: no adapter matches the requested backend and name.
	ErrNoAdapter = sentinel("no adapter found")
	// ErrDeviceLost: the device was lost; every later call fails with it.
	ErrDeviceLost = sentinel("device lost")
	// ErrClosed: the device was closed.
	ErrClosed = sentinel("device closed")
	// ErrOutOfMemory: the memory limit or the driver refused an allocation,
	// even after the pool was trimmed.
	ErrOutOfMemory = sentinel("out of memory")
	// ErrLimit: a request exceeds one of the device's limits (buffer size,
	// storage binding size, workgroup count).
	ErrLimit = sentinel("exceeds a device limit")
	// ErrDisposed: a buffer was used or released after it was released.
	ErrDisposed = sentinel("buffer already released")
	// ErrAborted: a pending map was aborted because its staging buffer was
	// destroyed (WebGPU's AbortError).
	ErrAborted = sentinel("map aborted")
	// ErrOperation: mapping failed for another reason, such as a destroyed
	// buffer (WebGPU's OperationError).
	ErrOperation = sentinel("operation failed")
	// ErrValidation: WebGPU rejected a call as invalid.
	ErrValidation = sentinel("validation error")
	// ErrCompile: a kernel's WGSL did not compile; the message holds the
	// kernel's name and the compiler's diagnostics.
	ErrCompile = sentinel("kernel does not compile")
	// ErrInvalidArgument: a caller passed an argument this package rejects
	// before reaching WebGPU (wrong binding count, foreign buffer, ...).
	ErrInvalidArgument = sentinel("invalid argument")
	// ErrLeaked: Close found buffers that were never released.
	ErrLeaked = sentinel("buffers still live")
	// ErrPoisoned: with Options.Poison, a readback found PoisonWord, the
	// fill of a buffer nothing wrote since the pool handed it out.
	ErrPoisoned = sentinel("read memory nothing wrote (the pool's poison)")
)

// sentinel is the type of the package's sentinel errors.
type sentinel string

func (s sentinel) Error() string { return "wgpu: " + string(s) }

// Error is the error type of every failed call: the operation, the sentinel
// that classifies the failure, and details.
type Error struct {
	Op     string // the operation, e.g. "create buffer of 1024 B"
	Kind   error  // one of the package's sentinels
	Detail string // what the driver or the check said; may be empty
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("wgpu: ")
	b.WriteString(e.Op)
	b.WriteString(": ")
	if s, ok := e.Kind.(sentinel); ok {
		b.WriteString(string(s))
	} else {
		b.WriteString(e.Kind.Error())
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

// Unwrap returns the sentinel, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

func newError(op string, kind error, detail string) *Error {
	return &Error{Op: op, Kind: kind, Detail: detail}
}

// fromBinding converts an error from package native, the one door to the
// binding, into an *Error of op: the one place where the driver's errors
// get their sentinels.
func fromBinding(op string, err error) *Error {
	var e *native.Error
	if !errors.As(err, &e) {
		return newError(op, ErrValidation, err.Error())
	}
	kind := ErrValidation
	switch e.Kind {
	case native.DeviceLost:
		kind = ErrDeviceLost
	case native.OutOfMemory:
		kind = ErrOutOfMemory
	case native.Compile:
		kind = ErrCompile
	}
	return newError(op, kind, e.Msg)
}

// isLoss reports whether err reports device loss.
func isLoss(err error) bool { return errors.Is(err, ErrDeviceLost) }
