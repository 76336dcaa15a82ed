package tensor_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Edge values of each dtype: NaN, infinities, signed zeros, subnormals,
// the extremes, and values next to the integer types' limits.
var (
	edgeF32 = []float32{
		float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, negZero,
		1e-45, 1e-40, -1e-39, -1e-45, math.SmallestNonzeroFloat32 * 3, 1.17549435e-38, -1.17549435e-38,
		math.MaxFloat32, -math.MaxFloat32, 1e38, -1e38, 1e20, -1e20, 1e-20,
		2147483520, 2147483648, 2147483904, -2147483648, -2147483904, -2147483520,
		4294967040, 4294967296, 3e9, -3e9, 16777216, 16777217, 8388609.5,
		1, -1, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.3, 0.1, -0.1, 3, -3, 7, 100, -100,
		0.999, 88.5, -104, 1e-30, 2, -2,
	}
	edgeI32 = []int32{0, 1, -1, 2, -2, 3, -3, 7, -7, 100, -100, 65536, -65537, 12345678, -12345678,
		1 << 30, -(1 << 30), 1 << 24, (1 << 24) + 1, math.MaxInt32, math.MaxInt32 - 1, math.MinInt32, math.MinInt32 + 1}
	edgeU32 = []uint32{0, 1, 2, 3, 7, 100, 65536, 12345678, 1 << 24, (1 << 24) + 1, 1<<31 - 1, 1 << 31, 1<<31 + 1,
		3e9, math.MaxUint32 - 1, math.MaxUint32}
)

var negZero = float32(math.Copysign(0, -1))

// bits is a tensor's contents as raw words, with its dtype.
type bits struct {
	dtype tensor.DType
	w     []uint32
}

func f32Bits(v []float32) bits {
	w := make([]uint32, len(v))
	for i, x := range v {
		w[i] = math.Float32bits(x)
	}
	return bits{tensor.Float32, w}
}

func i32Bits(v []int32) bits {
	w := make([]uint32, len(v))
	for i, x := range v {
		w[i] = uint32(x)
	}
	return bits{tensor.Int32, w}
}

func u32Bits(v []uint32) bits { return bits{tensor.Uint32, v} }

func edges(d tensor.DType) bits {
	switch d {
	case tensor.Int32:
		return i32Bits(edgeI32)
	case tensor.Uint32:
		return u32Bits(edgeU32)
	}
	return f32Bits(edgeF32)
}

// pairs returns every pair of b's values as two operands of len(b)² each.
func pairs(b bits) (bits, bits) {
	n := len(b.w)
	x, y := make([]uint32, n*n), make([]uint32, n*n)
	for i := range n {
		for j := range n {
			x[i*n+j], y[i*n+j] = b.w[i], b.w[j]
		}
	}
	return bits{b.dtype, x}, bits{b.dtype, y}
}

func upload(e *tensor.Engine, b bits) *tensor.Tensor {
	switch b.dtype {
	case tensor.Int32:
		v := make([]int32, len(b.w))
		for i, w := range b.w {
			v[i] = int32(w)
		}
		return e.FromInt32s(v)
	case tensor.Uint32:
		return e.FromUint32s(b.w)
	}
	v := make([]float32, len(b.w))
	for i, w := range b.w {
		v[i] = math.Float32frombits(w)
	}
	return e.FromFloat32s(v)
}

func download(t testing.TB, x *tensor.Tensor) bits {
	t.Helper()
	switch x.DType() {
	case tensor.Int32:
		return i32Bits(i32s(t, x))
	case tensor.Uint32:
		return u32Bits(u32s(t, x))
	}
	return f32Bits(f32s(t, x))
}

// show formats a word of dtype d for messages.
func show(d tensor.DType, w uint32) string {
	switch d {
	case tensor.Int32:
		return fmt.Sprint(int32(w))
	case tensor.Uint32:
		return fmt.Sprint(w)
	}
	return fmt.Sprintf("%g (%#08x)", math.Float32frombits(w), w)
}

// f32Ulps is the distance between two float32s in units in the last
// place, counting -0 and +0 as one apart; NaN is no distance from NaN and
// infinitely far from anything else.
func f32Ulps(a, b uint32) uint64 {
	fa, fb := math.Float32frombits(a), math.Float32frombits(b)
	if fa != fa || fb != fb {
		if fa != fa && fb != fb {
			return 0
		}
		return math.MaxUint64
	}
	ka, kb := orderedKey(a), orderedKey(b)
	if ka > kb {
		return uint64(ka - kb)
	}
	return uint64(kb - ka)
}

// orderedKey maps float32 bits to integers in the floats' order, -0 just
// below +0.
func orderedKey(w uint32) int64 {
	if w>>31 != 0 {
		return -int64(w&0x7fffffff) - 1
	}
	return int64(w)
}

// sameBits reports whether a and b are the same value of dtype d: equal
// words, or two NaNs (payloads aside).
func sameBits(d tensor.DType, a, b uint32) bool {
	if d == tensor.Float32 {
		return f32Ulps(a, b) == 0
	}
	return a == b
}

// elemCase is an elementwise op checked over edge values against a
// plain-Go reference.
type elemCase struct {
	name string
	op   func(e *tensor.Engine, x ...*tensor.Tensor) *tensor.Tensor
	ref  func(x ...uint32) uint32 // the result's word from the operands' words
	ulps uint64                   // tolerance for float results; 0: exact
	abs  float64                  // and an absolute tolerance, for results that cancel
	// keepsBits marks an op that only moves, selects or compares: the same
	// bits on every device. Any other float32 op is arithmetic, and on a
	// device that flushes subnormals its reference is flushedRef's.
	keepsBits bool
}

// flushedRef is ref on a device that flushes subnormals: the IEEE result
// of the float32 operands flushed, flushed.
func flushedRef(ref func(x ...uint32) uint32, in []bits) func(x ...uint32) uint32 {
	return func(x ...uint32) uint32 {
		y := make([]uint32, len(x))
		for i, w := range x {
			y[i] = w
			if in[i].dtype == tensor.Float32 {
				y[i] = flushWord(w)
			}
		}
		return flushWord(ref(y...))
	}
}

// flushWord turns a subnormal float32's bits into a zero of its sign.
func flushWord(w uint32) uint32 {
	if w&0x7f800000 == 0 {
		return w & 0x80000000
	}
	return w
}

// checkElementwise runs c over in, unfused and fused, and requires both to
// agree bit for bit with each other (NaN payloads aside) and with c.ref
// within c.ulps (see elemCase.keepsBits for a device that flushes
// subnormals). Fused, each operand reaches the op through another fused
// op and the result leaves through one, so every value crosses a fused
// boundary.
func checkElementwise(t *testing.T, e *tensor.Engine, c elemCase, in ...bits) {
	t.Helper()
	unfused := runElementwise(t, e, c, false, in)
	fused := runElementwise(t, e, c, true, in)
	require.Equal(t, len(in[0].w), len(unfused.w), c.name)
	if e.Device().Float32().FlushesSubnormals && unfused.dtype == tensor.Float32 && !c.keepsBits {
		c.ref = flushedRef(c.ref, in)
	}
	bad := 0
	for i := range unfused.w {
		args := make([]uint32, len(in))
		desc := ""
		for j, b := range in {
			args[j] = b.w[i]
			desc += show(b.dtype, b.w[i]) + ", "
		}
		want := c.ref(args...)
		got := unfused.w[i]
		ok := sameBits(unfused.dtype, want, got)
		if !ok && unfused.dtype == tensor.Float32 && want&0x7fffffff != 0 { // a zero's sign is exact
			ok = c.ulps > 0 && f32Ulps(want, got) <= c.ulps ||
				math.Abs(float64(math.Float32frombits(want))-float64(math.Float32frombits(got))) <= c.abs
		}
		if !ok {
			bad++
			if bad <= 8 {
				t.Errorf("%s(%s): got %s, want %s", c.name, desc[:len(desc)-2], show(unfused.dtype, got), show(unfused.dtype, want))
			}
		}
		if !sameBits(unfused.dtype, got, fused.w[i]) {
			bad++
			if bad <= 8 {
				t.Errorf("%s(%s): fused %s, unfused %s", c.name, desc[:len(desc)-2], show(unfused.dtype, fused.w[i]), show(unfused.dtype, got))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d mismatches over %d elements", c.name, bad, len(unfused.w))
	}
}

func runElementwise(t *testing.T, e *tensor.Engine, c elemCase, fuse bool, in []bits) bits {
	t.Helper()
	require.NoError(t, e.SetFusion(fuse))
	defer func() { require.NoError(t, e.SetFusion(true)) }()
	one := e.Ones(tensor.Uint32)
	defer one.Dispose()
	args := make([]*tensor.Tensor, len(in))
	for i, b := range in {
		x := upload(e, b)
		defer x.Dispose()
		if fuse {
			x = e.Where(one, x, x)
			defer x.Dispose()
		}
		args[i] = x
	}
	y := c.op(e, args...)
	defer y.Dispose()
	if fuse {
		y = e.Where(one, y, y)
		defer y.Dispose()
	}
	return download(t, y)
}

// f32Ref lifts a float64 function to float32 words, rounding once.
func f32Ref(f func(x ...float64) float64) func(x ...uint32) uint32 {
	return func(w ...uint32) uint32 {
		x := make([]float64, len(w))
		for i, v := range w {
			x[i] = float64(math.Float32frombits(v))
		}
		return math.Float32bits(float32(f(x...)))
	}
}

func unaryOp(f func(*tensor.Engine, *tensor.Tensor) *tensor.Tensor) func(*tensor.Engine, ...*tensor.Tensor) *tensor.Tensor {
	return func(e *tensor.Engine, x ...*tensor.Tensor) *tensor.Tensor { return f(e, x[0]) }
}

func binaryOp(f func(*tensor.Engine, *tensor.Tensor, *tensor.Tensor) *tensor.Tensor) func(*tensor.Engine, ...*tensor.Tensor) *tensor.Tensor {
	return func(e *tensor.Engine, x ...*tensor.Tensor) *tensor.Tensor { return f(e, x[0], x[1]) }
}

// castRef is Cast's rule for a float to an integer type with range
// [lo, hi]: truncate toward zero, then clamp; NaN gives 0.
func castRef(v, lo, hi float64) float64 {
	switch {
	case math.IsNaN(v):
		return 0
	case v <= lo:
		return lo
	case v >= hi:
		return hi
	}
	return math.Trunc(v)
}

// TestCastEdges checks every cast over edge values: float to integer
// truncates toward zero and saturates, NaN gives 0 (issue 11, item 2).
func TestCastEdges(t *testing.T) {
	e := testgpu.Engine(t)
	to := func(d tensor.DType) func(*tensor.Engine, ...*tensor.Tensor) *tensor.Tensor {
		return func(e *tensor.Engine, x ...*tensor.Tensor) *tensor.Tensor { return e.Cast(x[0], d) }
	}
	f32 := func(w ...uint32) float64 { return float64(math.Float32frombits(w[0])) }
	cases := []struct {
		from tensor.DType
		c    elemCase
	}{
		{tensor.Float32, elemCase{name: "f32→i32", op: to(tensor.Int32), ref: func(w ...uint32) uint32 {
			return uint32(int32(castRef(f32(w...), math.MinInt32, math.MaxInt32)))
		}}},
		{tensor.Float32, elemCase{name: "f32→u32", op: to(tensor.Uint32), ref: func(w ...uint32) uint32 {
			return uint32(castRef(f32(w...), 0, math.MaxUint32))
		}}},
		{tensor.Float32, elemCase{name: "f32→f32", op: to(tensor.Float32), ref: func(w ...uint32) uint32 { return w[0] }, keepsBits: true}},
		{tensor.Int32, elemCase{name: "i32→f32", op: to(tensor.Float32), ref: func(w ...uint32) uint32 {
			return math.Float32bits(float32(int32(w[0])))
		}}},
		{tensor.Int32, elemCase{name: "i32→u32", op: to(tensor.Uint32), ref: func(w ...uint32) uint32 { return w[0] }}},
		{tensor.Uint32, elemCase{name: "u32→f32", op: to(tensor.Float32), ref: func(w ...uint32) uint32 {
			return math.Float32bits(float32(w[0]))
		}}},
		{tensor.Uint32, elemCase{name: "u32→i32", op: to(tensor.Int32), ref: func(w ...uint32) uint32 { return w[0] }}},
	}
	for _, c := range cases {
		checkElementwise(t, e, c.c, edges(c.from))
	}
}

// TestCastChainFused is the reported case (issue 11, item 3): a fused float→int→float chain
// must see the saturated integer, as the unfused chain does.
func TestCastChainFused(t *testing.T) {
	e := testgpu.Engine(t)
	in := []float32{3e9, -3e9, 1e38, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), -0.5, 2.5}
	for _, fuse := range []bool{false, true} {
		require.NoError(t, e.SetFusion(fuse))
		x := e.FromFloat32s(in)
		i := e.Cast(x, tensor.Int32)
		f := e.Cast(i, tensor.Float32)
		u := e.Cast(x, tensor.Uint32)
		g := e.Cast(u, tensor.Float32)
		require.Equal(t, []float32{2147483647, -2147483648, 2147483647, 2147483647, -2147483648, 0, 0, 2}, f32s(t, f), "fused %v", fuse)
		require.Equal(t, []float32{3e9, 0, 4294967295, 4294967295, 0, 0, 0, 2}, f32s(t, g), "fused %v", fuse)
		for _, y := range []*tensor.Tensor{x, i, f, u, g} {
			y.Dispose()
		}
	}
	require.NoError(t, e.SetFusion(true))
}

// TestFillSaturatesAsCast checks that Fill converts an out-of-range value
// as Cast does (issue 11, item 2).
func TestFillSaturatesAsCast(t *testing.T) {
	e := testgpu.Engine(t)
	vals := []float64{3e9, -3e9, 1e38, math.Inf(1), math.Inf(-1), math.NaN(), -0.5, 2.5, -1, 4294967295, 4294967296, 16777217, math.MinInt32, math.MaxInt32}
	for _, v := range vals {
		i := e.Fill(tensor.Int32, v)
		u := e.Fill(tensor.Uint32, v)
		require.Equal(t, []int32{int32(castRef(v, math.MinInt32, math.MaxInt32))}, i32s(t, i), "Fill(Int32, %v)", v)
		require.Equal(t, []uint32{uint32(castRef(v, 0, math.MaxUint32))}, u32s(t, u), "Fill(Uint32, %v)", v)
		i.Dispose()
		u.Dispose()
	}
}

// TestFusedBoundaryKeepsBits checks that a value passed between fused ops
// is exactly what a store and a load would give (issue 11, item 3): no subnormal flushed, no
// compare and select merged into a max that treats -0 or NaN otherwise.
func TestFusedBoundaryKeepsBits(t *testing.T) {
	e := testgpu.Engine(t)
	whereGreater := elemCase{name: "where(greater(x, y), x, y)",
		op: func(e *tensor.Engine, x ...*tensor.Tensor) *tensor.Tensor {
			c := e.Greater(x[0], x[1])
			defer c.Dispose()
			return e.Where(c, x[0], x[1])
		}}
	mulAdd := elemCase{name: "x*y + x",
		op: func(e *tensor.Engine, x ...*tensor.Tensor) *tensor.Tensor {
			m := e.Mul(x[0], x[1])
			defer m.Dispose()
			return e.Add(m, x[0])
		}}
	for _, c := range []elemCase{whereGreater, mulAdd} {
		x, y := pairs(edges(tensor.Float32))
		unfused := runElementwise(t, e, c, false, []bits{x, y})
		fused := runElementwise(t, e, c, true, []bits{x, y})
		for i := range unfused.w {
			if !sameBits(tensor.Float32, unfused.w[i], fused.w[i]) {
				t.Errorf("%s with x=%s, y=%s: fused %s, unfused %s", c.name, show(tensor.Float32, x.w[i]), show(tensor.Float32, y.w[i]),
					show(tensor.Float32, fused.w[i]), show(tensor.Float32, unfused.w[i]))
			}
		}
	}
}

// TestArithmeticEdges checks that float Add, Sub, Mul and Div are IEEE's,
// subnormals included, on edge and random pairs.
func TestArithmeticEdges(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(17, 18))
	x, y := pairs(edges(tensor.Float32))
	for _, c := range []elemCase{
		{name: "add", op: binaryOp((*tensor.Engine).Add), ref: f32Ref(func(x ...float64) float64 { return x[0] + x[1] })},
		{name: "sub", op: binaryOp((*tensor.Engine).Sub), ref: f32Ref(func(x ...float64) float64 { return x[0] - x[1] })},
		{name: "mul", op: binaryOp((*tensor.Engine).Mul), ref: f32Ref(func(x ...float64) float64 { return x[0] * x[1] })},
		{name: "div", op: binaryOp((*tensor.Engine).Div), ref: f32Ref(func(x ...float64) float64 { return x[0] / x[1] })},
	} {
		// float64 holds the exact sum, product and a quotient precise
		// enough that rounding it to float32 is IEEE's float32 result.
		checkElementwise(t, e, c, x, y)
		checkElementwise(t, e, c, randFiniteBits(r, 4096), randFiniteBits(r, 4096))
	}
}

// f32Unary lifts a float64 function of one float to a reference.
func f32Unary(f func(float64) float64) func(x ...uint32) uint32 {
	return f32Ref(func(x ...float64) float64 { return f(x[0]) })
}

// smallF32 is edgeF32 without the finite values too large for a
// transcendental function's argument reduction.
func smallF32() bits {
	var v []float32
	for _, x := range edgeF32 {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) || math.Abs(float64(x)) <= 100 {
			v = append(v, x)
		}
	}
	return f32Bits(v)
}

// TestUnaryFloatEdges checks every float unary op over edge values: NaN
// propagates, -0 keeps its sign where IEEE keeps it, subnormals are
// exact (issue 11, items 4 and 8).
func TestUnaryFloatEdges(t *testing.T) {
	e := testgpu.Engine(t)
	gelu := func(x float64) float64 { return 0.5 * x * (1 + math.Tanh(0.7978845608*(x+0.044715*x*x*x))) }
	sigmoid := func(x float64) float64 {
		if x < 0 {
			return math.Exp(x) / (1 + math.Exp(x))
		}
		return 1 / (1 + math.Exp(-x))
	}
	signRef := func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x + 0 // NaN stays NaN; ±0 is +0, as NumPy and PyTorch
	}
	relu := func(x float64) float64 {
		if x > 0 || math.IsNaN(x) {
			return x
		}
		return 0
	}
	leaky := func(x float64) float64 {
		if x > 0 {
			return x
		}
		return x * float64(float32(0.1))
	}
	clip := func(x float64) float64 {
		switch {
		case math.IsNaN(x):
			return x
		case x < -1:
			return -1
		case x > 2.5:
			return 2.5
		}
		return x
	}
	rsqrt := func(x float64) float64 { return 1 / math.Sqrt(x) }
	un := func(f func(*tensor.Engine, *tensor.Tensor) *tensor.Tensor) func(*tensor.Engine, ...*tensor.Tensor) *tensor.Tensor {
		return unaryOp(f)
	}
	cases := []struct {
		c  elemCase
		in bits
	}{
		{elemCase{name: "neg", op: un((*tensor.Engine).Neg), ref: f32Unary(func(x float64) float64 { return -x }), keepsBits: true}, edges(tensor.Float32)},
		{elemCase{name: "abs", op: un((*tensor.Engine).Abs), ref: f32Unary(math.Abs), keepsBits: true}, edges(tensor.Float32)},
		{elemCase{name: "sign", op: un((*tensor.Engine).Sign), ref: f32Unary(signRef), keepsBits: true}, edges(tensor.Float32)},
		{elemCase{name: "square", op: un((*tensor.Engine).Square), ref: f32Unary(func(x float64) float64 { return x * x })}, edges(tensor.Float32)},
		{elemCase{name: "relu", op: un((*tensor.Engine).Relu), ref: f32Unary(relu), keepsBits: true}, edges(tensor.Float32)},
		{elemCase{name: "floor", op: un((*tensor.Engine).Floor), ref: f32Unary(math.Floor)}, edges(tensor.Float32)},
		{elemCase{name: "ceil", op: un((*tensor.Engine).Ceil), ref: f32Unary(math.Ceil)}, edges(tensor.Float32)},
		{elemCase{name: "round", op: un((*tensor.Engine).Round), ref: f32Unary(math.RoundToEven)}, edges(tensor.Float32)},
		{elemCase{name: "exp", op: un((*tensor.Engine).Exp), ref: f32Unary(math.Exp), ulps: 4}, smallF32()},
		{elemCase{name: "log", op: un((*tensor.Engine).Log), ref: f32Unary(math.Log), ulps: 4}, edges(tensor.Float32)},
		{elemCase{name: "sqrt", op: un((*tensor.Engine).Sqrt), ref: f32Unary(math.Sqrt)}, edges(tensor.Float32)},
		{elemCase{name: "rsqrt", op: un((*tensor.Engine).Rsqrt), ref: f32Unary(rsqrt), ulps: 1}, edges(tensor.Float32)},
		{elemCase{name: "sin", op: un((*tensor.Engine).Sin), ref: f32Unary(math.Sin), ulps: 4}, edges(tensor.Float32)},
		{elemCase{name: "cos", op: un((*tensor.Engine).Cos), ref: f32Unary(math.Cos), ulps: 4}, edges(tensor.Float32)},
		{elemCase{name: "tanh", op: un((*tensor.Engine).Tanh), ref: f32Unary(math.Tanh), ulps: 8}, edges(tensor.Float32)},
		{elemCase{name: "sigmoid", op: un((*tensor.Engine).Sigmoid), ref: f32Unary(sigmoid), ulps: 8}, edges(tensor.Float32)},
		{elemCase{name: "gelu", op: un((*tensor.Engine).Gelu), ref: f32Unary(gelu), ulps: 8, abs: 1e-6}, edges(tensor.Float32)},
		{elemCase{name: "leaky_relu", op: un(func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.LeakyRelu(x, 0.1) }),
			ref: f32Unary(leaky)}, edges(tensor.Float32)},
		{elemCase{name: "clip", op: un(func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Clip(x, -1, 2.5) }),
			ref: f32Unary(clip), keepsBits: true}, edges(tensor.Float32)},
	}
	for _, c := range cases {
		checkElementwise(t, e, c.c, c.in)
	}
}

// ieeeMax and ieeeMin are IEEE 754-2019 maximum and minimum: NaN if
// either operand is NaN, -0 < +0.
func ieeeMax(x ...float64) float64 {
	a, b := x[0], x[1]
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return math.NaN()
	case a == b:
		if math.Signbit(a) {
			return b
		}
		return a
	}
	return math.Max(a, b)
}

func ieeeMin(x ...float64) float64 {
	a, b := x[0], x[1]
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return math.NaN()
	case a == b:
		if math.Signbit(a) {
			return a
		}
		return b
	}
	return math.Min(a, b)
}

// boolWord is a comparison's result word.
func boolWord(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// TestCompareEdges checks the comparisons over edge pairs of every dtype:
// false with NaN except NotEqual, -0 == +0, subnormals not zero (issue
// 11, item 4).
func TestCompareEdges(t *testing.T) {
	e := testgpu.Engine(t)
	f := func(w uint32) float32 { return math.Float32frombits(w) }
	type cmp struct {
		name string
		op   func(*tensor.Engine, *tensor.Tensor, *tensor.Tensor) *tensor.Tensor
		f32  func(a, b float32) bool
		i32  func(a, b int32) bool
		u32  func(a, b uint32) bool
	}
	for _, c := range []cmp{
		{"equal", (*tensor.Engine).Equal, func(a, b float32) bool { return a == b }, func(a, b int32) bool { return a == b }, func(a, b uint32) bool { return a == b }},
		{"not_equal", (*tensor.Engine).NotEqual, func(a, b float32) bool { return a != b }, func(a, b int32) bool { return a != b }, func(a, b uint32) bool { return a != b }},
		{"less", (*tensor.Engine).Less, func(a, b float32) bool { return a < b }, func(a, b int32) bool { return a < b }, func(a, b uint32) bool { return a < b }},
		{"less_equal", (*tensor.Engine).LessEqual, func(a, b float32) bool { return a <= b }, func(a, b int32) bool { return a <= b }, func(a, b uint32) bool { return a <= b }},
		{"greater", (*tensor.Engine).Greater, func(a, b float32) bool { return a > b }, func(a, b int32) bool { return a > b }, func(a, b uint32) bool { return a > b }},
		{"greater_equal", (*tensor.Engine).GreaterEqual, func(a, b float32) bool { return a >= b }, func(a, b int32) bool { return a >= b }, func(a, b uint32) bool { return a >= b }},
	} {
		refs := map[tensor.DType]func(x ...uint32) uint32{
			tensor.Float32: func(x ...uint32) uint32 { return boolWord(c.f32(f(x[0]), f(x[1]))) },
			tensor.Int32:   func(x ...uint32) uint32 { return boolWord(c.i32(int32(x[0]), int32(x[1]))) },
			tensor.Uint32:  func(x ...uint32) uint32 { return boolWord(c.u32(x[0], x[1])) },
		}
		for _, d := range []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32} {
			x, y := pairs(edges(d))
			checkElementwise(t, e, elemCase{name: c.name + " " + d.String(), op: binaryOp(c.op), ref: refs[d]}, x, y)
		}
	}
}

// TestMaximumMinimumEdges checks Maximum and Minimum over edge pairs: NaN
// propagates, -0 < +0 (issue 11, item 4).
func TestMaximumMinimumEdges(t *testing.T) {
	e := testgpu.Engine(t)
	x, y := pairs(edges(tensor.Float32))
	checkElementwise(t, e, elemCase{name: "maximum", op: binaryOp((*tensor.Engine).Maximum), ref: f32Ref(ieeeMax), keepsBits: true}, x, y)
	checkElementwise(t, e, elemCase{name: "minimum", op: binaryOp((*tensor.Engine).Minimum), ref: f32Ref(ieeeMin), keepsBits: true}, x, y)
	xi, yi := pairs(edges(tensor.Int32))
	checkElementwise(t, e, elemCase{name: "maximum int32", op: binaryOp((*tensor.Engine).Maximum),
		ref: func(x ...uint32) uint32 { return uint32(max(int32(x[0]), int32(x[1]))) }}, xi, yi)
	xu, yu := pairs(edges(tensor.Uint32))
	checkElementwise(t, e, elemCase{name: "minimum uint32", op: binaryOp((*tensor.Engine).Minimum),
		ref: func(x ...uint32) uint32 { return min(x[0], x[1]) }}, xu, yu)
}

// numpyModFlushing is NumPy's float mod: fmod, then the divisor added
// when the signs differ (in float32, as NumPy's float32 loop); a zero has
// the divisor's sign. With flush, as on a device that flushes subnormals,
// the exact remainder, an arithmetic result, is flushed before the rest.
func numpyModFlushing(flush bool, x ...uint32) uint32 {
	a, b := math.Float32frombits(x[0]), math.Float32frombits(x[1])
	r := float32(math.Mod(float64(a), float64(b)))
	if flush {
		r = math.Float32frombits(flushWord(math.Float32bits(r)))
	}
	switch {
	case r != r:
	case r == 0:
		r = float32(math.Copysign(0, float64(b)))
	case (r < 0) != (b < 0):
		r += b
	}
	return math.Float32bits(r)
}

// modRef is numpyModFlushing as e's device computes it.
func modRef(e *tensor.Engine) func(x ...uint32) uint32 {
	flush := e.Device().Float32().FlushesSubnormals
	return func(x ...uint32) uint32 { return numpyModFlushing(flush, x...) }
}

// floorDivMod is floored division and modulo of int32, with NumPy's
// results for a zero divisor (0, 0) and for MinInt32 / -1 (MinInt32, 0).
func floorDivMod(a, b int32) (int32, int32) {
	if b == 0 {
		return 0, 0
	}
	if b == -1 {
		return -a, 0 // wraps for MinInt32
	}
	q, r := a/b, a%b
	if r != 0 && (r < 0) != (b < 0) {
		q, r = q-1, r+b
	}
	return q, r
}

// TestDivModEdges checks float Mod against NumPy's, and integer Div and
// Mod floored, by zero and at MinInt32 / -1 (issue 11, items 6 and 7).
func TestDivModEdges(t *testing.T) {
	e := testgpu.Engine(t)
	x, y := pairs(edges(tensor.Float32))
	checkElementwise(t, e, elemCase{name: "mod float32", op: binaryOp((*tensor.Engine).Mod), ref: modRef(e)}, x, y)
	xi, yi := pairs(edges(tensor.Int32))
	checkElementwise(t, e, elemCase{name: "div int32", op: binaryOp((*tensor.Engine).Div),
		ref: func(x ...uint32) uint32 { q, _ := floorDivMod(int32(x[0]), int32(x[1])); return uint32(q) }}, xi, yi)
	checkElementwise(t, e, elemCase{name: "mod int32", op: binaryOp((*tensor.Engine).Mod),
		ref: func(x ...uint32) uint32 { _, r := floorDivMod(int32(x[0]), int32(x[1])); return uint32(r) }}, xi, yi)
	xu, yu := pairs(edges(tensor.Uint32))
	checkElementwise(t, e, elemCase{name: "div uint32", op: binaryOp((*tensor.Engine).Div), ref: func(x ...uint32) uint32 {
		if x[1] == 0 {
			return 0
		}
		return x[0] / x[1]
	}}, xu, yu)
	checkElementwise(t, e, elemCase{name: "mod uint32", op: binaryOp((*tensor.Engine).Mod), ref: func(x ...uint32) uint32 {
		if x[1] == 0 {
			return 0
		}
		return x[0] % x[1]
	}}, xu, yu)
}

// TestModRandomExact (issue 11, item 6) checks float Mod bit for bit over random finite
// pairs of every magnitude, where the reported version was off by up to
// 6,144 ulp.
func TestModRandomExact(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(11, 12))
	checkElementwise(t, e, elemCase{name: "mod float32", op: binaryOp((*tensor.Engine).Mod), ref: modRef(e)},
		randFiniteBits(r, 4096), randFiniteBits(r, 4096))
}

// randFiniteBits returns n random finite float32s (see randFinite).
func randFiniteBits(r *rand.Rand, n int) bits {
	w := make([]uint32, n)
	for i := range w {
		w[i] = randFinite(r)
	}
	return bits{tensor.Float32, w}
}

// randFinite returns the bits of a random finite float32 of any sign and
// exponent, subnormals included.
func randFinite(r *rand.Rand) uint32 {
	for {
		if w := r.Uint32(); w&0x7f800000 != 0x7f800000 {
			return w
		}
	}
}

// TestIntDivModIdentity (issue 11, item 7) checks Div(a, b)*b + Mod(a, b) == a (wrapping)
// over random int32 pairs, with MinInt32, MaxInt32, -1 and 1 mixed in.
func TestIntDivModIdentity(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(13, 14))
	n := 4096
	special := []int32{math.MinInt32, math.MaxInt32, -1, 1, -2, 2}
	av, bv := make([]int32, n), make([]int32, n)
	for i := range n {
		av[i], bv[i] = int32(r.Uint32()), int32(r.Uint32()>>r.IntN(32))
		if r.IntN(4) == 0 {
			av[i] = special[r.IntN(len(special))]
		}
		if r.IntN(4) == 0 {
			bv[i] = special[r.IntN(len(special))]
		}
		if bv[i] == 0 {
			bv[i] = 1
		}
	}
	a, b := e.FromInt32s(av), e.FromInt32s(bv)
	defer a.Dispose()
	defer b.Dispose()
	q, m := e.Div(a, b), e.Mod(a, b)
	defer q.Dispose()
	defer m.Dispose()
	qb := e.Mul(q, b)
	defer qb.Dispose()
	back := e.Add(qb, m)
	defer back.Dispose()
	got, mods := i32s(t, back), i32s(t, m)
	for i := range n {
		require.Equal(t, av[i], got[i], "Div(%d, %d)*%d + Mod(%d, %d)", av[i], bv[i], bv[i], av[i], bv[i])
		if mods[i] != 0 {
			require.Equal(t, bv[i] < 0, mods[i] < 0, "Mod(%d, %d) = %d has the divisor's sign", av[i], bv[i], mods[i])
		}
	}
}

// TestPowEdges checks Pow over edge pairs against Go's math.Pow, which
// follows C99 Annex F.9.4.4 as NumPy does (issue 11, item 5).
func TestPowEdges(t *testing.T) {
	e := testgpu.Engine(t)
	x, y := pairs(edges(tensor.Float32))
	checkElementwise(t, e, elemCase{name: "pow", op: binaryOp((*tensor.Engine).Pow), ref: f32Ref(func(x ...float64) float64 {
		return math.Pow(x[0], x[1])
	}), ulps: 4}, x, y)
}

// nearHalfPiMultiples returns the float32s nearest to k pi/2 and their
// neighbours, for k small and huge: where sin or cos is smallest, so an
// inexact argument reduction shows most.
func nearHalfPiMultiples() bits {
	var w []uint32
	for k := 1.0; k < 1e30; k = math.Ceil(k * 1.37) {
		c := math.Float32bits(float32(k * math.Pi / 2))
		w = append(w, c-1, c, c+1, c|0x80000000)
	}
	return bits{tensor.Float32, w}
}

// randRange returns n float32 bits uniform in [lo, hi), or log-uniform in
// magnitude when logScale (lo and hi then bound the exponent of 2).
func randRange(r *rand.Rand, n int, lo, hi float64, logScale bool) bits {
	w := make([]uint32, n)
	for i := range w {
		v := lo + (hi-lo)*r.Float64()
		if logScale {
			v = math.Exp2(v)
		}
		w[i] = math.Float32bits(float32(v))
	}
	return bits{tensor.Float32, w}
}

// TestTranscendentalsRandom checks the library's own functions within
// their stated ulp over their whole ranges, subnormal arguments and
// results included.
func TestTranscendentalsRandom(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(15, 16))
	sigmoid := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	for _, c := range []struct {
		c  elemCase
		in bits
	}{
		{elemCase{name: "exp", op: unaryOp((*tensor.Engine).Exp), ref: f32Unary(math.Exp), ulps: 2}, randRange(r, 2048, -103, 88, false)},
		{elemCase{name: "log", op: unaryOp((*tensor.Engine).Log), ref: f32Unary(math.Log), ulps: 2}, randRange(r, 2048, -149, 128, true)},
		{elemCase{name: "log near 1", op: unaryOp((*tensor.Engine).Log), ref: f32Unary(math.Log), ulps: 2}, randRange(r, 2048, 0.5, 2, false)},
		{elemCase{name: "tanh", op: unaryOp((*tensor.Engine).Tanh), ref: f32Unary(math.Tanh), ulps: 4}, randRange(r, 2048, -12, 12, false)},
		{elemCase{name: "tanh small", op: unaryOp((*tensor.Engine).Tanh), ref: f32Unary(math.Tanh), ulps: 4}, randRange(r, 2048, -149, 0, true)},
		{elemCase{name: "sigmoid", op: unaryOp((*tensor.Engine).Sigmoid), ref: f32Unary(sigmoid), ulps: 4}, randRange(r, 2048, -110, 30, false)},
		{elemCase{name: "sqrt", op: unaryOp((*tensor.Engine).Sqrt), ref: f32Unary(math.Sqrt)}, randRange(r, 2048, -149, 128, true)},
		{elemCase{name: "sin", op: unaryOp((*tensor.Engine).Sin), ref: f32Unary(math.Sin), ulps: 4}, randFiniteBits(r, 4096)},
		{elemCase{name: "cos", op: unaryOp((*tensor.Engine).Cos), ref: f32Unary(math.Cos), ulps: 4}, randFiniteBits(r, 4096)},
		{elemCase{name: "sin moderate", op: unaryOp((*tensor.Engine).Sin), ref: f32Unary(math.Sin), ulps: 4}, randRange(r, 4096, -20, 20, false)},
		{elemCase{name: "cos moderate", op: unaryOp((*tensor.Engine).Cos), ref: f32Unary(math.Cos), ulps: 4}, randRange(r, 4096, -20, 20, false)},
		{elemCase{name: "rsqrt", op: unaryOp((*tensor.Engine).Rsqrt), ref: f32Unary(func(x float64) float64 { return 1 / math.Sqrt(x) }), ulps: 1},
			randRange(r, 2048, -149, 128, true)},
		{elemCase{name: "sin near k pi/2", op: unaryOp((*tensor.Engine).Sin), ref: f32Unary(math.Sin), ulps: 4}, nearHalfPiMultiples()},
		{elemCase{name: "cos near k pi/2", op: unaryOp((*tensor.Engine).Cos), ref: f32Unary(math.Cos), ulps: 4}, nearHalfPiMultiples()},
	} {
		checkElementwise(t, e, c.c, c.in)
	}
	pow := elemCase{name: "pow", op: binaryOp((*tensor.Engine).Pow), ref: f32Ref(func(x ...float64) float64 { return math.Pow(x[0], x[1]) }), ulps: 4}
	checkElementwise(t, e, pow, randRange(r, 4096, -149, 128, true), randRange(r, 4096, -30, 30, false))
	// |y log2 x| up to 300, where log2's errors are multiplied by y.
	checkElementwise(t, e, pow, randRange(r, 4096, 0, 2, false), randRange(r, 4096, -300, 300, false))
	// Negative bases with integer exponents.
	base, exp := randRange(r, 4096, -10, 10, false), randRange(r, 4096, -40, 40, false)
	for i, w := range exp.w {
		exp.w[i] = math.Float32bits(float32(math.Round(float64(math.Float32frombits(w)))))
	}
	checkElementwise(t, e, pow, base, exp)
}

// TestReduceNaN (issue 11, item 4) checks that Max and Min propagate NaN and that ArgMax and
// ArgMin return the first NaN's index, wherever it is in the row, for
// rows reduced by one thread and by a workgroup.
func TestReduceNaN(t *testing.T) {
	e := testgpu.Engine(t)
	nan := float32(math.NaN())
	for _, n := range []int{5, 300, 5000} {
		for _, at := range []int{0, 1, n / 2, n - 1} {
			row := make([]float32, n)
			for i := range row {
				row[i] = float32(i%97) - 40
			}
			row[at] = nan
			if at+3 < n {
				row[at+3] = nan // a later NaN does not win
			}
			x := e.FromFloat32s(row, 1, n)
			mx, mn := e.Max(x, false, 1), e.Min(x, false, 1)
			amx, amn := e.ArgMax(x, 1), e.ArgMin(x, 1)
			assert.True(t, math.IsNaN(float64(f32s(t, mx)[0])), "max of %d with NaN at %d", n, at)
			assert.True(t, math.IsNaN(float64(f32s(t, mn)[0])), "min of %d with NaN at %d", n, at)
			assert.Equal(t, []int32{int32(at)}, i32s(t, amx), "argmax of %d with NaN at %d", n, at)
			assert.Equal(t, []int32{int32(at)}, i32s(t, amn), "argmin of %d with NaN at %d", n, at)
			for _, y := range []*tensor.Tensor{x, mx, mn, amx, amn} {
				y.Dispose()
			}
		}
	}
}

// TestReduceEdges checks Max, Min, ArgMax and ArgMin over rows of edge
// values without NaN: infinities, signed zeros (ties keep the first) and
// subnormals, which a comparison must not take for zero.
func TestReduceEdges(t *testing.T) {
	e := testgpu.Engine(t)
	inf := float32(math.Inf(1))
	for _, c := range []struct {
		row            []float32
		max, min       float32
		argmax, argmin int32
	}{
		{[]float32{-inf, -1e38, 0, 1e-45, -1e-45}, 1e-45, -inf, 3, 0},
		{[]float32{negZero, 0, 1e-45, -1e-45}, 1e-45, -1e-45, 2, 3},
		{[]float32{negZero, 0}, negZero, negZero, 0, 0},
		{[]float32{0, negZero}, 0, 0, 0, 0},
		{[]float32{-inf, -inf}, -inf, -inf, 0, 0},
		{[]float32{1, inf, 2, inf}, inf, 1, 1, 0},
	} {
		for _, n := range []int{1, 100} { // one thread, or a workgroup, per row
			row := make([]float32, 0, n*len(c.row))
			for range n {
				row = append(row, c.row...)
			}
			x := e.FromFloat32s(row)
			mx, mn := e.Max(x, false, 0), e.Min(x, false, 0)
			amx, amn := e.ArgMax(x, 0), e.ArgMin(x, 0)
			assert.Equal(t, math.Float32bits(c.max), math.Float32bits(f32s(t, mx)[0]), "max %v ×%d", c.row, n)
			assert.Equal(t, math.Float32bits(c.min), math.Float32bits(f32s(t, mn)[0]), "min %v ×%d", c.row, n)
			assert.Equal(t, []int32{c.argmax}, i32s(t, amx), "argmax %v ×%d", c.row, n)
			assert.Equal(t, []int32{c.argmin}, i32s(t, amn), "argmin %v ×%d", c.row, n)
			for _, y := range []*tensor.Tensor{x, mx, mn, amx, amn} {
				y.Dispose()
			}
		}
	}
}

// TestSoftmaxEdges checks rows with NaN and infinities against PyTorch's
// results: a NaN or +Inf anywhere makes the row NaN, a row of -Inf is NaN,
// and -Inf beside finite values gives 0 (log: -Inf).
func TestSoftmaxEdges(t *testing.T) {
	e := testgpu.Engine(t)
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, row := range [][]float32{
		{1, nan, 2},
		{nan, 1, 2},
		{1, 2, inf},
		{-inf, -inf, -inf},
		{-inf, 0, 1},
		{1e-45, negZero, -1e-39},
		{100, -100, 88},
	} {
		for _, n := range []int{1, 200} {
			in := make([]float32, 0, n*len(row))
			for range n {
				in = append(in, row...)
			}
			want, wantLog := refSoftmax(in)
			x := e.FromFloat32s(in)
			s, l := e.Softmax(x, 0), e.LogSoftmax(x, 0)
			closeTo(t, want, f32s(t, s), 1e-7, 1e-5, "softmax %v ×%d", row, n)
			closeTo(t, wantLog, f32s(t, l), 1e-5, 1e-5, "log_softmax %v ×%d", row, n)
			for _, y := range []*tensor.Tensor{x, s, l} {
				y.Dispose()
			}
		}
	}
}

// refSoftmax is softmax and log-softmax as PyTorch computes them, in
// float64: x - max, exp, sum.
func refSoftmax(x []float32) (soft, logSoft []float32) {
	mx := math.Inf(-1)
	for _, v := range x {
		if math.IsNaN(float64(v)) || float64(v) > mx {
			mx = float64(v)
		}
		if math.IsNaN(mx) {
			break
		}
	}
	sum := 0.0
	for _, v := range x {
		sum += math.Exp(float64(v) - mx)
	}
	soft, logSoft = make([]float32, len(x)), make([]float32, len(x))
	for i, v := range x {
		soft[i] = float32(math.Exp(float64(v)-mx) / sum)
		logSoft[i] = float32(float64(v) - mx - math.Log(sum))
	}
	return soft, logSoft
}

// TestRangeIntegerParameters checks integer Range's parameters: exact
// integers whose elements fit, else ErrArgument (issue 11, item 2).
func TestRangeIntegerParameters(t *testing.T) {
	e := testgpu.Engine(t)
	for _, c := range []struct {
		dtype             tensor.DType
		start, stop, step float64
		want              []uint32 // nil: ErrArgument
	}{
		{tensor.Int32, 0, 10, 3, []uint32{0, 3, 6, 9}},
		{tensor.Int32, 5, -5, -4, []uint32{5, 1, 0xfffffffd}},
		{tensor.Int32, math.MaxInt32 - 6, math.MaxInt32, 3, []uint32{math.MaxInt32 - 6, math.MaxInt32 - 3}},
		{tensor.Int32, math.MinInt32, math.MinInt32 + 3e9, 1.5e9, []uint32{1 << 31, 1<<31 + 1.5e9}},
		{tensor.Uint32, 4e9, 3e9, -5e8, []uint32{4e9, 3.5e9}},
		{tensor.Uint32, 0, 4294967295, 3e9, []uint32{0, 3e9}},
		{tensor.Int32, 7, 8, 1e30, []uint32{7}},
		{tensor.Int32, 0, 0, 1, []uint32{}},
		{tensor.Int32, 0.5, 3, 1, nil},
		{tensor.Int32, 0, 3, 0.5, nil},
		{tensor.Int32, math.MaxInt32 - 1, math.MaxInt32 + 5.0, 1, nil},
		{tensor.Int32, -3e9, 0, 1e9, nil},
		{tensor.Uint32, -1, 3, 1, nil},
		{tensor.Uint32, 3, -1, -1, []uint32{3, 2, 1, 0}},
		{tensor.Uint32, 3, -2, -1, nil},
	} {
		x := e.Range(c.dtype, c.start, c.stop, c.step)
		if c.want == nil {
			require.ErrorIs(t, x.Err(), tensor.ErrArgument, "range(%v, %v, %v) of %s", c.start, c.stop, c.step, c.dtype)
		} else {
			require.Equal(t, c.want, download(t, x).w, "range(%v, %v, %v) of %s", c.start, c.stop, c.step, c.dtype)
		}
		x.Dispose()
	}
}

// TestIntUnaryEdges checks the integer unary ops over edge values.
func TestIntUnaryEdges(t *testing.T) {
	e := testgpu.Engine(t)
	i := func(f func(int32) int32) func(x ...uint32) uint32 {
		return func(x ...uint32) uint32 { return uint32(f(int32(x[0]))) }
	}
	u := func(f func(uint32) uint32) func(x ...uint32) uint32 {
		return func(x ...uint32) uint32 { return f(x[0]) }
	}
	clip := func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Clip(x, -3e9, 100.5) }
	clipU := func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Clip(x, -1, 5e9) }
	for _, c := range []struct {
		c  elemCase
		in tensor.DType
	}{
		{elemCase{name: "neg int32", op: unaryOp((*tensor.Engine).Neg), ref: i(func(x int32) int32 { return -x })}, tensor.Int32},
		{elemCase{name: "abs int32", op: unaryOp((*tensor.Engine).Abs), ref: i(func(x int32) int32 { return max(x, -x) })}, tensor.Int32},
		{elemCase{name: "sign int32", op: unaryOp((*tensor.Engine).Sign), ref: i(func(x int32) int32 { return int32(sign(float64(x))) })}, tensor.Int32},
		{elemCase{name: "square int32", op: unaryOp((*tensor.Engine).Square), ref: i(func(x int32) int32 { return x * x })}, tensor.Int32},
		{elemCase{name: "relu int32", op: unaryOp((*tensor.Engine).Relu), ref: i(func(x int32) int32 { return max(x, 0) })}, tensor.Int32},
		{elemCase{name: "clip int32", op: unaryOp(clip), ref: i(func(x int32) int32 { return min(max(x, math.MinInt32), 100) })}, tensor.Int32},
		{elemCase{name: "neg uint32", op: unaryOp((*tensor.Engine).Neg), ref: u(func(x uint32) uint32 { return -x })}, tensor.Uint32},
		{elemCase{name: "sign uint32", op: unaryOp((*tensor.Engine).Sign), ref: u(func(x uint32) uint32 { return min(x, 1) })}, tensor.Uint32},
		{elemCase{name: "clip uint32", op: unaryOp(clipU), ref: u(func(x uint32) uint32 { return x })}, tensor.Uint32},
	} {
		checkElementwise(t, e, c.c, edges(c.in))
	}
}

// TestFusedChainsAtEdges runs random chains of float ops over edge values
// fused and unfused and requires every intermediate to agree bit for bit
// (issue 11, item 3: fusion must not change any result).
func TestFusedChainsAtEdges(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(19, 20))
	unary := []func(*tensor.Engine, *tensor.Tensor) *tensor.Tensor{
		(*tensor.Engine).Neg, (*tensor.Engine).Abs, (*tensor.Engine).Sign, (*tensor.Engine).Square,
		(*tensor.Engine).Relu, (*tensor.Engine).Floor, (*tensor.Engine).Ceil, (*tensor.Engine).Round,
		(*tensor.Engine).Exp, (*tensor.Engine).Log, (*tensor.Engine).Sqrt, (*tensor.Engine).Rsqrt,
		(*tensor.Engine).Sin, (*tensor.Engine).Cos, (*tensor.Engine).Tanh, (*tensor.Engine).Sigmoid,
		(*tensor.Engine).Gelu,
		func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.LeakyRelu(x, 0.1) },
		func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Clip(x, -1, 2.5) },
		func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor {
			i := e.Cast(x, tensor.Int32)
			defer i.Dispose()
			return e.Cast(i, tensor.Float32)
		},
		func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor {
			u := e.Cast(x, tensor.Uint32)
			defer u.Dispose()
			return e.Cast(u, tensor.Float32)
		},
	}
	binary := []func(*tensor.Engine, *tensor.Tensor, *tensor.Tensor) *tensor.Tensor{
		(*tensor.Engine).Add, (*tensor.Engine).Sub, (*tensor.Engine).Mul, (*tensor.Engine).Div,
		(*tensor.Engine).Maximum, (*tensor.Engine).Minimum, (*tensor.Engine).Pow, (*tensor.Engine).Mod,
		func(e *tensor.Engine, a, b *tensor.Tensor) *tensor.Tensor {
			c := e.Greater(a, b)
			defer c.Dispose()
			return e.Where(c, a, b)
		},
		func(e *tensor.Engine, a, b *tensor.Tensor) *tensor.Tensor {
			c := e.NotEqual(a, b)
			defer c.Dispose()
			return e.Where(c, b, a)
		},
	}
	x, y := pairs(edges(tensor.Float32))
	for chain := range 20 {
		steps := make([][3]int, 6) // op kind and index, then operands
		for i := range steps {
			n := 2 + i // values so far: x, y and earlier steps
			if r.IntN(2) == 0 {
				steps[i] = [3]int{r.IntN(len(unary)), r.IntN(n), -1}
			} else {
				steps[i] = [3]int{r.IntN(len(binary)), r.IntN(n), r.IntN(n)}
			}
		}
		var results [2][]bits
		for f, fuse := range []bool{false, true} {
			require.NoError(t, e.SetFusion(fuse))
			vals := []*tensor.Tensor{upload(e, x), upload(e, y)}
			for _, s := range steps {
				if s[2] < 0 {
					vals = append(vals, unary[s[0]](e, vals[s[1]]))
				} else {
					vals = append(vals, binary[s[0]](e, vals[s[1]], vals[s[2]]))
				}
			}
			for _, v := range vals[2:] {
				results[f] = append(results[f], download(t, v))
			}
			for _, v := range vals {
				v.Dispose()
			}
		}
		require.NoError(t, e.SetFusion(true))
		for i := range steps {
			for j := range results[0][i].w {
				if !sameBits(tensor.Float32, results[0][i].w[j], results[1][i].w[j]) {
					t.Fatalf("chain %d %v, step %d, element %d (x=%s, y=%s): fused %s, unfused %s", chain, steps, i, j,
						show(tensor.Float32, x.w[j]), show(tensor.Float32, y.w[j]),
						show(tensor.Float32, results[1][i].w[j]), show(tensor.Float32, results[0][i].w[j]))
				}
			}
		}
	}
}

// TestDivSqrtRandomSweep checks Div and Sqrt bit for bit over many random
// finite operands of every magnitude: 16,384 on a CPU adapter, 4,194,304
// on a GPU, where the hardware's own division and square root are not
// always correctly rounded and the engine corrects them (see
// wgpu.Float32Behavior).
func TestDivSqrtRandomSweep(t *testing.T) {
	e := testgpu.Engine(t)
	n := 1 << 14
	if e.Device().Info().Type != wgpu.AdapterCPU {
		n = 1 << 22
	}
	r := rand.New(rand.NewPCG(21, 22))
	a, b := randFiniteBits(r, n), randFiniteBits(r, n)
	checkElementwise(t, e, elemCase{name: "div", op: binaryOp((*tensor.Engine).Div), ref: f32Ref(func(x ...float64) float64 { return x[0] / x[1] })}, a, b)
	for i, w := range a.w {
		a.w[i] = w & 0x7fffffff
	}
	checkElementwise(t, e, elemCase{name: "sqrt", op: unaryOp((*tensor.Engine).Sqrt), ref: f32Unary(math.Sqrt)}, a)
}
