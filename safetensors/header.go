package safetensors

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MaxHeaderSize is the longest header ReadHeader reads: 100 MB, the
// reference implementation's limit. A longer claimed length is refused
// before anything is allocated for it.
const MaxHeaderSize = 100_000_000

// metadataKey is the header key of the metadata map, which no tensor may
// be called.
const metadataKey = "__metadata__"

// TensorInfo describes one tensor of a file: its name, dtype, shape and
// where its bytes lie, relative to the start of the data section
// (Header.DataOffset). NewWriter fills Begin and End itself. A plain
// value: safe to read from many goroutines while none writes it.
type TensorInfo struct {
	Name  string
	DType DType
	Shape []int
	// Begin and End are the tensor's data_offsets: its bytes are
	// [Begin, End) of the data section.
	Begin, End int64
}

// Elements returns the number of elements of t's shape (1 for a scalar).
// It is meaningful for a TensorInfo that ReadHeader or NewWriter
// accepted, whose sizes do not overflow.
func (t TensorInfo) Elements() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= int64(d)
	}
	return n
}

// Header is the parsed header of a file. Nothing changes it after
// ReadHeader returns it, so it may be read from many goroutines at once.
type Header struct {
	// Tensors are the file's tensors in the order of their data.
	Tensors []TensorInfo
	// Metadata is the "__metadata__" map; nil when the file has none.
	Metadata map[string]string
	// DataOffset is where the data section begins in the file: 8 plus
	// the header's length.
	DataOffset int64
}

// Tensor returns the tensor called name and whether the file has one.
func (h *Header) Tensor(name string) (TensorInfo, bool) {
	i := slices.IndexFunc(h.Tensors, func(t TensorInfo) bool { return t.Name == name })
	if i < 0 {
		return TensorInfo{}, false
	}
	return h.Tensors[i], true
}

// ReadHeader reads and validates the header of the safetensors file of
// size bytes that r reads (see the package documentation for what is
// checked). It reads the 8-byte length and the JSON, with two ReadAt
// calls, and none of the data; a file whose data is shorter or longer
// than its header says is refused. Errors wrap ErrInvalid,
// ErrUnsupportedDType or r's error. It is safe to call from many
// goroutines at once, on one r if r's ReadAt allows it (os.File's does).
func ReadHeader(r io.ReaderAt, size int64) (*Header, error) {
	if size < 8 {
		return nil, fmt.Errorf("%w: %d bytes is too short for the 8-byte header length", ErrInvalid, size)
	}
	var lenBuf [8]byte
	if err := readFull(r, lenBuf[:], 0); err != nil {
		return nil, fmt.Errorf("safetensors: reading the header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	switch {
	case n > MaxHeaderSize:
		return nil, fmt.Errorf("%w: header length %d exceeds the limit of %d bytes", ErrInvalid, n, MaxHeaderSize)
	case n > uint64(size-8):
		return nil, fmt.Errorf("%w: header length %d runs past the end of the file (%d bytes after the length)", ErrInvalid, n, size-8)
	}
	raw := make([]byte, n)
	if err := readFull(r, raw, 8); err != nil {
		return nil, fmt.Errorf("safetensors: reading the header: %w", err)
	}
	h, err := parseHeader(raw)
	if err != nil {
		return nil, err
	}
	h.DataOffset = 8 + int64(n)
	if err := h.checkLayout(size - h.DataOffset); err != nil {
		return nil, err
	}
	return h, nil
}

// readFull reads len(b) bytes at off, turning a short read into
// io.ErrUnexpectedEOF.
func readFull(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil // ReadAt may return io.EOF with the last bytes
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// parseHeader parses the header's JSON: one object of entries and
// metadata, each key once, nothing but whitespace after it.
func parseHeader(raw []byte) (*Header, error) {
	if !utf8.Valid(raw) {
		return nil, fmt.Errorf("%w: the header is not valid UTF-8", ErrInvalid)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("%w: the header does not begin with '{'", ErrInvalid)
	}
	if err := checkSurrogates(raw); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // the '{' checked above
		return nil, badJSON(err)
	}
	h := &Header{}
	seen := map[string]bool{}
	for dec.More() {
		key, err := stringToken(dec)
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("%w: the header names %q twice", ErrInvalid, key)
		}
		seen[key] = true
		if key == metadataKey {
			if h.Metadata, err = parseMetadata(dec); err != nil {
				return nil, err
			}
			continue
		}
		t, err := parseEntry(dec, key)
		if err != nil {
			return nil, err
		}
		h.Tensors = append(h.Tensors, t)
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, badJSON(err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, badJSON(err)
		}
		return nil, fmt.Errorf("%w: the header has %v after its object", ErrInvalid, tok)
	}
	return h, nil
}

func badJSON(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w: the header is not valid JSON: %v", ErrInvalid, err)
}

// stringToken reads a token that must be a string: an object's key.
func stringToken(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", badJSON(err)
	}
	s, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("%w: the header has %v where a key belongs", ErrInvalid, tok)
	}
	return s, nil
}

// expectDelim reads a token that must be the delimiter d, in what.
func expectDelim(dec *json.Decoder, d json.Delim, what string) error {
	tok, err := dec.Token()
	if err != nil {
		return badJSON(err)
	}
	if tok != d {
		return fmt.Errorf("%w: %s is %v, not %s", ErrInvalid, what, tokenText(tok), kindOf(d))
	}
	return nil
}

func kindOf(d json.Delim) string {
	if d == '[' {
		return "an array"
	}
	return "an object"
}

func tokenText(tok json.Token) string {
	if tok == nil {
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

// parseMetadata reads the "__metadata__" value: an object of strings, each
// key once, or null.
func parseMetadata(dec *json.Decoder) (map[string]string, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, badJSON(err)
	}
	if tok == nil {
		return nil, nil
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("%w: __metadata__ is %v, not an object of strings", ErrInvalid, tokenText(tok))
	}
	md := map[string]string{}
	for dec.More() {
		k, err := stringToken(dec)
		if err != nil {
			return nil, err
		}
		if _, dup := md[k]; dup {
			return nil, fmt.Errorf("%w: __metadata__ names %q twice", ErrInvalid, k)
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, badJSON(err)
		}
		v, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("%w: __metadata__ %q is %v, not a string", ErrInvalid, k, tokenText(tok))
		}
		md[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, badJSON(err)
	}
	return md, nil
}

// parseEntry reads the entry of the tensor called name: an object with
// "dtype", "shape" and "data_offsets", each once; other keys are skipped.
func parseEntry(dec *json.Decoder, name string) (TensorInfo, error) {
	t := TensorInfo{Name: name}
	if err := expectDelim(dec, '{', fmt.Sprintf("the entry of %q", name)); err != nil {
		return t, err
	}
	seen := map[string]bool{}
	for dec.More() {
		key, err := stringToken(dec)
		if err != nil {
			return t, err
		}
		if seen[key] {
			return t, fmt.Errorf("%w: tensor %q has two %q", ErrInvalid, name, key)
		}
		seen[key] = true
		switch key {
		case "dtype":
			err = parseDType(dec, &t)
		case "shape":
			t.Shape, err = parseInts(dec, name, key, -1)
		case "data_offsets":
			var offs []int
			offs, err = parseInts(dec, name, key, 2)
			if err == nil {
				t.Begin, t.End = int64(offs[0]), int64(offs[1])
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return t, badJSON(err)
			}
		}
		if err != nil {
			return t, err
		}
	}
	if _, err := dec.Token(); err != nil {
		return t, badJSON(err)
	}
	for _, k := range []string{"dtype", "shape", "data_offsets"} {
		if !seen[k] {
			return t, fmt.Errorf("%w: tensor %q has no %q", ErrInvalid, name, k)
		}
	}
	return t, nil
}

func parseDType(dec *json.Decoder, t *TensorInfo) error {
	tok, err := dec.Token()
	if err != nil {
		return badJSON(err)
	}
	s, ok := tok.(string)
	if !ok {
		return fmt.Errorf("%w: tensor %q has dtype %v, not a string", ErrInvalid, t.Name, tokenText(tok))
	}
	t.DType = DType(s)
	return t.DType.check(t.Name)
}

// parseInts reads an array of non-negative integers (want of them, or
// any number if want < 0): the key of the tensor called name.
func parseInts(dec *json.Decoder, name, key string, want int) ([]int, error) {
	if err := expectDelim(dec, '[', fmt.Sprintf("%q of tensor %q", key, name)); err != nil {
		return nil, err
	}
	out := []int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, badJSON(err)
		}
		num, ok := tok.(json.Number)
		if !ok {
			return nil, fmt.Errorf("%w: %q of tensor %q holds %v, not an integer", ErrInvalid, key, name, tokenText(tok))
		}
		v, err := strconv.ParseInt(string(num), 10, 64)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%w: %q of tensor %q holds %s, not an integer that fits 64 bits", ErrInvalid, key, name, num)
		case v < 0:
			return nil, fmt.Errorf("%w: %q of tensor %q holds %d: negative", ErrInvalid, key, name, v)
		}
		out = append(out, int(v))
	}
	if _, err := dec.Token(); err != nil {
		return nil, badJSON(err)
	}
	if want >= 0 && len(out) != want {
		return nil, fmt.Errorf("%w: %q of tensor %q has %d values, not %d", ErrInvalid, key, name, len(out), want)
	}
	return out, nil
}

// checkSurrogates refuses \u escapes of UTF-16 surrogates that are not a
// high one followed by a low one: encoding/json would decode them to
// U+FFFD, a name other than the file's, where the reference implementation
// refuses them. Every backslash in valid JSON begins an escape inside a
// string, so a scan of all the bytes is exact for valid JSON; invalid JSON
// is left for the decoder to refuse.
func checkSurrogates(raw []byte) error {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if i+1 >= len(raw) {
			return nil // invalid JSON: the decoder reports it
		}
		if raw[i+1] != 'u' {
			i++ // skip the escaped character (a backslash, say)
			continue
		}
		r, ok := hex4(raw, i+2)
		if !ok {
			return nil // invalid JSON: the decoder reports it
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if lo, ok := lowSurrogateAt(raw, i+6); ok && lo >= 0xDC00 && lo < 0xE000 {
				i += 11
				continue
			}
			return fmt.Errorf("%w: the header escapes a lone UTF-16 surrogate (\\u%04X)", ErrInvalid, r)
		case r >= 0xDC00 && r < 0xE000:
			return fmt.Errorf("%w: the header escapes a lone UTF-16 surrogate (\\u%04X)", ErrInvalid, r)
		}
		i += 5
	}
	return nil
}

// lowSurrogateAt returns the code of a \uXXXX escape at raw[i:].
func lowSurrogateAt(raw []byte, i int) (rune, bool) {
	if i+1 >= len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
		return 0, false
	}
	return hex4(raw, i+2)
}

func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(raw[i:i+4]), 16, 32)
	return rune(v), err == nil
}

// checkLayout checks the tensors' sizes and that their data covers the
// dataSize bytes of the data section exactly, without overlaps or holes,
// and sorts them by offset.
func (h *Header) checkLayout(dataSize int64) error {
	for _, t := range h.Tensors {
		if err := t.checkSize(); err != nil {
			return err
		}
	}
	slices.SortFunc(h.Tensors, func(a, b TensorInfo) int {
		return cmp.Or(cmp.Compare(a.Begin, b.Begin), cmp.Compare(a.End, b.End))
	})
	var end int64
	for i, t := range h.Tensors {
		switch {
		case t.Begin < end:
			return fmt.Errorf("%w: tensor %q [%d, %d) overlaps tensor %q [%d, %d)", ErrInvalid, t.Name, t.Begin, t.End, h.Tensors[i-1].Name, h.Tensors[i-1].Begin, end)
		case t.Begin > end:
			return fmt.Errorf("%w: the data has a hole [%d, %d) before tensor %q", ErrInvalid, end, t.Begin, t.Name)
		}
		end = t.End
	}
	switch {
	case end > dataSize:
		return fmt.Errorf("%w: the tensors' data ends at %d, past the end of the data section (%d bytes): truncated?", ErrInvalid, end, dataSize)
	case end < dataSize:
		return fmt.Errorf("%w: the data section has %d bytes after the last tensor's", ErrInvalid, dataSize-end)
	}
	return nil
}

// checkSize checks that t's offsets span the bytes its dtype and shape
// give, computed without overflow.
func (t TensorInfo) checkSize() error {
	n, err := t.bytes()
	if err != nil {
		return err
	}
	switch {
	case t.End < t.Begin:
		return fmt.Errorf("%w: tensor %q has data_offsets [%d, %d): end before begin", ErrInvalid, t.Name, t.Begin, t.End)
	case uint64(t.End-t.Begin) != n:
		return fmt.Errorf("%w: tensor %q has %d bytes of data, but %s %v needs %d", ErrInvalid, t.Name, t.End-t.Begin, t.DType, t.Shape, n)
	}
	return nil
}

// bytes returns the size of t's data by its dtype and shape, or an error
// if it overflows an int64.
func (t TensorInfo) bytes() (uint64, error) {
	n := uint64(t.DType.Size())
	for _, d := range t.Shape {
		if d < 0 {
			return 0, fmt.Errorf("%w: tensor %q has shape %v: a negative dimension", ErrInvalid, t.Name, t.Shape)
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, fmt.Errorf("%w: tensor %q has shape %v, too large to address", ErrInvalid, t.Name, t.Shape)
		}
		n = lo
	}
	return n, nil
}

// Bytes returns the size of t's data, End - Begin.
func (t TensorInfo) Bytes() int64 { return t.End - t.Begin }
