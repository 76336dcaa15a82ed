package optim

import (
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
)

// AccumulatorOptions are NewAccumulator's options; the zero value keeps
// the buffers across Zero, as PyTorch 1.x's zero_grad(). A plain value.
type AccumulatorOptions struct {
	// SetToNone makes Zero free the buffers, as zero_grad(set_to_none=True)
	// (PyTorch 2's default): Grads then gives nil for every parameter
	// until an Add gives it a gradient again, and Step skips it. Without
	// it, the buffers stay allocated from one cycle to the next and Grads
	// gives zeros for a parameter that got no gradient since Zero.
	SetToNone bool
}

// Accumulator sums gradients over micro-batches into persistent buffers,
// one per parameter, as PyTorch accumulates into .grad until zero_grad:
//
//	acc, err := optim.NewAccumulator(e, opt.Params(), optim.AccumulatorOptions{})
//	defer acc.Dispose()
//	for each step {
//		for each micro-batch { // in its own tidy scope
//			_, grads, err := grad.ValueAndGrad(e, lossOverMicroBatches, params, nil)
//			err = acc.Add(grads) // the scope then frees grads
//		}
//		grads, err := acc.Grads()
//		optim.ClipGradNorm(e, grads, 1, optim.ClipOptions{})
//		err = opt.Step(grads)
//		acc.Zero()
//	}
//
// For a loss that is a mean over the batch, divide each micro-batch's
// loss by the number of micro-batches, as in PyTorch.
//
// The buffers are the Accumulator's: created at the first Add that has a
// gradient for their parameter (one dispatch, which writes it), counted
// by Engine.Memory at the caller's line of that Add, kept out of tidy
// scopes, and freed by Dispose (or, with SetToNone, by Zero). Add never
// disposes the caller's gradients. An Accumulator belongs to the
// goroutine that uses its engine, like the engine's ops.
type Accumulator struct {
	b         base
	setToNone bool
	bufs      []*tensor.Tensor
	// zeroed marks the buffers Zero cleared and no Add wrote since: their
	// values are stale and read as zeros. The next Add overwrites such a
	// buffer instead of adding to it, so zero_grad costs no dispatch.
	zeroed []bool
}

// NewAccumulator returns an Accumulator for params (named and checked as
// NewSGD's are: its errors name the parameter), whose gradients Add takes
// in the same order. It allocates nothing.
func NewAccumulator(e *tensor.Engine, params []Param, o AccumulatorOptions) (*Accumulator, error) {
	b, err := newBase(e, "accumulator", params)
	if err != nil {
		return nil, err
	}
	return &Accumulator{b: b, setToNone: o.SetToNone, bufs: make([]*tensor.Tensor, len(params)), zeroed: make([]bool, len(params))}, nil
}

// Params returns the parameters, in the order Add takes their gradients.
func (a *Accumulator) Params() []Param { return a.b.Params() }

// accumulateKernel adds the gradient (binding 0) into the buffer
// (binding 1, read_write: Launch.InOut, or Launch.Outputs for a new
// buffer), or with overwrite writes it there: accumulate.wgsl.
func accumulateKernel(width int) tensor.Kernel {
	return newKernelSpec("accumulate", []string{"overwrite"}, nil).kernel(width)
}

// Add adds grads[i] into the buffer of the i-th parameter, in place (a
// nil gradient adds nothing: the parameter got none in this
// micro-batch), with one dispatch per gradient. A parameter's first
// gradient (since NewAccumulator, or since a Zero) is written into its
// buffer, creating the buffer if it has none. Everything is checked
// first: a gradient list of another length, a gradient of another shape,
// dtype or device, disposed or carrying an error, a gradient that is a
// buffer of this Accumulator (or shares its storage), or a disposed
// Accumulator adds nothing and returns an error naming the parameter and
// the shapes. Only a device failure part-way leaves the buffers before it
// updated.
func (a *Accumulator) Add(grads []*tensor.Tensor) error {
	b := &a.b
	if b.disposed {
		return b.errorf(ErrDisposed, "add")
	}
	if len(grads) != len(b.params) {
		return b.errorf(ErrArgument, "add: %d gradients for %d parameters", len(grads), len(b.params))
	}
	var reads, writes []use
	for i, g := range grads {
		if g == nil {
			continue
		}
		p := b.params[i]
		what := fmt.Sprintf("gradient of %q", p.Name)
		if err := b.checkLike(what, p, g); err != nil {
			return err
		}
		reads = append(reads, use{t: g, what: what})
		if a.bufs[i] != nil {
			writes = append(writes, use{t: a.bufs[i], what: fmt.Sprintf("the buffer of %q", p.Name)})
		}
	}
	if err := b.checkAliasing(reads, writes); err != nil {
		return err
	}
	for i, g := range grads {
		if g == nil {
			continue
		}
		if err := a.add(i, g); err != nil {
			return err
		}
	}
	return nil
}

// add runs the add kernel for parameter i.
func (a *Accumulator) add(i int, g *tensor.Tensor) error {
	p := a.b.params[i]
	width := widthFor(g.Size())
	k := a.cached(fmt.Sprintf("accumulate/x%d", width), func() tensor.Kernel { return accumulateKernel(width) })
	n := g.Size() / width
	l := tensor.Launch{Inputs: []*tensor.Tensor{g}, Threads: threadsFor(n)}
	overwrite := a.bufs[i] == nil || a.zeroed[i]
	l.Params = []any{uint32(n), float32(flag(overwrite))}
	if a.bufs[i] == nil {
		l.Outputs = []tensor.Out{{Shape: p.T.Shape(), DType: tensor.Float32}}
	} else {
		l.InOut = []*tensor.Tensor{a.bufs[i]}
	}
	res := a.b.e.RunKernel(k, l)
	for _, r := range res {
		if err := r.Err(); err != nil {
			return fmt.Errorf("optim: accumulator: add the gradient of %q %v: %w", p.Name, g.Shape(), err)
		}
	}
	if a.bufs[i] == nil {
		res[0].Keep() // the buffer outlives the caller's scopes: Dispose frees it
		a.bufs[i] = res[0]
	}
	a.zeroed[i] = false
	return nil
}

// cached returns the kernel called key, made by mk the first time.
func (a *Accumulator) cached(key string, mk func() tensor.Kernel) tensor.Kernel {
	k, ok := a.b.kernels[key]
	if !ok {
		k = mk()
		a.b.kernels[key] = k
	}
	return k
}

// zeroKernel writes zeros over its one InOut binding, of u.count floats
// (zero.wgsl).
func zeroKernel() tensor.Kernel {
	return tensor.Kernel{Name: "optim.zero", Key: "optim.zero", Source: fill("zero.wgsl", nil)}
}

// Grads returns the accumulated gradients, one per parameter in the order
// of Params, for Step and ClipGradNorm: the buffers themselves (not
// copies; do not dispose them), or nil for a parameter that has no buffer
// (no Add gave it a gradient yet, or, with SetToNone, since Zero). A
// buffer Zero cleared and no Add wrote since is zero-filled first (one
// dispatch). Writing into the returned tensors (ClipGradNorm scales them)
// writes the accumulated gradients. A disposed Accumulator returns an
// error wrapping ErrDisposed.
func (a *Accumulator) Grads() ([]*tensor.Tensor, error) {
	if a.b.disposed {
		return nil, a.b.errorf(ErrDisposed, "grads")
	}
	for i, buf := range a.bufs {
		if buf == nil || !a.zeroed[i] {
			continue
		}
		n := buf.Size()
		res := a.b.e.RunKernel(a.cached("zero", zeroKernel), tensor.Launch{InOut: []*tensor.Tensor{buf}, Threads: n, Params: []any{uint32(n)}})
		for _, r := range res { // none, or one tensor carrying the error
			if err := r.Err(); err != nil {
				return nil, fmt.Errorf("optim: accumulator: zero the buffer of %q %v: %w", a.b.params[i].Name, buf.Shape(), err)
			}
		}
		a.zeroed[i] = false
	}
	return append([]*tensor.Tensor(nil), a.bufs...), nil
}

// Zero starts a new accumulation, as PyTorch's zero_grad: every buffer
// reads as zeros from now on (or, with SetToNone, is freed). Without
// SetToNone it dispatches nothing: the next Add of each parameter
// overwrites its buffer instead of adding to it, and Grads zero-fills
// those no Add wrote. After Dispose it does nothing.
func (a *Accumulator) Zero() {
	for i, buf := range a.bufs {
		if buf == nil {
			continue
		}
		if a.setToNone {
			buf.Dispose()
			a.bufs[i] = nil
		}
		a.zeroed[i] = !a.setToNone
	}
}

// Dispose frees every buffer; the caller's gradients and parameters are
// the caller's and stay. Later Adds and Grads fail with ErrDisposed.
// Disposing twice is harmless.
func (a *Accumulator) Dispose() {
	for i, buf := range a.bufs {
		buf.Dispose()
		a.bufs[i] = nil
	}
	a.b.disposed = true
}
