package tensor_test

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

func leBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// A tensor written in chunks, small ones and ones past the staged-upload
// threshold (1 MiB), holds every chunk's bytes, in place; ReadBytes reads
// any range back, unaligned ones included.
func TestWriteBytesInChunksThenReadBytes(t *testing.T) {
	e := testgpu.Engine(t)
	const n = 3<<18 + 5 // 3 MiB + 20 B
	want := make([]float32, n)
	for i := range want {
		want[i] = float32(i%9973) - 17.5
	}
	src := leBytes(want)
	dst := e.Zeros(tensor.Float32, n)
	defer dst.Dispose()
	id := dst.ID()
	writes := 0
	for off := 0; off < len(src); {
		chunk := 1 << 20 // staged
		if writes%2 == 1 {
			chunk = 4096 // queue write
		}
		end := min(off+chunk, len(src))
		require.NoError(t, e.WriteBytes(dst, off, src[off:end]))
		off, writes = end, writes+1
	}
	assert.Equal(t, id, dst.ID())
	assert.EqualValues(t, writes, dst.Version())
	assert.Equal(t, want, f32s(t, dst))

	for _, r := range [][2]int{{0, 4}, {3, 5}, {1 << 20, 1<<20 + 1}, {len(src) - 7, len(src)}, {5, 5}, {0, len(src)}} {
		got := make([]byte, r[1]-r[0])
		require.NoError(t, dst.ReadBytes(ctxT(t), r[0], got))
		assert.Equal(t, src[r[0]:r[1]], got, "bytes [%d, %d)", r[0], r[1])
	}
}

// WriteBytes is ordered as calls are, like Assign: a pending fused op and
// a readback called before it see the old values, an op after the new
// ones, and a view sees the write.
func TestWriteBytesOrdersWithPendingWork(t *testing.T) {
	for _, fuse := range []bool{true, false} {
		e := testgpu.Engine(t)
		require.NoError(t, e.SetFusion(fuse))
		inScope(t, e, func() {
			one := e.Fill(tensor.Float32, 1, 4)
			dst := e.Add(one, one) // pending: 2s
			view := e.Reshape(dst, 2, 2)
			plus := e.Add(dst, one)
			early := dst.Data()
			require.NoError(t, e.WriteBytes(dst, 4, leBytes([]float32{10, 20})))
			late := e.Add(dst, one)
			assert.Equal(t, []float32{3, 3, 3, 3}, f32s(t, plus), "fuse=%v", fuse)
			b, err := early.Await(ctxT(t))
			require.NoError(t, err)
			assert.Equal(t, []float32{2, 2, 2, 2}, tensor.Float32sFromBytes(b))
			assert.Equal(t, []float32{3, 11, 21, 3}, f32s(t, late))
			assert.Equal(t, []float32{2, 10, 20, 2}, f32s(t, view))
			assert.EqualValues(t, 1, view.Version())
		})
	}
}

// Bad ranges, disposed or failed tensors: an error naming the op, nothing
// written, no version bumped, nothing live.
func TestWriteBytesAndReadBytesRejectBadInput(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2, 3}, 3)
	defer x.Dispose()
	gone := e.Zeros(tensor.Float32, 3)
	gone.Dispose()
	failed := e.Reshape(x, 2)
	live := e.NumTensors()
	for _, c := range []struct {
		name string
		dst  *tensor.Tensor
		off  int
		data []byte
		kind error
		text string
	}{
		{"past the end", x, 8, make([]byte, 8), tensor.ErrArgument, "write bytes [3]: bytes [8, 16) outside the tensor's 12"},
		{"negative offset", x, -4, make([]byte, 4), tensor.ErrArgument, "outside"},
		{"unaligned offset", x, 2, make([]byte, 4), tensor.ErrArgument, "multiples of 4"},
		{"part of an element", x, 0, make([]byte, 6), tensor.ErrArgument, "multiples of 4"},
		{"disposed", gone, 0, make([]byte, 4), tensor.ErrDisposed, "write bytes"},
		{"carries an error", failed, 0, make([]byte, 4), tensor.ErrShape, "reshape"},
		{"nil", nil, 0, make([]byte, 4), tensor.ErrArgument, "write bytes"},
	} {
		err := e.WriteBytes(c.dst, c.off, c.data)
		require.Error(t, err, c.name)
		assert.True(t, errors.Is(err, c.kind), "%s: %v", c.name, err)
		assert.Contains(t, err.Error(), c.text, c.name)
	}
	assert.Zero(t, x.Version())
	assert.Equal(t, []float32{1, 2, 3}, f32s(t, x))

	for _, c := range []struct {
		name string
		src  *tensor.Tensor
		off  int
		n    int
		kind error
	}{
		{"past the end", x, 10, 4, tensor.ErrArgument},
		{"negative offset", x, -1, 1, tensor.ErrArgument},
		{"disposed", gone, 0, 4, tensor.ErrDisposed},
		{"carries an error", failed, 0, 4, tensor.ErrShape},
		{"nil", nil, 0, 4, tensor.ErrArgument},
	} {
		err := c.src.ReadBytes(ctxT(t), c.off, make([]byte, c.n))
		assert.True(t, errors.Is(err, c.kind), "%s: %v", c.name, err)
	}
	assert.Equal(t, live, e.NumTensors())
}
