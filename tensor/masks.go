package tensor

import (
	"fmt"
	"math"

	"github.com/wgtensor/wgtensor/internal/kernels"
)

// Tril returns x with the elements above diagonal k of its last two
// dimensions set to zero (PyTorch's and NumPy's tril): element (i, j) of
// each matrix is kept where j − i <= k. k = 0 is the main diagonal, k > 0
// keeps diagonals above it, k < 0 drops some below it. x has rank 2 or
// more, of any dtype. It is an elementwise op (a select on the element's
// position), so it fuses with its neighbours; every kept element keeps its
// bits. Package grad differentiates it: the gradient is Tril of the
// gradient.
func (e *Engine) Tril(x *Tensor, k int) *Tensor { return e.triangle(callerSite(), "tril", x, k) }

// Triu returns x with the elements below diagonal k of its last two
// dimensions set to zero (PyTorch's and NumPy's triu): element (i, j) of
// each matrix is kept where j − i >= k. See Tril.
func (e *Engine) Triu(x *Tensor, k int) *Tensor { return e.triangle(callerSite(), "triu", x, k) }

func (e *Engine) triangle(site stack, name string, x *Tensor, k int) *Tensor {
	o, bad := e.beginLazy(name, site, x)
	if bad != nil {
		return bad
	}
	defer o.end()
	o.attrs.Diagonal = k
	r := x.Rank()
	if r < 2 {
		return o.fail(ErrShape, "%s takes a tensor of rank 2 or more", name)
	}
	rows, cols := x.shape[r-2], x.shape[r-1]
	// The node reads the column and row of element i from its flat index:
	// h2 is the columns, h3 a matrix's elements; k, clamped to [-rows,
	// cols] (beyond which every element is kept or dropped alike), is
	// passed as two floats that hold it exactly, k = 65536·s.x + s.y.
	kk := min(max(k, -rows), cols)
	hi := math.Floor(float64(kk) / 65536)
	lo := float64(kk) - hi*65536
	cmp := "<="
	if name == "triu" {
		cmp = ">="
	}
	T := x.dtype.wgsl()
	expr := fmt.Sprintf("select(%s(0), a0, i32(i %% h2) - i32((i %% h3) / h2) %s i32(s.x) * 65536 + i32(s.y))", T, cmp)
	n := kernels.Node{Name: name, Out: T, Expr: expr}
	p := kernels.NodeParams{Scalars: [4]float32{float32(hi), float32(lo)}, Words: [2]uint32{uint32(max(cols, 1)), uint32(max(rows*cols, 1))}}
	return o.maskOp(n, p, x.shape.clone(), x.dtype, x)
}

// MaskedFill returns x with value where mask is nonzero (true), the
// elements of x elsewhere (PyTorch's masked_fill, tfjs's where with a
// constant): mask broadcasts with x and the result has their broadcast
// shape. mask is Uint32 or Int32 (comparisons give Uint32), or Float32,
// nonzero meaning any value but ±0 (NaN included). value is converted to
// x's dtype as Cast converts (truncated toward zero and saturated for an
// integer x, NaN giving 0). It is an elementwise op and fuses with its
// neighbours; the elements of x it keeps keep their bits. Package grad
// differentiates it with respect to x: the gradient is zero where filled.
func (e *Engine) MaskedFill(x, mask *Tensor, value float32) *Tensor {
	o, bad := e.beginLazy("masked_fill", callerSite(), x, mask)
	if bad != nil {
		return bad
	}
	defer o.end()
	o.attrs.Value = float64(value)
	shape, err := broadcast(x.shape, mask.shape)
	if err != nil {
		return o.fail(ErrShape, "mask does not broadcast with x: %v", err)
	}
	var word uint32
	switch x.dtype {
	case Float32, Float16, BFloat16: // a half x's node rounds it
		word = math.Float32bits(value)
	case Int32, Int8: // an int8 x's node wraps it
		word = uint32(castToInt32(value))
	case Uint32:
		word = castToUint32(value)
	}
	var test string
	switch mask.dtype {
	case Float32, Float16, BFloat16:
		test = "(bitcast<u32>(a1) & 0x7fffffffu) != 0u"
	case Int32, Int8:
		test = "a1 != 0"
	default:
		test = "a1 != 0u"
	}
	T := x.dtype.wgsl()
	expr := fmt.Sprintf("select(a0, bitcast<%s>(h2), %s)", T, test)
	n := kernels.Node{Name: "masked_fill", Out: T, Expr: expr}
	return o.maskOp(n, kernels.NodeParams{Words: [2]uint32{word}}, shape, x.dtype, x, mask)
}

// castToInt32 converts v as Cast does to int32.
func castToInt32(v float32) int32 {
	switch {
	case v != v:
		return 0
	case v >= math.MaxInt32:
		return math.MaxInt32
	case v <= math.MinInt32:
		return math.MinInt32
	}
	return int32(v)
}

// castToUint32 converts v as Cast does to uint32.
func castToUint32(v float32) uint32 {
	switch {
	case !(v > 0):
		return 0
	case v >= math.MaxUint32:
		return math.MaxUint32
	}
	return uint32(v)
}

// maskOp records the elementwise node n over the inputs in, into a new
// tensor of shape and dtype. Unlike mapOp it never wraps the node for a
// device that flushes subnormals: the mask ops only select bits.
func (o *op) maskOp(n kernels.Node, p kernels.NodeParams, shape Shape, dtype DType, in ...*Tensor) *Tensor {
	res, err := o.alloc(shape, dtype)
	if err != nil {
		return o.e.errTensor(err)
	}
	if err := o.record(res, n, p, in); err != nil {
		res.Dispose()
		return o.e.errTensor(err)
	}
	return res
}
