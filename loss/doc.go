// Package loss computes training losses from a model's outputs: softmax
// cross-entropy from logits (against integer class labels or probability
// targets), binary cross-entropy from logits and mean squared error, each
// reduced to its mean, its sum, or left per element (Reduction).
//
// # Overview
//
// A loss is ordinary tensor ops: the fused forward ops of package tensor
// (Engine.SoftmaxCrossEntropy, Engine.SigmoidCrossEntropy) or elementwise
// ops, then a reduction. So a loss works with or without a tape: outside
// one it costs its kernels and nothing else, and inside a grad.Tape each
// op is recorded and differentiated by its rule in package grad. The
// package sits beside grad, above tensor, and imports only tensor and
// tidy (whose scopes free a loss's intermediates): code that evaluates a
// loss needs no tape.
//
// CrossEntropy and BinaryCrossEntropyWithLogits are PyTorch's
// cross_entropy and binary_cross_entropy_with_logits with their options
// (CrossEntropyOptions: class weights, ignore_index with PyTorch's
// default of -100, label smoothing; BinaryCrossEntropyOptions: weight,
// pos_weight), each an options struct whose zero value is PyTorch's
// defaults; SoftmaxCrossEntropy and SigmoidCrossEntropy are the same
// losses without options (SoftmaxCrossEntropy ignores no label: a label of
// -100 is out of range and gives NaN).
//
// # Invariants
//
// Each function returns one tensor the caller owns, created in the
// caller's current tidy scope and attributed to the caller's line; the
// intermediates it makes are disposed before it returns, also on error. A
// bad argument gives a tensor carrying the error of the op that refused it
// (tensor's error model): nothing panics and nothing leaks.
//
// # Concurrency
//
// The functions are safe for concurrent use on different Engines; on one
// Engine they follow its contract (one goroutine at a time).
package loss
