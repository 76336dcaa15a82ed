package tensor

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/wgtensor/wgtensor/internal/kernels"
)

// unaryExpr returns the WGSL expression of a unary op over a0 of type T,
// or "" when the op does not take T.
type unaryExpr func(T kernels.Type) string

func floatOnly(expr string) unaryExpr {
	return func(T kernels.Type) string {
		if T != kernels.F32 {
			return ""
		}
		return expr
	}
}

func anyType(f func(T kernels.Type) string) unaryExpr { return f }

// byType picks an expression by operand type; "" where an op does not
// take that type.
func byType(f32, i32, u32 string) func(T kernels.Type) string {
	return func(T kernels.Type) string {
		switch T {
		case kernels.I32:
			return i32
		case kernels.U32:
			return u32
		}
		return f32
	}
}

var unaryOps = map[string]unaryExpr{
	"neg":    byType("neg_(a0)", "bitcast<i32>(0u - bitcast<u32>(a0))", "0u - a0"),
	"abs":    byType("abs_(a0)", "select(a0, bitcast<i32>(0u - bitcast<u32>(a0)), a0 < 0)", "a0"),
	"sign":   byType("select(select(select(1.0, -1.0, signbit_(a0)), 0.0, iszero_(a0)), a0, isnan_(a0))", "sign(a0)", "min(a0, 1u)"),
	"square": anyType(func(kernels.Type) string { return "a0 * a0" }),
	"relu":   byType("fmax_(a0, 0.0)", "max(a0, 0)", "a0"),
	"floor":  byType("floor(a0)", "a0", "a0"),
	"ceil":   byType("ceil(a0)", "a0", "a0"),
	"round":  byType("round(a0)", "a0", "a0"),
	"exp":    floatOnly("exp_(a0)"),
	"log":    floatOnly("log_(a0)"),
	"sqrt":   floatOnly("sqrt_(a0)"),
	"rsqrt":  floatOnly("div_(1.0, sqrt_(a0))"), // two correctly rounded ops: within 1 ulp
	"sin":    floatOnly("sin_(a0)"),
	"cos":    floatOnly("cos_(a0)"),
	"tanh":   floatOnly("tanh_(a0)"),
	// sigmoid_ is e^x/(1 + e^x) below 0, so tiny results keep their bits.
	"sigmoid": floatOnly("sigmoid_(a0)"),
	// gelu_ is the tanh approximation, each step rounded on its own.
	"gelu": floatOnly("gelu_(a0)"),
	// erf_, erfc_ and gelu_erf_ are fdlibm's erff and erfcf (kernels.Numerics).
	"erf":        floatOnly("erf_(a0)"),
	"erfc":       floatOnly("erfc_(a0)"),
	"gelu_erf":   floatOnly("gelu_erf_(a0)"),
	"leaky_relu": floatOnly("select(a0 * s.x, a0, key_(a0) > 0 && !isnan_(a0))"),
	"clip":       byType("fmin_(fmax_(a0, s.x), s.y)", "clamp(a0, toi32_(s.x), toi32_(s.y))", "clamp(a0, tou32_(s.x), tou32_(s.y))"),
}

// Neg returns -x. On integers it wraps (math.MinInt32 stays itself).
func (e *Engine) Neg(x *Tensor) *Tensor { return e.unary(callerSite(), "neg", x, 0, 0) }

// Abs returns |x|; Abs(math.MinInt32) wraps to math.MinInt32.
func (e *Engine) Abs(x *Tensor) *Tensor { return e.unary(callerSite(), "abs", x, 0, 0) }

// Sign returns -1, 0 or 1 by the sign of x: +0 for ±0, NaN for NaN.
func (e *Engine) Sign(x *Tensor) *Tensor { return e.unary(callerSite(), "sign", x, 0, 0) }

// Square returns x*x.
func (e *Engine) Square(x *Tensor) *Tensor { return e.unary(callerSite(), "square", x, 0, 0) }

// Relu returns Maximum(x, 0): NaN for NaN, +0 for -0.
func (e *Engine) Relu(x *Tensor) *Tensor { return e.unary(callerSite(), "relu", x, 0, 0) }

// LeakyRelu returns x where x > 0 and alpha*x elsewhere (float32 only;
// NaN for NaN).
func (e *Engine) LeakyRelu(x *Tensor, alpha float32) *Tensor {
	return e.unary(callerSite(), "leaky_relu", x, alpha, 0)
}

// Floor rounds down (identity on integers).
func (e *Engine) Floor(x *Tensor) *Tensor { return e.unary(callerSite(), "floor", x, 0, 0) }

// Ceil rounds up (identity on integers).
func (e *Engine) Ceil(x *Tensor) *Tensor { return e.unary(callerSite(), "ceil", x, 0, 0) }

// Round rounds to the nearest integer, halves to even as NumPy does.
func (e *Engine) Round(x *Tensor) *Tensor { return e.unary(callerSite(), "round", x, 0, 0) }

// Exp returns e^x (float32 only, as the other transcendental ops).
func (e *Engine) Exp(x *Tensor) *Tensor { return e.unary(callerSite(), "exp", x, 0, 0) }

// Log returns the natural logarithm.
func (e *Engine) Log(x *Tensor) *Tensor { return e.unary(callerSite(), "log", x, 0, 0) }

// Sqrt returns the square root.
func (e *Engine) Sqrt(x *Tensor) *Tensor { return e.unary(callerSite(), "sqrt", x, 0, 0) }

// Rsqrt returns 1/sqrt(x).
func (e *Engine) Rsqrt(x *Tensor) *Tensor { return e.unary(callerSite(), "rsqrt", x, 0, 0) }

// Sin returns the sine.
func (e *Engine) Sin(x *Tensor) *Tensor { return e.unary(callerSite(), "sin", x, 0, 0) }

// Cos returns the cosine.
func (e *Engine) Cos(x *Tensor) *Tensor { return e.unary(callerSite(), "cos", x, 0, 0) }

// Tanh returns the hyperbolic tangent.
func (e *Engine) Tanh(x *Tensor) *Tensor { return e.unary(callerSite(), "tanh", x, 0, 0) }

// Sigmoid returns 1/(1+e^-x).
func (e *Engine) Sigmoid(x *Tensor) *Tensor { return e.unary(callerSite(), "sigmoid", x, 0, 0) }

// Gelu returns the GELU activation in its tanh approximation (PyTorch's
// approximate="tanh", tfjs's gelu); GeluErf is the exact one, PyTorch's
// default.
func (e *Engine) Gelu(x *Tensor) *Tensor { return e.unary(callerSite(), "gelu", x, 0, 0) }

// GeluErf returns the exact GELU activation x·Φ(x), Φ the standard normal
// distribution function (PyTorch's gelu with approximate="none", its
// default, and nn.GELU's here), computed as x/2·Erfc(-x/√2) with the
// rounding of x/√2 taken back, so that negative x keep their precision
// where 1 + erf(x/√2) would cancel: within 8 ulp of the float64 value of
// the float32 x over every float32 (measured: 4 where Erfc(-x/√2) is
// normal, x > -13, and 7 beyond, where it is subnormal; see
// TestGeluErfUlpBound). GeluErf(-Inf) is -0, the limit, where PyTorch's
// formula gives NaN; GeluErf(+Inf) is +Inf and NaN stays NaN. Float32
// only; it fuses with its neighbours, as every elementwise op, and like
// every op belongs to the Engine's goroutine.
func (e *Engine) GeluErf(x *Tensor) *Tensor { return e.unary(callerSite(), "gelu_erf", x, 0, 0) }

// Erf returns the error function within 2 ulp of Go's math.Erf
// (fdlibm's erff with correctly rounded quotients; measured: 1 ulp over a
// sweep of every binade, subnormals included): erf(±0) = ±0,
// erf(±Inf) = ±1, NaN for NaN. Float32 only; an elementwise op (it
// fuses), belonging to the Engine's goroutine as every op.
func (e *Engine) Erf(x *Tensor) *Tensor { return e.unary(callerSite(), "erf", x, 0, 0) }

// Erfc returns the complementary error function 1 - erf(x), computed
// without that cancellation (fdlibm's erfcf, its tail's exponent split so
// that only a small part of it rounds), within 4 ulp of Go's math.Erfc
// (measured: 3): erfc(-Inf) = 2, erfc(+Inf) = +0, NaN for NaN; its tail
// is subnormal past 9.2 and zero past 10.06. Float32 only; an
// elementwise op (it fuses), belonging to the Engine's goroutine as every
// op.
func (e *Engine) Erfc(x *Tensor) *Tensor { return e.unary(callerSite(), "erfc", x, 0, 0) }

// Clip clamps x to [lo, hi] as Minimum(Maximum(x, lo), hi), so NaN stays
// NaN; lo must not exceed hi. For integer x, lo and hi are converted as
// Cast converts.
func (e *Engine) Clip(x *Tensor, lo, hi float32) *Tensor {
	if lo > hi {
		o, bad := e.beginLazy("clip", callerSite(), x)
		if bad != nil {
			return bad
		}
		defer o.end()
		return o.fail(ErrArgument, "lo %v > hi %v", lo, hi)
	}
	return e.unary(callerSite(), "clip", x, lo, hi)
}

func (e *Engine) unary(site stack, name string, x *Tensor, s0, s1 float32) *Tensor {
	o, bad := e.beginLazy(name, site, x)
	if bad != nil {
		return bad
	}
	defer o.end()
	o.attrs.Alpha, o.attrs.Lo, o.attrs.Hi = s0, s0, s1 // LeakyRelu's alpha; Clip's lo and hi
	expr := unaryOps[name](x.dtype.wgsl())
	if expr == "" {
		return o.fail(ErrDType, "%s takes float32, not %s", name, x.dtype)
	}
	return o.mapOp(name, expr, x.dtype, []*Tensor{x}, [4]float32{s0, s1})
}

// Cast converts x to dtype. Float32 to an integer type truncates toward
// zero, then saturates to the type's range; NaN gives 0 (so 3e9, 1e38 and
// +Inf give math.MaxInt32 as int32, and every negative value gives 0 as
// uint32). Int32 and uint32 reinterpret each other's bits, as Go's and
// NumPy's conversions do (-1 is 4294967295). Integers to float32 round to
// the nearest float32, halves to even. To Int8 a value converts as to
// Int32, then keeps its low 8 bits, two's complement (300 gives 44, -129
// gives 127, 1e10 gives -1), as C's and PyTorch's integer casts wrap; Int8
// to any other dtype is exact.
func (e *Engine) Cast(x *Tensor, dtype DType) *Tensor {
	o, bad := e.beginLazy("cast", callerSite(), x)
	if bad != nil {
		return bad
	}
	defer o.end()
	o.attrs.DType = dtype
	if !dtype.valid() {
		return o.fail(ErrDType, "to %v", dtype)
	}
	return o.mapOp("cast", castExpr(x.dtype, dtype), dtype, []*Tensor{x}, [4]float32{})
}

// castAside is Cast for OpRecord.SaveAs: at site, seen by no recorder,
// tracked by no scope, dispatched aside (see Engine.recordAside).
func (e *Engine) castAside(x *Tensor, dtype DType, site stack) *Tensor {
	o, bad := e.beginLazy("cast", site, x)
	if bad != nil {
		return bad
	}
	o.rec, o.aside = nil, true
	defer o.end()
	if !dtype.valid() {
		return o.fail(ErrDType, "to %v", dtype)
	}
	c := o.mapOp("cast", castExpr(x.dtype, dtype), dtype, []*Tensor{x}, [4]float32{})
	o.made = nil // the recorder's, as Save's result is: no scope tracks it
	SetCategory(c, CategorySaved)
	return c
}

// castExpr is the WGSL that converts a0 of type from to type to, in the
// types kernels compute them in: the half-width dtypes are f32 values and
// int8 i32 values, rounded (or wrapped) to their width as they are stored.
func castExpr(from, to DType) string {
	f, t := from.wgsl(), to.wgsl()
	switch {
	case f == t:
		return "a0"
	case f == kernels.F32 && t == kernels.I32:
		return "toi32_(a0)"
	case f == kernels.F32:
		return "tou32_(a0)"
	case t == kernels.F32:
		return "f32(a0)"
	}
	return fmt.Sprintf("bitcast<%s>(a0)", t)
}

// binary ops: the expression for operand type T ("" if the op does not
// take T), and whether the result is a comparison (uint32).
type binaryOp struct {
	expr    func(T kernels.Type) string
	compare bool
}

// compare is a comparison: fcmp compares floats (see kernels.Numerics), op the
// integer types.
func compare(fcmp, op string) binaryOp {
	return binaryOp{expr: func(T kernels.Type) string {
		if T == kernels.F32 {
			return "select(0u, 1u, " + fcmp + ")"
		}
		return "select(0u, 1u, a0 " + op + " a1)"
	}, compare: true}
}

var binaryOps = map[string]binaryOp{
	"add":           {expr: func(kernels.Type) string { return "a0 + a1" }},
	"sub":           {expr: func(kernels.Type) string { return "a0 - a1" }},
	"mul":           {expr: func(kernels.Type) string { return "a0 * a1" }},
	"div":           {expr: byType("div_(a0, a1)", "divmodi_(a0, a1).x", "divu_(a0, a1)")},
	"maximum":       {expr: byType("fmax_(a0, a1)", "max(a0, a1)", "max(a0, a1)")},
	"minimum":       {expr: byType("fmin_(a0, a1)", "min(a0, a1)", "min(a0, a1)")},
	"pow":           {expr: byType("pow_(a0, a1)", "", "")},
	"mod":           {expr: byType("fmodfloor_(a0, a1)", "divmodi_(a0, a1).y", "modu_(a0, a1)")},
	"equal":         compare("feq_(a0, a1)", "=="),
	"not_equal":     compare("!feq_(a0, a1)", "!="),
	"less":          compare("flt_(a0, a1)", "<"),
	"less_equal":    compare("fle_(a0, a1)", "<="),
	"greater":       compare("flt_(a1, a0)", ">"),
	"greater_equal": compare("fle_(a1, a0)", ">="),
}

// Add returns a+b with NumPy broadcasting. Both must have one dtype; so
// for every binary op.
func (e *Engine) Add(a, b *Tensor) *Tensor { return e.binary(callerSite(), "add", a, b) }

// Sub returns a-b.
func (e *Engine) Sub(a, b *Tensor) *Tensor { return e.binary(callerSite(), "sub", a, b) }

// Mul returns a*b.
func (e *Engine) Mul(a, b *Tensor) *Tensor { return e.binary(callerSite(), "mul", a, b) }

// Div returns a/b. Integer division floors, as NumPy's //, so that
// Div(a, b)*b + Mod(a, b) == a; by zero it gives 0, and math.MinInt32 / -1
// wraps to math.MinInt32. Float32 division is IEEE's (±Inf, NaN for 0/0).
func (e *Engine) Div(a, b *Tensor) *Tensor { return e.binary(callerSite(), "div", a, b) }

// Pow returns a^b (float32) with C's pow special cases (see the package
// doc): a negative base with a non-integer exponent is NaN.
func (e *Engine) Pow(a, b *Tensor) *Tensor { return e.binary(callerSite(), "pow", a, b) }

// Maximum returns the larger of a and b; for float32 IEEE 754-2019's
// maximum: NaN if either is NaN, and +0 over -0.
func (e *Engine) Maximum(a, b *Tensor) *Tensor { return e.binary(callerSite(), "maximum", a, b) }

// Minimum returns the smaller of a and b; for float32 NaN if either is
// NaN, and -0 under +0.
func (e *Engine) Minimum(a, b *Tensor) *Tensor { return e.binary(callerSite(), "minimum", a, b) }

// Mod returns a mod b with the sign of b (NumPy's mod, floored). Float32
// Mod is exact before the divisor is added to a remainder of the other
// sign; by zero it is NaN. Integer Mod by zero gives 0.
func (e *Engine) Mod(a, b *Tensor) *Tensor { return e.binary(callerSite(), "mod", a, b) }

// Equal returns 1 where a == b and 0 elsewhere, as uint32. Comparisons
// with a float NaN are false, except NotEqual's; -0 equals +0.
func (e *Engine) Equal(a, b *Tensor) *Tensor { return e.binary(callerSite(), "equal", a, b) }

// NotEqual returns a != b as uint32.
func (e *Engine) NotEqual(a, b *Tensor) *Tensor { return e.binary(callerSite(), "not_equal", a, b) }

// Less returns a < b as uint32.
func (e *Engine) Less(a, b *Tensor) *Tensor { return e.binary(callerSite(), "less", a, b) }

// LessEqual returns a <= b as uint32.
func (e *Engine) LessEqual(a, b *Tensor) *Tensor { return e.binary(callerSite(), "less_equal", a, b) }

// Greater returns a > b as uint32.
func (e *Engine) Greater(a, b *Tensor) *Tensor { return e.binary(callerSite(), "greater", a, b) }

// GreaterEqual returns a >= b as uint32.
func (e *Engine) GreaterEqual(a, b *Tensor) *Tensor {
	return e.binary(callerSite(), "greater_equal", a, b)
}

func (e *Engine) binary(site stack, name string, a, b *Tensor) *Tensor {
	o, bad := e.beginLazy(name, site, a, b)
	if bad != nil {
		return bad
	}
	defer o.end()
	if a.dtype != b.dtype {
		return o.fail(ErrDType, "%s and %s; Cast one first", a.dtype, b.dtype)
	}
	op := binaryOps[name]
	expr := op.expr(a.dtype.wgsl())
	if expr == "" {
		return o.fail(ErrDType, "%s takes float32, not %s", name, a.dtype)
	}
	out := a.dtype
	if op.compare {
		out = Uint32
	}
	return o.mapOp(name, expr, out, []*Tensor{a, b}, [4]float32{})
}

// GeluGrad returns dy·Gelu'(x), the gradient of Gelu at x given dy, the
// gradient of its result, as one elementwise op (broadcasting x and dy):
// the derivative's formula with each product and sum rounded on its own,
// 1 at +Inf and 0 at -Inf. GeluErfGrad is GeluErf's, ReluGrad Relu's and
// LeakyReluGrad LeakyRelu's. Their gradients are one op each, where a
// composition of ops would take a buffer the size of x for each; dy is
// float32, and so is the result, while x may also be float16 or bfloat16
// (a tape's autocast copy, read as it is: its values widen exactly).
func (e *Engine) GeluGrad(x, dy *Tensor) *Tensor {
	return e.gradOp(callerSite(), "gelu_grad", "a1 * gelu_grad_(a0)", x, dy, 0, false)
}

// GeluErfGrad returns dy·GeluErf'(x): see GeluGrad.
func (e *Engine) GeluErfGrad(x, dy *Tensor) *Tensor {
	return e.gradOp(callerSite(), "gelu_erf_grad", "a1 * gelu_erf_grad_(a0)", x, dy, 0, false)
}

// ReluGrad returns dy where x > 0 and dy·0 elsewhere (x = 0 and NaN
// included, as Relu's gradient is 0 there): see GeluGrad. x is compared,
// as Greater compares it, subnormals included on every device.
func (e *Engine) ReluGrad(x, dy *Tensor) *Tensor {
	return e.gradOp(callerSite(), "relu_grad", "a1 * select(0.0, 1.0, flt_(0.0, a0))", x, dy, 0, true)
}

// LeakyReluGrad returns dy where x > 0 and dy·alpha elsewhere: see
// ReluGrad.
func (e *Engine) LeakyReluGrad(x, dy *Tensor, alpha float32) *Tensor {
	return e.gradOp(callerSite(), "leaky_relu_grad", "a1 * select(s.x, 1.0, flt_(0.0, a0))", x, dy, alpha, true)
}

// TanhGrad returns dy·(1 - y²), the gradient of Tanh given its result y,
// and SigmoidGrad dy·y·(1 - y), Sigmoid's: PyTorch's tanh_backward and
// sigmoid_backward, the bits of the composed ops (each step rounded on
// its own). See GeluGrad for the dtypes (y in place of x).
func (e *Engine) TanhGrad(y, dy *Tensor) *Tensor {
	return e.gradOp(callerSite(), "tanh_grad", "a1 * opaque_(1.0 - opaque_(a0 * a0))", y, dy, 0, false)
}

// SigmoidGrad returns dy·y·(1 - y): see TanhGrad.
func (e *Engine) SigmoidGrad(y, dy *Tensor) *Tensor {
	return e.gradOp(callerSite(), "sigmoid_grad", "a1 * opaque_(a0 * opaque_(1.0 - a0))", y, dy, 0, false)
}

// gradOp records the elementwise gradient op name, expr over x (a0) and
// dy (a1) with the scalar s.x: dy float32, x float32 or half-width; with
// compares, expr only compares x, which a flushing device does not flush.
func (e *Engine) gradOp(site stack, name, expr string, x, dy *Tensor, s float32, compares bool) *Tensor {
	o, bad := e.beginLazy(name, site, x, dy)
	if bad != nil {
		return bad
	}
	defer o.end()
	if dy.dtype != Float32 || !x.dtype.IsFloat() {
		return o.fail(ErrDType, "x is %s and dy %s: dy is float32, x float32, float16 or bfloat16", x.dtype, dy.dtype)
	}
	flushed := uint64(0b11)
	if compares {
		flushed = 0b10
	}
	return o.mapOpFlushing(name, expr, Float32, []*Tensor{x, dy}, [4]float32{s}, flushed)
}

// Where returns a where cond is nonzero and b elsewhere, broadcasting all
// three. cond is uint32 (as comparisons return); a and b share a dtype.
func (e *Engine) Where(cond, a, b *Tensor) *Tensor {
	o, bad := e.beginLazy("where", callerSite(), cond, a, b)
	if bad != nil {
		return bad
	}
	defer o.end()
	switch {
	case cond.dtype != Uint32:
		return o.fail(ErrDType, "cond is %s, not uint32", cond.dtype)
	case a.dtype != b.dtype:
		return o.fail(ErrDType, "%s and %s", a.dtype, b.dtype)
	}
	return o.mapOp("where", "select(a2, a1, a0 != 0u)", a.dtype, []*Tensor{cond, a, b}, [4]float32{})
}

// mapOp records an elementwise op over broadcast inputs; it is dispatched
// with the ops it fuses with (fusion.go). An expr that calls the numerics
// library gets it as its helpers.
func (o *op) mapOp(name, expr string, out DType, in []*Tensor, scalars [4]float32) *Tensor {
	return o.mapOpFlushing(name, expr, out, in, scalars, floatOperands(in))
}

// mapOpFlushing is mapOp with the operands a flushing device's arithmetic
// flushes given (see flushExpr): those the op computes with, not those it
// only compares.
func (o *op) mapOpFlushing(name, expr string, out DType, in []*Tensor, scalars [4]float32, flushed uint64) *Tensor {
	shapes := make([]Shape, len(in))
	for i, t := range in {
		shapes[i] = t.shape
	}
	shape, err := broadcast(shapes...)
	if err != nil {
		return o.fail(ErrShape, "shapes do not broadcast: %v", err)
	}
	res, err := o.alloc(shape, out)
	if err != nil {
		return o.e.errTensor(err)
	}
	if o.e.f32.FlushesSubnormals && out == Float32 && !keepsBits[name] {
		expr = flushExpr(expr, flushed)
	}
	n := kernels.Node{Name: name, Out: out.wgsl(), Expr: expr, Helpers: o.e.helpersFor(expr)}
	if err := o.record(res, n, kernels.NodeParams{Scalars: scalars}, in); err != nil {
		res.Dispose()
		return o.e.errTensor(err)
	}
	return res
}

// callsNumerics matches a call of a numerics function: their names end in
// an underscore.
var callsNumerics = regexp.MustCompile(`\b\w+_\(`)

// helpersFor returns the helpers expr needs: the numerics library for e's
// device (see kernels.Numerics), or none.
func (e *Engine) helpersFor(expr string) string {
	if callsNumerics.MatchString(expr) {
		return e.numerics
	}
	return ""
}

// keepsBits names the float32 ops that only move, select or compare
// values: they read the bits and give the same results on every device,
// subnormals included. Every other float32 op is arithmetic, and on a
// device that flushes subnormals gives the IEEE result of its operands
// flushed, flushed (see flushExpr).
var keepsBits = map[string]bool{
	"neg": true, "abs": true, "sign": true, "relu": true, "clip": true,
	"maximum": true, "minimum": true, "where": true, "cast": true,
}

// operand matches an elementwise expression's operand names.
var operand = regexp.MustCompile(`\ba([0-9])\b`)

// flushExpr wraps expr's operands in floats (bit i for a<i>) in daz_
// (float16 and bfloat16 ones unpack to float32, and a bfloat16 may unpack
// to a subnormal) and its result in ftz_, so that the op sees and gives
// what a flushing device's arithmetic does, also where it reads the bits.
// Ops are recorded often and their expressions are few: the wrapped ones
// are remembered.
func flushExpr(expr string, floats uint64) string {
	key := flushKey{expr, floats}
	if w, ok := flushedExprs.Load(key); ok {
		return w.(string)
	}
	w := "ftz_(" + operand.ReplaceAllStringFunc(expr, func(a string) string {
		if floats&(1<<(a[1]-'0')) != 0 {
			return "daz_(" + a + ")"
		}
		return a
	}) + ")"
	flushedExprs.Store(key, w)
	return w
}

// floatOperands is the set of in's float operands (bit i for a<i>).
func floatOperands(in []*Tensor) uint64 {
	var floats uint64
	for i, t := range in {
		if t.dtype.IsFloat() && i < 10 {
			floats |= 1 << i
		}
	}
	return floats
}

// flushKey is an expression and which of its operands are float32.
type flushKey struct {
	expr   string
	floats uint64
}

var flushedExprs sync.Map // flushKey -> the wrapped expression
