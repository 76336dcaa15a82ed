package grad

import (
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// ValueAndGrad calls f on params under a new tape and returns f's result
// and its gradient with respect to each of params, as jax.value_and_grad
// and tf.variableGrads do. The value and the gradients are the caller's,
// created in its current tidy scope; everything else f and the backward
// pass create, and the tape, are freed before ValueAndGrad returns, also
// when it fails. opts as for Gradients (Keep is ignored: the tape ends
// here): a result that does not depend on one of params fails with
// ErrNoPath unless opts.NoPath allows it. Like ops, it belongs to the
// goroutine that uses e. A nil or zero e, or a nil f, fails with
// tensor.ErrArgument.
func ValueAndGrad(e *tensor.Engine, f func(params []*tensor.Tensor) (*tensor.Tensor, error), params []*tensor.Tensor, opts *Options) (*tensor.Tensor, []*tensor.Tensor, error) {
	if e == nil || e.Device() == nil {
		return nil, nil, fmt.Errorf("grad: ValueAndGrad on a nil or zero Engine: %w", tensor.ErrArgument)
	}
	if f == nil {
		return nil, nil, fmt.Errorf("grad: ValueAndGrad of a nil function: %w", tensor.ErrArgument)
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Keep = false
	r, err := tidy.Run(e, func() (valueGrads, error) {
		tape := NewTape(e) // disposed with the scope
		if err := tape.SetAutocast(o.Autocast); err != nil {
			return valueGrads{}, err
		}
		var y *tensor.Tensor
		err := tape.Record(func() error {
			var err error
			y, err = f(params)
			return err
		})
		if err != nil {
			return valueGrads{}, err
		}
		gs, err := tape.Gradients(y, params, &o)
		if err != nil {
			return valueGrads{}, err
		}
		return valueGrads{y, gs}, nil
	})
	return r.Value, r.Grads, err
}

// valueGrads is ValueAndGrad's result, which its scope keeps.
type valueGrads struct {
	Value *tensor.Tensor
	Grads []*tensor.Tensor
}
