package checkpoint_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/internal/half"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/safetensors"
	"github.com/wgtensor/wgtensor/tensor"
)

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func f32s(t testing.TB, x *tensor.Tensor) []float32 {
	t.Helper()
	v, err := x.Float32s(ctxT(t))
	require.NoError(t, err)
	return v
}

func ramp(n int, scale float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = scale * (float32(i%97) - 40)
	}
	return v
}

// model makes a small model's parameters, every dtype a file holds and
// the edge shapes (a scalar, an empty tensor), values from seed.
func model(e *tensor.Engine, seed float32) []optim.Param {
	return []optim.Param{
		{Name: "0.weight", T: e.FromFloat32s(ramp(12, seed), 3, 4)},
		{Name: "0.bias", T: e.FromFloat32s(ramp(4, -seed), 4)},
		{Name: "emb.index", T: e.FromInt32s([]int32{-3, 0, int32(seed), math.MaxInt32, math.MinInt32}, 5)},
		{Name: "count", T: e.FromUint32s([]uint32{7, math.MaxUint32}, 2)},
		{Name: "scale", T: e.Scalar(seed)},
		{Name: "empty", T: e.Zeros(tensor.Float32, 0, 3)},
	}
}

func dispose(ps []optim.Param) {
	for _, p := range ps {
		p.T.Dispose()
	}
}

// bytesOf reads every parameter back as bytes, by name.
func bytesOf(t testing.TB, ps []optim.Param) map[string][]byte {
	out := map[string][]byte{}
	for _, p := range ps {
		b, err := p.T.Data().Await(ctxT(t))
		require.NoError(t, err)
		out[p.Name] = b
	}
	return out
}

func save(t testing.TB, ps []optim.Param, o checkpoint.SaveOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, checkpoint.Save(ctxT(t), &buf, ps, o))
	return buf.Bytes()
}

// Saved then loaded into another model of the same shapes, in place: the
// same tensors (ids, storage), their values the saved ones, Version one
// up; LoadTensors makes new tensors of the same values.
func TestSaveThenLoadRoundTrips(t *testing.T) {
	e := testgpu.Engine(t)
	src := model(e, 1.5)
	defer dispose(src)
	file := save(t, src, checkpoint.SaveOptions{Metadata: map[string]string{"epoch": "3"}})
	want := bytesOf(t, src)

	dst := model(e, -2)
	defer dispose(dst)
	ids := map[string]uint64{}
	for _, p := range dst {
		ids[p.Name] = p.T.ID()
	}
	rep, err := checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)), dst, checkpoint.LoadOptions{ChunkSize: 8})
	require.NoError(t, err)
	assert.Empty(t, rep.Missing)
	assert.Empty(t, rep.Unexpected)
	assert.Equal(t, want, bytesOf(t, dst))
	for _, p := range dst {
		assert.Equal(t, ids[p.Name], p.T.ID(), p.Name)
		if p.T.Size() > 0 {
			assert.NotZero(t, p.T.Version(), "%s written in place", p.Name)
		}
	}

	got, err := checkpoint.LoadTensors(ctxT(t), e, bytes.NewReader(file), int64(len(file)))
	require.NoError(t, err)
	defer dispose(got)
	require.Len(t, got, len(src))
	for _, p := range got {
		assert.Equal(t, want[p.Name], bytesOf(t, []optim.Param{p})[p.Name], p.Name)
	}

	h, err := safetensors.ReadHeader(bytes.NewReader(file), int64(len(file)))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"epoch": "3"}, h.Metadata)
}

// A model whose file holds every F16 and BF16 bit pattern loads each as
// the float32 of the same value: NaN payloads, infinities, signed zeros
// and subnormals exact.
func TestLoadConvertsHalfAndBFloat16Exactly(t *testing.T) {
	e := testgpu.Engine(t)
	const n = 1 << 16
	raw := make([]byte, 2*n)
	for i := range n {
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(i))
	}
	var buf bytes.Buffer
	w, err := safetensors.NewWriter(&buf, []safetensors.TensorInfo{
		{Name: "h", DType: safetensors.F16, Shape: []int{256, 256}},
		{Name: "b", DType: safetensors.BF16, Shape: []int{n}},
	}, nil)
	require.NoError(t, err)
	_, err = w.Write(raw)
	require.NoError(t, err)
	_, err = w.Write(raw)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	file := buf.Bytes()

	h := e.Zeros(tensor.Float32, 256, 256)
	b := e.Zeros(tensor.Float32, n)
	defer h.Dispose()
	defer b.Dispose()
	// A chunk of 1 KiB: many chunks, each widened in place.
	_, err = checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)),
		[]optim.Param{{Name: "h", T: h}, {Name: "b", T: b}}, checkpoint.LoadOptions{ChunkSize: 1024})
	require.NoError(t, err)
	hv, bv := f32s(t, h), f32s(t, b)
	for i := range n {
		wantH := float64(half.Float16To32(uint16(i))) // checked against the format's definition in internal/half
		if math.IsNaN(wantH) {
			require.True(t, math.IsNaN(float64(hv[i])), "half %#04x", i)
			require.Equal(t, uint32(i&0x8000)<<16|0x7f800000|uint32(i&0x3ff)<<13, math.Float32bits(hv[i]), "half NaN %#04x keeps sign and payload", i)
		} else {
			require.Equal(t, math.Float32bits(float32(wantH)), math.Float32bits(hv[i]), "half %#04x", i)
		}
		require.Equal(t, uint32(i)<<16, math.Float32bits(bv[i]), "bfloat16 %#04x", i)
	}
}

// Float16 and bfloat16 parameters save as F16 and BF16, two bytes an
// element, and load back as they are, into parameters of their dtype and
// through LoadTensors, with odd counts across many small chunks; an F16
// entry does not load into a bfloat16 parameter.
func TestHalfWidthTensorsSaveAndLoadAsTheyAre(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	const n = 1<<16 - 1
	bits := make([]uint16, n)
	for i := range bits {
		bits[i] = uint16(i * 7)
	}
	h := e.FromFloat16Bits(bits, n)
	b := e.FromBFloat16Bits(bits[:1001], 7, 11, 13)
	defer h.Dispose()
	defer b.Dispose()
	var buf bytes.Buffer
	require.NoError(t, checkpoint.Save(ctx, &buf, []optim.Param{{Name: "h", T: h}, {Name: "b", T: b}}, checkpoint.SaveOptions{ChunkSize: 1024}))
	file := buf.Bytes()
	hdr, err := safetensors.ReadHeader(bytes.NewReader(file), int64(len(file)))
	require.NoError(t, err)
	require.Equal(t, safetensors.F16, hdr.Tensors[0].DType)
	require.Equal(t, int64(2*n), hdr.Tensors[0].End-hdr.Tensors[0].Begin)
	require.Equal(t, safetensors.BF16, hdr.Tensors[1].DType)

	got, err := checkpoint.LoadTensors(ctx, e, bytes.NewReader(file), int64(len(file)))
	require.NoError(t, err)
	defer dispose(got)
	require.Equal(t, tensor.Float16, got[0].T.DType())
	require.Equal(t, tensor.BFloat16, got[1].T.DType())
	require.Equal(t, []int{7, 11, 13}, []int(got[1].T.Shape()))
	hv, err := got[0].T.Uint16s(ctx)
	require.NoError(t, err)
	require.Equal(t, bits, hv)
	bv, err := got[1].T.Uint16s(ctx)
	require.NoError(t, err)
	require.Equal(t, bits[:1001], bv)

	into := e.Zeros(tensor.Float16, n)
	defer into.Dispose()
	wrong := e.Zeros(tensor.Float16, 7, 11, 13)
	defer wrong.Dispose()
	_, err = checkpoint.Load(ctx, e, bytes.NewReader(file), int64(len(file)),
		[]optim.Param{{Name: "h", T: into}, {Name: "b", T: wrong}}, checkpoint.LoadOptions{ChunkSize: 1024})
	require.ErrorIs(t, err, checkpoint.ErrMismatch, "BF16 into a float16 parameter")
	_, err = checkpoint.Load(ctx, e, bytes.NewReader(file), int64(len(file)),
		[]optim.Param{{Name: "h", T: into}}, checkpoint.LoadOptions{ChunkSize: 1024, NonStrict: true})
	require.NoError(t, err)
	iv, err := into.Uint16s(ctx)
	require.NoError(t, err)
	require.Equal(t, bits, iv)
}

// Loading into an optimizer's parameters keeps its references: after a
// save with Adam's state and a load into a fresh model and a fresh Adam,
// both take the same next step to the bit, and the step counts came back.
func TestOptimizerStateRoundTrips(t *testing.T) {
	e := testgpu.Engine(t)
	mk := func() ([]optim.Param, *optim.Adam) {
		ps := []optim.Param{
			{Name: "0.weight", T: e.FromFloat32s(ramp(6, 0.25), 2, 3)},
			{Name: "0.bias", T: e.FromFloat32s(ramp(3, 0.5), 3)},
		}
		opt, err := optim.NewAdam(e, ps, optim.AdamConfig{LR: 0.01, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, AMSGrad: true})
		require.NoError(t, err)
		return ps, opt
	}
	grads := []*tensor.Tensor{e.FromFloat32s(ramp(6, 0.1), 2, 3), e.FromFloat32s(ramp(3, -0.3), 3)}
	defer dispose([]optim.Param{{T: grads[0]}, {T: grads[1]}})

	a, optA := mk()
	defer dispose(a)
	defer optA.Dispose()
	for range 3 {
		require.NoError(t, optA.Step(grads))
	}
	file := save(t, a, checkpoint.SaveOptions{Optimizer: optA})

	b, optB := mk()
	defer dispose(b)
	defer optB.Dispose()
	rep, err := checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)), b, checkpoint.LoadOptions{Optimizer: optB})
	require.NoError(t, err)
	assert.Empty(t, rep.Missing)
	assert.Empty(t, rep.Unexpected)
	assert.Equal(t, 3, optB.Steps("0.weight"))
	assert.Equal(t, 3, optB.Steps("0.bias"))
	assert.Len(t, optB.State(), len(optA.State()))
	assert.Same(t, b[0].T, optB.Params()[0].T)

	require.NoError(t, optA.Step(grads))
	require.NoError(t, optB.Step(grads))
	assert.Equal(t, bytesOf(t, a), bytesOf(t, b))
	assert.Equal(t, bytesOf(t, optA.State()), bytesOf(t, optB.State()))

	// Without an optimizer the same file loads the model alone, strictly.
	c, optC := mk()
	defer dispose(c)
	defer optC.Dispose()
	_, err = checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)), c, checkpoint.LoadOptions{})
	require.NoError(t, err)
	assert.Empty(t, optC.State())
}

// Non-strict loads skip missing parameters and unexpected entries and
// list them; strict ones name them in the error.
func TestNonStrictReportsWhatItSkipped(t *testing.T) {
	e := testgpu.Engine(t)
	src := model(e, 1)
	defer dispose(src)
	file := save(t, src[:3], checkpoint.SaveOptions{})
	m := model(e, 2)
	m[0].T.Dispose()
	dst := append(m[1:], optim.Param{Name: "extra", T: e.Zeros(tensor.Float32, 2)})
	defer dispose(dst)
	before := bytesOf(t, dst)
	rep, err := checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)), dst, checkpoint.LoadOptions{NonStrict: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"count", "scale", "empty", "extra"}, rep.Missing)
	assert.Equal(t, []string{"0.weight"}, rep.Unexpected)
	after := bytesOf(t, dst)
	want := bytesOf(t, src)
	assert.Equal(t, want["0.bias"], after["0.bias"])
	assert.Equal(t, want["emb.index"], after["emb.index"])
	assert.Equal(t, before["extra"], after["extra"])
}

// Bad parameters are refused before anything is read or written.
func TestSaveAndLoadRefuseBadParams(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 2)
	defer x.Dispose()
	gone := e.Zeros(tensor.Float32, 2)
	gone.Dispose()
	for _, c := range []struct {
		name   string
		params []optim.Param
		text   string
	}{
		{"duplicate", []optim.Param{{Name: "a", T: x}, {Name: "a", T: x}}, `two parameters are called "a"`},
		{"optimizer's name", []optim.Param{{Name: "optim.a", T: x}}, `"optim.a"`},
		{"nil", []optim.Param{{Name: "a"}}, `"a" is a nil tensor`},
		{"disposed", []optim.Param{{Name: "a", T: gone}}, "disposed"},
		{"carries an error", []optim.Param{{Name: "a", T: e.Reshape(x, 3)}}, "carries an error"},
	} {
		var buf bytes.Buffer
		err := checkpoint.Save(ctxT(t), &buf, c.params, checkpoint.SaveOptions{})
		assert.ErrorIs(t, err, checkpoint.ErrArgument, c.name)
		assert.ErrorContains(t, err, c.text, c.name)
		assert.Zero(t, buf.Len(), "%s: nothing written", c.name)
		_, err = checkpoint.Load(ctxT(t), e, bytes.NewReader(nil), 0, c.params, checkpoint.LoadOptions{})
		assert.ErrorIs(t, err, checkpoint.ErrArgument, c.name)
	}
	var buf bytes.Buffer
	err := checkpoint.Save(ctxT(t), &buf, []optim.Param{{Name: "a", T: x}}, checkpoint.SaveOptions{Metadata: map[string]string{"optim.steps.a": "1"}})
	assert.ErrorIs(t, err, checkpoint.ErrArgument)
	assert.Zero(t, buf.Len())
	assert.Equal(t, 1, e.NumTensors())
}
