package tensor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wgtensor/wgtensor/wgpu"
)

// Sentinel errors, matched with errors.Is. Errors from the device (such as
// wgpu.ErrOutOfMemory and wgpu.ErrDeviceLost) come through wrapped as they are.
var (
	ErrShape         = errors.New("shape mismatch")
	ErrDType         = errors.New("unsupported dtype")
	ErrAxis          = errors.New("bad axis")
	ErrArgument      = errors.New("bad argument")
	ErrDisposed      = wgpu.ErrDisposed
	ErrConcurrentUse = errors.New("engine used by two goroutines at once")
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
