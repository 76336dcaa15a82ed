package nn

import (
	"fmt"

	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// refuse returns a tensor on x's engine carrying an error of the layer
// what about x: of kind (tensor.ErrShape, ErrDType, ...), with detail.
func refuse(x *tensor.Tensor, what string, kind error, format string, args ...any) *tensor.Tensor {
	return x.Engine().Failed(fmt.Errorf("%s: input %s %v: %s: %w", what, x.DType(), x.Shape(), fmt.Sprintf(format, args...), kind))
}

// checkInput returns a tensor carrying the error Forward of the layer what
// must return for x, or nil if x may go on: the layer's own error (its
// builder failed), x's error, or an x that is not of dtype want with a
// last dimension of last (any when last < 0) and a rank of at least
// minRank.
func checkInput(x *tensor.Tensor, what string, built error, want tensor.DType, minRank, last int) *tensor.Tensor {
	switch {
	case built != nil:
		return x.Engine().Failed(built)
	case x == nil:
		return (*tensor.Engine)(nil).Failed(fmt.Errorf("%s: nil input: %w", what, tensor.ErrArgument))
	case x.Err() != nil:
		return x.Engine().Failed(x.Err())
	case x.DType() != want:
		return refuse(x, what, tensor.ErrDType, "want %s", want)
	case x.Rank() < minRank:
		return refuse(x, what, tensor.ErrShape, "want rank %d or more", minRank)
	case last >= 0 && x.Shape()[x.Rank()-1] != last:
		return refuse(x, what, tensor.ErrShape, "last dimension %d, want %d", x.Shape()[x.Rank()-1], last)
	}
	return nil
}

// scoped returns f's result and frees every other tensor f made on e: a
// layer's intermediates. A tape keeps what its rules need (sharing
// storage), so freeing them under a tape is safe.
func scoped(e *tensor.Engine, f func() *tensor.Tensor) *tensor.Tensor {
	y, err := tidy.Run(e, func() (*tensor.Tensor, error) { return f(), nil })
	if err != nil { // the scope was refused: e is another goroutine's
		y.Dispose()
		return e.Failed(err)
	}
	return y
}

// through runs x through fs in turn and returns the last result, freeing
// each intermediate result as soon as the next function has used it, so
// that a chain of layers holds at most two of them at once (a tape keeps
// what its rules need); x stays the caller's. It stops at the first result
// that carries an error and returns it with its function's index; the
// index is -1 when none failed. With no functions it returns x itself.
func through(x *tensor.Tensor, fs ...func(*tensor.Tensor) *tensor.Tensor) (*tensor.Tensor, int) {
	h := x
	for i, f := range fs {
		y := f(h)
		if h != x && h != y { // a function that returns its input keeps it
			h.Dispose()
		}
		if y.Err() != nil {
			return y, i
		}
		h = y
	}
	return h, -1
}

// chain composes fs (at least one) into one function that runs its input
// through them (see through).
func chain(fs ...func(*tensor.Tensor) *tensor.Tensor) func(*tensor.Tensor) *tensor.Tensor {
	return func(x *tensor.Tensor) *tensor.Tensor {
		y, _ := through(x, fs...)
		return y
	}
}

// plus returns x + f(x), freeing f's result once it is added (unless f
// returned x itself).
func plus(e *tensor.Engine, x *tensor.Tensor, f func(*tensor.Tensor) *tensor.Tensor) *tensor.Tensor {
	r := f(x)
	if r != x {
		defer r.Dispose()
	}
	return e.Add(x, r)
}

// unrecorded runs f with no tape recording e's ops, as torch.no_grad does:
// for updates that are not part of the function a tape differentiates
// (BatchNorm's running statistics).
func unrecorded(e *tensor.Engine, f func() error) error {
	r := &discard{}
	if err := e.PushRecorder(r); err != nil {
		return err
	}
	defer e.PopRecorder(r)
	return f()
}

// discard is a recorder that records nothing: pushed over a tape, it hides
// the ops from it.
type discard struct{ _ byte } // not zero-sized, so that each is a distinct pointer

func (*discard) RecordOp(*tensor.OpRecord) {}

// engineFor returns the engine a layer computes on for its input x: x's
// engine, unless the calling goroutine records a grad.Tape on x's device
// and none on x's engine; then the tape's engine (grad.EngineFor), so that
// the tape records the layer's ops and the result lands in the caller's
// scope on that engine.
func engineFor(x *tensor.Tensor) *tensor.Engine { return grad.EngineFor(x) }
