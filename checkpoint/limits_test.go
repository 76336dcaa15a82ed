package checkpoint_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/safetensors"
	"github.com/wgtensor/wgtensor/tensor"
)

// extra is a tensor rebuild adds to a file, after the file's own.
type extra struct {
	info safetensors.TensorInfo
	data []byte
}

// rebuild rewrites a file with its metadata edited by edit (if not nil)
// and the extra tensors appended to its data.
func rebuild(t testing.TB, file []byte, edit func(map[string]string), extras ...extra) []byte {
	t.Helper()
	h, err := safetensors.ReadHeader(bytes.NewReader(file), int64(len(file)))
	require.NoError(t, err)
	md := h.Metadata
	if md == nil {
		md = map[string]string{}
	}
	if edit != nil {
		edit(md)
	}
	infos := h.Tensors
	data := bytes.Clone(file[h.DataOffset:])
	for _, x := range extras {
		infos = append(infos, x.info)
		data = append(data, x.data...)
	}
	var buf bytes.Buffer
	w, err := safetensors.NewWriter(&buf, infos, md)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// twoParams is a small model: "0.weight" [2, 2] and "0.bias" [2].
func twoParams(e *tensor.Engine, seed float32) []optim.Param {
	return []optim.Param{
		{Name: "0.weight", T: e.FromFloat32s([]float32{seed, 2 * seed, -seed, 0.5}, 2, 2)},
		{Name: "0.bias", T: e.FromFloat32s([]float32{seed, -2}, 2)},
	}
}

// adamAfterOneStep returns an Adam over params after one step of ones.
func adamAfterOneStep(t *testing.T, e *tensor.Engine, params []optim.Param) *optim.Adam {
	t.Helper()
	opt, err := optim.NewAdam(e, params, optim.AdamDefaults())
	require.NoError(t, err)
	var grads []*tensor.Tensor
	for _, p := range params {
		grads = append(grads, e.Ones(tensor.Float32, p.T.Shape()...))
	}
	require.NoError(t, opt.Step(grads))
	for _, g := range grads {
		g.Dispose()
	}
	return opt
}

// assertUntouched checks that a failed load changed nothing: the
// parameters' versions, the optimizer's state and step counts.
func assertUntouched(t *testing.T, params []optim.Param, opt optim.Optimizer) {
	t.Helper()
	for _, p := range params {
		assert.Zero(t, p.T.Version(), "%s written", p.Name)
		assert.Zero(t, opt.Steps(p.Name), "%s's steps", p.Name)
	}
	assert.Empty(t, opt.State(), "the optimizer's state")
}

// Item 8: a step count past MaxSteps (2^63-1 made Adam's next step NaN, as
// steps+1 wrapped) fails the load, naming the key and value, before
// anything changes; MaxSteps itself loads, and the step after it is
// finite. Save refuses to write a count it would not load.
func TestStepCountsAreBoundedOnLoadAndSave(t *testing.T) {
	e := testgpu.Engine(t)
	src := twoParams(e, 1)
	defer dispose(src)
	opt := adamAfterOneStep(t, e, src)
	defer opt.Dispose()
	good := save(t, src, checkpoint.SaveOptions{Optimizer: opt})

	for _, v := range []string{"9223372036854775807", "4503599627370497", "-1", "1e3", " 2", "", "99999999999999999999"} {
		file := rebuild(t, good, func(md map[string]string) { md["optim.steps.0.bias"] = v })
		dst := twoParams(e, 3)
		fresh, err := optim.NewAdam(e, dst, optim.AdamDefaults())
		require.NoError(t, err)
		_, err = checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)), dst, checkpoint.LoadOptions{Optimizer: fresh})
		require.ErrorIs(t, err, checkpoint.ErrMismatch, "steps %q", v)
		assert.ErrorContains(t, err, `metadata "optim.steps.0.bias" is "`+v+`"`)
		assertUntouched(t, dst, fresh)
		fresh.Dispose()
		dispose(dst)
	}

	file := rebuild(t, good, func(md map[string]string) {
		md["optim.steps.0.weight"] = "4503599627370496"
		md["optim.steps.0.bias"] = "4503599627370496"
	})
	dst := twoParams(e, 3)
	defer dispose(dst)
	fresh, err := optim.NewAdam(e, dst, optim.AdamDefaults())
	require.NoError(t, err)
	defer fresh.Dispose()
	_, err = checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)), dst, checkpoint.LoadOptions{Optimizer: fresh})
	require.NoError(t, err)
	assert.Equal(t, 1<<52, fresh.Steps("0.weight"))
	g := []*tensor.Tensor{e.Ones(tensor.Float32, 2, 2), e.Ones(tensor.Float32, 2)}
	require.NoError(t, fresh.Step(g))
	dispose([]optim.Param{{T: g[0]}, {T: g[1]}})
	for _, v := range f32s(t, dst[0].T) {
		assert.False(t, math.IsNaN(float64(v)) || math.IsInf(float64(v), 0), "%v after the step past MaxSteps", v)
	}

	require.NoError(t, opt.SetSteps("0.bias", int(checkpoint.MaxSteps)+1))
	var buf bytes.Buffer
	err = checkpoint.Save(ctxT(t), &buf, src, checkpoint.SaveOptions{Optimizer: opt})
	require.ErrorIs(t, err, checkpoint.ErrArgument)
	assert.ErrorContains(t, err, `"0.bias" is 4503599627370497`)
	assert.Zero(t, buf.Len(), "nothing written")
}

// Item 9: ChunkSize is checked (math.MaxInt panicked in makeslice, 1<<40
// ran out of memory) and the chunk never exceeds the largest tensor: a
// 4 KiB file moves through about 4 KiB whatever ChunkSize says, for Load
// and Save alike.
func TestChunkSizeIsCheckedAndBounded(t *testing.T) {
	e := testgpu.Engine(t)
	params := []optim.Param{{Name: "w", T: e.FromFloat32s(ramp(1024, 1), 1024)}}
	defer dispose(params)
	file := save(t, params, checkpoint.SaveOptions{})

	for _, n := range []int{-1, -4096, math.MinInt, checkpoint.MaxChunkSize + 1, 1 << 40, math.MaxInt} {
		_, err := checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)), params, checkpoint.LoadOptions{ChunkSize: n})
		require.ErrorIs(t, err, checkpoint.ErrArgument, "Load, ChunkSize %d", n)
		assert.ErrorContains(t, err, "ChunkSize")
		var buf bytes.Buffer
		err = checkpoint.Save(ctxT(t), &buf, params, checkpoint.SaveOptions{ChunkSize: n})
		require.ErrorIs(t, err, checkpoint.ErrArgument, "Save, ChunkSize %d", n)
		assert.Zero(t, buf.Len())
	}
	assert.Zero(t, params[0].T.Version(), "nothing loaded")

	require.NoError(t, e.Device().Sync(ctxT(t)))
	r := &countingReader{r: bytes.NewReader(file)}
	runtime.GC()
	start := allocated()
	_, err := checkpoint.Load(ctxT(t), e, r, int64(len(file)), params, checkpoint.LoadOptions{ChunkSize: checkpoint.MaxChunkSize})
	require.NoError(t, err)
	assert.Less(t, allocated()-start, uint64(1<<20), "heap allocated by a load of %d B with a 256 MiB ChunkSize", len(file))
	assert.Equal(t, 4096, r.largest)

	w := &countingWriter{}
	runtime.GC()
	start = allocated()
	require.NoError(t, checkpoint.Save(ctxT(t), w, params, checkpoint.SaveOptions{ChunkSize: checkpoint.MaxChunkSize}))
	assert.Less(t, allocated()-start, uint64(1<<20), "heap allocated by a save with a 256 MiB ChunkSize")
	assert.Equal(t, ramp(1024, 1), f32s(t, params[0].T))
}

// Item 12: a state name the optimizer does not know (after state it does,
// in the file's order) fails a strict load before anything changes, and a
// non-strict one skips it like any unexpected entry.
func TestUnknownOptimizerStateFailsBeforeAnythingChanges(t *testing.T) {
	e := testgpu.Engine(t)
	src := twoParams(e, 1)
	defer dispose(src)
	opt := adamAfterOneStep(t, e, src)
	defer opt.Dispose()
	bogus := make([]byte, 8)
	file := rebuild(t, save(t, src, checkpoint.SaveOptions{Optimizer: opt}), nil,
		extra{safetensors.TensorInfo{Name: "optim.0.bias.momentum_buffer", DType: safetensors.F32, Shape: []int{2}}, bogus})

	dst := twoParams(e, 3)
	defer dispose(dst)
	fresh, err := optim.NewAdam(e, dst, optim.AdamDefaults())
	require.NoError(t, err)
	defer fresh.Dispose()
	_, err = checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)), dst, checkpoint.LoadOptions{Optimizer: fresh})
	require.ErrorIs(t, err, checkpoint.ErrMismatch)
	assert.ErrorContains(t, err, `"optim.0.bias.momentum_buffer"`)
	assertUntouched(t, dst, fresh)

	rep, err := checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)), dst, checkpoint.LoadOptions{Optimizer: fresh, NonStrict: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"optim.0.bias.momentum_buffer"}, rep.Unexpected)
	assert.Len(t, fresh.State(), 4)
	assert.Equal(t, 1, fresh.Steps("0.bias"))

	// A disposed optimizer fails before anything is read or written.
	other := twoParams(e, 5)
	defer dispose(other)
	gone, err := optim.NewAdam(e, other, optim.AdamDefaults())
	require.NoError(t, err)
	gone.Dispose()
	_, err = checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)), other, checkpoint.LoadOptions{Optimizer: gone, NonStrict: true})
	require.ErrorIs(t, err, optim.ErrDisposed)
	for _, p := range other {
		assert.Zero(t, p.T.Version())
	}
}

// Item 12: a reader that fails while the optimizer's state streams in
// fails the load with an error that names the state that took the file's
// values and says the parameters and step counts kept theirs; one that
// fails in the parameters names those written whole and the one part
// written too.
func TestReaderFailureInTheOptimizerStateSaysWhatChanged(t *testing.T) {
	e := testgpu.Engine(t)
	src := twoParams(e, 1)
	defer dispose(src)
	opt := adamAfterOneStep(t, e, src)
	defer opt.Dispose()
	file := save(t, src, checkpoint.SaveOptions{Optimizer: opt})
	boom := errors.New("disk on fire")

	dst := twoParams(e, 3)
	defer dispose(dst)
	fresh, err := optim.NewAdam(e, dst, optim.AdamDefaults())
	require.NoError(t, err)
	defer fresh.Dispose()
	// The length, the header, then 2 of the 4 state tensors.
	r := &failAfter{r: bytes.NewReader(file), calls: 2 + 2, err: boom}
	_, err = checkpoint.Load(ctxT(t), e, r, int64(len(file)), dst, checkpoint.LoadOptions{Optimizer: fresh})
	require.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, `the optimizer state "optim.0.weight.exp_avg", "optim.0.weight.exp_avg_sq" took the file's values`)
	assert.ErrorContains(t, err, "every other parameter, optimizer state and step count keeps its value")
	assert.NotContains(t, err.Error(), "the parameters")
	assert.Equal(t, []string{"0.weight.exp_avg", "0.weight.exp_avg_sq"}, names(fresh.State()))
	for _, p := range dst {
		assert.Zero(t, p.T.Version(), p.Name)
		assert.Zero(t, fresh.Steps(p.Name), p.Name)
	}

	// 8-byte chunks: the length, the header, the 4 state tensors (6
	// chunks), the first chunk of "0.weight", then its second fails.
	dst2 := twoParams(e, 3)
	defer dispose(dst2)
	fresh2, err := optim.NewAdam(e, dst2, optim.AdamDefaults())
	require.NoError(t, err)
	defer fresh2.Dispose()
	r = &failAfter{r: bytes.NewReader(file), calls: 2 + 6 + 1, err: boom}
	_, err = checkpoint.Load(ctxT(t), e, r, int64(len(file)), dst2, checkpoint.LoadOptions{Optimizer: fresh2, ChunkSize: 8})
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, `took the file's values, the parameter "0.weight" is part written; every other`)
	assert.NotContains(t, err.Error(), "the parameters")
	assert.ErrorContains(t, err, `the optimizer state "optim.0.weight.exp_avg", "optim.0.weight.exp_avg_sq", "optim.0.bias.exp_avg", "optim.0.bias.exp_avg_sq" took`)

	// A failure before anything was written says so.
	r = &failAfter{r: bytes.NewReader(file), calls: 2, err: boom}
	_, err = checkpoint.Load(ctxT(t), e, r, int64(len(file)), dst2, checkpoint.LoadOptions{Optimizer: fresh2})
	require.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, "nothing was changed")
}

func names(ps []optim.Param) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func i64s(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

func f64s(v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

// Item 16: I64 and F64 entries load into int32, uint32 and float32
// parameters when their values convert exactly, and fail with the
// element's value, writing nothing, when they do not; LoadTensors makes
// int32 and float32 tensors of them.
func TestI64AndF64Load(t *testing.T) {
	e := testgpu.Engine(t)
	var buf bytes.Buffer
	w, err := safetensors.NewWriter(&buf, []safetensors.TensorInfo{
		{Name: "ids", DType: safetensors.I64, Shape: []int{3}},
		{Name: "count", DType: safetensors.I64, Shape: []int{2}},
		{Name: "scale", DType: safetensors.F64, Shape: []int{3}},
	}, nil)
	require.NoError(t, err)
	_, err = w.Write(slices3(i64s(-7, math.MaxInt32, math.MinInt32), i64s(0, math.MaxUint32), f64s(0.5, math.Inf(-1), math.SmallestNonzeroFloat32)))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	file := buf.Bytes()

	params := []optim.Param{
		{Name: "ids", T: e.Zeros(tensor.Int32, 3)},
		{Name: "count", T: e.Zeros(tensor.Uint32, 2)},
		{Name: "scale", T: e.Zeros(tensor.Float32, 3)},
	}
	defer dispose(params)
	_, err = checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)), params, checkpoint.LoadOptions{ChunkSize: 8})
	require.NoError(t, err)
	iv, err := params[0].T.Int32s(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, []int32{-7, math.MaxInt32, math.MinInt32}, iv)
	uv, err := params[1].T.Uint32s(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, []uint32{0, math.MaxUint32}, uv)
	assert.Equal(t, []float32{0.5, float32(math.Inf(-1)), math.SmallestNonzeroFloat32}, f32s(t, params[2].T))

	got, err := checkpoint.LoadTensors(ctxT(t), e, bytes.NewReader(file), int64(len(file)))
	require.ErrorIs(t, err, checkpoint.ErrMismatch, "count's MaxUint32 is no int32")
	assert.ErrorContains(t, err, `"count" element 1 is 4294967295 in the file, which int32 does not hold exactly`)
	assert.Nil(t, got)

	for _, c := range []struct {
		name, text string
		entry      extra
	}{
		{"ids", `"ids" element 1 is 2147483648`, extra{safetensors.TensorInfo{Name: "ids", DType: safetensors.I64, Shape: []int{3}}, i64s(1, math.MaxInt32+1, 0)}},
		{"count", `"count" element 0 is -1`, extra{safetensors.TensorInfo{Name: "count", DType: safetensors.I64, Shape: []int{2}}, i64s(-1, 0)}},
		{"scale", `"scale" element 2 is 0.1`, extra{safetensors.TensorInfo{Name: "scale", DType: safetensors.F64, Shape: []int{3}}, f64s(1, 2, 0.1)}},
	} {
		var infos []safetensors.TensorInfo
		var data []byte
		for _, p := range params {
			if p.Name == c.name {
				infos = append(infos, c.entry.info)
				data = append(data, c.entry.data...)
				continue
			}
			infos = append(infos, safetensors.TensorInfo{Name: p.Name, DType: safetensors.F32, Shape: p.T.Shape()})
			if p.T.DType() == tensor.Int32 {
				infos[len(infos)-1].DType = safetensors.I32
			} else if p.T.DType() == tensor.Uint32 {
				infos[len(infos)-1].DType = safetensors.U32
			}
			data = append(data, make([]byte, 4*p.T.Size())...)
		}
		var buf bytes.Buffer
		w, err := safetensors.NewWriter(&buf, infos, nil)
		require.NoError(t, err)
		_, err = w.Write(data)
		require.NoError(t, err)
		require.NoError(t, w.Close())
		bad := buf.Bytes()
		versions := []uint64{params[0].T.Version(), params[1].T.Version(), params[2].T.Version()}
		_, err = checkpoint.Load(ctxT(t), e, bytes.NewReader(bad), int64(len(bad)), params, checkpoint.LoadOptions{})
		require.ErrorIs(t, err, checkpoint.ErrMismatch, c.name)
		assert.ErrorContains(t, err, c.text)
		assert.Equal(t, versions, []uint64{params[0].T.Version(), params[1].T.Version(), params[2].T.Version()}, "nothing written")
	}
}

func slices3(a, b, c []byte) []byte { return append(append(append([]byte(nil), a...), b...), c...) }

// Item 16: Save writes a BatchNorm-like layer's num_batches_tracked (an
// I64 0) unless the model has one, and Load, strict, takes it without
// keeping it (Report.Ignored); one of another dtype or shape is refused.
func TestBatchNormNumBatchesTrackedRoundTrips(t *testing.T) {
	e := testgpu.Engine(t)
	bn := func(seed float32) []optim.Param {
		return []optim.Param{
			{Name: "0.weight", T: e.FromFloat32s([]float32{seed, 1}, 2)},
			{Name: "1.running_mean", T: e.FromFloat32s([]float32{seed, 0}, 2)},
			{Name: "1.running_var", T: e.FromFloat32s([]float32{1, seed}, 2)},
			{Name: "running_mean", T: e.FromFloat32s([]float32{seed}, 1)},
			{Name: "running_var", T: e.FromFloat32s([]float32{seed}, 1)},
			{Name: "x.running_var", T: e.FromFloat32s([]float32{seed}, 1)}, // no running_mean: not a BatchNorm
		}
	}
	src, dst := bn(2), bn(0)
	defer dispose(src)
	defer dispose(dst)
	file := save(t, src, checkpoint.SaveOptions{})
	h, err := safetensors.ReadHeader(bytes.NewReader(file), int64(len(file)))
	require.NoError(t, err)
	for _, name := range []string{"1.num_batches_tracked", "num_batches_tracked"} {
		info, ok := h.Tensor(name)
		require.True(t, ok, name)
		assert.Equal(t, safetensors.I64, info.DType)
		assert.Equal(t, []int{}, info.Shape)
		assert.Equal(t, make([]byte, 8), file[h.DataOffset+info.Begin:h.DataOffset+info.End])
	}
	_, ok := h.Tensor("x.num_batches_tracked")
	assert.False(t, ok)

	rep, err := checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)), dst, checkpoint.LoadOptions{})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"1.num_batches_tracked", "num_batches_tracked"}, rep.Ignored)
	assert.Empty(t, rep.Unexpected)
	assert.Equal(t, bytesOf(t, src), bytesOf(t, dst))

	// LoadTensors makes it an int32 scalar; saved back, it stays one.
	got, err := checkpoint.LoadTensors(ctxT(t), e, bytes.NewReader(file), int64(len(file)))
	require.NoError(t, err)
	defer dispose(got)
	require.Len(t, got, 8)
	i := slicesIndex(got, "1.num_batches_tracked")
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, tensor.Int32, got[i].T.DType())
	assert.Equal(t, 0, got[i].T.Rank())

	for _, bad := range []extra{
		{safetensors.TensorInfo{Name: "1.num_batches_tracked", DType: safetensors.F32, Shape: []int{}}, make([]byte, 4)},
		{safetensors.TensorInfo{Name: "1.num_batches_tracked", DType: safetensors.I64, Shape: []int{1}}, make([]byte, 8)},
	} {
		var buf bytes.Buffer
		w, err := safetensors.NewWriter(&buf, []safetensors.TensorInfo{
			{Name: "1.running_mean", DType: safetensors.F32, Shape: []int{2}},
			{Name: "1.running_var", DType: safetensors.F32, Shape: []int{2}},
			bad.info,
		}, nil)
		require.NoError(t, err)
		_, err = w.Write(append(make([]byte, 16), bad.data...))
		require.NoError(t, err)
		require.NoError(t, w.Close())
		f := buf.Bytes()
		_, err = checkpoint.Load(ctxT(t), e, bytes.NewReader(f), int64(len(f)), dst[1:3], checkpoint.LoadOptions{NonStrict: true})
		require.ErrorIs(t, err, checkpoint.ErrMismatch, "%v", bad.info)
		assert.ErrorContains(t, err, `"1.num_batches_tracked" is `+string(bad.info.DType))
	}
}

func slicesIndex(ps []optim.Param, name string) int {
	for i, p := range ps {
		if p.Name == name {
			return i
		}
	}
	return -1
}
