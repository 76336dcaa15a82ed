package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Writer writes a safetensors file to an io.Writer: NewWriter writes the
// header, then Write takes the tensors' data, in the order they were
// given, and Close checks that all of it came. It holds no data itself:
// each Write goes straight to the underlying writer.
//
// A Writer must be used by one goroutine at a time.
type Writer struct {
	w       io.Writer
	tensors []TensorInfo
	size    int64 // bytes of data the header declares
	written int64 // bytes of data written so far
	err     error // the first error, returned by every later call
}

// NewWriter checks tensors (their Name, DType and Shape; Begin and End are
// ignored), lays their data out one after the other in the order given,
// and writes the header (with metadata as "__metadata__", if it is not
// nil) to w. Names must be unique, valid UTF-8 and not "__metadata__";
// dtypes supported; dimensions non-negative. Errors wrap ErrInvalid or
// ErrUnsupportedDType (nothing is written then), or w's error. The
// Writer it returns belongs to one goroutine at a time; NewWriter itself
// shares nothing between calls.
func NewWriter(w io.Writer, tensors []TensorInfo, metadata map[string]string) (*Writer, error) {
	laid, size, err := layout(tensors)
	if err != nil {
		return nil, err
	}
	for k, v := range metadata {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return nil, fmt.Errorf("%w: metadata %q: not valid UTF-8", ErrInvalid, k)
		}
	}
	hdr := encodeHeader(laid, metadata)
	var lenBuf [8]byte
	binary.LittleEndian.PutUint64(lenBuf[:], uint64(len(hdr)))
	if _, err := w.Write(lenBuf[:]); err != nil {
		return nil, fmt.Errorf("safetensors: writing the header: %w", err)
	}
	if _, err := w.Write(hdr); err != nil {
		return nil, fmt.Errorf("safetensors: writing the header: %w", err)
	}
	return &Writer{w: w, tensors: laid, size: size}, nil
}

// layout checks tensors and returns copies with their offsets, one after
// the other, and the size of the data section.
func layout(tensors []TensorInfo) ([]TensorInfo, int64, error) {
	out := make([]TensorInfo, len(tensors))
	seen := map[string]bool{}
	var off int64
	for i, t := range tensors {
		switch {
		case t.Name == metadataKey:
			return nil, 0, fmt.Errorf("%w: no tensor may be called %q", ErrInvalid, metadataKey)
		case !utf8.ValidString(t.Name):
			return nil, 0, fmt.Errorf("%w: tensor name %q is not valid UTF-8", ErrInvalid, t.Name)
		case seen[t.Name]:
			return nil, 0, fmt.Errorf("%w: two tensors are called %q", ErrInvalid, t.Name)
		}
		seen[t.Name] = true
		if err := t.DType.check(t.Name); err != nil {
			return nil, 0, err
		}
		n, err := t.bytes()
		if err != nil {
			return nil, 0, err
		}
		if int64(n) > maxInt64-off {
			return nil, 0, fmt.Errorf("%w: the data passes 2^63 bytes at tensor %q", ErrInvalid, t.Name)
		}
		out[i] = TensorInfo{Name: t.Name, DType: t.DType, Shape: slices.Clone(t.Shape), Begin: off, End: off + int64(n)}
		off += int64(n)
	}
	return out, off, nil
}

const maxInt64 = 1<<63 - 1

// encodeHeader returns the header's JSON, metadata first, then the
// tensors in order, padded with spaces to a multiple of 8 bytes.
func encodeHeader(tensors []TensorInfo, metadata map[string]string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	if metadata != nil {
		b.WriteString(`"__metadata__":{`)
		for i, k := range slices.Sorted(maps.Keys(metadata)) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(&b, k)
			b.WriteByte(':')
			writeString(&b, metadata[k])
		}
		b.WriteByte('}')
	}
	for i, t := range tensors {
		if i > 0 || metadata != nil {
			b.WriteByte(',')
		}
		writeString(&b, t.Name)
		b.WriteString(`:{"dtype":`)
		writeString(&b, string(t.DType))
		b.WriteString(`,"shape":[`)
		for j, d := range t.Shape {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(d))
		}
		fmt.Fprintf(&b, `],"data_offsets":[%d,%d]}`, t.Begin, t.End)
	}
	b.WriteByte('}')
	for b.Len()%8 != 0 {
		b.WriteByte(' ')
	}
	return b.Bytes()
}

// writeString writes s as a JSON string, without escaping <, > and & as
// json.Marshal does (both are valid JSON; this is shorter).
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a valid UTF-8 string always encodes
	b.Truncate(b.Len() - 1) // Encode's newline
}

// Tensors returns the tensors as the header lays them out, with their
// offsets: a copy the caller owns.
func (w *Writer) Tensors() []TensorInfo {
	out := slices.Clone(w.tensors)
	for i := range out {
		out[i].Shape = slices.Clone(out[i].Shape)
	}
	return out
}

// Write writes the next len(p) bytes of the tensors' data, which follow
// each other in the order NewWriter was given. Writing more than the
// header declares fails with ErrInvalid and writes nothing; after an
// error, every call returns it.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if int64(len(p)) > w.size-w.written {
		w.err = fmt.Errorf("%w: %d bytes written past the %d the header declares", ErrInvalid, w.written+int64(len(p))-w.size, w.size)
		return 0, w.err
	}
	n, err := w.w.Write(p)
	w.written += int64(n)
	if err != nil {
		w.err = fmt.Errorf("safetensors: writing data at %d: %w", w.written, err)
		return n, w.err
	}
	return n, nil
}

// Close checks that all the data the header declares was written; it does
// not close the underlying writer. A file closed short fails with
// ErrInvalid: its header promises data it lacks.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.written != w.size {
		w.err = fmt.Errorf("%w: %d of the %d bytes of data the header declares were written", ErrInvalid, w.written, w.size)
		return w.err
	}
	return nil
}
