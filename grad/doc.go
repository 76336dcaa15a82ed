// Package grad computes gradients of computations on package tensor by
// reverse-mode automatic differentiation.
//
// # Recording is explicit
//
// Only the ops an Engine runs inside Tape.Record are recorded; outside a
// tape an op records nothing and saves nothing, and costs what it costs
// without this package (tensor's hook is one atomic load per op):
//
//	tape := grad.NewTape(e) // tracked by the current tidy scope
//	defer tape.Dispose()
//	var loss *tensor.Tensor
//	err := tape.Record(func() error {
//		loss = e.Mean(e.Square(e.Sub(e.MatMul(x, w), y)), false)
//		return loss.Err()
//	})
//	gs, err := tape.Gradients(loss, []*tensor.Tensor{w}, nil)
//
// ValueAndGrad does the same for a function of the parameters, as
// jax.value_and_grad and tf.variableGrads do.
//
// # Gradients
//
// Gradients differentiates a scalar result, or any result given a seed
// gradient of its shape (Options.Seed). A tensor asked for that the
// result does not depend on through the recorded ops is an error,
// ErrNoPath, as in PyTorch ("One of the differentiated Tensors appears to
// not have been used in the graph"): zeros would hide a forward pass the
// tape did not see. Options.NoPath allows unused tensors (PyTorch's
// allow_unused): ZeroGradient gives each zeros, NilGradient nil. Gradients
// flow through float32 tensors only: integer results and comparisons have
// none, and asking for one through them fails with ErrNoGradient, which
// says why.
//
// Where an op is not differentiable the rules choose as TensorFlow and
// PyTorch do: Max and Min split the gradient evenly among the elements
// tied for the result; Prod's gradient is exact with zeros in the input
// (the product of the other elements); ArgMax and ArgMin have none.
// Gather's gradient is a tensor.Engine.ScatterAdd into zeros (repeated
// indices add up, indices out of range get nothing). Conv2D's gradients
// are its two gradient kernels, tensor.Engine.Conv2DBackpropInput and
// Conv2DBackpropFilter. The losses' fused
// ops (package loss) have rules of their own.
//
// MaxPool2D sends each window's gradient to the element it took, the
// window's first maximum (its first NaN if it holds one), as TensorFlow
// and PyTorch do; AvgPool2D spreads it over the window's positions inside
// the input. Cumsum's gradient is the cumulative sum of dy the other way;
// TopK's values send dy back to the positions their indices name (the
// indices have none); OneHot, whose input is int32, has none; LayerNorm's
// covers x, gamma and beta. Pooling's own gradients have no rules (no
// second derivatives).
//
// # Memory
//
// A tape saves, for each op it records, only the inputs and outputs that
// the op's rule reads, sharing their storage (no copy). Saved tensors are
// counted like any others (Engine.Memory, LiveTensors, the summary and the
// profile), at the line of the forward op that saved them, and belong to
// the tape: tidy scopes do not dispose them. Backward frees each saved
// tensor as soon as its op's rule has run, and the rest when it ends,
// unless Options.Keep keeps them for another backward (a second backward
// without Keep fails with ErrTapeUsed). Disposing the tape, or ending the
// tidy scope that holds it, frees everything it saved, whether or not
// backward ran. An error part-way through backward leaves nothing live
// that the caller did not own before: the gradients returned are the only
// tensors backward leaves, created in the caller's current tidy scope.
//
// A tape that saved a tensor later assigned in place refuses to compute
// gradients from the new value: ErrModified.
//
// # Adding a rule
//
// Each op of package tensor is differentiated by the Rule registered under
// its name (the name its errors carry, tensor.OpRecord.Name). Register it
// from an init function:
//
//	func init() {
//		// y = exp(x): dx = dy·y, so the rule saves the output, not the input.
//		grad.Register("exp", grad.Rule{Outputs: []int{0}, Backward: func(c *grad.Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
//			g := c.E.Mul(dy[0], c.Output(0))
//			return []*tensor.Tensor{g}, g.Err()
//		}})
//	}
//
// Rule.Inputs and Rule.Outputs say what the tape saves; list only what
// Backward reads. Backward runs in a tidy scope of its own, so it need not
// dispose its intermediates, and must not dispose what it is given. It
// returns one gradient per input, of that input's shape: SumTo reduces the
// gradient of a broadcast input. The op's attributes (axes, perm, ...)
// are in Context.Attrs, its shapes in Context.InputShape and OutputShape.
// An input whose gradient no one asked for, directly or through later
// ops (Context.NeedsGradient false: a batch of data, targets), may get
// nil instead: rules whose gradient for it would cost a kernel (matmul,
// conv2d, the cross-entropy's targets, scatter-add's updates) skip it.
// An op with no gradient registers Rule{NoGrad: "why"}.
//
// # Checking a rule
//
// Every rule is checked against central finite differences by the test
// helper checkGradient (check_test.go): it evaluates f on float32 inputs
// made from float64 host data, seeds the backward pass with random
// weights r, and compares each input's gradient with the central
// difference of Σ r·f computed in float64 on the host, at steps that stay
// clear of the op's kinks (the test chooses inputs away from them). Add a
// case to the tables there:
//
//	checkGradient(t, e, func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
//		return e.Exp(in[0])
//	}, randIn(rng, -2, 2, 3, 4))
//
// The tolerances are stated in check_test.go.
//
// # Engines
//
// A tape records the ops of its own engine only, whichever goroutine runs
// them (tensor's hook is per engine): an op another engine runs is not
// recorded, even one the recording goroutine runs inside Record, and a
// tensor it makes is to the tape a constant, made elsewhere. A result
// that reaches the tensors asked for only through such ops does not
// depend on them as far as the tape knows, and Gradients fails with
// ErrNoPath, saying that the result, or a tensor it was computed from,
// was made by another engine; it never returns zeros for it unless
// Options.NoPath asks. Inputs made by another engine of the device (a
// batch from a producer goroutine's engine) are fine as such: ops on the
// tape's engine take them like any tensor.
//
// Code that picks its engine from its input, as package nn's layers do,
// asks EngineFor: while the calling goroutine records a tape on the
// input's device and none on the input's engine, it computes on the
// tape's engine, so that the tape records it and its result lands in the
// caller's scope. A model trained on one engine from batches made on
// another thus records its forward pass.
//
// # Concurrency
//
// A Tape records the ops of one Engine and, like the Engine, belongs to
// one goroutine at a time: Record and Gradients run on the goroutine that
// uses the Engine. Dispose is safe from any goroutine: while a Gradients
// runs over the tape (with Options.Keep, it reads the saved tensors) it
// waits for it to end, then frees them; a Record or Gradients that starts
// after it fails with ErrTapeUsed. Several Engines may record their own
// tapes at once on one device. Register and EngineFor are safe for
// concurrent use.
//
// Every method of a nil *Tape, or a zero one, is safe: Record and
// Gradients fail with an error wrapping tensor.ErrArgument, Len is 0,
// Dispose does nothing. So are Context's, which answer with zero values.
package grad
