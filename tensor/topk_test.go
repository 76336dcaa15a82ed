package tensor_test

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// topKRef sorts each row of length n of x (NaN largest, ties and NaNs by
// position) and keeps the k first.
func topKRef(x []float32, n, k int) ([]float32, []int32) {
	var vals []float32
	var idx []int32
	for r := 0; r < len(x); r += n {
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		row := x[r : r+n]
		slices.SortStableFunc(order, func(a, b int) int {
			va, vb := row[a], row[b]
			switch na, nb := isNaN32(va), isNaN32(vb); {
			case na && nb:
				return 0
			case na:
				return -1
			case nb:
				return 1
			}
			return cmp.Compare(vb, va) // -0 == +0 here: cmp.Compare orders them equal
		})
		for _, j := range order[:k] {
			vals, idx = append(vals, row[j]), append(idx, int32(j))
		}
	}
	return vals, idx
}

func TestTopKAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(14, 4))
	for _, c := range []struct {
		shape []int
		k     int
	}{
		{[]int{7}, 3},
		{[]int{7}, 7},
		{[]int{7}, 0},
		{[]int{3, 1}, 1},
		{[]int{2, 3, 33}, 5},
		{[]int{2, kernels.TopKChunk + 37}, 40}, // two rank dispatches
		{[]int{0, 5}, 2},
	} {
		xv := make([]float32, size(c.shape))
		for i := range xv {
			xv[i] = float32(r.IntN(11)-5) / 4 // ties
		}
		x := e.FromFloat32s(xv, c.shape...)
		v, i := e.TopK(x, c.k)
		want := append(slices.Clone(c.shape[:len(c.shape)-1]), c.k)
		assert.Equal(t, tensor.Shape(want), v.Shape())
		assert.Equal(t, tensor.Shape(want), i.Shape())
		wv, wi := topKRef(xv, c.shape[len(c.shape)-1], c.k)
		assert.Equal(t, wv, nilIfEmpty(f32s(t, v)), "%v k %d: values", c.shape, c.k)
		assert.Equal(t, wi, nilIfEmpty(i32s(t, i)), "%v k %d: indices", c.shape, c.k)
		for _, d := range []*tensor.Tensor{x, v, i} {
			d.Dispose()
		}
	}
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// NaN is larger than everything, +Inf included, NaNs and equal values
// (-0 and +0 among them) come by position.
func TestTopKEdgeValues(t *testing.T) {
	e := testgpu.Engine(t)
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	negZero := float32(math.Copysign(0, -1))
	xv := []float32{0, inf, nan, -inf, negZero, nan, 1, 0}
	x := e.FromFloat32s(xv, 8)
	defer x.Dispose()
	v, i := e.TopK(x, 8)
	defer v.Dispose()
	defer i.Dispose()
	assert.Equal(t, []int32{2, 5, 1, 6, 0, 4, 7, 3}, i32s(t, i))
	got := f32s(t, v)
	assert.True(t, isNaN32(got[0]) && isNaN32(got[1]))
	assert.Equal(t, []float32{inf, 1, 0}, got[2:5])
	assert.Equal(t, uint32(0x80000000), math.Float32bits(got[5]), "-0 at position 4 keeps its sign")
	assert.Equal(t, []float32{0, float32(math.Inf(-1))}, got[6:])

	xi := e.FromInt32s([]int32{3, -1, 3, math.MaxInt32, math.MinInt32}, 5)
	defer xi.Dispose()
	vi, ii := e.TopK(xi, 3)
	defer vi.Dispose()
	defer ii.Dispose()
	assert.Equal(t, []int32{math.MaxInt32, 3, 3}, i32s(t, vi))
	assert.Equal(t, []int32{3, 0, 2}, i32s(t, ii))
}

func TestTopKErrors(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 2, 3)
	defer x.Dispose()
	s := e.Scalar(1)
	defer s.Dispose()
	for _, c := range []struct {
		name string
		kind error
		x    *tensor.Tensor
		k    int
	}{
		{"k past the row", tensor.ErrArgument, x, 4},
		{"negative k", tensor.ErrArgument, x, -1},
		{"a scalar", tensor.ErrShape, s, 0},
	} {
		live := e.NumTensors()
		v, i := e.TopK(c.x, c.k)
		for _, y := range []*tensor.Tensor{v, i} {
			err := y.Err()
			var oe *tensor.OpError
			require.True(t, errors.As(err, &oe), "%s: %v", c.name, err)
			assert.ErrorIs(t, err, c.kind, c.name)
			assert.Contains(t, err.Error(), "top_k", c.name)
		}
		assert.Equal(t, live, e.NumTensors(), c.name)
	}
}
