// Package optim updates a model's parameters from their gradients: SGD
// (momentum, dampening, Nesterov, weight decay), Adam (AMSGrad optional),
// AdamW (decoupled weight decay) and RMSProp (momentum, centered), each
// computing what the torch.optim class of the same name computes, over
// one or several parameter groups; with learning-rate schedules, gradient
// clipping and gradient accumulation.
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
// # As PyTorch users train
//
//   - Parameter groups (NewSGDGroups, NewAdamGroups, NewAdamWGroups,
//     NewRMSPropGroups): one optimizer over groups of parameters, each
//     with its own config (learning rate, weight decay, betas...), as
//     torch.optim's param_groups. It is one Optimizer: Params, State,
//     SetState, Steps and SetSteps cover every group, so one checkpoint
//     (package checkpoint's SaveOptions.Optimizer) holds it.
//   - Learning-rate schedules (StepLR, MultiStepLR, ExponentialLR,
//     LinearLR, CosineLR with warm-up, OneCycleLR; ReduceLROnPlateau),
//     closed forms in float64 that match torch.optim.lr_scheduler's
//     numbers, applied by a Scheduler through SetLR to some or all groups:
//     a new rate is a uniform value and compiles nothing. Their state
//     (MarshalText) goes into a checkpoint's metadata.
//   - ClipGradNorm: torch.nn.utils.clip_grad_norm_ in one reduction pass
//     over all the gradients, in place, returning the norm on the device.
//   - Accumulator: gradients summed over micro-batches into persistent
//     buffers, with Zero for zero_grad, without nested scopes.
//
// # Invariants
//
//   - In place: a parameter keeps its storage for its whole life. Step
//     writes the update into it (tensor.Launch.InOut), so every view of the
//     parameter sees it and its Version goes up by one per step.
//   - Few dispatches per step: each parameter, its gradient and its state
//     are read and written once, by one kernel that updates several
//     parameters, of any group, as many as the device binds and, on a
//     CPU adapter, as their sizes make worth it (SGD.Step says how): the
//     29 parameters of a small transformer take 10 dispatches of AdamW
//     on lavapipe, 13 on GL, instead of 29. Each element's arithmetic is
//     that of a kernel per parameter, in the same order: batching changes
//     no bit of the results.
//   - Nothing outlives a step but the state: Step allocates no tensor,
//     except the state tensors, created (zeroed) at the first step that
//     needs them, and placeholders of 4 floats for the slots a dispatch's
//     kernel binds beyond its parameters, which it disposes before it
//     returns (their buffers go back to the pool).
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
// The constructors (NewSGD, NewAdam, NewAdamW, NewRMSProp and their
// Groups forms) refuse a nil or zero engine, a bad config (a negative or
// infinite learning rate, betas outside [0, 1), ...) and any bad
// parameter, naming it: one without a name or with another's name, a nil,
// disposed or non-float32 tensor, a tensor of another device than the
// engine's, and two parameters that are the same tensor or share their
// storage (a view of another). With groups they also refuse no group, an
// empty group, a name twice in a group and a parameter (by name or by
// tensor) in two groups, naming the group and the parameter.
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
// None. The state a step needs is created before anything is updated:
// out of memory there updates nothing and leaves no new state. Only a
// device failure part-way through the dispatches (out of memory for a
// dispatch's placeholders, a lost device) leaves the parameters of the
// dispatches before it updated; the failed dispatch's parameters keep
// their values, versions, step counts and state.
//
// # Concurrency
//
// An optimizer belongs to the goroutine that uses its engine, like the
// engine's ops: Step, SetState, SetSteps, SetLR, SetConfig and Dispose
// must not run concurrently with each other or with ops on that engine
// from another goroutine. So do a Scheduler, a ReduceLROnPlateau and an
// Accumulator, and ClipGradNorm; the schedules themselves (StepLR, ...)
// are plain values, safe for concurrent use.
package optim

var (
	_ Optimizer = (*SGD)(nil)
	_ Optimizer = (*Adam)(nil)
	_ Optimizer = (*RMSProp)(nil)
)
