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
// Step checks every parameter and gradient before it updates any: a
// gradient of another shape or dtype, a disposed parameter or gradient, a
// gradient carrying an error, a gradient list of another length, a bad
// hyperparameter or a disposed optimizer updates nothing and returns an
// error naming the optimizer and the parameter, wrapping ErrArgument,
// ErrDisposed or the tensor package's error (tensor.ErrShape, ErrDType,
// ErrDisposed). A nil gradient skips its parameter, which keeps its
// values, state and step count, as PyTorch skips a parameter whose grad is
// None. A device failure part-way leaves the parameters before it updated.
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
