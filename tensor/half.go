package tensor

import (
	"context"
	"encoding/binary"
	"math"

	"github.com/wgtensor/wgtensor/internal/half"
)

// FromFloat16Bits creates a float16 tensor holding bits, each an IEEE 754
// binary16 value as it lies in memory (Float16Bits makes them from
// float32s). The tensor takes two bytes an element.
func (e *Engine) FromFloat16Bits(bits []uint16, shape ...int) *Tensor {
	return fromHalfBits(e, callerSite(), bits, Float16, shape)
}

// FromBFloat16Bits creates a bfloat16 tensor holding bits (BFloat16Bits
// makes them from float32s).
func (e *Engine) FromBFloat16Bits(bits []uint16, shape ...int) *Tensor {
	return fromHalfBits(e, callerSite(), bits, BFloat16, shape)
}

// fromHalfBits uploads bits, two to a word, as a tensor of dtype.
func fromHalfBits(e *Engine, site stack, bits []uint16, dtype DType, shape []int) *Tensor {
	return fromPacked(e, site, "from "+dtype.String()+" bits", len(bits), dtype, shape, func(data []byte) {
		for i, b := range bits {
			binary.LittleEndian.PutUint16(data[2*i:], b)
		}
	})
}

// fromPacked uploads n elements of a narrow dtype as a tensor of shape
// (nil: [n]): pack writes them into the storage's bytes, whole words
// whose padding is zero.
func fromPacked(e *Engine, site stack, name string, n int, dtype DType, shape []int, pack func(data []byte)) *Tensor {
	o, bad := e.begin(name, site)
	if bad != nil {
		return bad
	}
	defer o.end()
	s := Shape(shape).clone()
	if shape == nil {
		s = Shape{n}
	}
	if err := s.check(); err != nil {
		return o.fail(ErrShape, "%v", err)
	}
	if s.Size() != n {
		return o.fail(ErrShape, "%d values do not fill shape %v (%d elements)", n, s, s.Size())
	}
	t, err := o.alloc(s, dtype)
	if err != nil {
		return e.errTensor(err)
	}
	if n == 0 {
		return t
	}
	data := make([]byte, storageBytes(n, dtype))
	pack(data)
	if err := e.dev.Write(t.buf(), 0, data); err != nil {
		t.Dispose()
		return o.failErr(err)
	}
	return t
}

// Uint16s reads a float16 or bfloat16 tensor back as its elements' bits,
// blocking until they arrive or ctx ends. (Float32s reads it widened.)
func (t *Tensor) Uint16s(ctx context.Context) ([]uint16, error) {
	if err := checkRead(t, t.dtype, -1); err != nil {
		return nil, err
	}
	if !t.dtype.half() {
		return nil, opErr("read", []Shape{t.shape}, ErrDType, "tensor is %s, not float16 or bfloat16", t.dtype)
	}
	return readHalf(ctx, t)
}

// readHalf reads a half-width tensor's bits.
func readHalf(ctx context.Context, t *Tensor) ([]uint16, error) {
	data, err := readStorage(ctx, t)
	if err != nil {
		return nil, err
	}
	out := make([]uint16, t.Size())
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(data[2*i:])
	}
	return out, nil
}

// readStorage reads a tensor's storage bytes, whole words.
func readStorage(ctx context.Context, t *Tensor) ([]byte, error) {
	if err := t.holdForRead(); err != nil {
		return nil, err
	}
	p := t.eng.dev.ReadAsync(t.st.buf, 0, t.bytes())
	t.st.release() // the copy is recorded: the buffer may go
	return p.Await(ctx)
}

// widened reads a half-width tensor back as float32s, exactly.
func widened(ctx context.Context, t *Tensor) ([]float32, error) {
	bits, err := readHalf(ctx, t)
	if err != nil {
		return nil, err
	}
	if t.dtype == BFloat16 {
		return BFloat16Values(bits), nil
	}
	return Float16Values(bits), nil
}

// widenedWords reads a narrow tensor back as the words of its values
// widened to the type kernels compute it in: float32 bits for the
// half-width dtypes, int32 for Int8.
func widenedWords(ctx context.Context, t *Tensor) ([]uint32, error) {
	if t.dtype == Int8 {
		v, err := readInt8(ctx, t)
		return convert(v, func(b int8) uint32 { return uint32(int32(b)) }), err
	}
	v, err := widened(ctx, t)
	return convert(v, math.Float32bits), err
}

// roundedTo returns y, an op's float32 result, rounded to dtype where
// that is float16 or bfloat16 (by a fused cast, y then disposed): how the
// ops that compute a half result in float32 end. y as it is otherwise, or
// where it carries an error.
func (o *op) roundedTo(dtype DType, y *Tensor) *Tensor {
	if !dtype.half() || y.err != nil {
		return y
	}
	defer y.Dispose()
	return o.mapOp("cast", "a0", dtype, []*Tensor{y}, [4]float32{})
}

// Float16Bits rounds v to float16 as Cast does (to nearest, ties to even;
// ±Inf past 65,504; NaN stays NaN) and returns the bits.
func Float16Bits(v []float32) []uint16 { return convert(v, half.Float16From32) }

// Float16Values widens float16 bits to float32, exactly.
func Float16Values(bits []uint16) []float32 { return convert(bits, half.Float16To32) }

// BFloat16Bits rounds v to bfloat16 as Cast does and returns the bits.
func BFloat16Bits(v []float32) []uint16 { return convert(v, half.BFloat16From32) }

// BFloat16Values widens bfloat16 bits to float32, exactly.
func BFloat16Values(bits []uint16) []float32 { return convert(bits, half.BFloat16To32) }

func convert[A, B any](v []A, f func(A) B) []B {
	out := make([]B, len(v))
	for i, x := range v {
		out[i] = f(x)
	}
	return out
}
