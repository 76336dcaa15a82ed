package tensor

import (
	"fmt"
	"math"

	"github.com/wgtensor/wgtensor/internal/kernels"
)

// FromFloat32s creates a float32 tensor holding data. With no shape it is
// one-dimensional; otherwise the shape's size must equal len(data).
func (e *Engine) FromFloat32s(data []float32, shape ...int) *Tensor {
	return fromSlice(e, callerSite(), data, Float32, shape)
}

// FromInt32s creates an int32 tensor holding data.
func (e *Engine) FromInt32s(data []int32, shape ...int) *Tensor {
	return fromSlice(e, callerSite(), data, Int32, shape)
}

// FromUint32s creates a uint32 tensor holding data.
func (e *Engine) FromUint32s(data []uint32, shape ...int) *Tensor {
	return fromSlice(e, callerSite(), data, Uint32, shape)
}

// Scalar creates a float32 tensor of shape [] holding v.
func (e *Engine) Scalar(v float32) *Tensor {
	return fromSlice(e, callerSite(), []float32{v}, Float32, []int{})
}

// fromSlice uploads data. The device copies it before Write returns, so the
// caller's slice is uploaded as it is, without a conversion.
func fromSlice[T word](e *Engine, site stack, data []T, dtype DType, shape []int) *Tensor {
	o, bad := e.begin("from "+dtype.String()+"s", site)
	if bad != nil {
		return bad
	}
	defer o.end()
	s := Shape(shape).clone()
	if shape == nil {
		s = Shape{len(data)}
	}
	if err := s.check(); err != nil {
		return o.fail(ErrShape, "%v", err)
	}
	if s.Size() != len(data) {
		return o.fail(ErrShape, "%d values do not fill shape %v (%d elements)", len(data), s, s.Size())
	}
	t, err := o.alloc(s, dtype)
	if err != nil {
		return e.errTensor(err)
	}
	if len(data) == 0 {
		return t
	}
	if err := e.dev.Write(t.buf(), 0, gpuBytes(data)); err != nil {
		t.Dispose()
		return o.failErr(err)
	}
	return t
}

// bitsOf encodes v as dtype's 32 bits, converting as Cast does: to an
// integer type v is truncated toward zero and saturated to the type's
// range, and NaN gives 0. (v is not rounded to float32 first, so every
// integer the type holds is exact.)
func bitsOf(v float64, dtype DType) uint32 {
	switch dtype {
	case Int32, Int8: // an int8 node wraps it to its low byte
		return uint32(int32(saturate(v, math.MinInt32, math.MaxInt32)))
	case Uint32:
		return uint32(saturate(v, 0, math.MaxUint32))
	}
	return math.Float32bits(float32(v))
}

// saturate truncates v toward zero and clamps it to [lo, hi]; NaN gives 0.
func saturate(v, lo, hi float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return min(max(math.Trunc(v), lo), hi)
}

// generate creates a tensor of shape whose elements come from an
// elementwise op with no inputs: its Expr may use i (the flat index), s
// (the scalars) and h2, h3 (the words).
func (e *Engine) generate(site stack, name string, dtype DType, shape Shape, n kernels.Node, p kernels.NodeParams) *Tensor {
	o, bad := e.beginLazy(name, site)
	if bad != nil {
		return bad
	}
	defer o.end()
	if !dtype.valid() {
		return o.fail(ErrDType, "dtype %v", dtype)
	}
	if err := shape.check(); err != nil {
		return o.fail(ErrShape, "%v", err)
	}
	t, err := o.alloc(shape.clone(), dtype)
	if err != nil {
		return e.errTensor(err)
	}
	n.Name, n.Out = name, dtype.wgsl()
	if err := o.record(t, n, p, nil); err != nil {
		t.Dispose()
		return e.errTensor(err)
	}
	return t
}

// Fill creates a tensor of shape whose every element is value, converted
// to dtype as Cast converts: rounded to float32 (and from there to
// float16 or bfloat16), or truncated toward zero and saturated to an
// integer type's range (NaN gives 0).
func (e *Engine) Fill(dtype DType, value float64, shape ...int) *Tensor {
	return e.fill(callerSite(), "fill", dtype, value, shape)
}

// Zeros creates a tensor of zeros.
func (e *Engine) Zeros(dtype DType, shape ...int) *Tensor {
	return e.fill(callerSite(), "zeros", dtype, 0, shape)
}

// Ones creates a tensor of ones.
func (e *Engine) Ones(dtype DType, shape ...int) *Tensor {
	return e.fill(callerSite(), "ones", dtype, 1, shape)
}

func (e *Engine) fill(site stack, name string, dtype DType, value float64, shape []int) *Tensor {
	return e.generate(site, name, dtype, Shape(shape), fillNode(dtype), kernels.NodeParams{Words: [2]uint32{bitsOf(value, dtype)}})
}

// fillNode is the op that sets every element to its word h2, dtype's bits.
func fillNode(dtype DType) kernels.Node {
	return kernels.Node{Name: "fill", Out: dtype.wgsl(), Expr: fmt.Sprintf("bitcast<%s>(h2)", dtype.wgsl())}
}

// Range creates the one-dimensional tensor start, start+step, ... up to
// but excluding stop, like NumPy's arange. Float32 elements are computed as
// start + i*step in float32. For Int32 and Uint32, start and step must be
// integers and every element must fit the dtype (else ErrArgument); the
// elements are then exact.
func (e *Engine) Range(dtype DType, start, stop, step float64) *Tensor {
	n, err := rangeLength(dtype, start, stop, step)
	if err != nil {
		return e.errTensor(err)
	}
	var m kernels.Node
	p := kernels.NodeParams{Scalars: [4]float32{float32(start), float32(step)}}
	switch dtype {
	case Float32, Float16, BFloat16: // a half result rounds each element
		m.Expr = "s.x + f32(i) * s.y"
	default:
		T := dtype.wgsl()
		m.Expr = fmt.Sprintf("bitcast<%[1]s>(h2) + %[1]s(i) * bitcast<%[1]s>(h3)", T)
		// The words wrap, and so does the kernel's arithmetic: the elements,
		// which fit the dtype, come out exact.
		p.Words = [2]uint32{uint32(int64(start)), 0}
		if n > 1 {
			p.Words[1] = uint32(int64(step))
		}
	}
	return e.generate(callerSite(), "range", dtype, Shape{n}, m, p)
}

// rangeLength returns the number of elements of Range's result, or the
// error refusing its arguments.
func rangeLength(dtype DType, start, stop, step float64) (int, error) {
	fail := func(kind error, format string, args ...any) (int, error) {
		return 0, opErr("range", nil, kind, "range(%v, %v, %v): "+format, append([]any{start, stop, step}, args...)...)
	}
	for _, v := range []float64{start, stop, step} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fail(ErrArgument, "not finite")
		}
	}
	if step == 0 {
		return fail(ErrArgument, "a step of 0")
	}
	count := math.Ceil((stop - start) / step) // may be ±Inf
	if count > MaxElements {
		return fail(ErrShape, "%g elements; a tensor has at most %d (MaxElements)", count, MaxElements)
	}
	if count <= 0 {
		return 0, nil
	}
	n := int(count)
	if !dtype.IsFloat() {
		lo, hi := float64(math.MinInt32), float64(math.MaxInt32)
		switch dtype {
		case Uint32:
			lo, hi = 0, math.MaxUint32
		case Int8:
			lo, hi = math.MinInt8, math.MaxInt8
		}
		last := start + float64(n-1)*step
		if start != math.Trunc(start) || step != math.Trunc(step) || min(start, last) < lo || max(start, last) > hi {
			return fail(ErrArgument, "the elements are not whole numbers within %s", dtype)
		}
	}
	return n, nil
}

// Eye creates an n×m matrix with ones on the diagonal.
func (e *Engine) Eye(dtype DType, n, m int) *Tensor {
	T := dtype.wgsl()
	k := kernels.Node{Expr: fmt.Sprintf("select(%[1]s(0), %[1]s(1), i / h2 == i %% h2)", T)}
	return e.generate(callerSite(), "eye", dtype, Shape{n, m}, k, kernels.NodeParams{Words: [2]uint32{uint32(max(m, 1))}})
}

// RandUniform creates a float32 tensor of values uniform in [lo, hi),
// generated on the GPU by the Philox4x32-10 counter-based generator: the
// element at flat index i is a function of (seed, i) only, so the same seed
// gives the same numbers on every backend and for every shape.
func (e *Engine) RandUniform(seed uint64, lo, hi float32, shape ...int) *Tensor {
	m := kernels.Node{Helpers: kernels.Philox,
		Expr: "s.x + (s.y - s.x) * unit(philox(vec4<u32>(i, 0u, 0u, 0u), vec2<u32>(h2, h3)).x)"}
	p := kernels.NodeParams{Words: [2]uint32{uint32(seed), uint32(seed >> 32)}, Scalars: [4]float32{lo, hi}}
	return e.generate(callerSite(), "rand_uniform", Float32, Shape(shape), m, p)
}

// RandNormal creates a float32 tensor of normally distributed values with
// the given mean and standard deviation: Box–Muller over two Philox words
// per element, so the same seed gives the same numbers everywhere (up to
// the backend's precision of log, sqrt and cos).
func (e *Engine) RandNormal(seed uint64, mean, std float32, shape ...int) *Tensor {
	m := kernels.Node{Helpers: kernels.Philox + `
fn normal(i: u32, key: vec2<u32>) -> f32 {
	let r = philox(vec4<u32>(i, 0u, 0u, 0u), key);
	let u1 = (f32(r.x >> 8u) + 1.0) * (1.0 / 16777216.0);
	return sqrt(-2.0 * log(u1)) * cos(6.2831853 * unit(r.y));
}
`, Expr: "s.x + s.y * normal(i, vec2<u32>(h2, h3))"}
	p := kernels.NodeParams{Words: [2]uint32{uint32(seed), uint32(seed >> 32)}, Scalars: [4]float32{mean, std}}
	return e.generate(callerSite(), "rand_normal", Float32, Shape(shape), m, p)
}
