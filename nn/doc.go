// Package nn builds models from layers, as PyTorch's torch.nn and Keras's
// layers do: Linear, Conv2D, MaxPool2D, AvgPool2D, LayerNorm, BatchNorm,
// Embedding, Dropout, activations, Flatten and Sequential, each a Module
// with named parameters that package optim updates and a checkpoint saves.
//
// # Overview
//
// A Builder makes the layers with parameters on an engine, from one root
// seed; a Sequential chains modules:
//
//	b := nn.NewBuilder(e, 42)
//	model := nn.NewSequential(b.Linear(2, 64), nn.ReLU(), b.Linear(64, 3))
//	if err := b.Err(); err != nil { ... }
//	defer model.Dispose()
//
//	opt, err := optim.NewAdam(e, model.Params(), optim.AdamDefaults())
//	// each step:
//	tape := grad.NewTape(e)
//	var l *tensor.Tensor
//	err = tape.Record(func() error {
//		l = loss.SoftmaxCrossEntropy(e, model.Forward(x), labels, loss.Mean)
//		return l.Err()
//	})
//	gs, err := tape.Gradients(l, nn.Tensors(model.Params()), nil)
//	err = opt.Step(gs)
//
//	model.SetTraining(false) // inference: Dropout passes, BatchNorm uses its running statistics
//	y := model.Forward(x)
//
// # Names
//
// Parameters and buffers are listed as []optim.Param named as PyTorch's
// state dict names them: "weight" and "bias" in a lone layer, "0.weight",
// "2.running_mean" inside a Sequential. Params lists what an optimizer
// trains, Buffers what a checkpoint saves but no optimizer touches
// (BatchNorm's running_mean and running_var), StateDict both. A model of
// one's own (a struct with a Forward) names its submodules' parameters
// with Prefixed ("encoder.0.weight").
//
// # Layouts
//
// Layers take the tfjs layouts: the features, or for images the channels,
// are the last axis (NHWC), so BatchNorm normalises over every axis but
// the last. Shapes of parameters are PyTorch's where that costs nothing:
// Linear's weight is [out, in], used transposed without a copy, so a
// PyTorch state dict of Linear, LayerNorm, BatchNorm and Embedding layers
// loads as it is; a Keras or tfjs Dense kernel, [in, out], loads transposed.
// Conv2D's filter is HWIO, [kh, kw, in/groups, out], tfjs's layout, which
// tensor.Engine.Conv2D reads without a copy (PyTorch's OIHW permuted by
// (2, 3, 1, 0)).
//
// # Initialisers and seeds
//
// Initialisers (Init: GlorotUniform, GlorotNormal, HeUniform, HeNormal,
// Zeros, Ones, Constant, Uniform, Normal) draw on the GPU with Philox.
// Each parameter, and each Dropout, gets a seed of its own derived from the
// Builder's root seed, the count of seeds before it and its name by a
// mixing function, so two layers never share their numbers, and the same
// root seed builds the same model on every device.
//
// # Invariants
//
//   - Forward runs on its input's engine (x.Engine()), whichever engine made
//     the parameters: one model serves goroutines that each compute on their
//     own engine on the same device. Under a grad.Tape it runs on the
//     engine grad.EngineFor(x) chooses: while the calling goroutine records
//     a tape on x's device and none on x's engine, the tape's engine, so
//     that a batch made on another engine (a producer goroutine's) is
//     trained on with the forward pass recorded, its result in the caller's
//     scope. (A tape records only its own engine's ops: see grad's doc.)
//   - Forward returns one tensor the caller owns, created in the caller's
//     tidy scope; every intermediate is freed before it returns, so a
//     forward pass holds only its result, and under a grad.Tape what the
//     tape saves. Sequential frees each layer's result once the next layer
//     has used it.
//   - Parameters and buffers keep their storage for their whole life: an
//     optimizer and BatchNorm's running statistics write in place
//     (tensor.Engine.Assign), so a training step allocates only its
//     intermediates. They are Kept (tensor.Tensor.Keep): tidy scopes never
//     free them; the module's Dispose frees every one, to the byte.
//   - Modes are PyTorch's: a new module is in training mode; SetTraining(false)
//     (model.eval()) switches to inference mode.
//
// # Half-width inference
//
// ToDtype converts a model's parameters and buffers to float16 or
// bfloat16 in place, as PyTorch's module.half() does: the model then holds
// half the bytes, and Linear, LayerNorm, Embedding, the activations,
// Dropout, MultiheadAttention, TransformerLayer and the containers compute
// in that dtype (tensor's ops compute in float32 and round each result).
// Layers whose ops do not take half-width tensors yet (Conv2D, BatchNorm,
// pooling) refuse them with tensor.ErrDType.
//
// # Errors
//
// The Builder keeps its first error (Builder.Err): a bad size or option, an
// initialiser that fails or makes the wrong shape, an allocation that fails.
// A layer it could not make owns nothing, and its Forward returns a tensor
// carrying the error. Forward follows tensor's error model: a bad input (its
// dtype, rank or last dimension, an input carrying an error, a disposed one)
// gives a tensor carrying an error that names the layer, its sizes and the
// input's shape, wrapping tensor.ErrShape, ErrDType, ErrArgument or the
// input's own error; nothing panics and nothing leaks. A Sequential names
// the module that refused.
//
// # Concurrency
//
// A Builder belongs to one goroutine. A module in inference mode is only
// read by Forward: goroutines may share it, each with its own Engine on the
// module's device. In training mode Forward updates Dropout's step count
// and BatchNorm's running statistics, and belongs to one goroutine at a
// time; SetTraining must not race with a Forward. Dispose, Params, Buffers
// and Training are safe from any goroutine.
package nn
