package nn

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// Module is a layer or a model: a function of a tensor with named
// parameters, as PyTorch's nn.Module and Keras's Layer are.
//
// Forward computes the module on x with x's engine (x.Engine()), not the
// engine its parameters were made on, or, while the calling goroutine
// records a grad.Tape on x's device and none on x's engine, with the
// tape's (grad.EngineFor), and returns a new tensor the caller
// owns, created in the caller's current tidy scope; x stays the caller's.
// A bad x gives a tensor carrying an error that names the layer and the
// shapes (tensor's error model: nothing panics, nothing leaks). Under a
// grad.Tape, Forward's ops are recorded like any others.
//
// Params lists the trainable parameters and Buffers the tensors that are
// saved but not optimised (BatchNorm's running statistics), each named
// as PyTorch's state dict names it ("weight", "0.bias", "1.running_mean");
// StateDict lists both. The tensors are the module's own: read them,
// update them in place (an optimizer, a checkpoint's load), never dispose
// them; Dispose does. Both lists are empty after Dispose.
//
// SetTraining switches between training mode (Dropout drops, BatchNorm
// normalises with the batch's statistics and updates its running ones) and
// inference mode; a new module is in training mode, as in PyTorch.
// Training reports the mode.
//
// Dispose frees every parameter, buffer and cache the module owns; later
// Forwards return tensors carrying tensor.ErrDisposed. Disposing twice is
// harmless.
//
// Concurrency: in inference mode Forward only reads the module, so
// goroutines may share one module, each computing on its own Engine on the
// same device. Forward in training mode updates the module (Dropout's step,
// BatchNorm's running statistics) and belongs to one goroutine at a time.
// SetTraining must not race with a Forward whose mode it would change.
// Dispose is safe from any goroutine.
type Module interface {
	Forward(x *tensor.Tensor) *tensor.Tensor
	Params() []optim.Param
	Buffers() []optim.Param
	SetTraining(on bool)
	Training() bool
	Dispose()
}

// StateDict lists m's parameters and then its buffers: everything a
// checkpoint of m saves, named as PyTorch's state_dict names it. It is as
// safe for concurrent use as m's Params and Buffers (the modules of this
// package: from any goroutine).
func StateDict(m Module) []optim.Param {
	return append(m.Params(), m.Buffers()...)
}

// Prefixed returns params renamed "<prefix>.<name>", sharing their tensors:
// the names of a submodule's parameters inside a model ("encoder.0.weight"),
// as Sequential names its modules' by index. It only reads params.
func Prefixed(prefix string, params []optim.Param) []optim.Param {
	out := make([]optim.Param, len(params))
	for i, p := range params {
		out[i] = optim.Param{Name: prefix + "." + p.Name, T: p.T}
	}
	return out
}

// Tensors returns the tensors of params, in order: the list a grad.Tape's
// Gradients takes. It only reads params.
func Tensors(params []optim.Param) []*tensor.Tensor {
	ts := make([]*tensor.Tensor, len(params))
	for i, p := range params {
		ts[i] = p.T
	}
	return ts
}

// layer is what every layer has: its named tensors, its mode, and the
// error its builder met making it.
type layer struct {
	err      error // why the builder could not make the layer; nil if it did
	training atomic.Bool

	mu      sync.Mutex // protects params and buffers
	params  []optim.Param
	buffers []optim.Param
}

// init sets the layer's starting state: training mode, as in PyTorch.
func (l *layer) init(err error, params, buffers []optim.Param) {
	l.err = err
	l.params, l.buffers = params, buffers
	l.training.Store(true)
}

// Params lists the layer's trainable parameters, named "weight" and "bias".
// See Module.
func (l *layer) Params() []optim.Param {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.params)
}

// Buffers lists the layer's buffers: none, except BatchNorm's. See Module.
func (l *layer) Buffers() []optim.Param {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.buffers)
}

// SetTraining sets training mode (on) or inference mode. See Module.
func (l *layer) SetTraining(on bool) { l.training.Store(on) }

// Training reports whether the layer is in training mode.
func (l *layer) Training() bool { return l.training.Load() }

// Dispose frees the layer's tensors. See Module.
func (l *layer) Dispose() {
	l.mu.Lock()
	ps := slices.Concat(l.params, l.buffers)
	l.params, l.buffers = nil, nil
	l.mu.Unlock()
	for _, p := range ps {
		p.T.Dispose()
	}
}
