package tensor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wgtensor/wgtensor/wgpu"
)

// Sentinel errors, matched with errors.Is. Errors from the device (such as
// wgpu.ErrOutOfMemory and wgpu.ErrDeviceLost) come through wrapped as they are.
//
// ErrDisposed is what every op and every read of a disposed tensor fails
// with; the error names the tensor ("tensor 18 was disposed"). It also
// matches wgpu.ErrDisposed, which it was before it had words of its own.
var (
	ErrShape               = errors.New("shape mismatch")
	ErrDType               = errors.New("unsupported dtype")
	ErrAxis                = errors.New("bad axis")
	ErrArgument            = errors.New("bad argument")
	ErrDisposed      error = errDisposed{}
	ErrConcurrentUse       = errors.New("engine used by two goroutines at once")
)

// OpError is the error an op's result carries: the op, the shapes of its
// inputs, what was wrong, and the kind of error.
type OpError struct {
	Op     string
	Shapes []Shape
	Detail string
	Err    error
}

func (e *OpError) Error() string {
	var b strings.Builder
	b.WriteString("tensor: ")
	b.WriteString(e.Op)
	for _, s := range e.Shapes {
		b.WriteByte(' ')
		b.WriteString(s.String())
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *OpError) Unwrap() error { return e.Err }

// opErr builds an OpError; detail may be a format.
func opErr(op string, shapes []Shape, kind error, format string, args ...any) error {
	return &OpError{Op: op, Shapes: shapes, Detail: fmt.Sprintf(format, args...), Err: kind}
}

// errDisposed is ErrDisposed's type: errors.Is matches it with
// wgpu.ErrDisposed too.
type errDisposed struct{}

func (errDisposed) Error() string        { return "tensor was disposed" }
func (errDisposed) Is(target error) bool { return target == wgpu.ErrDisposed }

// disposedError names the disposed tensor an op or a read was given; it
// matches ErrDisposed (and so wgpu.ErrDisposed).
type disposedError struct{ id uint64 }

func (e disposedError) Error() string { return fmt.Sprintf("tensor %d was disposed", e.id) }
func (disposedError) Is(target error) bool {
	return target == ErrDisposed || target == wgpu.ErrDisposed
}

// disposedErr is the error of op on tensor id, disposed: its input input,
// or with input < 0 (a read) the tensor read.
func disposedErr(op string, shapes []Shape, input int, id uint64) error {
	detail := ""
	if input >= 0 {
		detail = fmt.Sprintf("input %d", input)
	}
	return &OpError{Op: op, Shapes: shapes, Detail: detail, Err: disposedError{id}}
}
