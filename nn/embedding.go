package nn

import (
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
)

// Embedding maps int32 indices to rows of a table, PyTorch's nn.Embedding
// and Keras's Embedding: indices [...] give [..., dim], row i of the
// weight for index i (tensor.Engine.Gather). Its gradient reaches the
// weight through Gather's rule, a scatter-add: rows picked several times
// add up. An index out of [−num, num) gives a row of zeros, as tfjs on the
// GPU does (checking would need a readback); a negative one counts from
// the end.
//
// Parameter: "weight" [num, dim] (Normal(1), PyTorch's default).
// An Embedding follows Module's concurrency contract.
type Embedding struct {
	layer
	num, dim int
	weight   *tensor.Tensor
	what     string
}

// Embedding makes an Embedding of num rows of dim elements. Option:
// WeightInit (default Normal(1)).
func (b *Builder) Embedding(num, dim int, opts ...Option) *Embedding {
	l := &Embedding{num: num, dim: dim, what: fmt.Sprintf("nn: Embedding(%d, %d)", num, dim)}
	c, err := configure(l.what, config{weightInit: Normal(1)}, opts, "WeightInit")
	if err == nil && (num <= 0 || dim <= 0) {
		err = fmt.Errorf("%s: sizes must be positive: %w", l.what, tensor.ErrArgument)
	}
	if err != nil {
		l.init(b.fail(err), nil, nil)
		return l
	}
	params, _, err := b.make(l.what, []paramSpec{{name: "weight", shape: []int{num, dim}, init: c.weightInit, fanIn: num, fanOut: dim}})
	l.init(err, params, nil)
	if err == nil {
		l.weight = params[0].T
	}
	return l
}

// Forward returns the rows of the weight that the int32 indices pick, on
// the indices' engine. See Module.
func (l *Embedding) Forward(indices *tensor.Tensor) *tensor.Tensor {
	if bad := checkInput(indices, l.what, l.err, tensor.Int32, 0, -1); bad != nil {
		return bad
	}
	return engineFor(indices).Gather(l.weight, indices, 0)
}
