package tensor_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

func TestOneHot(t *testing.T) {
	e := testgpu.Engine(t)
	idx := []int32{0, 3, -1, 4, 2, 1 << 30}
	x := e.FromInt32s(idx, 2, 3)
	defer x.Dispose()
	for _, depth := range []int{1, 4, 257} {
		y := e.OneHot(x, depth, 5, -0.5)
		assert.Equal(t, tensor.Shape{2, 3, depth}, y.Shape())
		want := make([]float32, 0, len(idx)*depth)
		for _, v := range idx {
			for d := range depth {
				if int(v) == d {
					want = append(want, 5)
				} else {
					want = append(want, -0.5)
				}
			}
		}
		assert.Equal(t, want, f32s(t, y), "depth %d: out-of-range and negative indices give rows of off", depth)
		y.Dispose()
	}
	z := e.OneHot(x, 0, 1, 0)
	require.NoError(t, z.Err())
	assert.Equal(t, tensor.Shape{2, 3, 0}, z.Shape())
	z.Dispose()
}

func TestOneHotErrors(t *testing.T) {
	e := testgpu.Engine(t)
	f := e.Zeros(tensor.Float32, 3)
	defer f.Dispose()
	i := e.Zeros(tensor.Int32, 3)
	defer i.Dispose()
	for _, c := range []struct {
		name string
		kind error
		y    func() *tensor.Tensor
	}{
		{"float indices", tensor.ErrDType, func() *tensor.Tensor { return e.OneHot(f, 3, 1, 0) }},
		{"negative depth", tensor.ErrArgument, func() *tensor.Tensor { return e.OneHot(i, -1, 1, 0) }},
		{"depth past 32 bits", tensor.ErrShape, func() *tensor.Tensor { return e.OneHot(i, 1<<32, 1, 0) }},
	} {
		live := e.NumTensors()
		err := c.y().Err()
		var oe *tensor.OpError
		require.True(t, errors.As(err, &oe), "%s: %v", c.name, err)
		assert.ErrorIs(t, err, c.kind, c.name)
		assert.Contains(t, err.Error(), "one_hot [3]", c.name)
		assert.Equal(t, live, e.NumTensors(), c.name)
	}
}
