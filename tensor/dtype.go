package tensor

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/wgtensor/wgtensor/internal/kernels"
)

// DType is a tensor's element type. Float32, Int32 and Uint32 are 32 bits
// wide; Float16 and BFloat16 are 16 bits wide, stored two to a 32-bit word
// and computed in float32; Int8 is 8 bits wide, stored four to a word and
// computed in int32 (see the package doc's table of dtypes).
type DType uint8

// The dtypes. Comparisons return Uint32 tensors of 0 and 1.
const (
	Float32 DType = iota
	Int32
	Uint32
	// Float16 is IEEE 754 binary16: 5 exponent bits, 10 fraction bits,
	// largest finite value 65,504.
	Float16
	// BFloat16 is float32's upper half: float32's range, 7 fraction bits.
	BFloat16
	// Int8 is a two's complement byte, -128 to 127: quantized weights
	// (see MatMul and QuantizeInt8). An op's int8 result keeps its value's
	// low 8 bits, as C's and PyTorch's int8 arithmetic wraps.
	Int8
)

func (d DType) String() string {
	switch d {
	case Float32:
		return "float32"
	case Int32:
		return "int32"
	case Uint32:
		return "uint32"
	case Float16:
		return "float16"
	case BFloat16:
		return "bfloat16"
	case Int8:
		return "int8"
	}
	return "dtype(" + strconv.Itoa(int(d)) + ")"
}

// Size is the bytes an element of d takes: 4, 2 for Float16 and
// BFloat16, 1 for Int8 (a tensor's storage is rounded up to a whole 32-bit
// word).
func (d DType) Size() int {
	switch {
	case d.half():
		return 2
	case d == Int8:
		return 1
	}
	return 4
}

// narrow reports whether d's elements are parts of words (Float16,
// BFloat16, Int8).
func (d DType) narrow() bool { return d.Size() < 4 }

// perWord is how many elements of d a 32-bit word holds.
func (d DType) perWord() int { return 4 / d.Size() }

// half reports whether d is 16 bits wide.
func (d DType) half() bool { return d == Float16 || d == BFloat16 }

// IsFloat reports whether d holds floating-point values: Float32,
// Float16 or BFloat16.
func (d DType) IsFloat() bool { return d == Float32 || d.half() }

// storage is how kernels find d's elements in memory.
func (d DType) storage() kernels.Storage {
	switch d {
	case Float16:
		return kernels.Float16
	case BFloat16:
		return kernels.BFloat16
	case Int8:
		return kernels.Int8
	}
	return kernels.Word
}

// wgsl is the WGSL scalar type kernels compute d in: f32 for the
// half-width dtypes.
func (d DType) wgsl() kernels.Type {
	switch d {
	case Int32, Int8:
		return kernels.I32
	case Uint32:
		return kernels.U32
	}
	return kernels.F32
}

func (d DType) valid() bool { return d < numDTypes }

// numDTypes counts the dtypes.
const numDTypes = Int8 + 1

// Shape is a tensor's dimensions, outermost first. The empty shape is a
// scalar.
type Shape []int

// MaxElements is the most elements a tensor may have. The product of a
// shape's nonzero dimensions may not pass it either, so that every size,
// stride and offset of every tensor, empty ones included, fits the
// kernels' 32-bit indices, and a kernel's thread index, which runs up to a
// workgroup past the element count, never wraps.
const MaxElements = math.MaxInt32

// MaxRank is the most dimensions a tensor may have. It bounds the metadata
// a kernel takes (a few words per dimension).
const MaxRank = 32

// Size is the number of elements: the product of the dimensions, 1 for a
// scalar. It never wraps: it is -1 if a dimension is negative or the
// product passes math.MaxInt. A tensor's shape always has a Size of at
// most MaxElements.
func (s Shape) Size() int {
	if slices.ContainsFunc(s, func(d int) bool { return d < 0 }) {
		return -1
	}
	if slices.Contains(s, 0) {
		return 0
	}
	n := 1
	for _, d := range s {
		if n > math.MaxInt/d {
			return -1
		}
		n *= d
	}
	return n
}

// check returns an error unless s may be a tensor's shape: at most MaxRank
// dimensions, none negative, and the product of the nonzero ones at most
// MaxElements. Every shape a tensor gets passes it first.
func (s Shape) check() error {
	if len(s) > MaxRank {
		return fmt.Errorf("%d dimensions; a tensor has at most %d (MaxRank)", len(s), MaxRank)
	}
	n := 1 // the product of the nonzero dimensions so far
	for i, d := range s {
		switch {
		case d < 0:
			return fmt.Errorf("dimension %d of %v is negative", i, s)
		case d == 0:
		case d > MaxElements/n:
			return fmt.Errorf("%v passes %d elements (MaxElements) along its nonzero dimensions", s, MaxElements)
		default:
			n *= d
		}
	}
	return nil
}

// addDims sums dimensions and counts that are each at least 0, and
// reports false if the sum passes MaxElements: it never wraps.
func addDims(vs ...int) (int, bool) {
	sum := 0
	for _, v := range vs {
		if v < 0 || v > MaxElements-sum {
			return 0, false
		}
		sum += v
	}
	return sum, true
}

// Equal reports whether s and o have the same dimensions.
func (s Shape) Equal(o Shape) bool {
	if len(s) != len(o) {
		return false
	}
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

func (s Shape) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(d))
	}
	b.WriteByte(']')
	return b.String()
}

// clone returns a copy of s that shares nothing with it.
func (s Shape) clone() Shape { return append(Shape{}, s...) }

// strides returns s's row-major strides in elements.
func (s Shape) strides() []int {
	st := make([]int, len(s))
	acc := 1
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= s[i]
	}
	return st
}

// broadcast returns the NumPy broadcast of the shapes.
func broadcast(shapes ...Shape) (Shape, error) {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make(Shape, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := rank - len(s)
		for i, d := range s {
			switch o := out[off+i]; {
			case o == d || d == 1:
			case o == 1:
				out[off+i] = d
			default:
				return nil, fmt.Errorf("dimension %d is %d in one shape and %d in another", off+i-rank, o, d)
			}
		}
	}
	return out, nil
}

// broadcastStrides returns the strides that read a tensor of shape s as
// the larger shape out: 0 along broadcast dimensions.
func broadcastStrides(s, out Shape) []int {
	st := make([]int, len(out))
	inner := s.strides()
	off := len(out) - len(s)
	for i := range s {
		if s[i] != 1 || out[off+i] == 1 {
			st[off+i] = inner[i]
		}
	}
	return st
}

// axis normalises a possibly negative axis of a rank-r shape.
func normAxis(axis, rank int) (int, bool) {
	if axis < 0 {
		axis += rank
	}
	return axis, axis >= 0 && axis < rank
}
