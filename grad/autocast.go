package grad

import (
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
)

// SetAutocast sets the dtype t saves activations in for the backward pass:
// tensor.BFloat16 halves what a training step holds between its forward
// and backward passes, tensor.Float32 (the default) saves them as they
// are. With BFloat16, each float32 activation an op's rule needs (an op's
// result, not a parameter, buffer, optimizer state or user tensor) of at
// least AutocastMinElements elements is saved as a bfloat16 copy, made
// as the op is recorded, and the float32 one is no longer held
// by the tape: it is freed when the forward pass lets it go. A rule reads
// the copy widened to float32 (Context.Input, Context.Output), so the
// gradients are float32, computed from activations rounded to bfloat16
// (8 significant bits): parameters, optimizer state and gradients stay
// float32, as under PyTorch's autocast. Ops whose rules compare or divide
// by what they save keep it exact: max, min, maximum, minimum, clip, prod,
// max pooling, top-k, the losses and Cast. Attention saves q, k and v
// narrow and not its output and log-sum-exp: its rule recomputes those
// from the rounded q, k and v (one more attention pass in the backward),
// since weights rebuilt from rounded q and k against the exact
// log-sum-exp no longer sum to 1 (5% off in a test; see Rule.Recompute).
//
// What it saves is the saved activations' half: in a 4-layer MLP the bytes
// held between the passes fall to 54%. It lowers a step's peak only as
// far as those make it: on lavapipe wgbench's CNN peaks at 12.6 MiB with
// autocast against 13.9 without (90%), its two-block transformer at 16.9
// against 23.7 (71%); parameters, optimizer state and the forward pass's
// working set do not shrink. The copies are made beside the ops held back
// for fusion (tensor.OpRecord.SaveAs), so a product keeps its epilogue;
// they and attention's recomputation cost the transformer 29 dispatches a
// step (7% of its time). The gradients of products (a float32 × bfloat16
// product) and of the activations (ReLU, GELU, tanh, sigmoid) read the
// narrow copies as they are, without widening them into float32 first.
//
// bfloat16 keeps float32's range, so no loss scaling is needed; float16
// is refused (its range would need one). SetAutocast fails with
// tensor.ErrDType for another dtype, with ErrTapeUsed while t records,
// and with tensor.ErrArgument on a nil or zero Tape. Set it before
// Record; it applies to the ops recorded after it.
func (t *Tape) SetAutocast(d tensor.DType) error {
	if t == nil || t.e == nil || t.e.Device() == nil {
		return errNilTape("set autocast")
	}
	if d != tensor.Float32 && d != tensor.BFloat16 {
		return fmt.Errorf("grad: autocast to %s: want bfloat16 (or float32: off): %w", d, tensor.ErrDType)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.recording {
		return fmt.Errorf("%w: set autocast while the tape records", ErrTapeUsed)
	}
	t.saveAs = d
	return nil
}

// AutocastMinElements is the fewest elements an activation has for an
// autocast tape to save it narrow: a smaller one costs a dispatch for
// little memory.
const AutocastMinElements = 4096

// minNarrow is AutocastMinElements, which tests lower to check rules on
// small narrowed tensors.
var minNarrow = AutocastMinElements

// exactSaves names the ops whose saved tensors autocast keeps as they
// are: their rules compare saved values (a max's position, a bound),
// divide by them (prod) or need them consistent with one another (a
// loss's logits). Attention's need the same, and its rule recomputes its
// outputs instead (Rule.Recompute).
var exactSaves = map[string]bool{
	"max": true, "min": true, "maximum": true, "minimum": true, "clip": true, "cast": true, "prod": true,
	"max_pool2d": true, "top_k": true,
	"softmax_cross_entropy": true, "softmax_cross_entropy_mean": true, "softmax_cross_entropy_weighted_sum": true,
	"sigmoid_cross_entropy": true,
}

// narrowed returns the narrow copy t saves of x, an input or output of the
// op r records, or nil where it saves x as it is. The copy is made beside
// the ops the engine holds back for fusion (OpRecord.SaveAs).
func (t *Tape) narrowed(r *tensor.OpRecord, x *tensor.Tensor) *tensor.Tensor {
	t.mu.Lock()
	d := t.saveAs
	t.mu.Unlock()
	if d == tensor.Float32 || exactSaves[r.Name] || x == nil || x.Err() != nil || x.DType() != tensor.Float32 ||
		x.Size() < minNarrow || tensor.CategoryOf(x) != tensor.CategoryActivation {
		return nil
	}
	key := copyKey{x.ID(), x.Version()}
	t.mu.Lock()
	prev := t.copies[key]
	t.mu.Unlock()
	var c *tensor.Tensor
	if prev != nil && !prev.IsDisposed() {
		t.narrowing.Store(true)
		c = t.e.Reshape(prev, x.Shape()...) // a second op saves x: the same copy
		t.narrowing.Store(false)
		c.Keep() // the tape's, not the caller's scope's
		tensor.SetCategory(c, tensor.CategorySaved)
	} else {
		c = r.SaveAs(x, d)
	}
	if c.Err() != nil {
		c.Dispose()
		return nil // saved as it is: the op's own error shows elsewhere
	}
	t.mu.Lock()
	if t.copies == nil {
		t.copies = map[copyKey]*tensor.Tensor{}
	}
	t.copies[key] = c
	t.mu.Unlock()
	return c
}

// copyKey names a tensor at a version: what a narrow copy holds.
type copyKey struct{ id, version uint64 }

// widened returns saved, a tensor the tape saved for ref, as the rule
// reads it: a narrow copy of a float32 tensor widened back (by a Cast in
// the rule's scope, which frees it), else saved itself.
func widened(saved *tensor.Tensor, r ref) *tensor.Tensor {
	if saved == nil || r.dtype != tensor.Float32 || saved.DType() == tensor.Float32 {
		return saved
	}
	return saved.Engine().Cast(saved, tensor.Float32)
}
