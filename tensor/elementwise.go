package tensor

import (
	"fmt"

	"github.com/wgtensor/wgtensor/shaders"
)

// unaryExpr returns the WGSL expression of a unary op over a0 of type T,
// or "" when the op does not take T.
type unaryExpr func(T shaders.Type) string

func floatOnly(expr string) unaryExpr {
	return func(T shaders.Type) string {
		if T != shaders.F32 {
			return ""
		}
		return expr
	}
}

func anyType(f func(T shaders.Type) string) unaryExpr { return f }

// tanh saturates: |x| > 15 is ±1 in float32, and some drivers return NaN
// for large |x|.
const tanhExpr = "tanh(clamp(a0, -15.0, 15.0))"

var unaryOps = map[string]unaryExpr{
	"neg": anyType(func(T shaders.Type) string {
		if T == shaders.U32 {
			return "0u - a0"
		}
		return "-a0"
	}),
	"abs": anyType(func(T shaders.Type) string {
		if T == shaders.U32 {
			return "a0"
		}
		return "abs(a0)"
	}),
	"sign": anyType(func(T shaders.Type) string {
		if T == shaders.U32 {
			return "select(0u, 1u, a0 > 0u)"
		}
		return "sign(a0)"
	}),
	"square": anyType(func(shaders.Type) string { return "a0 * a0" }),
	"relu":   anyType(func(T shaders.Type) string { return fmt.Sprintf("max(a0, %s(0))", T) }),
	"floor":  anyType(func(T shaders.Type) string { return intIdentity(T, "floor(a0)") }),
	"ceil":   anyType(func(T shaders.Type) string { return intIdentity(T, "ceil(a0)") }),
	"round":  anyType(func(T shaders.Type) string { return intIdentity(T, "round(a0)") }),
	"exp":    floatOnly("exp(a0)"),
	"log":    floatOnly("log(a0)"),
	"sqrt":   floatOnly("sqrt(a0)"),
	"rsqrt":  floatOnly("inverseSqrt(a0)"),
	"sin":    floatOnly("sin(a0)"),
	"cos":    floatOnly("cos(a0)"),
	"tanh":   floatOnly(tanhExpr),
	// sigmoid: exp(-a0) overflows to +Inf for very negative a0, giving 0.
	"sigmoid":    floatOnly("1.0 / (1.0 + exp(-a0))"),
	"gelu":       floatOnly("0.5 * a0 * (1.0 + tanh(clamp(0.7978845608 * (a0 + 0.044715 * a0 * a0 * a0), -15.0, 15.0)))"),
	"leaky_relu": floatOnly("select(a0 * s.x, a0, a0 > 0.0)"),
	"clip":       anyType(func(T shaders.Type) string { return fmt.Sprintf("clamp(a0, %[1]s(s.x), %[1]s(s.y))", T) }),
}

func intIdentity(T shaders.Type, float string) string {
	if T == shaders.F32 {
		return float
	}
	return "a0"
}

// Neg returns -x. On uint32 it wraps.
func (e *Engine) Neg(x *Tensor) *Tensor { return e.unary(callerPC(), "neg", x, 0, 0) }

// Abs returns |x|.
func (e *Engine) Abs(x *Tensor) *Tensor { return e.unary(callerPC(), "abs", x, 0, 0) }

// Sign returns -1, 0 or 1 by the sign of x.
func (e *Engine) Sign(x *Tensor) *Tensor { return e.unary(callerPC(), "sign", x, 0, 0) }

// Square returns x*x.
func (e *Engine) Square(x *Tensor) *Tensor { return e.unary(callerPC(), "square", x, 0, 0) }

// Relu returns max(x, 0).
func (e *Engine) Relu(x *Tensor) *Tensor { return e.unary(callerPC(), "relu", x, 0, 0) }

// LeakyRelu returns x where x > 0 and alpha*x elsewhere (float32 only).
func (e *Engine) LeakyRelu(x *Tensor, alpha float32) *Tensor {
	return e.unary(callerPC(), "leaky_relu", x, alpha, 0)
}

// Floor rounds down (identity on integers).
func (e *Engine) Floor(x *Tensor) *Tensor { return e.unary(callerPC(), "floor", x, 0, 0) }

// Ceil rounds up (identity on integers).
func (e *Engine) Ceil(x *Tensor) *Tensor { return e.unary(callerPC(), "ceil", x, 0, 0) }

// Round rounds to the nearest integer, halves to even as NumPy does.
func (e *Engine) Round(x *Tensor) *Tensor { return e.unary(callerPC(), "round", x, 0, 0) }

// Exp returns e^x (float32 only, as the other transcendental ops).
func (e *Engine) Exp(x *Tensor) *Tensor { return e.unary(callerPC(), "exp", x, 0, 0) }

// Log returns the natural logarithm.
func (e *Engine) Log(x *Tensor) *Tensor { return e.unary(callerPC(), "log", x, 0, 0) }

// Sqrt returns the square root.
func (e *Engine) Sqrt(x *Tensor) *Tensor { return e.unary(callerPC(), "sqrt", x, 0, 0) }

// Rsqrt returns 1/sqrt(x).
func (e *Engine) Rsqrt(x *Tensor) *Tensor { return e.unary(callerPC(), "rsqrt", x, 0, 0) }

// Sin returns the sine.
func (e *Engine) Sin(x *Tensor) *Tensor { return e.unary(callerPC(), "sin", x, 0, 0) }

// Cos returns the cosine.
func (e *Engine) Cos(x *Tensor) *Tensor { return e.unary(callerPC(), "cos", x, 0, 0) }

// Tanh returns the hyperbolic tangent.
func (e *Engine) Tanh(x *Tensor) *Tensor { return e.unary(callerPC(), "tanh", x, 0, 0) }

// Sigmoid returns 1/(1+e^-x).
func (e *Engine) Sigmoid(x *Tensor) *Tensor { return e.unary(callerPC(), "sigmoid", x, 0, 0) }

// Gelu returns the GELU activation in its tanh approximation (PyTorch's
// approximate="tanh", tfjs's gelu).
func (e *Engine) Gelu(x *Tensor) *Tensor { return e.unary(callerPC(), "gelu", x, 0, 0) }

// Clip clamps x to [lo, hi]; lo must not exceed hi.
func (e *Engine) Clip(x *Tensor, lo, hi float32) *Tensor {
	if lo > hi {
		o, bad := e.beginLazy("clip", callerPC(), x)
		if bad != nil {
			return bad
		}
		defer o.end()
		return o.fail(ErrArgument, "lo %v > hi %v", lo, hi)
	}
	return e.unary(callerPC(), "clip", x, lo, hi)
}

func (e *Engine) unary(site uintptr, name string, x *Tensor, s0, s1 float32) *Tensor {
	o, bad := e.beginLazy(name, site, x)
	if bad != nil {
		return bad
	}
	defer o.end()
	expr := unaryOps[name](x.dtype.wgsl())
	if expr == "" {
		return o.fail(ErrDType, "%s takes float32, not %s", name, x.dtype)
	}
	return o.mapOp(name, expr, "", x.dtype, []*Tensor{x}, [4]float32{s0, s1})
}

// Cast converts x to dtype: float to integer truncates toward zero and
// saturates; int32 and uint32 reinterpret each other's bits, as Go does.
func (e *Engine) Cast(x *Tensor, dtype DType) *Tensor {
	o, bad := e.beginLazy("cast", callerPC(), x)
	if bad != nil {
		return bad
	}
	defer o.end()
	if !dtype.valid() {
		return o.fail(ErrDType, "to %v", dtype)
	}
	expr := fmt.Sprintf("%s(a0)", dtype.wgsl())
	if x.dtype != Float32 && dtype != Float32 {
		expr = fmt.Sprintf("bitcast<%s>(a0)", dtype.wgsl())
	}
	return o.mapOp("cast", expr, "", dtype, []*Tensor{x}, [4]float32{})
}

// binary ops: the expression for operand type T, and whether the result
// is a comparison (uint32).
type binaryOp struct {
	expr    func(T shaders.Type) string
	helpers string
	compare bool
}

func compare(op string) binaryOp {
	return binaryOp{expr: func(shaders.Type) string { return "select(0u, 1u, a0 " + op + " a1)" }, compare: true}
}

const powHelper = `
fn powf(x: f32, y: f32) -> f32 {
	if (y == 0.0) { return 1.0; }
	let r = pow(abs(x), y);
	if (x >= 0.0) { return r; }
	if (floor(y) != y) { return sqrt(x); } // NaN, as NumPy
	if (abs(y) < 16777216.0 && (i32(y) & 1) != 0) { return -r; }
	return r;
}
`

// modi avoids WGSL's % on negative integers: the GL backend emits GLSL's %,
// which is undefined for negative operands.
const modHelper = `
fn modi(a: i32, b: i32) -> i32 {
	let r = a - b * (a / b);
	return select(r, r + b, r != 0 && ((r < 0) != (b < 0)));
}
`

var binaryOps = map[string]binaryOp{
	"add":     {expr: func(shaders.Type) string { return "a0 + a1" }},
	"sub":     {expr: func(shaders.Type) string { return "a0 - a1" }},
	"mul":     {expr: func(shaders.Type) string { return "a0 * a1" }},
	"div":     {expr: func(shaders.Type) string { return "a0 / a1" }},
	"maximum": {expr: func(shaders.Type) string { return "max(a0, a1)" }},
	"minimum": {expr: func(shaders.Type) string { return "min(a0, a1)" }},
	"pow": {expr: func(T shaders.Type) string {
		if T != shaders.F32 {
			return ""
		}
		return "powf(a0, a1)"
	}, helpers: powHelper},
	"mod": {expr: func(T shaders.Type) string {
		switch T {
		case shaders.F32:
			return "a0 - a1 * floor(a0 / a1)"
		case shaders.I32:
			return "modi(a0, a1)"
		}
		return "a0 % a1"
	}, helpers: modHelper},
	"equal":         compare("=="),
	"not_equal":     compare("!="),
	"less":          compare("<"),
	"less_equal":    compare("<="),
	"greater":       compare(">"),
	"greater_equal": compare(">="),
}

// Add returns a+b with NumPy broadcasting. Both must have one dtype; so
// for every binary op.
func (e *Engine) Add(a, b *Tensor) *Tensor { return e.binary(callerPC(), "add", a, b) }

// Sub returns a-b.
func (e *Engine) Sub(a, b *Tensor) *Tensor { return e.binary(callerPC(), "sub", a, b) }

// Mul returns a*b.
func (e *Engine) Mul(a, b *Tensor) *Tensor { return e.binary(callerPC(), "mul", a, b) }

// Div returns a/b; integer division truncates toward zero.
func (e *Engine) Div(a, b *Tensor) *Tensor { return e.binary(callerPC(), "div", a, b) }

// Pow returns a^b (float32), with NumPy's rules for negative bases.
func (e *Engine) Pow(a, b *Tensor) *Tensor { return e.binary(callerPC(), "pow", a, b) }

// Maximum returns the larger of a and b.
func (e *Engine) Maximum(a, b *Tensor) *Tensor { return e.binary(callerPC(), "maximum", a, b) }

// Minimum returns the smaller of a and b.
func (e *Engine) Minimum(a, b *Tensor) *Tensor { return e.binary(callerPC(), "minimum", a, b) }

// Mod returns a mod b with the sign of b (NumPy's mod, floored).
func (e *Engine) Mod(a, b *Tensor) *Tensor { return e.binary(callerPC(), "mod", a, b) }

// Equal returns 1 where a == b and 0 elsewhere, as uint32.
func (e *Engine) Equal(a, b *Tensor) *Tensor { return e.binary(callerPC(), "equal", a, b) }

// NotEqual returns a != b as uint32.
func (e *Engine) NotEqual(a, b *Tensor) *Tensor { return e.binary(callerPC(), "not_equal", a, b) }

// Less returns a < b as uint32.
func (e *Engine) Less(a, b *Tensor) *Tensor { return e.binary(callerPC(), "less", a, b) }

// LessEqual returns a <= b as uint32.
func (e *Engine) LessEqual(a, b *Tensor) *Tensor { return e.binary(callerPC(), "less_equal", a, b) }

// Greater returns a > b as uint32.
func (e *Engine) Greater(a, b *Tensor) *Tensor { return e.binary(callerPC(), "greater", a, b) }

// GreaterEqual returns a >= b as uint32.
func (e *Engine) GreaterEqual(a, b *Tensor) *Tensor {
	return e.binary(callerPC(), "greater_equal", a, b)
}

func (e *Engine) binary(site uintptr, name string, a, b *Tensor) *Tensor {
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
	return o.mapOp(name, expr, op.helpers, out, []*Tensor{a, b}, [4]float32{})
}

// Where returns a where cond is nonzero and b elsewhere, broadcasting all
// three. cond is uint32 (as comparisons return); a and b share a dtype.
func (e *Engine) Where(cond, a, b *Tensor) *Tensor {
	o, bad := e.beginLazy("where", callerPC(), cond, a, b)
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
	return o.mapOp("where", "select(a2, a1, a0 != 0u)", "", a.dtype, []*Tensor{cond, a, b}, [4]float32{})
}

// mapOp records an elementwise op over broadcast inputs; it is dispatched
// with the ops it fuses with (fusion.go).
func (o *op) mapOp(name, expr, helpers string, out DType, in []*Tensor, scalars [4]float32) *Tensor {
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
	n := shaders.Node{Name: name, Out: out.wgsl(), Expr: expr, Helpers: helpers}
	if err := o.record(res, n, shaders.NodeParams{Scalars: scalars}, in); err != nil {
		res.Dispose()
		return o.e.errTensor(err)
	}
	return res
}
