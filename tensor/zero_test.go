package tensor_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// everyOp calls each op of e with x as its first tensor argument (y as
// the others) and returns the op's name and its results.
func everyOp(e *tensor.Engine, x, y *tensor.Tensor) map[string][]*tensor.Tensor {
	ops := map[string][]*tensor.Tensor{
		"relu":         one(e.Relu(x)),
		"clip":         one(e.Clip(x, 0, 1)),
		"clip lo>hi":   one(e.Clip(x, 1, 0)),
		"cast":         one(e.Cast(x, tensor.Int32)),
		"add":          one(e.Add(x, y)),
		"add y x":      one(e.Add(y, x)),
		"where":        one(e.Where(x, y, y)),
		"matmul":       one(e.MatMul(x, y)),
		"matmul_t":     one(e.MatMulT(y, x, true, false)),
		"reshape":      one(e.Reshape(x, -1)),
		"clone":        one(e.Clone(x)),
		"expand_dims":  one(e.ExpandDims(x, 0)),
		"squeeze":      one(e.Squeeze(x)),
		"transpose":    one(e.Transpose(x)),
		"slice":        one(e.Slice(x, nil, nil)),
		"broadcast_to": one(e.BroadcastTo(x, 2)),
		"concat":       one(e.Concat(0, y, x)),
		"stack":        one(e.Stack(0, x, y)),
		"split":        e.Split(x, 0, 1),
		"gather":       one(e.Gather(y, x, 0)),
		"pad":          one(e.Pad(x, nil, 0)),
		"sum":          one(e.Sum(x, false)),
		"argmax":       one(e.ArgMax(x, 0)),
		"softmax":      one(e.Softmax(x, -1)),
	}
	return ops
}

// TestZeroAndNilTensorsAsInputs: issue 10 item 5. An op given a nil or
// zero Tensor returns an error naming it; it used to dereference nil while
// the engine was claimed, which left the engine claimed for good, so every
// later op failed with ErrConcurrentUse.
func TestZeroAndNilTensorsAsInputs(t *testing.T) {
	e := testgpu.Engine(t)
	y := e.FromFloat32s([]float32{1, 2})
	defer y.Dispose()
	for name, x := range map[string]*tensor.Tensor{"nil": nil, "zero": {}} {
		var ops map[string][]*tensor.Tensor
		testgpu.NoPanic(t, name, func() { ops = everyOp(e, x, y) })
		for op, res := range ops {
			assert.ErrorIs(t, disposeAll(res...), tensor.ErrArgument, "%s with a %s tensor", op, name)
		}
		testgpu.NoPanic(t, name, func() {
			assert.ErrorIs(t, disposeAll(e.Concat(0, y, x, y)), tensor.ErrArgument, "a %s entry among others", name)
			assert.ErrorIs(t, disposeAll(e.Stack(0, x)), tensor.ErrArgument)
		})
		ok := e.Add(y, y)
		require.NoError(t, disposeAll(ok), "the engine is not left claimed after a %s input", name)
	}
}

// TestZeroAndNilTensorMethods: every exported method of a nil or zero
// Tensor answers without panicking; Err and the readbacks return an error.
func TestZeroAndNilTensorMethods(t *testing.T) {
	ctx := ctxT(t)
	for name, x := range map[string]*tensor.Tensor{"nil": nil, "zero": {}} {
		testgpu.NoPanic(t, name, func() {
			assert.ErrorIs(t, x.Err(), tensor.ErrArgument, "%s Err", name)
			_, err := x.Float32s(ctx)
			assert.ErrorIs(t, err, tensor.ErrArgument, "%s Float32s", name)
			_, err = x.Int32s(ctx)
			assert.ErrorIs(t, err, tensor.ErrArgument, "%s Int32s", name)
			_, err = x.Uint32s(ctx)
			assert.ErrorIs(t, err, tensor.ErrArgument, "%s Uint32s", name)
			assert.ErrorIs(t, tensor.ReadInto(ctx, x, []float32{0}), tensor.ErrArgument, "%s ReadInto", name)
			_, err = x.Data().Await(ctx)
			assert.ErrorIs(t, err, tensor.ErrArgument, "%s Data", name)
			x.Dispose()
			x.Dispose()
			x.Keep()
			_ = x.Kept()
			assert.True(t, x.IsDisposed(), "a %s tensor holds nothing", name)
			assert.Nil(t, x.Engine())
			_, _, _, _, _, _ = x.ID(), x.Shape(), x.Rank(), x.Size(), x.DType(), x.Site()
			assert.NotEmpty(t, x.String())
		})
	}
}

// TestNilAndZeroEngine: a nil *Engine, a zero Engine and an Engine on a nil
// device refuse every op with an error instead of panicking, and their
// reporting methods answer.
func TestNilAndZeroEngine(t *testing.T) {
	good := testgpu.Engine(t)
	y := good.FromFloat32s([]float32{1, 2})
	defer y.Dispose()
	for name, e := range map[string]*tensor.Engine{"nil": nil, "zero": {}, "nil device": tensor.New(nil)} {
		testgpu.NoPanic(t, name, func() {
			for op, res := range everyOp(e, y, y) {
				assert.ErrorIs(t, disposeAll(res...), tensor.ErrArgument, "%s on a %s engine", op, name)
			}
			for op, x := range map[string]*tensor.Tensor{
				"zeros":        e.Zeros(tensor.Float32, 2),
				"eye":          e.Eye(tensor.Float32, 2, 2),
				"range":        e.Range(tensor.Float32, 0, 2, 1),
				"rand_uniform": e.RandUniform(1, 0, 1, 2),
				"from":         e.FromFloat32s([]float32{1}),
				"scalar":       e.Scalar(1),
			} {
				assert.ErrorIs(t, disposeAll(x), tensor.ErrArgument, "%s on a %s engine", op, name)
			}
		})
		testgpu.NoPanic(t, name+" reports", func() {
			assert.Nil(t, e.Device())
			tr := &collect{}
			e.PushTracker(tr)
			e.Retrack(y)
			e.PopTracker()
			e.PopTracker()
			assert.Zero(t, e.NumTensors())
			assert.Empty(t, e.LiveTensors())
			assert.Zero(t, e.Memory().Tensors)
			assert.Empty(t, e.Snapshot().Tensors)
			assert.Error(t, e.Summary(&bytes.Buffer{}))
			assert.NoError(t, e.WriteProfile(&bytes.Buffer{}), "an empty profile")
			assert.Error(t, e.Flush())
			_ = e.SetFusion(true)
			_ = tensor.MatMulKernel(e)
		})
	}
}

// TestPanicInsideAnOpReleasesTheEngine: a panic inside an op, here from a
// tracker (user code) told about the op's result, does not leave the
// engine claimed.
func TestPanicInsideAnOpReleasesTheEngine(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2})
	defer x.Dispose()
	tr := &panicker{}
	e.PushTracker(tr)
	func() {
		defer func() { require.NotNil(t, recover(), "the tracker panicked") }()
		e.Relu(x)
	}()
	e.PopTracker()
	for _, d := range tr.got {
		d.Dispose()
	}
	res := e.Neg(x)
	assert.NoError(t, disposeAll(res), "the engine was released")
}

// panicker is a tracker that panics on every tensor it is told about,
// after keeping it for the test to dispose.
type panicker struct{ got []interface{ Dispose() } }

func (p *panicker) Track(x interface{ Dispose() }) {
	p.got = append(p.got, x)
	panic("tracker panics")
}
