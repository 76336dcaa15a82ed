package grad

import (
	"fmt"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// Tolerances: checkGradient's (fdAtol, fdRtol in check_test.go). Each
// case feeds some ops a transposed input (a layout another op made), and
// each result goes through a nonlinear op (Square) or is weighted by the
// harness, so that a gradient in the wrong place shows.

type shapeCase struct {
	name string
	f    checkFunc
	in   [][]int
}

func TestShapeOpGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	sq := func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Square(x) }
	idx := func(e *tensor.Engine, v ...int32) *tensor.Tensor { return e.FromInt32s(v, len(v)) }
	for _, c := range []shapeCase{
		{"reshape", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return sq(e, e.Reshape(x[0], 3, -1)) }, [][]int{{2, 3, 2}}},
		{"reshape of a transpose", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
			return sq(e, e.Reshape(e.Transpose(x[0]), 6))
		}, [][]int{{2, 3}}},
		{"clone", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return sq(e, e.Clone(x[0])) }, [][]int{{3}}},
		{"expand_dims", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return sq(e, e.ExpandDims(x[0], -1)) }, [][]int{{2, 3}}},
		{"squeeze all", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return sq(e, e.Squeeze(x[0])) }, [][]int{{1, 3, 1}}},
		{"squeeze one", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return sq(e, e.Squeeze(x[0], -1)) }, [][]int{{1, 3, 1}}},
		{"transpose reversed", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return e.Transpose(x[0]) }, [][]int{{2, 3, 4}}},
		{"transpose, negative perm", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return e.Transpose(x[0], 1, -1, 0) }, [][]int{{2, 3, 4}}},
		{"slice", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
			return sq(e, e.Slice(x[0], []int{0, 1}, []int{3, 1}))
		}, [][]int{{4, 3, 2}}},
		{"slice of a transpose, trailing dims whole", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
			return sq(e, e.Slice(e.Transpose(x[0]), []int{1}, []int{1}))
		}, [][]int{{2, 3}}},
		{"pad", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
			return sq(e, e.Pad(x[0], [][2]int{{1, 0}, {2, 1}}, 0.5))
		}, [][]int{{2, 3}}},
		{"broadcast_to", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return sq(e, e.BroadcastTo(x[0], 2, 3, 4)) }, [][]int{{3, 1}}},
		{"concat", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
			return sq(e, e.Concat(-1, x[0], e.Transpose(x[1]), x[0]))
		}, [][]int{{2, 3}, {1, 2}}},
		{"concat axis 0", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return sq(e, e.Concat(0, x[0], x[1])) }, [][]int{{1, 3}, {2, 3}}},
		{"stack", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
			return sq(e, e.Stack(1, x[0], e.Transpose(x[1])))
		}, [][]int{{2, 3}, {3, 2}}},
		{"stack last", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return sq(e, e.Stack(-1, x[0], x[0])) }, [][]int{{3}}},
		{"split, every piece used", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
			p := e.Split(x[0], 1, 1, 3)
			return e.Mul(e.Square(p[0]), e.Sum(p[1], true, 1))
		}, [][]int{{2, 4}}},
		{"split, one piece unused", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
			p := e.Split(x[0], -1, 2)
			return sq(e, p[1])
		}, [][]int{{3, 4}}},
		{"gather, repeated, negative and out-of-range indices", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
			return sq(e, e.Gather(x[0], idx(e, 2, 0, -1, 2, 9, 2), 0))
		}, [][]int{{3, 2}}},
		{"gather along the last axis with 2-d indices", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
			i := e.FromInt32s([]int32{1, 1, 0, 3}, 2, 2)
			return sq(e, e.Gather(e.Transpose(x[0]), i, -1))
		}, [][]int{{4, 3}}},
		{"scatter_add", func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
			return sq(e, e.ScatterAdd(x[0], idx(e, 1, 1, -3, 7), x[1], 1))
		}, [][]int{{2, 3}, {2, 4}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ins := make([]hostIn, len(c.in))
			for i, s := range c.in {
				ins[i] = randIn(rng, -2, 2, s...)
			}
			checkGradient(t, e, c.f, ins...)
		})
	}
}

// Random shapes for the ops whose rule depends on the axes: concat, stack
// and split along each axis, negative ones included.
func TestShapeOpGradientsRandomAxes(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for range 6 {
		r := 1 + rng.IntN(3)
		shape := make([]int, r)
		for i := range shape {
			shape[i] = 1 + rng.IntN(3)
		}
		ax := rng.IntN(r) - r*rng.IntN(2)
		t.Run(fmt.Sprintf("%v axis %d", shape, ax), func(t *testing.T) {
			checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
				return e.Square(e.Concat(ax, x[0], x[1]))
			}, randIn(rng, -2, 2, shape...), randIn(rng, -2, 2, shape...))
			checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
				return e.Square(e.Stack(ax, x[0], x[1]))
			}, randIn(rng, -2, 2, shape...), randIn(rng, -2, 2, shape...))
			checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
				p := e.Split(x[0], ax, 1, -1+shapeAt(shape, ax))
				return e.Square(e.Concat(ax, p[1], p[0]))
			}, randIn(rng, -2, 2, shape...))
		})
	}
}

// shapeAt is shape's dimension at axis ax (negative from the end).
func shapeAt(shape []int, ax int) int {
	if ax < 0 {
		ax += len(shape)
	}
	return shape[ax]
}

// Empty inputs get empty gradients of their shape, through reductions and
// shape ops alike.
func TestGradientsOfEmptyInputs(t *testing.T) {
	e := testgpu.Engine(t)
	for name, f := range map[string]func(x *tensor.Tensor) *tensor.Tensor{
		"sum":         func(x *tensor.Tensor) *tensor.Tensor { return e.Sum(x, false, 0) },
		"mean":        func(x *tensor.Tensor) *tensor.Tensor { return e.Mean(x, true, 1) },
		"prod":        func(x *tensor.Tensor) *tensor.Tensor { return e.Prod(x, false, 0) },
		"transpose":   func(x *tensor.Tensor) *tensor.Tensor { return e.Transpose(x) },
		"concat":      func(x *tensor.Tensor) *tensor.Tensor { return e.Concat(0, x, x) },
		"gather none": func(x *tensor.Tensor) *tensor.Tensor { return e.Gather(x, e.FromInt32s(nil, 0), 1) },
		"pad":         func(x *tensor.Tensor) *tensor.Tensor { return e.Pad(x, [][2]int{{1, 1}, {0, 0}}, 0) },
	} {
		got := gradOf(t, e, nil, []int{0, 3}, f)
		if len(got) != 0 {
			t.Errorf("%s: gradient %v of an empty input", name, got)
		}
	}
}
