package tensor_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// disposeAll disposes ts and returns the first error among them.
func disposeAll(ts ...*tensor.Tensor) error {
	var first error
	for _, x := range ts {
		if first == nil {
			first = x.Err()
		}
		x.Dispose()
	}
	return first
}

// assertOpError checks that err names op and wraps kind.
func assertOpError(t *testing.T, err error, kind error, op string) {
	t.Helper()
	if assert.ErrorIs(t, err, kind, op) {
		assert.True(t, strings.HasPrefix(err.Error(), "tensor: "+op), "the error names the op %q: %v", op, err)
	}
}

// TestShapeLimits: issue 10 items 4 and 7. Every constructor and shape op
// refuses a shape whose element count, or the product of whose nonzero
// dimensions, passes MaxElements, or that has a negative dimension or too
// many dimensions, instead of wrapping the count and accepting it.
func TestShapeLimits(t *testing.T) {
	e := testgpu.Engine(t)
	const big = 1 << 16 // big*big passes MaxElements; big floats are cheap
	wrap := []int{1 << 31, 1 << 31, 4}
	x4 := e.FromFloat32s([]float32{1, 2, 3, 4})
	row := e.Zeros(tensor.Float32, 1, big)
	col := e.Zeros(tensor.Float32, big, 1)
	empty := e.Zeros(tensor.Float32, 0, 1<<30)
	idx := e.Zeros(tensor.Int32, big)
	defer disposeAll(x4, row, col, empty, idx)
	require.NoError(t, disposeAll(e.Clone(empty)), "[0 2^30] is within the limits")
	ones := make([]int, tensor.MaxRank)
	for i := range ones {
		ones[i] = 1
	}
	rankMax := e.Reshape(x4, append(ones[1:], 4)...)
	defer rankMax.Dispose()
	require.NoError(t, rankMax.Err(), "rank MaxRank is allowed")

	for _, c := range []struct {
		op   string
		kind error
		f    func() []*tensor.Tensor
	}{
		{"zeros", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Zeros(tensor.Float32, wrap...)) }},
		{"zeros", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Zeros(tensor.Float32, 0, 1<<33)) }},
		{"zeros", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Zeros(tensor.Float32, -1, 0)) }},
		{"ones", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Ones(tensor.Int32, 1<<31)) }},
		{"fill", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Fill(tensor.Uint32, 1, big, big)) }},
		{"rand_uniform", tensor.ErrShape, func() []*tensor.Tensor { return one(e.RandUniform(1, 0, 1, wrap...)) }},
		{"rand_normal", tensor.ErrShape, func() []*tensor.Tensor { return one(e.RandNormal(1, 0, 1, wrap...)) }},
		{"from float32s", tensor.ErrShape, func() []*tensor.Tensor { return one(e.FromFloat32s([]float32{1, 2, 3, 4}, (1<<62)+1, 4)) }},
		{"from int32s", tensor.ErrShape, func() []*tensor.Tensor { return one(e.FromInt32s(nil, 0, big, big)) }},
		{"from uint32s", tensor.ErrShape, func() []*tensor.Tensor { return one(e.FromUint32s([]uint32{1}, append(ones, 1)...)) }},
		{"eye", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Eye(tensor.Float32, 1<<40, 1<<31)) }},
		{"eye", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Eye(tensor.Float32, -1, 3)) }},
		{"range", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Range(tensor.Float32, 0, 1e30, 1)) }},
		{"range", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Range(tensor.Float32, 0, 1, 1e-300)) }},
		{"range", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Range(tensor.Int32, -1e308, 1e308, 1)) }},
		{"range", tensor.ErrArgument, func() []*tensor.Tensor { return one(e.Range(tensor.Int32, 0.5, 3, 1)) }},
		{"range", tensor.ErrArgument, func() []*tensor.Tensor { return one(e.Range(tensor.Uint32, -1, 3, 1)) }},
		{"range", tensor.ErrArgument, func() []*tensor.Tensor { return one(e.Range(tensor.Int32, 0, 4e9, 1e9)) }},
		{"reshape", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Reshape(x4, (1<<62)+1, 4)) }},
		{"reshape", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Reshape(x4, -1, 1<<62, 1<<62)) }},
		{"reshape", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Reshape(empty, 0, 1<<40)) }},
		{"reshape", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Reshape(x4, -1, -1)) }},
		{"reshape", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Reshape(empty, -1, 0)) }},
		{"reshape", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Reshape(x4, append(ones, 4)...)) }},
		{"expand_dims", tensor.ErrShape, func() []*tensor.Tensor { return one(e.ExpandDims(rankMax, 0)) }},
		{"slice", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Slice(x4, []int{math.MaxInt}, []int{2})) }},
		{"slice", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Slice(x4, []int{2}, []int{math.MaxInt})) }},
		{"pad", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Pad(x4, [][2]int{{math.MaxInt, math.MaxInt}}, 0)) }},
		{"pad", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Pad(row, [][2]int{{big, 0}, {0, 0}}, 0)) }},
		{"broadcast_to", tensor.ErrShape, func() []*tensor.Tensor { return one(e.BroadcastTo(x4, -2, -2)) }},
		{"broadcast_to", tensor.ErrShape, func() []*tensor.Tensor { return one(e.BroadcastTo(row, big, big)) }},
		{"concat", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Concat(1, empty, empty, empty)) }},
		{"stack", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Stack(0, empty, empty, empty)) }},
		{"gather", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Gather(row, idx, 0)) }},
		{"add", tensor.ErrShape, func() []*tensor.Tensor { return one(e.Add(row, col)) }},
		{"where", tensor.ErrShape, func() []*tensor.Tensor {
			c := e.Cast(row, tensor.Uint32)
			defer c.Dispose()
			return one(e.Where(c, col, row))
		}},
		{"matmul", tensor.ErrShape, func() []*tensor.Tensor { return one(e.MatMul(col, row)) }},
	} {
		testgpu.NoPanic(t, c.op, func() {
			err := disposeAll(c.f()...)
			assertOpError(t, err, c.kind, c.op)
		})
	}
	ok := e.Add(x4, x4)
	assert.NoError(t, disposeAll(ok), "the engine works after every refusal")
}

func one(x *tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{x} }

// TestSplitWorkBoundedByOutput: splitting an empty tensor into pieces of
// one, along a dimension of 2^33, must not build 2^33 pieces (it exhausted
// memory in slices.Repeat); the shape is refused before Split is reached.
func TestSplitWorkBoundedByOutput(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 0, 1<<33)
	defer x.Dispose()
	require.ErrorIs(t, x.Err(), tensor.ErrShape, "a dimension past MaxElements is refused, so Split below cannot run out of memory")
	testgpu.NoPanic(t, "split", func() {
		assert.ErrorIs(t, disposeAll(e.Split(x, 1, 1)...), tensor.ErrShape)
	})
	// Within the limits, cutting an empty tensor into more pieces than it
	// has elements (or 65536) is refused rather than built.
	y := e.Zeros(tensor.Float32, 0, 1<<17)
	defer y.Dispose()
	testgpu.NoPanic(t, "split", func() {
		assert.ErrorIs(t, disposeAll(e.Split(y, 1, 1)...), tensor.ErrArgument)
		pieces := e.Split(y, 1, 1<<10)
		assert.Len(t, pieces, 1<<7)
		assert.NoError(t, disposeAll(pieces...))
	})
}

// TestRangeIntegerExtremes: integer ranges reach the ends of their dtype
// exactly (the words were converted through int32, which is undefined for
// uint32 values past 2^31).
func TestRangeIntegerExtremes(t *testing.T) {
	e := testgpu.Engine(t)
	u := e.Range(tensor.Uint32, 4e9, 0, -1e9)
	defer u.Dispose()
	assert.Equal(t, []uint32{4e9, 3e9, 2e9, 1e9}, u32s(t, u))
	i := e.Range(tensor.Int32, math.MinInt32, math.MaxInt32, 1<<30)
	defer i.Dispose()
	assert.Equal(t, []int32{math.MinInt32, -1 << 30, 0, 1 << 30}, i32s(t, i))
	one := e.Range(tensor.Int32, 5, 6, 1e300)
	defer one.Dispose()
	assert.Equal(t, []int32{5}, i32s(t, one), "a step that fits no dtype is fine when only start is produced")
}

// TestShapeSize: Size never wraps.
func TestShapeSize(t *testing.T) {
	for _, c := range []struct {
		s    tensor.Shape
		want int
	}{
		{tensor.Shape{}, 1},
		{tensor.Shape{2, 3}, 6},
		{tensor.Shape{0, math.MaxInt, math.MaxInt}, 0},
		{tensor.Shape{1 << 31, 1 << 31, 4}, -1},
		{tensor.Shape{math.MaxInt, 2}, -1},
		{tensor.Shape{-1, 2}, -1},
		{tensor.Shape{2, -1, 0}, -1},
	} {
		assert.Equal(t, c.want, c.s.Size(), "%v", c.s)
	}
}

// ExampleMaxElements shows the limit at work.
func ExampleMaxElements() {
	fmt.Println(tensor.MaxElements, tensor.MaxRank)
	// Output: 2147483647 32
}

// TestFillConvertsAsCast: a fill value outside an integer dtype saturates
// and NaN gives 0, as Cast converts; the conversion was Go's float to int
// conversion, which is undefined out of range (1e20 gave MinInt32).
func TestFillConvertsAsCast(t *testing.T) {
	e := testgpu.Engine(t)
	for _, c := range []struct {
		dtype tensor.DType
		value float64
		want  uint32
	}{
		{tensor.Int32, 1e20, math.MaxInt32},
		{tensor.Int32, -1e20, 1 << 31},
		{tensor.Int32, math.NaN(), 0},
		{tensor.Int32, -2.7, uint32(1<<32 - 2)},
		{tensor.Uint32, 1e20, math.MaxUint32},
		{tensor.Uint32, -5, 0},
		{tensor.Uint32, math.Inf(-1), 0},
		{tensor.Uint32, 3e9, 3e9},
	} {
		x := e.Fill(c.dtype, c.value, 1)
		y := e.Cast(x, tensor.Uint32) // the bits, for both dtypes
		assert.Equal(t, []uint32{c.want}, u32s(t, y), "%s %v", c.dtype, c.value)
		disposeAll(x, y)
	}
}
