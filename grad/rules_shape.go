package grad

import (
	"github.com/wgtensor/wgtensor/tensor"
)

// The rules of the shape ops: each moves the gradient back to where the
// forward op took its elements from, and adds it up where the op used an
// element several times (BroadcastTo, Gather).

func init() {
	for _, op := range []string{"reshape", "expand_dims", "squeeze"} {
		Register(op, Rule{Backward: reshapeGrad})
	}
	Register("clone", Rule{Backward: func(_ *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) { return dy, nil }})
	Register("transpose", Rule{Backward: transposeGrad})
	Register("slice", Rule{Backward: sliceGrad})
	Register("pad", Rule{Backward: padGrad})
	Register("broadcast_to", Rule{Backward: func(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
		g, err := SumTo(c.E, dy[0], c.InputShape(0))
		return []*tensor.Tensor{g}, err
	}})
	Register("concat", Rule{Backward: concatGrad})
	Register("stack", Rule{Backward: stackGrad})
	Register("split", Rule{Backward: splitGrad})
	Register("gather", Rule{Inputs: []int{1}, Backward: gatherGrad})
	Register("scatter_add", Rule{Inputs: []int{1}, Backward: scatterAddGrad})
}

// reshapeGrad: the elements keep their order, only the shape changes back.
func reshapeGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	return one(c.E.Reshape(dy[0], c.InputShape(0)...))
}

// transposeGrad transposes dy by the inverse permutation.
func transposeGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	r := len(c.InputShape(0))
	perm := c.Attrs.Perm
	if perm == nil {
		perm = make([]int, r)
		for i := range perm {
			perm[i] = r - 1 - i
		}
	}
	inv := make([]int, r)
	for i, p := range perm {
		if p < 0 {
			p += r
		}
		inv[p] = i
	}
	return one(c.E.Transpose(dy[0], inv...))
}

// sliceGrad pads dy with zeros back to the input's shape.
func sliceGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	in, out := c.InputShape(0), c.OutputShape(0)
	pads := make([][2]int, len(in))
	for i := range in {
		b := 0
		if i < len(c.Attrs.Begin) {
			b = c.Attrs.Begin[i]
		}
		pads[i] = [2]int{b, in[i] - b - out[i]}
	}
	return one(c.E.Pad(dy[0], pads, 0))
}

// padGrad slices the input's block out of dy: the padding has no input.
func padGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	begin := make([]int, len(c.Attrs.Pads))
	for i, p := range c.Attrs.Pads {
		begin[i] = p[0]
	}
	return one(c.E.Slice(dy[0], begin, c.InputShape(0)))
}

// concatGrad slices each input's block out of dy along the axis.
func concatGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	ax := c.Attrs.Axis
	gs := make([]*tensor.Tensor, c.NumInputs())
	begin := make([]int, len(c.OutputShape(0)))
	for i := range gs {
		size := c.InputShape(i)
		gs[i] = c.E.Slice(dy[0], begin, size)
		if err := gs[i].Err(); err != nil {
			return nil, err
		}
		begin[ax] += size[ax]
	}
	return gs, nil
}

// stackGrad takes each input's slice of dy along the new axis and drops
// the axis.
func stackGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	ax := c.Attrs.Axis
	out := c.OutputShape(0)
	gs := make([]*tensor.Tensor, c.NumInputs())
	begin, size := make([]int, len(out)), append([]int{}, out...)
	size[ax] = 1
	for i := range gs {
		begin[ax] = i
		gs[i] = c.E.Reshape(c.E.Slice(dy[0], begin, size), c.InputShape(i)...)
		if err := gs[i].Err(); err != nil {
			return nil, err
		}
	}
	return gs, nil
}

// splitGrad joins the pieces' gradients along the axis, zeros for the
// pieces no gradient reached.
func splitGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	pieces := make([]*tensor.Tensor, len(dy))
	for i, g := range dy {
		if g == nil {
			g = c.E.Zeros(tensor.Float32, c.OutputShape(i)...)
		}
		pieces[i] = g
	}
	return one(c.E.Concat(c.Attrs.Axis, pieces...))
}

// gatherGrad adds dy into zeros at the gathered positions: ScatterAdd is
// Gather's adjoint (repeated indices add up; indices out of range, which
// read zeros, receive nothing). The indices get no gradient.
func gatherGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	z := c.E.Zeros(c.InputDType(0), c.InputShape(0)...)
	g := c.E.ScatterAdd(z, c.Input(1), dy[0], c.Attrs.Axis)
	return []*tensor.Tensor{g, nil}, g.Err()
}

// scatterAddGrad: x passes dy through, updates get dy gathered at their
// positions (Gather is ScatterAdd's adjoint) when needed, the indices
// nothing.
func scatterAddGrad(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if !c.NeedsGradient(2) {
		return []*tensor.Tensor{dy[0], nil, nil}, nil
	}
	g := c.E.Gather(dy[0], c.Input(1), c.Attrs.Axis)
	return []*tensor.Tensor{dy[0], nil, g}, g.Err()
}
