package checkpoint_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/safetensors"
	"github.com/wgtensor/wgtensor/tensor"
)

// craft builds a file from a header's JSON and dataSize bytes of data.
func craft(header string, dataSize int) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(header)))
	b.WriteString(header)
	b.Write(bytes.Repeat([]byte{0x3f}, dataSize))
	return b.Bytes()
}

const (
	wEntry = `"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}`
	bEntry = `"b":{"dtype":"F32","shape":[4],"data_offsets":[16,32]}`
)

// Every bad file is refused with an error that says what is wrong, naming
// the tensor, and leaves everything as it was: the model's values and
// versions, no tensor more, the pool's live, pooled and reserved bytes.
func TestBadFilesFailAndLeaveNothing(t *testing.T) {
	e := testgpu.Engine(t)
	m := []optim.Param{
		{Name: "w", T: e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)},
		{Name: "b", T: e.FromFloat32s([]float32{5, 6, 7, 8}, 4)},
	}
	defer dispose(m)
	good := save(t, m, checkpoint.SaveOptions{})
	hdrLen := int(binary.LittleEndian.Uint64(good))
	huge := bytes.Clone(good)
	binary.LittleEndian.PutUint64(huge, 1<<62)
	values := bytesOf(t, m)
	require.NoError(t, e.Device().Sync(ctxT(t)))
	empty := testgpu.EngineOn(t, e.Device()) // LoadTensors's engine: no tensor of its own

	for _, c := range []struct {
		name string
		file []byte
		kind error
		text string
	}{
		{"truncated header", good[:8+hdrLen/2], safetensors.ErrInvalid, "runs past the end of the file"},
		{"truncated length", good[:5], safetensors.ErrInvalid, "too short"},
		{"truncated data", good[:len(good)-4], safetensors.ErrInvalid, "truncated"},
		{"overlapping offsets", craft(`{`+wEntry+`,"b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}}`, 24), safetensors.ErrInvalid, `tensor "b" [8, 24) overlaps tensor "w"`},
		{"offsets past the end", craft(`{`+wEntry+`,`+bEntry+`}`, 24), safetensors.ErrInvalid, "past the end"},
		{"size disagrees with the shape", craft(`{`+wEntry+`,"b":{"dtype":"F32","shape":[4],"data_offsets":[16,24]}}`, 24), safetensors.ErrInvalid, `"b" has 8 bytes of data`},
		{"dtype mismatch", craft(`{`+wEntry+`,"b":{"dtype":"I32","shape":[4],"data_offsets":[16,32]}}`, 32), tensor.ErrDType, `"b" is I32 in the file, float32 in the model`},
		{"shape mismatch", craft(`{`+wEntry+`,"b":{"dtype":"F32","shape":[2,2],"data_offsets":[16,32]}}`, 32), tensor.ErrShape, `"b" is [2 2] in the file, [4] in the model`},
		{"transposed shape", craft(`{"w":{"dtype":"F32","shape":[4,1],"data_offsets":[0,16]},`+bEntry+`}`, 32), tensor.ErrShape, `"w" is [4 1] in the file, [2 2]`},
		{"missing name", craft(`{`+wEntry+`}`, 16), checkpoint.ErrMismatch, `the file has no "b"`},
		{"extra name", craft(`{`+wEntry+`,`+bEntry+`,"junk":{"dtype":"F32","shape":[1],"data_offsets":[32,36]}}`, 36), checkpoint.ErrMismatch, `nothing in the model takes "junk"`},
		{"bad JSON", craft(`{`+wEntry+`,`+bEntry+`,}`, 32), safetensors.ErrInvalid, "not valid JSON"},
		{"huge header length", huge, safetensors.ErrInvalid, "exceeds the limit"},
		{"unsupported dtype", craft(`{`+wEntry+`,"b":{"dtype":"BOOL","shape":[16],"data_offsets":[16,32]}}`, 32), safetensors.ErrUnsupportedDType, `"b" is BOOL`},
		{"inexact F64", craft(`{`+wEntry+`,"b":{"dtype":"F64","shape":[4],"data_offsets":[16,48]}}`, 48), checkpoint.ErrMismatch, `"b" element 0 is 0.00047679227941176`},
		{"I64 into float32", craft(`{`+wEntry+`,"b":{"dtype":"I64","shape":[4],"data_offsets":[16,48]}}`, 48), tensor.ErrDType, `"b" is I64 in the file, float32 in the model`},
		{"step count past MaxSteps", craft(`{"__metadata__":{"optim.steps.w":"9223372036854775807"},`+wEntry+`,`+bEntry+`}`, 32), checkpoint.ErrMismatch, `metadata "optim.steps.w" is "9223372036854775807", not a step count`},
		{"step count 2^52+1", craft(`{"__metadata__":{"optim.steps.w":"4503599627370497"},`+wEntry+`,`+bEntry+`}`, 32), checkpoint.ErrMismatch, `"4503599627370497"`},
		{"negative step count", craft(`{"__metadata__":{"optim.steps.w":"-1"},`+wEntry+`,`+bEntry+`}`, 32), checkpoint.ErrMismatch, `"-1"`},
		{"signed step count", craft(`{"__metadata__":{"optim.steps.w":"+3"},`+wEntry+`,`+bEntry+`}`, 32), checkpoint.ErrMismatch, `"+3"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := e.Memory()
			_, err := checkpoint.Load(ctxT(t), e, bytes.NewReader(c.file), int64(len(c.file)), m, checkpoint.LoadOptions{})
			require.Error(t, err)
			assert.True(t, errors.Is(err, c.kind), "%v", err)
			assert.ErrorContains(t, err, c.text)
			assertUnchanged(t, e, before, "Load")
			for _, p := range m {
				assert.Zero(t, p.T.Version(), "%s written", p.Name)
			}

			if c.kind == safetensors.ErrInvalid || c.kind == safetensors.ErrUnsupportedDType || c.name == "inexact F64" {
				got, err := checkpoint.LoadTensors(ctxT(t), empty, bytes.NewReader(c.file), int64(len(c.file)))
				assert.Nil(t, got)
				assert.True(t, errors.Is(err, c.kind), "LoadTensors: %v", err)
				assert.Zero(t, empty.NumTensors(), "LoadTensors: live tensors")
				assertUnchanged(t, e, before, "LoadTensors")
			}
		})
	}
	assert.Equal(t, values, bytesOf(t, m))
}

// assertUnchanged checks that e holds the tensors and the pool the bytes
// it did before.
func assertUnchanged(t *testing.T, e *tensor.Engine, before tensor.Memory, what string) {
	t.Helper()
	after := e.Memory()
	assert.Equal(t, before.Tensors, after.Tensors, "%s: live tensors", what)
	assert.Equal(t, before.Bytes, after.Bytes, "%s: live bytes", what)
	assert.Equal(t, before.Pool.LiveBytes, after.Pool.LiveBytes, "%s: pool live bytes", what)
	assert.Equal(t, before.Pool.PooledBytes, after.Pool.PooledBytes, "%s: pooled bytes", what)
	assert.Equal(t, before.Pool.ReservedBytes, after.Pool.ReservedBytes, "%s: reserved bytes", what)
}

// A reader that fails while the data streams in fails the load with its
// error; LoadTensors leaves no tensor, Load says the parameters may be
// part loaded.
func TestReaderFailureWhileStreaming(t *testing.T) {
	e := testgpu.Engine(t)
	m := []optim.Param{
		{Name: "w", T: e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)},
		{Name: "b", T: e.FromFloat32s([]float32{5, 6, 7, 8}, 4)},
	}
	defer dispose(m)
	file := save(t, m, checkpoint.SaveOptions{})
	boom := errors.New("disk on fire")
	r := &failAfter{r: bytes.NewReader(file), calls: 3, err: boom} // length, header, w's data
	before := e.NumTensors()
	got, err := checkpoint.LoadTensors(ctxT(t), e, r, int64(len(file)))
	assert.Nil(t, got)
	assert.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, `"b"`)
	assert.Equal(t, before, e.NumTensors())

	r = &failAfter{r: bytes.NewReader(file), calls: 3, err: boom}
	_, err = checkpoint.Load(ctxT(t), e, r, int64(len(file)), m, checkpoint.LoadOptions{})
	assert.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, "part loaded")
	assert.Equal(t, before, e.NumTensors())
}

// A file whose second tensor cannot be made (a rank past tensor.MaxRank)
// leaves LoadTensors nothing: the first one, made already, is disposed.
func TestLoadTensorsDisposesWhatItMadeOnFailure(t *testing.T) {
	e := testgpu.Engine(t)
	shape := strings.TrimSuffix(strings.Repeat("1,", tensor.MaxRank+1), ",")
	file := craft(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[`+shape+`],"data_offsets":[8,12]}}`, 12)
	got, err := checkpoint.LoadTensors(ctxT(t), e, bytes.NewReader(file), int64(len(file)))
	assert.Nil(t, got)
	assert.ErrorIs(t, err, tensor.ErrShape)
	assert.ErrorContains(t, err, `"b"`)
	assert.Zero(t, e.NumTensors())
}

// failAfter fails every ReadAt after the first calls.
type failAfter struct {
	r     *bytes.Reader
	calls int
	err   error
}

func (f *failAfter) ReadAt(p []byte, off int64) (int, error) {
	if f.calls == 0 {
		return 0, fmt.Errorf("read at %d: %w", off, f.err)
	}
	f.calls--
	return f.r.ReadAt(p, off)
}
