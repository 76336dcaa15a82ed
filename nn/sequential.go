package nn

import (
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// Sequential chains modules: Forward feeds x to the first, its result to
// the second, and so on, as PyTorch's nn.Sequential and Keras's Sequential
// do. Its parameters and buffers are its modules', named after each
// module's index as PyTorch names them: "0.weight", "0.bias",
// "2.running_mean"; a Sequential inside another gives "1.0.weight".
//
// A Sequential owns its modules: Dispose disposes them all, and
// SetTraining sets the mode of each. It follows Module's concurrency
// contract.
type Sequential struct {
	layers   []Module
	training atomic.Bool
}

// NewSequential returns a Sequential of layers, in training mode, which
// it owns from now on.
func NewSequential(layers ...Module) *Sequential {
	s := &Sequential{layers: layers}
	s.training.Store(true)
	return s
}

// Len returns the number of modules.
func (s *Sequential) Len() int { return len(s.layers) }

// Layer returns module i, which s still owns; i must be in [0, Len()), as
// for indexing a slice.
func (s *Sequential) Layer(i int) Module { return s.layers[i] }

// Forward runs the modules in turn on x's engine and returns the last one's
// result; each intermediate result is freed as soon as the next module has
// used it. An error names the module that refused its input. With no
// modules it returns x's values (a view). See Module.
func (s *Sequential) Forward(x *tensor.Tensor) *tensor.Tensor {
	if len(s.layers) == 0 {
		return engineFor(x).Clone(x)
	}
	fs := make([]func(*tensor.Tensor) *tensor.Tensor, len(s.layers))
	for i, l := range s.layers {
		if l == nil {
			fs[i] = func(*tensor.Tensor) *tensor.Tensor {
				return engineFor(x).Failed(fmt.Errorf("nil module: %w", tensor.ErrArgument))
			}
		} else {
			fs[i] = l.Forward
		}
	}
	y, i := through(x, fs...)
	if i >= 0 {
		err := y.Err()
		y.Dispose()
		return engineFor(x).Failed(fmt.Errorf("nn: Sequential: module %d: %w", i, err))
	}
	return y
}

// Params lists the modules' parameters, named "<index>.<name>", each
// tensor once. See Module.
func (s *Sequential) Params() []optim.Param {
	return collectChildren(s.Children(), Module.Params)
}

// Buffers lists the modules' buffers, named "<index>.<name>". See Module.
func (s *Sequential) Buffers() []optim.Param {
	return collectChildren(s.Children(), Module.Buffers)
}

// Children lists the modules, named by index.
func (s *Sequential) Children() []Child {
	out := make([]Child, 0, len(s.layers))
	for i, l := range s.layers {
		if l != nil {
			out = append(out, Child{Name: strconv.Itoa(i), Module: l})
		}
	}
	return out
}

// SetTraining sets the mode of s and of each of its modules. See Module.
func (s *Sequential) SetTraining(on bool) {
	s.training.Store(on)
	for _, l := range s.layers {
		if l != nil {
			l.SetTraining(on)
		}
	}
}

// Training reports the mode SetTraining set last (training for a new
// Sequential).
func (s *Sequential) Training() bool { return s.training.Load() }

// Dispose disposes every module, each once. See Module.
func (s *Sequential) Dispose() { disposeChildren(s.Children()) }
