// Package optim updates a model's parameters from their gradients: SGD
// (momentum, dampening, Nesterov, weight decay), Adam (AMSGrad optional),
// AdamW (decoupled weight decay) and RMSProp (momentum, centered), each
// computing what the torch.optim class of the same name computes.
//
// # Overview
//
// An optimizer is made on an engine over named parameters (Param: a
// PyTorch state-dict name such as "0.weight" and a float32 tensor), and
// Step takes one gradient per parameter, in the same order:
//
//	opt, err := optim.NewAdam(e, params, optim.AdamDefaults())
//	...
//	err = opt.Step(grads) // grads[i] is the gradient of params[i]
//	...
//	opt.Dispose()
//
// # Invariants
//
//   - In place: a parameter keeps its storage for its whole life. Step
//     writes the update into it (tensor.Launch.InOut), so every view of the
//     parameter sees it and its Version goes up by one per step.
//   - One kernel per parameter per step: the parameter, its gradient and
//     its state are read and written by a single dispatch (a profile of a
//     step shows as many dispatches as parameters with a gradient).
//   - Nothing outlives a step but the state: Step allocates no tensor,
//     except the state tensors, created (zeroed) at the first step that
//     needs them.
//   - Hyperparameters are uniform params: changing a learning rate, betas
//     or a weight decay between steps compiles nothing. Only a setting that
//     changes the state kept (Momentum from 0, AMSGrad, Centered) compiles
//     its kernel, once per device.
//   - State is counted like any tensor (Engine.Memory, LiveTensors, at the
//     line that called the Step that created it), named per parameter
//     ("0.weight.exp_avg", PyTorch's names), listed by State and written by
//     SetState (a checkpoint's load), and freed entirely by Dispose: an
//     optimizer created, stepped and disposed leaves the engine's memory as
//     it found it, to the byte. State survives the tidy scopes Step runs in
//     (it is Kept); only Dispose frees it.
//
// # Errors
//
// The constructors (NewSGD, NewAdam, NewAdamW, NewRMSProp) refuse a nil
// or zero engine and any bad parameter, naming it: one without a name or
// with another's name, a nil, disposed or non-float32 tensor, a tensor of
// another device than the engine's, and two parameters that are the same
// tensor or share their storage (a view of another).
//
// Step checks every parameter and gradient before it updates any: a
// gradient of another shape or dtype, of another device, disposed or
// carrying an error, a gradient sharing its storage with a tensor the step
// writes (its own parameter or a view of it, its state, another parameter
// being updated), a disposed parameter, a gradient list of another length,
// a bad hyperparameter or a disposed optimizer updates nothing (no value,
// state, version or step count changes, and nothing is allocated) and
// returns an error naming the optimizer and the parameter, wrapping
// ErrArgument, ErrDisposed or the tensor package's error (tensor.ErrShape,
// ErrDType, ErrDisposed). The same gradient may be given for several
// parameters, and a gradient may be a parameter whose own gradient is nil
// (it is only read). A nil gradient skips its parameter, which keeps its
// values, state and step count, as PyTorch skips a parameter whose grad is
// None. Only a device failure part-way (out of memory creating the state,
// a lost device) leaves the parameters before it updated.
//
// # Concurrency
//
// An optimizer belongs to the goroutine that uses its engine, like the
// engine's ops: Step, SetState, SetSteps and Dispose must not run
// concurrently with each other or with ops on that engine from another
// goroutine.
package optim

var (
	_ Optimizer = (*SGD)(nil)
	_ Optimizer = (*Adam)(nil)
	_ Optimizer = (*RMSProp)(nil)
)
