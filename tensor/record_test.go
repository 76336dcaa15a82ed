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
