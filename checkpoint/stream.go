package checkpoint

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/safetensors"
	"github.com/wgtensor/wgtensor/tensor"
)

// flushEvery is how many chunks a load uploads between submissions: the
// device keeps a staging buffer per chunk until its batch is submitted,
// so this bounds the staging memory a load of any size holds to about
// flushEvery chunks.
const flushEvery = 8

// streamer moves tensors from a file into device storage through one
// chunk of host memory.
type streamer struct {
	e       *tensor.Engine
	r       io.ReaderAt
	data    int64  // the file offset of the data section
	buf     []byte // the chunk; a multiple of 8 bytes
	pending int    // chunks uploaded since the last flush
}

// newStreamer makes a streamer with a chunk of chunk bytes, a multiple of
// 8 (chunkSize's).
func newStreamer(e *tensor.Engine, r io.ReaderAt, data int64, chunk int) *streamer {
	return &streamer{e: e, r: r, data: data, buf: make([]byte, chunk)}
}

// stream writes the file's tensor l.info into l.dst a chunk at a time,
// converting F16, BF16 and F64 to float32 and I64 to int32 or uint32, or
// writing F16, BF16 and I8 into float16, bfloat16 and int8 as they are.
// If write is false it only reads and converts, writing nothing: the
// check of an 8-byte dtype's values before a load writes anything.
func (s *streamer) stream(ctx context.Context, l load, write bool) error {
	in := l.info.DType.Size()           // bytes per element in the file
	perChunk := len(s.buf) / max(4, in) // elements per chunk
	to := tensorDType(l.info.DType)
	if l.dst != nil {
		to = l.dst.DType()
	}
	asIs := to.Size() < 4 // narrow, as the file has it (fits checked the dtypes)
	if asIs {
		perChunk = len(s.buf) / in // whole words: the chunk is a multiple of 8 bytes
	}
	n := int(l.info.Elements())
	for first := 0; first < n; first += perChunk {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("checkpoint: load %q: %w", l.info.Name, err)
		}
		count := min(perChunk, n-first)
		if asIs {
			// Its bytes, in whole words.
			if err := s.streamAsIs(l, in, first, count, write); err != nil {
				return err
			}
			continue
		}
		out := s.buf[:4*count]
		// A 2-byte dtype is read into the chunk's upper half and widened
		// in place, front to back: element i's 4 bytes never reach an
		// element not yet read (see widen). An 8-byte one is read into
		// the whole chunk and narrowed in place, front to back.
		raw := s.buf[:in*count]
		if in < 4 {
			raw = out[len(out)-in*count:]
		}
		off := s.data + l.info.Begin + int64(first*in)
		if err := readFull(s.r, raw, off); err != nil {
			return fmt.Errorf("checkpoint: load %q: reading bytes [%d, %d) of the file: %w", l.info.Name, off, off+int64(len(raw)), err)
		}
		widen(l.info.DType, out, raw)
		if i, v := narrow(l.info.DType, to, out, raw); i >= 0 {
			return fmt.Errorf("%w: %q element %d is %s in the file, which %s does not hold exactly", ErrMismatch, l.info.Name, first+i, v, to)
		}
		if !write {
			continue
		}
		if err := s.e.WriteBytes(l.dst, 4*first, out); err != nil {
			return fmt.Errorf("checkpoint: load %q: %w", l.info.Name, err)
		}
		if err := s.uploaded(); err != nil {
			return fmt.Errorf("checkpoint: load %q: %w", l.info.Name, err)
		}
	}
	return nil
}

// streamAsIs writes elements [first, first+count) of the file's narrow
// tensor l.info (float16, bfloat16 or int8: size bytes an element) into
// l.dst, of the same dtype, as the file holds them: first·size is a
// multiple of 4 (of the chunk), and the last word's padding is zeros.
func (s *streamer) streamAsIs(l load, size, first, count int, write bool) error {
	raw := s.buf[:size*count]
	off := s.data + l.info.Begin + int64(size*first)
	if err := readFull(s.r, raw, off); err != nil {
		return fmt.Errorf("checkpoint: load %q: reading bytes [%d, %d) of the file: %w", l.info.Name, off, off+int64(len(raw)), err)
	}
	if !write {
		return nil
	}
	words := s.buf[:(size*count+3)&^3]
	clear(words[len(raw):])
	if err := s.e.WriteBytes(l.dst, size*first, words); err != nil {
		return fmt.Errorf("checkpoint: load %q: %w", l.info.Name, err)
	}
	if err := s.uploaded(); err != nil {
		return fmt.Errorf("checkpoint: load %q: %w", l.info.Name, err)
	}
	return nil
}

// uploaded counts a chunk and submits the uploads every flushEvery.
func (s *streamer) uploaded() error {
	s.pending++
	if s.pending < flushEvery {
		return nil
	}
	s.pending = 0
	return s.e.Flush()
}

// newTensor creates a tensor for the file's tensor info and streams its
// data in; on failure it leaves nothing.
func (s *streamer) newTensor(ctx context.Context, info safetensors.TensorInfo) (*tensor.Tensor, error) {
	t := s.e.Zeros(tensorDType(info.DType), info.Shape...)
	if err := t.Err(); err != nil {
		return nil, fmt.Errorf("checkpoint: load %q: %w", info.Name, err)
	}
	if err := s.stream(ctx, load{info: info, dst: t}, true); err != nil {
		t.Dispose()
		return nil, err
	}
	return t, nil
}

// loadState streams the optimizer state l into a temporary tensor and
// hands it to opt.SetState under its name without OptimizerPrefix.
func (s *streamer) loadState(ctx context.Context, l load, opt optim.Optimizer) error {
	t, err := s.newTensor(ctx, l.info)
	if err != nil {
		return err
	}
	defer t.Dispose()
	name := l.info.Name[len(OptimizerPrefix):]
	if err := opt.SetState(name, t); err != nil {
		return fmt.Errorf("checkpoint: load %q: %w", l.info.Name, err)
	}
	return nil
}

// readFull reads len(b) bytes at off, a short read being an error.
func readFull(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil // ReadAt may return io.EOF with the last bytes
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// widen turns the file's elements in raw, the tail of out, into the
// little-endian float32 bytes of out, in place: F16 and BF16 are
// converted, 4-byte dtypes are there already. For 2-byte elements raw is
// out's upper half, and writing element i (bytes [4i, 4i+4)) overwrites
// only raw bytes of elements up to i, which were read before.
func widen(d safetensors.DType, out, raw []byte) {
	var conv func(uint16) uint32
	switch d {
	case safetensors.F16:
		conv = halfToFloat32Bits
	case safetensors.BF16:
		conv = bfloat16ToFloat32Bits
	default:
		return
	}
	for i := range len(out) / 4 {
		h := binary.LittleEndian.Uint16(raw[2*i:])
		binary.LittleEndian.PutUint32(out[4*i:], conv(h))
	}
}

// narrow turns the file's 8-byte elements in raw, which begins where out
// does and is twice its length, into the little-endian 4-byte elements of
// dtype to in out, in place, front to back (element i's 4 bytes lie in
// the 8 of elements up to i/2, read already): F64 into float32 and I64
// into int32 or uint32. It returns the index of the first element to
// does not hold exactly, and its value, or -1; a NaN is a NaN. Other
// dtypes it leaves.
func narrow(d safetensors.DType, to tensor.DType, out, raw []byte) (int, string) {
	if d != safetensors.F64 && d != safetensors.I64 {
		return -1, ""
	}
	for i := range len(out) / 4 {
		v := binary.LittleEndian.Uint64(raw[8*i:])
		var w uint32
		switch {
		case d == safetensors.F64:
			f := math.Float64frombits(v)
			g := float32(f)
			if float64(g) != f && !math.IsNaN(f) {
				return i, fmt.Sprint(f)
			}
			w = math.Float32bits(g)
		case to == tensor.Uint32:
			x := int64(v)
			if x < 0 || x > math.MaxUint32 {
				return i, fmt.Sprint(x)
			}
			w = uint32(x)
		default:
			x := int64(v)
			if x < math.MinInt32 || x > math.MaxInt32 {
				return i, fmt.Sprint(x)
			}
			w = uint32(int32(x))
		}
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return -1, ""
}

// halfToFloat32Bits converts an IEEE 754 binary16 to the binary32 of the
// same value: exactly, as every half is a float32. Subnormal halves become
// normal float32s; a NaN keeps its sign and payload (shifted into the top
// of the wider fraction), so a quiet NaN stays quiet.
func halfToFloat32Bits(h uint16) uint32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf, NaN
		return sign | 0xff<<23 | frac<<13
	case exp != 0: // normal
		return sign | (exp+127-15)<<23 | frac<<13
	case frac == 0: // ±0
		return sign
	}
	// Subnormal: frac·2^-24. Shift the leading one up to the implicit bit.
	e := uint32(127 - 15 + 1)
	for frac&0x400 == 0 {
		frac <<= 1
		e--
	}
	return sign | e<<23 | (frac&0x3ff)<<13
}

// bfloat16ToFloat32Bits converts a bfloat16, the upper half of a binary32,
// to that binary32.
func bfloat16ToFloat32Bits(b uint16) uint32 { return uint32(b) << 16 }
