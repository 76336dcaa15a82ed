package tensor_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

func iota32(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return v
}

func TestReshapeAndCloneShareStorage(t *testing.T) {
	e := testgpu.Engine(t)
	before := e.Device().Pool().Stats().LiveBuffers
	x := e.FromFloat32s(iota32(6), 2, 3)
	y := e.Reshape(x, 3, -1)
	c := e.Clone(y)
	assert.Equal(t, tensor.Shape{3, 2}, y.Shape())
	assert.Equal(t, before+1, e.Device().Pool().Stats().LiveBuffers, "one buffer for three tensors")
	x.Dispose()
	y.Dispose()
	assert.Equal(t, iota32(6), f32s(t, c), "disposing the others leaves the clone intact")
	c.Dispose()
	assert.Equal(t, before, e.Device().Pool().Stats().LiveBuffers, "the last one frees the storage")

	z := e.FromFloat32s(iota32(6))
	defer z.Dispose()
	assert.ErrorIs(t, e.Reshape(z, 4, -1).Err(), tensor.ErrShape)
	ex := e.ExpandDims(z, -1)
	assert.Equal(t, tensor.Shape{6, 1}, ex.Shape())
	sq := e.Squeeze(ex)
	assert.Equal(t, tensor.Shape{6}, sq.Shape())
	assert.ErrorIs(t, e.Squeeze(z, 0).Err(), tensor.ErrAxis)
	ex.Dispose()
	sq.Dispose()
}

// refTranspose permutes x (shape s).
func refTranspose(x []float32, s []int, perm []int) []float32 {
	out := make([]int, len(s))
	for i, p := range perm {
		out[i] = s[p]
	}
	st := strides(s)
	res := make([]float32, len(x))
	idx := make([]int, len(out))
	for i := range res {
		unravel(i, out, idx)
		p := 0
		for d := range out {
			p += idx[d] * st[perm[d]]
		}
		res[i] = x[p]
	}
	return res
}

func TestTranspose(t *testing.T) {
	e := testgpu.Engine(t)
	for _, c := range []struct {
		shape, perm []int
	}{{[]int{}, []int{}}, {[]int{5}, []int{0}}, {[]int{2, 3}, []int{1, 0}}, {[]int{2, 3, 4}, []int{2, 0, 1}},
		{[]int{2, 0, 3}, []int{2, 1, 0}}, {[]int{65, 3, 1, 7}, []int{3, 1, 0, 2}}, {[]int{2048, 2048}, []int{1, 0}}} {
		xv := iota32(size(c.shape))
		x := e.FromFloat32s(xv, c.shape...)
		y := e.Transpose(x, c.perm...)
		assert.Equal(t, refTranspose(xv, c.shape, c.perm), f32s(t, y), "%v %v", c.shape, c.perm)
		x.Dispose()
		y.Dispose()
	}
	x := e.Zeros(tensor.Float32, 2, 3)
	defer x.Dispose()
	assert.ErrorIs(t, e.Transpose(x, 0, 0).Err(), tensor.ErrAxis)
}

func TestSliceConcatStackSplit(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s(iota32(24), 2, 3, 4)
	defer x.Dispose()
	s := e.Slice(x, []int{1, 1}, []int{-1, 2, 2})
	assert.Equal(t, tensor.Shape{1, 2, 2}, s.Shape())
	assert.Equal(t, []float32{16, 17, 20, 21}, f32s(t, s))
	s.Dispose()
	assert.ErrorIs(t, e.Slice(x, []int{0, 2}, []int{1, 2}).Err(), tensor.ErrShape)

	a := e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
	b := e.FromFloat32s([]float32{5, 6}, 2, 1)
	defer a.Dispose()
	defer b.Dispose()
	c := e.Concat(1, a, b)
	assert.Equal(t, []float32{1, 2, 5, 3, 4, 6}, f32s(t, c))
	assert.ErrorIs(t, e.Concat(0, a, b).Err(), tensor.ErrShape)

	st := e.Stack(0, a, a)
	assert.Equal(t, tensor.Shape{2, 2, 2}, st.Shape())
	assert.Equal(t, []float32{1, 2, 3, 4, 1, 2, 3, 4}, f32s(t, st))
	st1 := e.Stack(-1, a, a)
	assert.Equal(t, []float32{1, 1, 2, 2, 3, 3, 4, 4}, f32s(t, st1))

	parts := e.Split(c, 1, 1, 2)
	require.Len(t, parts, 2)
	assert.Equal(t, []float32{1, 3}, f32s(t, parts[0]))
	assert.Equal(t, []float32{2, 5, 4, 6}, f32s(t, parts[1]))
	even := e.Split(x, 2, 2)
	require.Len(t, even, 2)
	assert.Equal(t, tensor.Shape{2, 3, 2}, even[1].Shape())
	for _, p := range append(parts, even...) {
		p.Dispose()
	}
	bad := e.Split(c, 1, 2, 2)
	assert.ErrorIs(t, bad[0].Err(), tensor.ErrShape)
	c.Dispose()
	st.Dispose()
	st1.Dispose()
}

func TestGatherPadBroadcastTo(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s(iota32(12), 3, 4)
	defer x.Dispose()
	idx := e.FromInt32s([]int32{2, 0, -1, 7}, 2, 2)
	defer idx.Dispose()
	g := e.Gather(x, idx, 0)
	assert.Equal(t, tensor.Shape{2, 2, 4}, g.Shape())
	assert.Equal(t, []float32{8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11, 0, 0, 0, 0}, f32s(t, g), "negative counts from the end; out of range is 0")
	g1 := e.Gather(x, idx, 1)
	assert.Equal(t, tensor.Shape{3, 2, 2}, g1.Shape())
	assert.Equal(t, []float32{2, 0, 3, 0, 6, 4, 7, 0, 10, 8, 11, 0}, f32s(t, g1))
	g.Dispose()
	g1.Dispose()

	p := e.Pad(x, [][2]int{{1, 0}, {0, 2}}, -1)
	assert.Equal(t, tensor.Shape{4, 6}, p.Shape())
	assert.Equal(t, []float32{-1, -1, -1, -1, -1, -1, 0, 1, 2, 3, -1, -1, 4, 5, 6, 7, -1, -1, 8, 9, 10, 11, -1, -1}, f32s(t, p))
	p.Dispose()

	row := e.FromFloat32s([]float32{1, 2}, 2)
	defer row.Dispose()
	bt := e.BroadcastTo(row, 3, 2)
	assert.Equal(t, []float32{1, 2, 1, 2, 1, 2}, f32s(t, bt))
	bt.Dispose()
	assert.ErrorIs(t, e.BroadcastTo(row, 3).Err(), tensor.ErrShape)
}

func TestCreation(t *testing.T) {
	e := testgpu.Engine(t)
	z := e.Zeros(tensor.Int32, 2, 2)
	o := e.Ones(tensor.Float32, 3)
	f := e.Fill(tensor.Uint32, 7, 2)
	r := e.Range(tensor.Float32, 0, 1, 0.25)
	ri := e.Range(tensor.Int32, 5, -1, -2)
	eye := e.Eye(tensor.Float32, 2, 3)
	empty := e.Zeros(tensor.Float32, 0, 5)
	sc := e.Scalar(2.5)
	defer func() {
		for _, x := range []*tensor.Tensor{z, o, f, r, ri, eye, empty, sc} {
			x.Dispose()
		}
	}()
	assert.Equal(t, []int32{0, 0, 0, 0}, i32s(t, z))
	assert.Equal(t, []float32{1, 1, 1}, f32s(t, o))
	assert.Equal(t, []uint32{7, 7}, u32s(t, f))
	assert.Equal(t, []float32{0, 0.25, 0.5, 0.75}, f32s(t, r))
	assert.Equal(t, []int32{5, 3, 1}, i32s(t, ri))
	assert.Equal(t, []float32{1, 0, 0, 0, 1, 0}, f32s(t, eye))
	assert.Equal(t, []float32{}, f32s(t, empty))
	assert.Equal(t, tensor.Shape{}, sc.Shape())
	assert.Equal(t, []float32{2.5}, f32s(t, sc))
	assert.ErrorIs(t, e.Range(tensor.Float32, 0, 1, 0).Err(), tensor.ErrArgument)
	assert.ErrorIs(t, e.Zeros(tensor.Float32, -1).Err(), tensor.ErrShape)
}

// philox is the Go reference of the WGSL generator.
func philox(c [4]uint32, k [2]uint32) [4]uint32 {
	for range 10 {
		p0 := uint64(0xD2511F53) * uint64(c[0])
		p1 := uint64(0xCD9E8D57) * uint64(c[2])
		c = [4]uint32{uint32(p1>>32) ^ c[1] ^ k[0], uint32(p1), uint32(p0>>32) ^ c[3] ^ k[1], uint32(p0)}
		k[0] += 0x9E3779B9
		k[1] += 0xBB67AE85
	}
	return c
}

func TestRandomIsCounterBased(t *testing.T) {
	e := testgpu.Engine(t)
	var seed uint64 = 0x1234_5678_9abc_def0
	u := e.RandUniform(seed, 0, 1, 1000)
	defer u.Dispose()
	got := f32s(t, u)
	key := [2]uint32{uint32(seed), uint32(seed >> 32)}
	for i, g := range got {
		w := philox([4]uint32{uint32(i), 0, 0, 0}, key)
		want := float32(w[0]>>8) * (1.0 / 16777216.0)
		require.Equal(t, want, g, "element %d is Philox4x32-10 of (seed, %d), bit for bit", i, i)
	}
	// The same seed gives the same numbers for any shape.
	u2 := e.RandUniform(seed, 0, 1, 10, 10)
	defer u2.Dispose()
	assert.Equal(t, got[:100], f32s(t, u2))

	n := e.RandNormal(seed, 3, 2, 100000)
	defer n.Dispose()
	nv := f32s(t, n)
	var sum, sq float64
	for i, v := range nv[:100] {
		w := philox([4]uint32{uint32(i), 0, 0, 0}, key)
		u1 := (float64(w[0]>>8) + 1) / 16777216
		u2 := float64(w[1]>>8) / 16777216
		want := 3 + 2*math.Sqrt(-2*math.Log(u1))*math.Cos(2*math.Pi*u2)
		assert.InDelta(t, want, v, 1e-4, "normal element %d", i)
	}
	for _, v := range nv {
		sum += float64(v)
		sq += float64(v) * float64(v)
	}
	mean := sum / float64(len(nv))
	assert.InDelta(t, 3, mean, 0.03)
	assert.InDelta(t, 2, math.Sqrt(sq/float64(len(nv))-mean*mean), 0.03)
}

func TestTensorLargerThanABindingIsRefused(t *testing.T) {
	e := testgpu.Engine(t)
	lim := e.Device().Limits()
	if lim.MaxBufferSize <= lim.MaxStorageBufferBindingSize {
		t.Skip("the device binds whole buffers")
	}
	n := int(lim.MaxStorageBufferBindingSize/4) + 1
	x := e.Zeros(tensor.Float32, n)
	require.Error(t, x.Err())
	assert.Contains(t, x.Err().Error(), "binds at most")
	assert.Zero(t, e.NumTensors(), "nothing is left behind")
}

// Issue 19, item 14: an axis named twice, also through its negative
// alias, is an error in every op that takes a list of axes, as in NumPy.
func TestAxisListsRefuseRepeats(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 1, 3, 1)
	defer x.Dispose()
	for name, y := range map[string]*tensor.Tensor{
		"squeeze(0, 0)":    e.Squeeze(x, 0, 0),
		"squeeze(2, -1)":   e.Squeeze(x, 2, -1),
		"sum(1, -2)":       e.Sum(x, false, 1, -2),
		"max(0, 0)":        e.Max(x, true, 0, 0),
		"transpose(0,0,1)": e.Transpose(x, 0, 0, 1),
	} {
		assert.ErrorIs(t, y.Err(), tensor.ErrAxis, name)
		y.Dispose()
	}
	ok := e.Squeeze(x, 0, -1)
	assert.Equal(t, tensor.Shape{3}, ok.Shape())
	ok.Dispose()
}

// Views share their source's storage, and say so; other tensors, and
// disposed ones, do not.
func TestSharesStorage(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s(iota32(6), 2, 3)
	defer x.Dispose()
	r := e.Reshape(x, 3, 2)
	defer r.Dispose()
	c := e.Clone(x)
	other := e.Add(x, x)
	defer other.Dispose()
	assert.True(t, r.SharesStorage(c), "two views of one source")
	assert.Equal(t, x.StorageID(), r.StorageID())
	assert.False(t, x.SharesStorage(other))
	assert.NotEqual(t, x.StorageID(), other.StorageID())
	c.Dispose()
	assert.False(t, x.SharesStorage(c), "a disposed view")
	assert.Zero(t, c.StorageID())
	var none *tensor.Tensor
	assert.False(t, none.SharesStorage(x))
	assert.Zero(t, none.StorageID())
}
