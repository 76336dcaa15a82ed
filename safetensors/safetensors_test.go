package safetensors_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/safetensors"
)

// file builds a safetensors file from a header's JSON and dataSize bytes
// of data.
func file(header string, dataSize int) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(header)))
	b.WriteString(header)
	b.Write(make([]byte, dataSize))
	return b.Bytes()
}

func read(b []byte) (*safetensors.Header, error) {
	return safetensors.ReadHeader(bytes.NewReader(b), int64(len(b)))
}

func TestWriteThenReadRoundTrips(t *testing.T) {
	tensors := []safetensors.TensorInfo{
		{Name: "0.weight", DType: safetensors.F32, Shape: []int{2, 3}},
		{Name: "0.bias", DType: safetensors.BF16, Shape: []int{3}},
		{Name: "scalar", DType: safetensors.I32, Shape: []int{}},
		{Name: "empty", DType: safetensors.U32, Shape: []int{0, 4}},
		{Name: "half", DType: safetensors.F16, Shape: []int{1}},
		{Name: "", DType: safetensors.F32, Shape: []int{1}},                             // the empty name is a name
		{Name: "größe.\"quoted\"\\<&>\u2028😀", DType: safetensors.F32, Shape: []int{1}}, // any UTF-8
	}
	md := map[string]string{"step": "10", "ü": "<&>"}
	var buf bytes.Buffer
	w, err := safetensors.NewWriter(&buf, tensors, md)
	require.NoError(t, err)
	laid := w.Tensors()
	var total int64
	for _, ti := range laid {
		n, err := w.Write(bytes.Repeat([]byte{7}, int(ti.Bytes())))
		require.NoError(t, err)
		require.EqualValues(t, ti.Bytes(), n)
		total += ti.Bytes()
	}
	require.NoError(t, w.Close())
	require.EqualValues(t, 24+6+4+0+2+4+4, total)

	h, err := read(buf.Bytes())
	require.NoError(t, err)
	require.Zero(t, h.DataOffset%8, "the header is padded to a multiple of 8")
	require.Equal(t, md, h.Metadata)
	require.Len(t, h.Tensors, len(tensors))
	for _, want := range laid {
		got, ok := h.Tensor(want.Name)
		require.True(t, ok, want.Name)
		require.Equal(t, want, got)
	}
	for i := 1; i < len(h.Tensors); i++ {
		require.LessOrEqual(t, h.Tensors[i-1].End, h.Tensors[i].Begin, "in data order")
	}
}

func TestWriterRefusesBadTensorsAndCountsTheData(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tensors []safetensors.TensorInfo
		kind    error
		msg     string
	}{
		{"duplicate", []safetensors.TensorInfo{{Name: "a", DType: safetensors.F32}, {Name: "a", DType: safetensors.F32}}, safetensors.ErrInvalid, `"a"`},
		{"reserved", []safetensors.TensorInfo{{Name: "__metadata__", DType: safetensors.F32}}, safetensors.ErrInvalid, "__metadata__"},
		{"not utf-8", []safetensors.TensorInfo{{Name: "a\xff", DType: safetensors.F32}}, safetensors.ErrInvalid, "UTF-8"},
		{"bool", []safetensors.TensorInfo{{Name: "a", DType: "BOOL"}}, safetensors.ErrUnsupportedDType, "BOOL"},
		{"unknown dtype", []safetensors.TensorInfo{{Name: "a", DType: "F33"}}, safetensors.ErrInvalid, "F33"},
		{"negative dim", []safetensors.TensorInfo{{Name: "a", DType: safetensors.F32, Shape: []int{2, -1}}}, safetensors.ErrInvalid, "negative"},
		{"overflow", []safetensors.TensorInfo{{Name: "a", DType: safetensors.F32, Shape: []int{1 << 40, 1 << 40}}}, safetensors.ErrInvalid, "too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := safetensors.NewWriter(&buf, tc.tensors, nil)
			require.ErrorIs(t, err, tc.kind)
			require.ErrorContains(t, err, tc.msg)
			require.Zero(t, buf.Len(), "nothing written")
		})
	}

	var buf bytes.Buffer
	w, err := safetensors.NewWriter(&buf, []safetensors.TensorInfo{{Name: "a", DType: safetensors.F32, Shape: []int{2}}}, nil)
	require.NoError(t, err)
	_, err = w.Write(make([]byte, 4))
	require.NoError(t, err)
	require.ErrorIs(t, w.Close(), safetensors.ErrInvalid, "4 of 8 bytes")
	w, err = safetensors.NewWriter(&buf, []safetensors.TensorInfo{{Name: "a", DType: safetensors.F32, Shape: []int{2}}}, nil)
	require.NoError(t, err)
	_, err = w.Write(make([]byte, 12))
	require.ErrorIs(t, err, safetensors.ErrInvalid, "12 bytes into 8")
	require.ErrorIs(t, w.Close(), safetensors.ErrInvalid)
}

// Every way a header can be wrong is refused with an error that says
// what, and never a panic.
func TestReadHeaderRefusesBadFiles(t *testing.T) {
	const ok = `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`
	huge := make([]byte, 16)
	binary.LittleEndian.PutUint64(huge, 1<<62)
	past := make([]byte, 16)
	binary.LittleEndian.PutUint64(past, 9)
	for _, tc := range []struct {
		name string
		file []byte
		kind error
		msg  string
	}{
		{"empty file", nil, safetensors.ErrInvalid, "too short"},
		{"7 bytes", make([]byte, 7), safetensors.ErrInvalid, "too short"},
		{"huge header length", huge, safetensors.ErrInvalid, "exceeds the limit"},
		{"header past the end", past, safetensors.ErrInvalid, "runs past the end"},
		{"truncated header", file(ok, 8)[:20], safetensors.ErrInvalid, "runs past the end"},
		{"truncated data", file(ok, 4), safetensors.ErrInvalid, "truncated"},
		{"trailing data", file(ok, 12), safetensors.ErrInvalid, "4 bytes after"},
		{"bad json", file(`{"a":{"dtype":"F32",}}`, 0), safetensors.ErrInvalid, "not valid JSON"},
		{"unclosed", file(`{"a":{"dtype":"F32"`, 0), safetensors.ErrInvalid, "not valid JSON"},
		{"not an object", file(`["a"]`, 0), safetensors.ErrInvalid, "begin with '{'"},
		{"leading space", file(` {}`, 0), safetensors.ErrInvalid, "begin with '{'"},
		{"empty header", file(``, 0), safetensors.ErrInvalid, "begin with '{'"},
		{"two objects", file(`{}{}`, 0), safetensors.ErrInvalid, "after its object"},
		{"garbage after", file(`{} x`, 0), safetensors.ErrInvalid, "not valid JSON"},
		{"not utf-8", file("{\"a\xff\":{}}", 0), safetensors.ErrInvalid, "UTF-8"},
		{"lone surrogate", file(`{"\ud800":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}`, 4), safetensors.ErrInvalid, "surrogate"},
		{"lone low surrogate", file(`{"\udc00x":{}}`, 0), safetensors.ErrInvalid, "surrogate"},
		{"duplicate name", file(`{"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[],"data_offsets":[4,8]}}`, 8), safetensors.ErrInvalid, `names "a" twice`},
		{"duplicate key in entry", file(`{"a":{"dtype":"F32","dtype":"F16","shape":[],"data_offsets":[0,4]}}`, 4), safetensors.ErrInvalid, `two "dtype"`},
		{"entry not an object", file(`{"a":[1]}`, 0), safetensors.ErrInvalid, "not an object"},
		{"no dtype", file(`{"a":{"shape":[],"data_offsets":[0,4]}}`, 4), safetensors.ErrInvalid, `no "dtype"`},
		{"no shape", file(`{"a":{"dtype":"F32","data_offsets":[0,4]}}`, 4), safetensors.ErrInvalid, `no "shape"`},
		{"no offsets", file(`{"a":{"dtype":"F32","shape":[]}}`, 4), safetensors.ErrInvalid, `no "data_offsets"`},
		{"unknown dtype", file(`{"a":{"dtype":"F33","shape":[],"data_offsets":[0,4]}}`, 4), safetensors.ErrInvalid, `unknown dtype "F33"`},
		{"dtype not a string", file(`{"a":{"dtype":4,"shape":[],"data_offsets":[0,4]}}`, 4), safetensors.ErrInvalid, "not a string"},
		{"unsupported dtype", file(`{"a":{"dtype":"U64","shape":[],"data_offsets":[0,8]}}`, 8), safetensors.ErrUnsupportedDType, "U64"},
		{"negative dim", file(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}`, 4), safetensors.ErrInvalid, "negative"},
		{"fractional dim", file(`{"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}}`, 4), safetensors.ErrInvalid, "not an integer"},
		{"exponent dim", file(`{"a":{"dtype":"F32","shape":[1e0],"data_offsets":[0,4]}}`, 4), safetensors.ErrInvalid, "not an integer"},
		{"dim past int64", file(`{"a":{"dtype":"F32","shape":[99999999999999999999],"data_offsets":[0,4]}}`, 4), safetensors.ErrInvalid, "64 bits"},
		{"string dim", file(`{"a":{"dtype":"F32","shape":["1"],"data_offsets":[0,4]}}`, 4), safetensors.ErrInvalid, "not an integer"},
		{"size overflows", file(`{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}}`, 4), safetensors.ErrInvalid, "too large"},
		{"one offset", file(`{"a":{"dtype":"F32","shape":[],"data_offsets":[4]}}`, 4), safetensors.ErrInvalid, "1 values, not 2"},
		{"three offsets", file(`{"a":{"dtype":"F32","shape":[],"data_offsets":[0,4,8]}}`, 4), safetensors.ErrInvalid, "3 values, not 2"},
		{"negative offset", file(`{"a":{"dtype":"F32","shape":[],"data_offsets":[-4,0]}}`, 4), safetensors.ErrInvalid, "negative"},
		{"end before begin", file(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}}`, 4), safetensors.ErrInvalid, "end before begin"},
		{"size disagrees", file(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, 8), safetensors.ErrInvalid, "needs 12"},
		{"overlap", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, 12), safetensors.ErrInvalid, "overlaps"},
		{"same range", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 8), safetensors.ErrInvalid, "overlaps"},
		{"hole", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}`, 12), safetensors.ErrInvalid, "hole"},
		{"hole at the start", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8), safetensors.ErrInvalid, "hole"},
		{"offsets past the end", file(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, 8), safetensors.ErrInvalid, "past the end"},
		{"metadata not an object", file(`{"__metadata__":[]}`, 0), safetensors.ErrInvalid, "not an object of strings"},
		{"metadata number", file(`{"__metadata__":{"a":1}}`, 0), safetensors.ErrInvalid, "not a string"},
		{"metadata duplicate", file(`{"__metadata__":{"a":"1","a":"2"}}`, 0), safetensors.ErrInvalid, "twice"},
		{"metadata twice", file(`{"__metadata__":{},"__metadata__":{}}`, 0), safetensors.ErrInvalid, "twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := read(tc.file)
			require.Nil(t, h)
			require.ErrorIs(t, err, tc.kind)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

func TestReadHeaderAcceptsWhatTheSpecAllows(t *testing.T) {
	for _, tc := range []struct {
		name, header string
		data         int
	}{
		{"no tensors", `{}`, 0},
		{"padded with spaces", `{}      `, 0},
		{"null metadata", `{"__metadata__":null}`, 0},
		{"unknown keys ignored", `{"a":{"x":{"y":[1]},"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 4},
		{"empty tensors share an offset", `{"e":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"z":{"dtype":"F16","shape":[3,0],"data_offsets":[4,4]}}`, 4},
		{"escaped surrogate pair", `{"\ud83d\ude00":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}`, 4},
		{"escaped backslash before u", `{"\\ud800":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}`, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := read(file(tc.header, tc.data))
			require.NoError(t, err)
		})
	}
	h, err := read(file(`{"\ud83d\ude00":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}`, 4))
	require.NoError(t, err)
	require.Equal(t, "😀", h.Tensors[0].Name)
}

// A reader that fails is reported as such, not as a bad file.
func TestReadHeaderReportsTheReadersError(t *testing.T) {
	boom := errors.New("boom")
	_, err := safetensors.ReadHeader(failingReader{boom}, 100)
	require.ErrorIs(t, err, boom)
	require.NotErrorIs(t, err, safetensors.ErrInvalid)
}

type failingReader struct{ err error }

func (r failingReader) ReadAt([]byte, int64) (int, error) { return 0, r.err }

// FuzzHeader: no input panics ReadHeader, and a header it accepts is
// consistent and survives being written again by NewWriter.
func FuzzHeader(f *testing.F) {
	f.Add(file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 8))
	f.Add(file(`{"__metadata__":{"k":"v"},"b":{"dtype":"BF16","shape":[1,3],"data_offsets":[0,6]},"c":{"dtype":"F16","shape":[0],"data_offsets":[6,6]}}`, 6))
	f.Add(file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"I32","shape":[],"data_offsets":[4,8]}}`, 8))
	f.Add(file(`{"\ud83d\ude00":{"dtype":"U32","shape":[1],"data_offsets":[0,4]}}`, 4))
	f.Add([]byte{255, 255, 255, 255, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := read(b)
		if err != nil {
			require.True(t, errors.Is(err, safetensors.ErrInvalid) || errors.Is(err, safetensors.ErrUnsupportedDType), "%v", err)
			return
		}
		var end int64
		for _, ti := range h.Tensors {
			require.Equal(t, end, ti.Begin)
			require.EqualValues(t, ti.Elements()*int64(ti.DType.Size()), ti.Bytes())
			end = ti.End
		}
		require.Equal(t, int64(len(b))-h.DataOffset, end)

		var buf bytes.Buffer
		w, err := safetensors.NewWriter(&buf, h.Tensors, h.Metadata)
		require.NoError(t, err)
		_, err = w.Write(make([]byte, end))
		require.NoError(t, err)
		require.NoError(t, w.Close())
		h2, err := read(buf.Bytes())
		require.NoError(t, err)
		require.Equal(t, len(h.Tensors), len(h2.Tensors))
		for _, ti := range h.Tensors {
			got, ok := h2.Tensor(ti.Name)
			require.True(t, ok, ti.Name)
			require.Equal(t, ti.DType, got.DType)
			require.Equal(t, ti.Shape, got.Shape)
		}
		require.Equal(t, len(h.Metadata), len(h2.Metadata))
	})
}

func TestErrorsNameTheTensor(t *testing.T) {
	_, err := read(file(`{"layers.2.bias":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, 8))
	require.True(t, strings.Contains(err.Error(), `"layers.2.bias"`), err.Error())
}

// I64 and F64, PyTorch's int64 (BatchNorm's num_batches_tracked) and
// float64, are 8 bytes an element both ways, and a size that disagrees
// with 8 bytes an element is refused.
func TestI64AndF64(t *testing.T) {
	var buf bytes.Buffer
	w, err := safetensors.NewWriter(&buf, []safetensors.TensorInfo{
		{Name: "n", DType: safetensors.I64, Shape: []int{}},
		{Name: "d", DType: safetensors.F64, Shape: []int{2}},
	}, nil)
	require.NoError(t, err)
	_, err = w.Write(make([]byte, 24))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	h, err := read(buf.Bytes())
	require.NoError(t, err)
	require.Equal(t, []safetensors.TensorInfo{
		{Name: "n", DType: safetensors.I64, Shape: []int{}, Begin: 0, End: 8},
		{Name: "d", DType: safetensors.F64, Shape: []int{2}, Begin: 8, End: 24},
	}, h.Tensors)
	_, err = read(file(`{"n":{"dtype":"I64","shape":[],"data_offsets":[0,4]}}`, 4))
	require.ErrorIs(t, err, safetensors.ErrInvalid)
	require.ErrorContains(t, err, "I64 [] needs 8")
}
