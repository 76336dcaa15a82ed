package grad

import (
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
)

// SumTo reduces g, the gradient of a result that broadcast an input of
// the given shape, back to that shape: it sums g over the dimensions the
// broadcast added (the leading ones) and over those it stretched from 1.
// It returns g itself when g already has the shape, and an error when g's
// shape is not a broadcast of it. Rules use it for every op that
// broadcasts its inputs.
func SumTo(e *tensor.Engine, g *tensor.Tensor, shape tensor.Shape) (*tensor.Tensor, error) {
	if err := g.Err(); err != nil {
		return nil, err
	}
	gs := g.Shape()
	if gs.Equal(shape) {
		return g, nil
	}
	lead := len(gs) - len(shape)
	if lead < 0 {
		return nil, fmt.Errorf("grad: sum to %v: gradient of shape %v has fewer dimensions", shape, gs)
	}
	var axes []int
	for i := range gs {
		switch {
		case i < lead:
			axes = append(axes, i)
		case shape[i-lead] == gs[i]:
		case shape[i-lead] == 1:
			axes = append(axes, i)
		default:
			return nil, fmt.Errorf("grad: sum to %v: gradient of shape %v is not its broadcast", shape, gs)
		}
	}
	s := e.Sum(g, true, axes...)
	r := e.Reshape(s, shape...)
	s.Dispose()
	return r, r.Err()
}
