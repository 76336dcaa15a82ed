package tensor

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/wgtensor/wgtensor/internal/kernels"
)

// DType is a tensor's element type. Every dtype is 32 bits wide.
type DType uint8

// The dtypes. Comparisons return Uint32 tensors of 0 and 1.
const (
	Float32 DType = iota
	Int32
	Uint32
)

func (d DType) String() string {
	switch d {
	case Float32:
		return "float32"
	case Int32:
		return "int32"
	case Uint32:
		return "uint32"
	}
	return "dtype(" + strconv.Itoa(int(d)) + ")"
}

// wgsl is d's WGSL scalar type.
func (d DType) wgsl() kernels.Type {
	switch d {
	case Int32:
		return kernels.I32
	case Uint32:
		return kernels.U32
	}
	return kernels.F32
}

func (d DType) valid() bool { return d <= Uint32 }

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
