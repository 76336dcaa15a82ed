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
// With a padding index (EmbeddingPadded, PyTorch's padding_idx) that row
// starts as zeros and gets no gradient: the indices that name it (as p or
// as p − num) give its current values, which the tape takes for a
// constant, so an optimizer leaves the row as it is.
//
// Parameter: "weight" [num, dim] (Normal(1), PyTorch's default).
// An Embedding follows Module's concurrency contract.
type Embedding struct {
	layer
	num, dim int
	padding  int // the padding row, in [0, num), when padded
	padded   bool
	weight   *tensor.Tensor
	scale    *tensor.Tensor // the rows' scales where the weight is int8 (QuantizeInt8)
	what     string
}

// Embedding makes an Embedding of num rows of dim elements. Option:
// WeightInit (default Normal(1)).
func (b *Builder) Embedding(num, dim int, opts ...Option) *Embedding {
	return b.embedding(num, dim, 0, false, fmt.Sprintf("nn: Embedding(%d, %d)", num, dim), opts)
}

// EmbeddingPadded makes an Embedding of num rows of dim elements whose
// row paddingIdx (PyTorch's padding_idx: in [−num, num), a negative one
// counting from the end) is initialised to zeros, whatever the
// initialiser, and gets no gradient (see Embedding). Option: WeightInit
// (default Normal(1)), which draws the other rows as Embedding's would.
// Like every Builder method it belongs to the Builder's goroutine; the
// layer follows Module's concurrency contract.
func (b *Builder) EmbeddingPadded(num, dim, paddingIdx int, opts ...Option) *Embedding {
	return b.embedding(num, dim, paddingIdx, true, fmt.Sprintf("nn: Embedding(%d, %d, padding_idx=%d)", num, dim, paddingIdx), opts)
}

func (b *Builder) embedding(num, dim, padding int, padded bool, what string, opts []Option) *Embedding {
	l := &Embedding{num: num, dim: dim, padded: padded, what: what}
	c, err := configure(l.what, config{weightInit: Normal(1)}, opts, "WeightInit")
	switch {
	case err != nil:
	case num <= 0 || dim <= 0:
		err = fmt.Errorf("%s: sizes must be positive: %w", l.what, tensor.ErrArgument)
	case padded && (padding < -num || padding >= num):
		err = fmt.Errorf("%s: padding index %d is outside [%d, %d): %w", l.what, padding, -num, num, tensor.ErrArgument)
	}
	if err != nil {
		l.init(b.fail(err), nil, nil)
		return l
	}
	init := c.weightInit
	if padded {
		if padding < 0 {
			padding += num
		}
		l.padding = padding
		init = zeroRow(init, padding)
	}
	params, _, err := b.make(l.what, []paramSpec{{name: "weight", shape: []int{num, dim}, init: init, fanIn: num, fanOut: dim}})
	l.init(err, params, nil)
	if err == nil {
		l.weight = params[0].T
	}
	return l
}

// zeroRow is init with row r of its [num, dim] result set to zeros.
func zeroRow(init Init, r int) Init {
	return func(e *tensor.Engine, seed uint64, shape []int, fanIn, fanOut int) *tensor.Tensor {
		t := init(e, seed, shape, fanIn, fanOut)
		if t.Err() != nil || t.Rank() != 2 {
			return t // the Builder reports the initialiser's error or shape
		}
		rows := e.NotEqual(e.Range(tensor.Int32, 0, float64(shape[0]), 1), e.Fill(tensor.Int32, float64(r)))
		return e.Where(e.ExpandDims(rows, -1), t, e.Zeros(tensor.Float32))
	}
}

// Forward returns the rows of the weight that the int32 indices pick, on
// the indices' engine (of an int8 weight, float32 rows, each times its
// scale: see QuantizeInt8); with a padding index, that row's positions as
// a constant to a tape. See Module.
func (l *Embedding) Forward(indices *tensor.Tensor) *tensor.Tensor {
	if bad := checkInput(indices, l.what, l.err, tensor.Int32, 0, -1); bad != nil {
		return bad
	}
	e := engineFor(indices)
	if !l.padded && l.scale == nil {
		return e.Gather(l.weight, indices, 0)
	}
	return scoped(e, func() *tensor.Tensor {
		y := l.rows(e, indices)
		if !l.padded {
			return y
		}
		keep := e.Mul(e.NotEqual(indices, e.Fill(tensor.Int32, float64(l.padding))),
			e.NotEqual(indices, e.Fill(tensor.Int32, float64(l.padding-l.num))))
		var row *tensor.Tensor
		if err := unrecorded(e, func() error {
			row = l.rows(e, e.Fill(tensor.Int32, float64(l.padding)))
			return row.Err()
		}); err != nil {
			return e.Failed(fmt.Errorf("%s: the padding row: %w", l.what, err))
		}
		return e.Where(e.ExpandDims(keep, -1), y, row)
	})
}

// rows returns the rows of the weight that indices pick: of an int8
// weight, as float32 times their scales.
func (l *Embedding) rows(e *tensor.Engine, indices *tensor.Tensor) *tensor.Tensor {
	y := e.Gather(l.weight, indices, 0)
	if l.scale == nil {
		return y
	}
	return e.Mul(e.Cast(y, tensor.Float32), e.ExpandDims(e.Gather(l.scale, indices, 0), -1))
}
