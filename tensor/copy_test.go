package tensor_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// Issue 20, item 4: Copy copies, where Clone is a view. "Saving the best
// weights" with Clone kept the latest ones; with Copy it keeps the best.
func TestCopyIsIndependentWhereCloneIsAView(t *testing.T) {
	e := testgpu.Engine(t)
	w := e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
	defer w.Dispose()
	view := e.Clone(w)
	defer view.Dispose()
	best := e.Copy(w)
	defer best.Dispose()
	require.NoError(t, best.Err())
	assert.Equal(t, w.Shape(), best.Shape())
	assert.Equal(t, tensor.Float32, best.DType())
	next := e.FromFloat32s([]float32{5, 6, 7, 8}, 2, 2)
	defer next.Dispose()
	require.NoError(t, e.Assign(w, next))
	assert.Equal(t, []float32{5, 6, 7, 8}, f32s(t, view), "a Clone sees the write")
	assert.Equal(t, []float32{1, 2, 3, 4}, f32s(t, best), "a Copy keeps its values")
	// A write into the copy leaves the original alone.
	zeros := e.Zeros(tensor.Float32, 2, 2)
	defer zeros.Dispose()
	require.NoError(t, e.Assign(best, zeros))
	assert.Equal(t, []float32{5, 6, 7, 8}, f32s(t, w))
	assert.Equal(t, uint64(1), w.Version(), "w was written once")
	// Disposing the original leaves the copy intact.
	w2 := e.FromFloat32s([]float32{9}, 1)
	c2 := e.Copy(w2)
	w2.Dispose()
	assert.Equal(t, []float32{9}, f32s(t, c2))
	c2.Dispose()
}

// Copy keeps every bit, on every device: NaN payloads, subnormals, signed
// zeros, the integer types; and sizes 0, 1, and more than a workgroup.
func TestCopyKeepsEveryBit(t *testing.T) {
	e := testgpu.Engine(t)
	for _, d := range []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32} {
		in := edges(d)
		in.w = append(in.w, 0x7fc01234, 0xffbfffff, 0x00000001, 0x80000001) // NaN payloads, ±subnormals
		x := upload(e, in)
		y := e.Copy(x)
		got := download(t, y)
		assert.Equal(t, in.w, got.w, "%s", d)
		x.Dispose()
		y.Dispose()
	}
	for _, n := range []int{0, 1, 1000} {
		v := make([]int32, n)
		for i := range v {
			v[i] = int32(i*7919 - 3)
		}
		x := e.FromInt32s(v, n)
		y := e.Copy(x)
		require.NoError(t, y.Err())
		got, err := y.Int32s(context.Background())
		require.NoError(t, err)
		assert.Equal(t, v, append([]int32{}, got...), "n = %d", n)
		x.Dispose()
		y.Dispose()
	}
	// A fused result is materialised, then copied.
	x := e.FromFloat32s([]float32{1, float32(math.Inf(1))}, 2)
	defer x.Dispose()
	sum := e.Add(x, x)
	defer sum.Dispose()
	y := e.Copy(sum)
	defer y.Dispose()
	assert.Equal(t, []float32{2, float32(math.Inf(1))}, f32s(t, y))
}

// Copy of a disposed or failed tensor carries the error, names the op,
// and leaves nothing live.
func TestCopyRefusesBadInput(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1}, 1)
	x.Dispose()
	y := e.Copy(x)
	assert.ErrorIs(t, y.Err(), tensor.ErrDisposed)
	assert.Contains(t, y.Err().Error(), "copy")
	y.Dispose()
	z := e.Copy(nil)
	assert.Error(t, z.Err())
	z.Dispose()
	assert.Zero(t, e.NumTensors())
}
