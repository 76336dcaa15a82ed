package tensor_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

func TestReadIntoEveryDType(t *testing.T) {
	e := testgpu.Engine(t)
	f := e.FromFloat32s([]float32{1.5, -2, float32(math.Inf(1))}, 3)
	i := e.FromInt32s([]int32{-7, 0, math.MaxInt32}, 3)
	u := e.FromUint32s([]uint32{0, 1, math.MaxUint32}, 3)
	defer f.Dispose()
	defer i.Dispose()
	defer u.Dispose()
	fs, is, us := make([]float32, 3), make([]int32, 3), make([]uint32, 3)
	require.NoError(t, tensor.ReadInto(ctxT(t), f, fs))
	require.NoError(t, tensor.ReadInto(ctxT(t), i, is))
	require.NoError(t, tensor.ReadInto(ctxT(t), u, us))
	assert.Equal(t, []float32{1.5, -2, float32(math.Inf(1))}, fs)
	assert.Equal(t, []int32{-7, 0, math.MaxInt32}, is)
	assert.Equal(t, []uint32{0, 1, math.MaxUint32}, us)
}

func TestReadIntoRefusesTheWrongDestination(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
	assert.ErrorIs(t, tensor.ReadInto(ctxT(t), x, make([]int32, 4)), tensor.ErrDType)
	err := tensor.ReadInto(ctxT(t), x, make([]float32, 3))
	assert.ErrorIs(t, err, tensor.ErrShape)
	assert.ErrorContains(t, err, "4 elements into a slice of 3")
	x.Dispose()
	assert.ErrorIs(t, tensor.ReadInto(ctxT(t), x, make([]float32, 4)), tensor.ErrDisposed)
	bad := e.Add(x, x)
	assert.ErrorIs(t, tensor.ReadInto(ctxT(t), bad, make([]float32, 4)), tensor.ErrDisposed, "an error tensor's own error")
}

// A large upload goes through the runtime's upload buffers and a large
// readback straight into the result: the round trip must be exact.
func TestLargeRoundTripIsExact(t *testing.T) {
	e := testgpu.Engine(t)
	const n = 3<<20 + 5
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(i*2654435761) ^ int32(i>>3)
	}
	x := e.FromInt32s(v)
	defer x.Dispose()
	got, err := x.Int32s(ctxT(t))
	require.NoError(t, err)
	require.Equal(t, v, got)
	again := make([]int32, n)
	require.NoError(t, tensor.ReadInto(ctxT(t), x, again))
	require.Equal(t, v, again)
}
