package nn

import (
	"fmt"
	"sync/atomic"

	"github.com/wgtensor/wgtensor/tensor"
)

// Dropout zeroes each element of x with probability p in training mode and
// scales the others by 1/(1 − p) (inverted dropout, as PyTorch's nn.Dropout
// and Keras's), so that inference, where it passes x through unchanged,
// needs no scaling.
//
// Its masks are drawn on the GPU with Philox (tensor.Engine.RandUniform):
// the mask of its k-th training-mode Forward is a function of its seed
// (from the Builder) and k alone, a fresh one each step, the same on every
// device and every run. It owns no tensor.
//
// A Dropout is Random: checkpoint.SaveModel saves its step count and
// LoadModel restores it. It follows Module's concurrency contract: in training mode Forward
// counts its steps and belongs to one goroutine.
type Dropout struct {
	layer
	p     float32
	seed  uint64
	steps atomic.Uint64 // training-mode Forwards so far
	what  string
}

// Dropout makes a Dropout dropping with probability p, in [0, 1].
func (b *Builder) Dropout(p float32) *Dropout {
	l := &Dropout{p: p, what: fmt.Sprintf("nn: Dropout(%g)", p)}
	var err error
	switch {
	case b.err != nil:
		err = fmt.Errorf("%s: not made after an earlier error: %w", l.what, b.err)
	case !(p >= 0 && p <= 1):
		err = b.fail(fmt.Errorf("%s: probability outside [0, 1]: %w", l.what, tensor.ErrArgument))
	default:
		l.seed = b.Seed("dropout")
	}
	l.init(err, nil, nil)
	return l
}

// Steps returns how many training-mode Forwards with p > 0 ran so far:
// the step the next mask is drawn for.
func (l *Dropout) Steps() uint64 { return l.steps.Load() }

// SetSteps sets the step the next mask is drawn for, as a checkpoint's
// load does so that a resumed run drops what an uninterrupted one would.
// It must not race with a training-mode Forward.
func (l *Dropout) SetSteps(n uint64) { l.steps.Store(n) }

// Forward drops elements of x in training mode and returns x's values
// unchanged (a view sharing its storage: no copy, no kernel) in inference
// mode or with p = 0, on x's engine. See Module.
func (l *Dropout) Forward(x *tensor.Tensor) *tensor.Tensor {
	if bad := checkInput(x, l.what, l.err, floatOf(x), 0, -1); bad != nil {
		return bad
	}
	e := engineFor(x)
	if !l.Training() || l.p == 0 {
		return e.Clone(x)
	}
	seed := deriveSeed(l.seed, l.steps.Add(1)-1, "")
	return scoped(e, func() *tensor.Tensor {
		if l.p == 1 {
			return e.Mul(x, e.Scalar(0))
		}
		keep := e.GreaterEqual(e.RandUniform(seed, 0, 1, x.Shape()...), e.Scalar(l.p))
		return e.Where(keep, e.Mul(x, e.Scalar(1/(1-l.p))), e.Scalar(0))
	})
}
