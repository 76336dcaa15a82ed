package tensor_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// recorder keeps what it is told, saves every input, and calls the
// engine's reporting methods, which take its lock, from RecordOp: a
// recorder called under that lock would deadlock here.
type recorder struct {
	e     *tensor.Engine
	names []string
	attrs []tensor.Attrs
	saved []*tensor.Tensor
}

func (r *recorder) RecordOp(op *tensor.OpRecord) {
	r.e.Memory()
	r.e.LiveTensors()
	r.names = append(r.names, op.Name)
	r.attrs = append(r.attrs, op.Attrs)
	for _, x := range op.Inputs {
		r.saved = append(r.saved, op.Save(x))
	}
}

// A recorder sees each op with its name, attributes and tensors; what it
// saves shares storage, is counted at the op's line and outlives the tidy
// scope of the forward pass; after PopRecorder nothing is recorded.
func TestRecorderSeesOpsAndSavesWithoutCopies(t *testing.T) {
	e := testgpu.Engine(t)
	r := &recorder{e: e}
	x := e.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	defer x.Dispose()
	require.NoError(t, e.PushRecorder(r))
	before := e.Memory()
	err := tidy.Do(e, func() error {
		e.Sum(x, true, -1)                       // 2x1
		m := e.MatMulT(x, x, false, true)        // 2x2
		c := e.Clip(e.Transpose(x, 1, 0), -1, 2) // 3x2
		e.Slice(m, []int{1}, nil).Dispose()      // disposed at once
		return c.Err()
	})
	require.NoError(t, err)
	assert.True(t, e.PopRecorder(r))
	assert.False(t, e.PopRecorder(r), "a second pop")
	e.Neg(x).Dispose() // not recorded

	assert.Equal(t, []string{"sum", "matmul", "transpose", "clip", "slice"}, r.names)
	assert.Equal(t, []int{1}, r.attrs[0].Axes)
	assert.True(t, r.attrs[0].KeepDims)
	assert.True(t, r.attrs[1].TransB)
	assert.Equal(t, []int{1, 0}, r.attrs[2].Perm)
	assert.Equal(t, [2]float32{-1, 2}, [2]float32{r.attrs[3].Lo, r.attrs[3].Hi})
	assert.Equal(t, []int{1}, r.attrs[4].Begin)

	// Saved tensors: one per input, live after the scope, no new storage.
	require.Len(t, r.saved, 6)
	after := e.Memory()
	assert.Equal(t, before.Tensors+6, after.Tensors, "only the saved tensors outlive the scope")
	assert.Equal(t, before.Storages+2, after.Storages, "saved intermediates keep their storage, saved x shares x's")
	for _, s := range r.saved {
		assert.True(t, strings.HasPrefix(s.Site().String(), "tensor/record_test.go:"), "saved at %s", s.Site())
	}
	v, err := r.saved[0].Float32s(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 6}, v)
	for _, s := range r.saved {
		s.Dispose()
	}
	assert.Equal(t, before.Tensors, e.NumTensors())
}

// PushRecorder refuses a nil recorder and a nil engine.
func TestPushRecorderRefusesNil(t *testing.T) {
	e := testgpu.Engine(t)
	assert.ErrorIs(t, e.PushRecorder(nil), tensor.ErrArgument)
	var none *tensor.Engine
	assert.ErrorIs(t, none.PushRecorder(&recorder{}), tensor.ErrArgument)
	assert.False(t, none.PopRecorder(nil))
}

// A record no Engine made saves nothing and panics nowhere: Save's result
// carries ErrArgument (found through grad's zero Tape in issue 19).
func TestSaveOnAHandBuiltRecordFails(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Ones(tensor.Float32, 2)
	defer x.Dispose()
	for name, r := range map[string]*tensor.OpRecord{"nil": nil, "hand-built": {Name: "add", Inputs: []*tensor.Tensor{x}}} {
		s := r.Save(x)
		assert.ErrorIs(t, s.Err(), tensor.ErrArgument, name)
		s.Dispose()
	}
	assert.Equal(t, 1, e.NumTensors())
}

// saveAsRecorder saves, as SaveAs does, input in of each op named op, in
// dtype.
type saveAsRecorder struct {
	op    string
	in    int
	dtype tensor.DType
	saved []*tensor.Tensor
}

func (r *saveAsRecorder) RecordOp(op *tensor.OpRecord) {
	if op.Name == r.op {
		r.saved = append(r.saved, op.SaveAs(op.Inputs[r.in], r.dtype))
	}
}

// SaveAs saves a converted copy, Cast's bits, that outlives the scope at
// the op's line. Made aside, it does not end the product it was made for:
// a product whose operand is saved in bfloat16 costs one dispatch more
// than the product alone (the copy's), its bias still in its epilogue,
// fused or not. A copy of a result of the ops held back for fusion is made
// from that result; SaveAs in the tensor's own dtype is Save, and a
// record no engine made fails.
func TestSaveAsCopiesBesideTheFusedOps(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	x := e.RandNormal(1, 0, 1, 64, 32)
	w := e.RandNormal(2, 0, 1, 32, 16)
	bias := e.RandNormal(3, 0, 1, 16)
	defer tidy.Dispose([]*tensor.Tensor{x, w, bias})
	// step runs the projection with r listening (nil: none) and returns
	// its values and dispatches.
	step := func(r tensor.Recorder) ([]float32, uint64) {
		if r != nil {
			require.NoError(t, e.PushRecorder(r))
			defer e.PopRecorder(r)
		}
		require.NoError(t, e.Flush())
		d0 := e.Device().Stats().Dispatches
		v, err := tidy.Run(e, func() ([]float32, error) { return e.Add(e.MatMul(x, w), bias).Float32s(ctx) })
		require.NoError(t, err)
		return v, e.Device().Stats().Dispatches - d0
	}
	want, alone := step(nil)
	r := &saveAsRecorder{op: "matmul", in: 0, dtype: tensor.BFloat16}
	got, with := step(r)
	assert.Equal(t, want, got)
	assert.Equal(t, alone+1, with, "the product and its epilogue, and the copy")
	require.Len(t, r.saved, 1)
	s := r.saved[0]
	assert.Equal(t, tensor.BFloat16, s.DType())
	assert.Equal(t, tensor.CategorySaved, tensor.CategoryOf(s))
	assert.True(t, strings.HasPrefix(s.Site().String(), "tensor/record_test.go:"), "saved at %s", s.Site())
	wantBits, err := tidy.Run(e, func() ([]uint16, error) { return e.Cast(x, tensor.BFloat16).Uint16s(ctx) })
	require.NoError(t, err)
	gotBits, err := s.Uint16s(ctx)
	require.NoError(t, err)
	assert.Equal(t, wantBits, gotBits)
	s.Dispose()

	// A pending result: the copy is of it.
	r = &saveAsRecorder{op: "tanh", in: 0, dtype: tensor.Float16}
	require.NoError(t, e.PushRecorder(r))
	y, err := tidy.Run(e, func() ([]float32, error) { return e.Tanh(e.Add(x, x)).Float32s(ctx) })
	e.PopRecorder(r)
	require.NoError(t, err)
	require.Len(t, y, 64*32)
	require.Len(t, r.saved, 1)
	wantBits, err = tidy.Run(e, func() ([]uint16, error) { return e.Cast(e.Add(x, x), tensor.Float16).Uint16s(ctx) })
	require.NoError(t, err)
	gotBits, err = r.saved[0].Uint16s(ctx)
	require.NoError(t, err)
	assert.Equal(t, wantBits, gotBits)
	r.saved[0].Dispose()

	// Its own dtype: Save, sharing storage.
	r = &saveAsRecorder{op: "neg", in: 0, dtype: tensor.Float32}
	require.NoError(t, e.PushRecorder(r))
	before := e.Memory().Storages
	e.Neg(x).Dispose()
	e.PopRecorder(r)
	require.Len(t, r.saved, 1)
	assert.Equal(t, before, e.Memory().Storages, "no copy")
	r.saved[0].Dispose()

	s = (&tensor.OpRecord{Name: "neg", Inputs: []*tensor.Tensor{x}}).SaveAs(x, tensor.BFloat16)
	assert.ErrorIs(t, s.Err(), tensor.ErrArgument)
	s.Dispose()
	assert.Equal(t, 3, e.NumTensors())
}
