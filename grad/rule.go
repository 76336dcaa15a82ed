package grad

import (
	"fmt"
	"sync"

	"github.com/wgtensor/wgtensor/tensor"
)

// Rule says how to differentiate one op of package tensor. Register it
// under the op's name (the name its errors carry: "add", "matmul",
// "sum", ...).
type Rule struct {
	// Inputs and Outputs list, by index, the op's inputs and outputs that
	// Backward reads (Context.Input, Context.Output). A tape saves those
	// when it records the op, sharing their storage, and nothing else:
	// list only what the rule needs. Shapes and dtypes are always known.
	Inputs, Outputs []int
	// Backward returns the gradient of each of the op's inputs, given dy,
	// the gradient of each of its outputs. dy[i] is nil for an output no
	// gradient reached (only ops with several outputs see one). A nil
	// gradient means none flows to that input (Where's condition); a rule
	// may also return nil for an input whose gradient no one needs
	// (Context.NeedsGradient), and should where computing it costs. Each
	// gradient has its input's shape (SumTo reduces a broadcast one).
	//
	// Backward runs inside a tidy scope: what it creates and does not
	// return is disposed for it, and it must dispose nothing it is given.
	// It may return dy[i], a tensor it was given, or one tensor for
	// several inputs (Add returns dy for both): backward takes as an
	// input's own only a tensor the rule made and returned for that input
	// alone, and gives every other input a view of its own (no copy), so
	// that adding up one input's gradient never frees or changes what
	// another's still reads.
	Backward func(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error)
	// Recompute says that Backward can compute the Outputs it reads from
	// its Inputs: where an autocast tape (Tape.SetAutocast) saved one of
	// those inputs as a narrow copy, it saves none of the outputs, and
	// Backward, finding Context.Output nil, recomputes them from the
	// inputs as saved, so that the gradient is the op's at the rounded
	// inputs, consistent with itself (attention's weights, rebuilt from
	// rounded q and k, sum to 1 only against their own log-sum-exp).
	Recompute bool
	// NoGrad, when set, says why the op has no gradient ("comparisons
	// return uint32"): asking for a gradient through it is an error that
	// says so. Backward is then unused.
	NoGrad string
}

// Context is what a Rule's Backward knows of the op it differentiates.
type Context struct {
	E     *tensor.Engine // the engine to compute the gradients on
	Op    string         // the op's name
	Attrs tensor.Attrs   // its attributes
	n     *node
	needs []bool // by input: whether a tensor asked for depends on it
}

// NeedsGradient reports whether the gradient of the op's input i is
// needed: whether the input is a float32 tensor that depends on a tensor
// whose gradient was asked for (or is one). Where it is not, Backward may
// return nil for it instead of computing what backward would throw away:
// in a training step, the gradient of the batch through its first matmul.
//
// Context's methods are safe on a nil or zero Context and with an index
// out of range: they answer with zero values (false, nil, 0, a nil Shape).
func (c *Context) NeedsGradient(i int) bool {
	if c == nil || i < 0 || i >= len(c.needs) {
		return false
	}
	return c.needs[i]
}

// Input returns the op's input i as saved by the tape; the rule must list
// i in Rule.Inputs. It is nil otherwise.
func (c *Context) Input(i int) *tensor.Tensor {
	s := c.saved(i)
	if s == nil {
		return nil
	}
	return widened(s, c.n.in[i])
}

// saved and savedOutput return the op's input or output i as the tape
// saved it: an autocast tape's narrow copy as it is, for rules whose ops
// read it so.
func (c *Context) saved(i int) *tensor.Tensor {
	if c == nil || c.n == nil || i < 0 || i >= len(c.n.savedIn) {
		return nil
	}
	return c.n.savedIn[i]
}

func (c *Context) savedOutput(i int) *tensor.Tensor {
	if c == nil || c.n == nil || i < 0 || i >= len(c.n.savedOut) {
		return nil
	}
	return c.n.savedOut[i]
}

// Output returns the op's output i as saved by the tape, if listed in
// Rule.Outputs; nil otherwise.
func (c *Context) Output(i int) *tensor.Tensor {
	s := c.savedOutput(i)
	if s == nil {
		return nil
	}
	return widened(s, c.n.out[i])
}

// NumInputs returns how many inputs the op had.
func (c *Context) NumInputs() int {
	if c == nil || c.n == nil {
		return 0
	}
	return len(c.n.in)
}

// InputShape returns the shape of the op's input i.
func (c *Context) InputShape(i int) tensor.Shape {
	if c == nil || c.n == nil || i < 0 || i >= len(c.n.in) {
		return nil
	}
	return c.n.in[i].shape
}

// InputDType returns the dtype of the op's input i.
func (c *Context) InputDType(i int) tensor.DType {
	if c == nil || c.n == nil || i < 0 || i >= len(c.n.in) {
		var zero tensor.DType
		return zero
	}
	return c.n.in[i].dtype
}

// OutputShape returns the shape of the op's output i.
func (c *Context) OutputShape(i int) tensor.Shape {
	if c == nil || c.n == nil || i < 0 || i >= len(c.n.out) {
		return nil
	}
	return c.n.out[i].shape
}

var (
	rulesMu sync.RWMutex
	rules   = map[string]*Rule{}
)

// Register makes r the rule for the op named op. Rules are registered
// from init functions; registering a second rule for one op, or a rule
// with neither Backward nor NoGrad, panics (a programming error). It is
// safe for concurrent use.
func Register(op string, r Rule) {
	if r.Backward == nil && r.NoGrad == "" {
		panic(fmt.Sprintf("grad: rule for %q has neither Backward nor NoGrad", op))
	}
	rulesMu.Lock()
	defer rulesMu.Unlock()
	if _, dup := rules[op]; dup {
		panic(fmt.Sprintf("grad: a rule for %q is registered already", op))
	}
	rules[op] = &r
}

// ruleFor returns the rule registered for op, or nil.
func ruleFor(op string) *Rule {
	rulesMu.RLock()
	defer rulesMu.RUnlock()
	return rules[op]
}

// HasRule reports whether a rule (with a gradient or saying why none) is
// registered for op.
func HasRule(op string) bool { return ruleFor(op) != nil }
