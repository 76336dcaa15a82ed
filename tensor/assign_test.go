package tensor_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// inScope runs body in a tidy scope of e, which disposes what body made.
func inScope(t *testing.T, e *tensor.Engine, body func()) {
	t.Helper()
	_, err := tidy.Run(e, func() (int, error) { body(); return 0, nil })
	require.NoError(t, err)
}

// Assign writes into dst's own buffer: same id, same memory, version one
// more, values src's; over sizes 0, 1, odd and several workgroups.
func TestAssignWritesInPlace(t *testing.T) {
	e := testgpu.Engine(t)
	for _, n := range []int{0, 1, 7, 1000} {
		inScope(t, e, func() { assignWritesInPlace(t, e, n) })
	}
}

func assignWritesInPlace(t *testing.T, e *tensor.Engine, n int) {
	{
		dst := e.Zeros(tensor.Float32, n)
		want := make([]float32, n)
		for i := range want {
			want[i] = float32(i)*0.5 - 3
		}
		src := e.FromFloat32s(want, n)
		require.NoError(t, e.Flush())
		id, mem := dst.ID(), e.Memory()
		require.NoError(t, e.Assign(dst, src))
		assert.Equal(t, id, dst.ID())
		assert.EqualValues(t, 1, dst.Version(), "n=%d", n)
		assert.Zero(t, src.Version(), "the source is not written")
		after := e.Memory()
		assert.Equal(t, mem.Tensors, after.Tensors)
		assert.Equal(t, mem.Bytes, after.Bytes)
		assert.Equal(t, want, f32s(t, dst))
		require.NoError(t, e.Assign(dst, e.Neg(src)))
		assert.EqualValues(t, 2, dst.Version())
	}
}

// Storage shared by views is written through: a Reshape and a Clone of
// dst, and the tensor dst is a view of, see the new values and share the
// version; a copy made by an op (Add) does not.
func TestAssignWritesThroughViews(t *testing.T) {
	e := testgpu.Engine(t)
	inScope(t, e, func() { assignWritesThroughViews(t, e) })
}

func assignWritesThroughViews(t *testing.T, e *tensor.Engine) {
	base := e.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	flat := e.Reshape(base, 6)
	clone := e.Clone(base)
	copied := e.Add(base, e.Zeros(tensor.Float32, 2, 3))
	require.NoError(t, e.Assign(flat, e.FromFloat32s([]float32{9, 8, 7, 6, 5, 4}, 6)))
	for _, v := range []*tensor.Tensor{base, flat, clone} {
		assert.Equal(t, []float32{9, 8, 7, 6, 5, 4}, f32s(t, v))
		assert.EqualValues(t, 1, v.Version())
	}
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 6}, f32s(t, copied))
	assert.Zero(t, copied.Version())
	base.Dispose()
	clone.Dispose()
	assert.EqualValues(t, 1, flat.Version(), "the version lives with the storage")
	require.NoError(t, e.Assign(flat, e.Fill(tensor.Float32, 0.5, 6)))
	assert.Equal(t, []float32{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, f32s(t, flat))
}

// Order is the order of the calls: an op called before Assign reads the
// old values (a fused elementwise op still pending when Assign runs, and
// a matmul), a readback started before it resolves with them, and an op
// or a readback after it sees the new ones. A pending op that writes dst
// is not dispatched over the assigned values.
func TestAssignOrdersWithPendingWork(t *testing.T) {
	for _, fuse := range []bool{true, false} {
		e := testgpu.Engine(t)
		require.NoError(t, e.SetFusion(fuse))
		inScope(t, e, func() { assignOrdersWithPendingWork(t, e, fuse) })
	}
}

func assignOrdersWithPendingWork(t *testing.T, e *tensor.Engine, fuse bool) {
	{
		one := e.Fill(tensor.Float32, 1, 2, 2)
		dst := e.Add(one, one) // pending: 2s
		plus := e.Add(dst, one)
		prod := e.MatMul(dst, one)
		early := dst.Data()
		require.NoError(t, e.Assign(dst, e.FromFloat32s([]float32{10, 20, 30, 40}, 2, 2)))
		late := e.Add(dst, one)
		assert.Equal(t, []float32{3, 3, 3, 3}, f32s(t, plus), "fuse=%v", fuse)
		assert.Equal(t, []float32{4, 4, 4, 4}, f32s(t, prod))
		b, err := early.Await(ctxT(t))
		require.NoError(t, err)
		assert.Equal(t, []float32{2, 2, 2, 2}, tensor.Float32sFromBytes(b))
		assert.Equal(t, []float32{11, 21, 31, 41}, f32s(t, late))
		assert.Equal(t, []float32{10, 20, 30, 40}, f32s(t, dst))
	}
}

// A fused op of another engine, pending when Assign runs, reads the old
// values too.
func TestAssignOrdersWithAnotherEnginesPendingOp(t *testing.T) {
	d := testgpu.Open(t)
	a, b := testgpu.EngineOn(t, d), testgpu.EngineOn(t, d)
	dst := a.FromFloat32s([]float32{1, 2, 3}, 3)
	neg := b.Neg(dst)
	src := a.FromFloat32s([]float32{7, 8, 9}, 3)
	require.NoError(t, a.Assign(dst, src))
	assert.Equal(t, []float32{-1, -2, -3}, f32s(t, neg))
	for _, x := range []*tensor.Tensor{dst, neg, src} {
		x.Dispose()
	}
}

// Bad assignments return an error naming assign and the shapes, write
// nothing, bump no version and leave nothing live.
func TestAssignRejectsBadInput(t *testing.T) {
	e := testgpu.Engine(t)
	dst := e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
	gone := e.Zeros(tensor.Float32, 2, 2)
	gone.Dispose()
	failed := e.Reshape(dst, 3)
	for _, c := range []struct {
		name     string
		dst, src *tensor.Tensor
		kind     error
		text     string
	}{
		{"shape", dst, e.Zeros(tensor.Float32, 4), tensor.ErrShape, "assign [2 2] [4]"},
		{"transposed shape", dst, e.Zeros(tensor.Float32, 1, 4), tensor.ErrShape, "assign [2 2] [1 4]"},
		{"dtype", dst, e.Zeros(tensor.Int32, 2, 2), tensor.ErrDType, "dst is float32, src is int32"},
		{"disposed src", dst, gone, tensor.ErrDisposed, "assign"},
		{"disposed dst", gone, dst, tensor.ErrDisposed, "assign"},
		{"src carries an error", dst, failed, tensor.ErrShape, "reshape"},
		{"dst carries an error", failed, dst, tensor.ErrShape, "reshape"},
		{"nil dst", nil, dst, tensor.ErrArgument, "assign"},
		{"nil src", dst, nil, tensor.ErrArgument, "assign"},
	} {
		err := e.Assign(c.dst, c.src)
		require.Error(t, err, c.name)
		assert.True(t, errors.Is(err, c.kind), "%s: %v", c.name, err)
		assert.Contains(t, err.Error(), c.text, c.name)
		if c.src != nil && c.src != dst {
			c.src.Dispose()
		}
	}
	assert.Zero(t, dst.Version())
	assert.Equal(t, []float32{1, 2, 3, 4}, f32s(t, dst))
	dst.Dispose()
}

// Assigning a tensor into itself, or into a view of its storage of the
// same shape, writes nothing and leaves the version alone.
func TestAssignIntoItselfIsANoOp(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2}, 2)
	view := e.Clone(x)
	require.NoError(t, e.Assign(x, x))
	require.NoError(t, e.Assign(view, x))
	assert.Zero(t, x.Version())
	assert.Equal(t, []float32{1, 2}, f32s(t, x))
	x.Dispose()
	view.Dispose()
}
