package checkpoint_test

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// An independent encoder and decoder of the format, in Python with only
// struct and json: what Python's safetensors package does, without it.

// pyWrite writes a file to argv[1]: its header's keys in another order
// than the data, not padded, with F16, BF16, F32, I32 and U32 tensors.
const pyWrite = `
import json, struct, sys
def bf16(x):
    return struct.pack('<f', x)[2:]
tensors = [
    ("w", "F32", [2, 3], struct.pack('<6f', 0.5, -1.25, 1e30, -0.0, 7.0, 2.0**-149)),
    ("h", "F16", [5], struct.pack('<5e', 1.0, -2.5, 65504.0, 2.0**-24, float('inf'))),
    ("bf", "BF16", [3], bf16(1.0) + bf16(-3.5) + bf16(2.0**100)),
    ("i", "I32", [2], struct.pack('<2i', -7, 2147483647)),
    ("u", "U32", [1, 2], struct.pack('<2I', 0, 4294967295)),
]
header, data = {"__metadata__": {"format": "pt"}}, b""
for name, dtype, shape, raw in tensors:
    header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
    data += raw
h = json.dumps(dict(sorted(header.items())), separators=(",", ":")).encode()
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack('<Q', len(h)) + h + data)
`

// pyRead parses the file at argv[1] as the format's reference does
// (offsets contiguous from 0, sizes by dtype and shape, nothing after the
// data) and prints its tensors' dtypes, shapes and values, and metadata.
const pyRead = `
import json, struct, sys
b = open(sys.argv[1], "rb").read()
(n,) = struct.unpack('<Q', b[:8])
assert n % 8 == 0, "header padded to 8"
text = b[8:8 + n].decode("utf-8")
assert text.startswith("{")
header = json.loads(text)
meta = header.pop("__metadata__", {})
data = b[8 + n:]
fmt = {"F32": ("f", 4), "I32": ("i", 4), "U32": ("I", 4), "F16": ("e", 2), "I64": ("q", 8), "F64": ("d", 8)}
end, out = 0, {}
for name, info in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"]):
    begin, stop = info["data_offsets"]
    assert begin == end, (name, begin, end)
    code, size = fmt[info["dtype"]]
    count = 1
    for d in info["shape"]:
        count *= d
    assert stop - begin == count * size, name
    vals = struct.unpack('<%d%s' % (count, code), data[begin:stop])
    out[name] = {"dtype": info["dtype"], "shape": info["shape"], "values": [repr(v) for v in vals]}
    end = stop
assert end == len(data), "no data after the last tensor"
print(json.dumps({"tensors": out, "metadata": meta}))
`

func python(t *testing.T, script string, args ...string) []byte {
	t.Helper()
	py := testgpu.Tool(t, "python3")
	out, err := exec.Command(py, append([]string{"-c", script}, args...)...).Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("python3: %v\n%s", err, ee.Stderr)
	}
	require.NoError(t, err)
	return out
}

// A file written by an independent encoder loads, F16 and BF16 converted.
func TestLoadsAFileWrittenByPython(t *testing.T) {
	e := testgpu.Engine(t)
	path := filepath.Join(t.TempDir(), "py.safetensors")
	python(t, pyWrite, path)
	params := []optim.Param{
		{Name: "w", T: e.Zeros(tensor.Float32, 2, 3)},
		{Name: "h", T: e.Zeros(tensor.Float32, 5)},
		{Name: "bf", T: e.Zeros(tensor.Float32, 3)},
		{Name: "i", T: e.Zeros(tensor.Int32, 2)},
		{Name: "u", T: e.Zeros(tensor.Uint32, 1, 2)},
	}
	defer dispose(params)
	rep, err := checkpoint.LoadFile(ctxT(t), e, path, params, checkpoint.LoadOptions{})
	require.NoError(t, err)
	assert.Empty(t, rep.Missing)
	assert.Empty(t, rep.Unexpected)
	negZero := float32(math.Copysign(0, -1))
	w := f32s(t, params[0].T)
	assert.Equal(t, []float32{0.5, -1.25, 1e30, negZero, 7, math.SmallestNonzeroFloat32}, w)
	assert.True(t, math.Signbit(float64(w[3])), "-0 keeps its sign")
	assert.Equal(t, []float32{1, -2.5, 65504, 1.0 / (1 << 24), float32(math.Inf(1))}, f32s(t, params[1].T))
	assert.Equal(t, []float32{1, -3.5, float32(math.Ldexp(1, 100))}, f32s(t, params[2].T))
	iv, err := params[3].T.Int32s(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, []int32{-7, math.MaxInt32}, iv)
	uv, err := params[4].T.Uint32s(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, []uint32{0, math.MaxUint32}, uv)
}

// A file Save writes, with an optimizer's state, parses in the
// independent decoder with the names, dtypes, shapes and values saved.
func TestPythonReadsAFileSaveWrote(t *testing.T) {
	e := testgpu.Engine(t)
	params := []optim.Param{
		{Name: "0.weight", T: e.FromFloat32s([]float32{0.5, -1.25, 3, 1e-45}, 2, 2)},
		{Name: "layers.2.bias", T: e.FromFloat32s([]float32{-0.0, 1e30}, 2)},
		{Name: "ids", T: e.FromInt32s([]int32{-7, math.MaxInt32, math.MinInt32}, 3)},
		{Name: "count", T: e.FromUint32s([]uint32{math.MaxUint32}, 1)},
		{Name: "größe", T: e.Scalar(2)},
	}
	defer dispose(params)
	opt, err := optim.NewSGD(e, params[:2], optim.SGDConfig{LR: 0.5, Momentum: 0.9})
	require.NoError(t, err)
	defer opt.Dispose()
	g := []*tensor.Tensor{e.Ones(tensor.Float32, 2, 2), e.Ones(tensor.Float32, 2)}
	require.NoError(t, opt.Step(g))
	dispose([]optim.Param{{T: g[0]}, {T: g[1]}})

	path := filepath.Join(t.TempDir(), "go.safetensors")
	require.NoError(t, checkpoint.SaveFile(ctxT(t), path, params, checkpoint.SaveOptions{Optimizer: opt, Metadata: map[string]string{"epoch": "1"}}))
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left")

	var got struct {
		Tensors map[string]struct {
			DType  string
			Shape  []int
			Values []string
		}
		Metadata map[string]string
	}
	require.NoError(t, json.Unmarshal(python(t, pyRead, path), &got))
	assert.Equal(t, map[string]string{"epoch": "1", "optim.steps.0.weight": "1", "optim.steps.layers.2.bias": "1"}, got.Metadata)
	type entry struct {
		dtype  string
		shape  []int
		values []string
	}
	want := map[string]entry{
		"0.weight":                            {"F32", []int{2, 2}, []string{"0.0", "-1.75", "2.5", "-0.5"}},
		"layers.2.bias":                       {"F32", []int{2}, []string{"-0.5", "1.0000000150474662e+30"}},
		"ids":                                 {"I32", []int{3}, []string{"-7", "2147483647", "-2147483648"}},
		"count":                               {"U32", []int{1}, []string{"4294967295"}},
		"größe":                               {"F32", []int{}, []string{"2.0"}},
		"optim.0.weight.momentum_buffer":      {"F32", []int{2, 2}, []string{"1.0", "1.0", "1.0", "1.0"}},
		"optim.layers.2.bias.momentum_buffer": {"F32", []int{2}, []string{"1.0", "1.0"}},
	}
	require.Len(t, got.Tensors, len(want))
	for name, w := range want {
		g, ok := got.Tensors[name]
		require.True(t, ok, name)
		assert.Equal(t, w.dtype, g.DType, name)
		assert.Equal(t, w.shape, g.Shape, name)
		assert.Equal(t, w.values, g.Values, name)
	}
}

// pyWriteBatchNorm writes to argv[1] what PyTorch's state_dict of a
// BatchNorm1d(2) and a float64 and an int64 tensor saves: the
// num_batches_tracked an I64 scalar.
const pyWriteBatchNorm = `
import json, struct, sys
tensors = [
    ("bn.weight", "F32", [2], struct.pack('<2f', 1.5, -2.0)),
    ("bn.bias", "F32", [2], struct.pack('<2f', 0.25, 0.0)),
    ("bn.running_mean", "F32", [2], struct.pack('<2f', 0.125, -3.0)),
    ("bn.running_var", "F32", [2], struct.pack('<2f', 2.0, 0.5)),
    ("bn.num_batches_tracked", "I64", [], struct.pack('<q', 1234)),
    ("d", "F64", [3], struct.pack('<3d', 0.5, -2.0**100, 2.0**-149)),
    ("ids", "I64", [2], struct.pack('<2q', -7, 2147483647)),
]
header, data = {"__metadata__": {"format": "pt"}}, b""
for name, dtype, shape, raw in tensors:
    header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
    data += raw
h = json.dumps(header, separators=(",", ":")).encode()
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack('<Q', len(h)) + h + data)
`

// A PyTorch-style file with a BatchNorm's num_batches_tracked (I64), an
// F64 and an I64 tensor loads strictly into a model with the BatchNorm's
// four tensors (num_batches_tracked taken without a parameter) and
// float32 and int32 parameters; without those two parameters, NonStrict
// skips them; LoadTensorsFile makes every one. What Save writes back has
// num_batches_tracked as I64, which the independent decoder reads, as
// PyTorch's load_state_dict(strict=True) requires.
func TestBatchNormFileFromPythonRoundTrips(t *testing.T) {
	e := testgpu.Engine(t)
	path := filepath.Join(t.TempDir(), "bn.safetensors")
	python(t, pyWriteBatchNorm, path)
	model := []optim.Param{
		{Name: "bn.weight", T: e.Zeros(tensor.Float32, 2)},
		{Name: "bn.bias", T: e.Zeros(tensor.Float32, 2)},
		{Name: "bn.running_mean", T: e.Zeros(tensor.Float32, 2)},
		{Name: "bn.running_var", T: e.Zeros(tensor.Float32, 2)},
	}
	defer dispose(model)
	d := e.Zeros(tensor.Float32, 3)
	ids := e.Zeros(tensor.Int32, 2)
	defer d.Dispose()
	defer ids.Dispose()
	all := append(model[:4:4], optim.Param{Name: "d", T: d}, optim.Param{Name: "ids", T: ids})

	rep, err := checkpoint.LoadFile(ctxT(t), e, path, all, checkpoint.LoadOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"bn.num_batches_tracked"}, rep.Ignored)
	assert.Empty(t, rep.Unexpected)
	assert.Equal(t, []float32{1.5, -2}, f32s(t, model[0].T))
	assert.Equal(t, []float32{0.125, -3}, f32s(t, model[2].T))
	assert.Equal(t, []float32{0.5, -float32(math.Ldexp(1, 100)), math.SmallestNonzeroFloat32}, f32s(t, d))
	iv, err := ids.Int32s(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, []int32{-7, math.MaxInt32}, iv)

	rep, err = checkpoint.LoadFile(ctxT(t), e, path, model, checkpoint.LoadOptions{NonStrict: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"d", "ids"}, rep.Unexpected)
	assert.Equal(t, []string{"bn.num_batches_tracked"}, rep.Ignored)

	got, err := checkpoint.LoadTensorsFile(ctxT(t), e, path)
	require.NoError(t, err)
	defer dispose(got)
	require.Len(t, got, 7)
	assert.Equal(t, "bn.num_batches_tracked", got[4].Name)
	assert.Equal(t, tensor.Int32, got[4].T.DType())
	nb, err := got[4].T.Int32s(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, []int32{1234}, nb)

	out := filepath.Join(t.TempDir(), "go.safetensors")
	require.NoError(t, checkpoint.SaveFile(ctxT(t), out, model, checkpoint.SaveOptions{}))
	var read struct {
		Tensors map[string]struct {
			DType  string
			Shape  []int
			Values []string
		}
	}
	require.NoError(t, json.Unmarshal(python(t, pyRead, out), &read))
	require.Len(t, read.Tensors, 5)
	nbt := read.Tensors["bn.num_batches_tracked"]
	assert.Equal(t, "I64", nbt.DType)
	assert.Equal(t, []int{}, nbt.Shape)
	assert.Equal(t, []string{"0"}, nbt.Values)
	assert.Equal(t, []string{"2.0", "0.5"}, read.Tensors["bn.running_var"].Values)
}
