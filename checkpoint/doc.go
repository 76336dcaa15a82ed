// Package checkpoint saves a model's named tensors ([]optim.Param), and
// optionally an optimizer's state, to a safetensors file, and loads them
// back into the same tensors or into new ones.
//
// # Overview
//
//	err := checkpoint.SaveFile(ctx, "model.safetensors", params, checkpoint.SaveOptions{Optimizer: opt})
//	...
//	rep, err := checkpoint.LoadFile(ctx, e, "model.safetensors", params, checkpoint.LoadOptions{Optimizer: opt})
//
// Parameters are saved under their names ("0.weight", PyTorch's state-dict
// style), float32 as F32, int32 as I32, uint32 as U32. An optimizer's
// state tensors are saved under OptimizerPrefix and their own names
// ("optim.0.weight.exp_avg") and each parameter's step count in the
// metadata ("optim.steps.0.weight": "10"). The files are plain
// safetensors: Python's safetensors package (and anything else that reads
// the format) reads them unchanged.
//
// A model (an nn.Module) saves and loads in one call, with the step
// counts of its Dropouts so that a resumed run draws what an uninterrupted
// one would, and, with Layout PyTorch, in PyTorch's layout both ways:
//
//	err := checkpoint.SaveModelFile(ctx, "model.safetensors", model, checkpoint.SaveOptions{Optimizer: opt})
//	rep, err := checkpoint.LoadModelFile(ctx, e, "torch.safetensors", model,
//		checkpoint.LoadOptions{Layout: checkpoint.PyTorch, Optimizer: opt})
//
// On the PyTorch side, python/wgtensor_checkpoint.py (torch and the
// standard library alone) saves a model and its optimizer in this
// package's names and loads what SaveModel wrote, one call each way.
//
// This package is apart from package safetensors so that the format stays
// free of devices and tensors: a tool that lists or checks a file, or the
// fuzzer of its header, needs neither a GPU nor cgo.
//
// # Invariants
//
//   - Streaming: Save reads each tensor back a chunk at a time
//     (Tensor.ReadBytes) and writes the chunk to w; Load reads a chunk at a
//     time from an io.ReaderAt and uploads it through the device's pooled
//     staging buffers (Engine.WriteBytes). Neither ever holds a copy of a
//     whole tensor, let alone of the file, on the host: the host memory
//     either uses is one chunk (ChunkSize, 1 MiB by default) and the header.
//   - In place: Load writes into the parameters' own storage, with
//     Engine.Assign's semantics (same shape, same dtype; views see the new
//     values; Version goes up), so an optimizer or a model that holds the
//     tensors keeps valid references.
//   - Conversions: F16 and BF16 in a file load into float16 and bfloat16
//     parameters as they are (and Save writes those dtypes as F16 and
//     BF16), or into float32 parameters, exactly (every half and bfloat16
//     value, NaN payloads, infinities and subnormals included, is a
//     float32). LoadTensors makes float16 and bfloat16 tensors of them,
//     with no float32 copy on the way. F64 loads into float32 and I64
//     (PyTorch's int64) into int32 or uint32 when each value converts
//     exactly, and fails the load before it writes anything otherwise.
//     I8 loads into int8 tensors (quantized weights) as it is, and Save
//     writes int8 as I8.
//   - PyTorch's BatchNorm: Save writes each BatchNorm-like layer's
//     "num_batches_tracked" (an I64 0) and Load takes it without keeping
//     it, so files go both ways with load_state_dict(strict=True).
//   - Nothing outlives a call but what it returns: Save creates no tensor
//     and leaves the live tensors and bytes as it found them; Load creates
//     only temporary tensors for an optimizer's state and disposes them;
//     LoadTensors returns the only tensors it made, and none on failure.
//
// # Errors
//
// Load checks the whole file against the model before it writes anything:
// the header (package safetensors: a truncated file, offsets that overlap
// or run past the end, bad JSON, a huge header length, ...), then every
// name, dtype and shape, the step counts in the metadata (at most
// MaxSteps), the optimizer's state names (with the optimizer), and the
// values of F64 and I64 entries. By default it is strict, as PyTorch's
// load_state_dict is: a parameter the file lacks or an entry no parameter
// takes is an error naming it (ErrMismatch), and so is a dtype or shape
// that differs from the parameter's (also wrapping tensor.ErrDType or
// tensor.ErrShape). LoadOptions.NonStrict skips missing and unexpected
// names instead, and Report lists them; a dtype or shape mismatch stays
// an error. A file that fails these checks writes nothing, leaves no tensor
// live and the device's pool as it was. Only a failure while the data
// streams in (the reader's error, the device's) can leave the optimizer
// state or the parameters part loaded; the error says exactly which were
// changed. ChunkSize options past MaxChunkSize, or negative, are refused
// (ErrArgument), and no call allocates a chunk larger than its largest
// tensor needs.
//
// # Concurrency
//
// Save reads its tensors as readbacks do, from any goroutine, but must not
// run concurrently with a Step of its optimizer or with ops that write the
// parameters, or the file holds a mix of before and after. Load and
// LoadTensors run ops on the engine they are given and belong to the
// goroutine that owns it, like its ops. Different calls share nothing.
package checkpoint
