package tensor

import (
	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Sum adds x's elements over axes (all of them when axes is empty); with
// keepDims the reduced dimensions stay as size 1.
//
// A float32 sum over x's leading dimensions (x seen as K×N, summed over its
// K rows, K at most 16,384: a bias's gradient) waits, like an
// elementwise op, for what comes next: if that is a product that reads x
// as its K×N operand (MatMulT(h, x, true, false), or MatMulT(x, h, true,
// false): the weight's gradient), the product's kernel adds the columns as
// it reads them (its pipeline key ends in /sum_a or /sum_b), one dispatch
// fewer.
// Its sums are then taken in the order of k where Sum's own kernel adds
// partial sums, so the two may differ in the last bits: each is within
// (K-1)·2⁻²⁴·Σ|x| of the exact sum of its column.
func (e *Engine) Sum(x *Tensor, keepDims bool, axes ...int) *Tensor {
	return e.reduce(callerSite(), kernels.Sum, x, keepDims, axes)
}

// Mean averages x over axes; the result is float32 for every dtype.
func (e *Engine) Mean(x *Tensor, keepDims bool, axes ...int) *Tensor {
	return e.reduce(callerSite(), kernels.Mean, x, keepDims, axes)
}

// Prod multiplies x's elements over axes.
func (e *Engine) Prod(x *Tensor, keepDims bool, axes ...int) *Tensor {
	return e.reduce(callerSite(), kernels.Prod, x, keepDims, axes)
}

// Max is the largest element over axes, which must not be empty.
func (e *Engine) Max(x *Tensor, keepDims bool, axes ...int) *Tensor {
	return e.reduce(callerSite(), kernels.Max, x, keepDims, axes)
}

// Min is the smallest element over axes.
func (e *Engine) Min(x *Tensor, keepDims bool, axes ...int) *Tensor {
	return e.reduce(callerSite(), kernels.Min, x, keepDims, axes)
}

// ArgMax is the index (int32) of the largest element along axis; ties give
// the first.
func (e *Engine) ArgMax(x *Tensor, axis int) *Tensor {
	return e.reduce(callerSite(), kernels.ArgMax, x, false, []int{axis})
}

// ArgMin is the index (int32) of the smallest element along axis.
func (e *Engine) ArgMin(x *Tensor, axis int) *Tensor {
	return e.reduce(callerSite(), kernels.ArgMin, x, false, []int{axis})
}

// reduceAxes normalises axes (all when empty) and returns a mask of the
// reduced dimensions.
func reduceAxes(o *op, rank int, axes []int) ([]bool, *Tensor) {
	mask := make([]bool, rank)
	if len(axes) == 0 {
		for i := range mask {
			mask[i] = true
		}
		return mask, nil
	}
	for _, a := range axes {
		ax, ok := normAxis(a, rank)
		if !ok || mask[ax] {
			return nil, o.fail(ErrAxis, "axes %v of rank %d", axes, rank)
		}
		mask[ax] = true
	}
	return mask, nil
}

func (e *Engine) reduce(site stack, rop kernels.ReduceOp, x *Tensor, keepDims bool, axes []int) *Tensor {
	o, bad := e.begin(string(rop), site, x)
	if bad != nil {
		return bad
	}
	defer o.end()
	o.noteAxes(x.Rank(), keepDims, axes)
	return o.reduce(rop, x, keepDims, axes)
}

func (o *op) reduce(rop kernels.ReduceOp, x *Tensor, keepDims bool, axes []int) *Tensor {
	if rop.Arg() { // int32 indices
		return o.reduceAcc(rop, x, keepDims, axes)
	}
	return o.roundedTo(x.dtype, o.reduceAcc(rop, x, keepDims, axes))
}

// reduceAcc is reduce with results of the accumulator's type: float32 for
// a float16 or bfloat16 x.
func (o *op) reduceAcc(rop kernels.ReduceOp, x *Tensor, keepDims bool, axes []int) *Tensor {
	if rop.Arg() && x.Rank() == 0 {
		return o.fail(ErrAxis, "axis %d of a scalar", axes[0])
	}
	mask, bad := reduceAxes(o, x.Rank(), axes)
	if bad != nil {
		return bad
	}
	rows, length, stride := 1, 1, 1
	var shape Shape = Shape{}
	for i, d := range x.shape {
		if !mask[i] {
			rows *= d
			shape = append(shape, d)
		} else {
			length *= d
			if keepDims {
				shape = append(shape, 1)
			}
		}
	}
	if length > kernels.MaxRowLength {
		return o.fail(ErrShape, "reducing %d elements per output; at most %d", length, kernels.MaxRowLength)
	}
	if length == 0 && rows > 0 && (rop == kernels.Max || rop == kernels.Min || rop.Arg()) {
		return o.fail(ErrShape, "%s over an empty dimension", rop)
	}
	out, err := o.alloc(shape, dtypeOf(kernels.Reduce{Op: rop, In: x.dtype.wgsl()}.Out()))
	if err != nil {
		return o.e.errTensor(err)
	}
	src := x
	if inner, ok := innerOfBlock(x.shape, mask); ok {
		stride = inner
		// A sum over the leading dimensions (a bias's gradient) waits for a
		// product that reads x to compute it (Engine.deferSum).
		if rop == kernels.Sum && x.dtype == Float32 && stride == rows && rows > 0 && length > 0 &&
			length <= kernels.MatMulKRange && o.e.deferSum(out, x, length, rows) {
			return out
		}
	} else {
		// Move the reduced dimensions last, then reduce rows.
		src = o.transpose(x, reducedLast(mask))
		if src.err != nil {
			out.Dispose()
			return src
		}
		// Safe to dispose now: the reduce below is recorded after the copy,
		// and the pool never hands the storage to a later op before it.
		defer src.Dispose()
	}
	if rows > 0 {
		if err := o.reduceRows(rop, src, out, rows, length, stride); err != nil {
			out.Dispose()
			return o.e.errTensor(err)
		}
	}
	return out
}

// innerOfBlock reports whether the dimensions of shape that mask reduces
// form one block of adjacent dimensions (those of size 1 aside), and if
// so the number of elements of the dimensions after it: the distance
// between a row's elements when the reduction reads shape in place (see
// kernels.Reduce).
func innerOfBlock(shape Shape, mask []bool) (int, bool) {
	first, last := -1, -1
	for i, d := range shape {
		if mask[i] && d != 1 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	inner := 1
	for i := last + 1; i < len(shape); i++ {
		inner *= shape[i]
	}
	for i := first + 1; i < last && first >= 0; i++ {
		if !mask[i] && shape[i] != 1 {
			return 0, false
		}
	}
	return inner, true
}

// reducedLast is the permutation that moves the dimensions mask reduces
// last, keeping the order within each group.
func reducedLast(mask []bool) []int {
	var kept, reduced []int
	for i, m := range mask {
		if m {
			reduced = append(reduced, i)
		} else {
			kept = append(kept, i)
		}
	}
	return append(kept, reduced...)
}

// dtypeOf is the dtype of a kernel's type.
func dtypeOf(t kernels.Type) DType {
	return map[kernels.Type]DType{kernels.F32: Float32, kernels.I32: Int32, kernels.U32: Uint32}[t]
}

// reduceRows reduces rows rows of length elements of src, stride apart
// (see kernels.Reduce), into out. A row longer than kernels.ReduceSegment is reduced in segments first, then the
// segments' results are reduced (see kernels.Reduce), so that no workgroup
// runs long.
func (o *op) reduceRows(rop kernels.ReduceOp, src, out *Tensor, rows, length, stride int) error {
	scale := 1 / float32(length) // Mean's
	if length <= kernels.ReduceSegment {
		return o.reduceSegment(rop, src.dtype.wgsl(), src.dtype.storage(), rows, length, stride, src.buf(), out.buf())
	}
	segs := (length + kernels.ReduceSegment - 1) / kernels.ReduceSegment
	part := kernels.Reduce{Op: rop, In: src.dtype.wgsl(), Segments: true, Storage: src.dtype.storage()}
	vals, err := o.alloc(Shape{rows, segs}, dtypeOf(part.Out()))
	if err != nil {
		return err
	}
	// Safe to dispose once the second step is recorded (see reduce).
	defer vals.Dispose()
	bufs := []*wgpu.Buffer{src.buf(), vals.buf()}
	var idx *Tensor
	if rop.Arg() {
		if idx, err = o.alloc(Shape{rows, segs}, Uint32); err != nil {
			return err
		}
		defer idx.Dispose()
		bufs = append(bufs, idx.buf())
	}
	p := &kernels.RowParams{Length: uint32(length), Segments: uint32(segs), Stride: uint32(stride)}
	if err := o.spread(part.Key(), part.Spec, 1, rows*segs, part.RowWork(kernels.ReduceSegment), p, bufs); err != nil {
		return err
	}
	if rop.Arg() {
		k := kernels.Reduce{Op: rop, In: part.Out(), PerThread: true, Indexed: true}
		return o.rows(k.Key(), k.Spec, false, rows, k.RowWork(segs), rowParams(segs, 0), vals.buf(), idx.buf(), out.buf())
	}
	k := kernels.Reduce{Op: rop, In: part.Out(), PerThread: o.e.perThread(rows, segs)}
	return o.rows(k.Key(), k.Spec, !k.PerThread, rows, k.RowWork(segs), rowParams(segs, scale), vals.buf(), out.buf())
}

// reduceSegment dispatches the one-pass reduction of rows rows of length
// elements (at most kernels.ReduceSegment), stride apart, of type in (as
// storage lays them out) from src into out.
func (o *op) reduceSegment(rop kernels.ReduceOp, in kernels.Type, storage kernels.Storage, rows, length, stride int, src, out *wgpu.Buffer) error {
	k := kernels.Reduce{Op: rop, In: in, PerThread: o.e.perThread(rows, length), Storage: storage}
	p := &kernels.RowParams{Length: uint32(length), Scale: 1 / float32(length), Stride: uint32(stride)}
	return o.rows(k.Key(), k.Spec, !k.PerThread, rows, k.RowWork(length), p, src, out)
}

// perThread reports whether a row kernel (reduce, softmax) over rows rows
// of length elements takes a thread per row rather than a workgroup; rows
// longer than kernels.MaxThreadRow never do. On a CPU adapter a workgroup
// spends most of its time on barriers (on lavapipe 10 to 40 µs each,
// whatever the row's length), so a thread per row is faster once 8 rows
// or more fill a core's vector lanes (BenchmarkRows: softmax of
// [1024 128] took 1.5 ms with a thread per row, 42 with a workgroup per
// row; of [8 16384] 1.6 and 3.4; of [2 16384] 1.2 and 0.5). On a GPU a
// workgroup per row keeps the reads coalesced: a thread per row only for
// short rows, or very many.
func (e *Engine) perThread(rows, length int) bool {
	switch e.hooks.rows {
	case "thread":
		return length <= kernels.MaxThreadRow
	case "group":
		return false
	}
	if length > kernels.MaxThreadRow {
		return false
	}
	if e.dev.Info().Type == wgpu.AdapterCPU {
		return length <= 32 || rows >= 8
	}
	return length <= 32 || (rows >= 8192 && length <= 512)
}

// rows dispatches a row kernel (reduce, softmax) over rows rows, each of
// work each, with parameters p (their range aside): a workgroup per row,
// or a thread per row.
func (o *op) rows(key string, build func() wgpu.KernelSpec, perGroup bool, rows int, each float64, p *kernels.RowParams, bufs ...*wgpu.Buffer) error {
	wg := uint32(kernels.WorkgroupSize)
	if perGroup {
		wg = 1
	}
	return o.spread(key, build, wg, rows, each, p, bufs)
}

// rowParams are the parameters of a row kernel over contiguous rows of
// length elements, with scale as Mean's.
func rowParams(length int, scale float32) *kernels.RowParams {
	return &kernels.RowParams{Length: uint32(length), Scale: scale}
}

// Softmax returns exp(x) / sum(exp(x)) along axis (float32), computed after
// subtracting the maximum so that large inputs do not overflow.
func (e *Engine) Softmax(x *Tensor, axis int) *Tensor {
	return e.softmax(callerSite(), x, axis, false)
}

// LogSoftmax returns x - max - log(sum(exp(x - max))) along axis.
func (e *Engine) LogSoftmax(x *Tensor, axis int) *Tensor {
	return e.softmax(callerSite(), x, axis, true)
}

func (e *Engine) softmax(site stack, x *Tensor, axis int, log bool) *Tensor {
	name := "softmax"
	if log {
		name = "log_softmax"
	}
	o, bad := e.begin(name, site, x)
	if bad != nil {
		return bad
	}
	defer o.end()
	if !x.dtype.IsFloat() {
		return o.fail(ErrDType, "%s takes float32, float16 or bfloat16, not %s", name, x.dtype)
	}
	return o.roundedTo(x.dtype, o.softmax(x, axis, log))
}

// softmax computes (log-)softmax of x along axis, in float32 whatever x's
// float dtype.
func (o *op) softmax(x *Tensor, axis int, log bool) *Tensor {
	e := o.e
	ax, ok := normAxis(axis, x.Rank())
	if !ok {
		return o.fail(ErrAxis, "axis %d", axis)
	}
	o.attrs.Axis = ax
	if x.shape[ax] > kernels.MaxRowLength {
		return o.fail(ErrShape, "%d elements along axis %d; at most %d", x.shape[ax], axis, kernels.MaxRowLength)
	}
	if x.shape[ax] > kernels.ReduceSegment {
		if x.dtype.half() { // its elementwise ops would round each step
			x32 := o.mapOp("cast", "a0", Float32, []*Tensor{x}, [4]float32{})
			if x32.err != nil {
				return x32
			}
			defer x32.Dispose()
			x = x32
		}
		return o.softmaxLong(x, ax, log)
	}
	// The rows run along axis ax, in place: their elements lie the
	// elements of the later axes apart (see kernels.Softmax).
	out, err := o.alloc(x.shape.clone(), Float32)
	if err != nil {
		return e.errTensor(err)
	}
	length, stride := x.shape[ax], x.shape[ax+1:].Size()
	if rows := x.Size() / max(length, 1); length > 0 && rows > 0 {
		k := kernels.Softmax{Log: log, PerThread: o.e.perThread(rows, length), Storage: x.dtype.storage()}
		p := &kernels.RowParams{Length: uint32(length), Stride: uint32(stride)}
		if err := o.rows(k.Key(), k.Spec, !k.PerThread, rows, k.RowWork(length), p, x.buf(), out.buf()); err != nil {
			out.Dispose()
			return e.errTensor(err)
		}
	}
	return out
}

// softmaxLong computes (log-)softmax along axis ax from reductions and
// elementwise ops, for rows longer than one workgroup may take: the
// reductions cut them into segments. It computes what the Softmax kernel
// does, x - max, exp, the sum, then exp / sum or x - max - log(sum), the
// sum's rounding aside.
func (o *op) softmaxLong(x *Tensor, ax int, log bool) *Tensor {
	mx := o.reduce(kernels.Max, x, true, []int{ax})
	if mx.err != nil {
		return mx
	}
	defer mx.Dispose()
	d := o.apply("sub", x, mx)
	if d.err != nil {
		return d
	}
	defer d.Dispose()
	ex := o.apply("exp", d)
	if ex.err != nil {
		return ex
	}
	defer ex.Dispose()
	total := o.reduce(kernels.Sum, ex, true, []int{ax})
	if total.err != nil {
		return total
	}
	defer total.Dispose()
	if !log {
		return o.apply("div", ex, total)
	}
	lt := o.apply("log", total)
	if lt.err != nil {
		return lt
	}
	defer lt.Dispose()
	return o.apply("sub", d, lt)
}

// apply records the float32 elementwise op name, unary or binary, inside o.
func (o *op) apply(name string, in ...*Tensor) *Tensor {
	if u, ok := unaryOps[name]; ok {
		return o.mapOp(name, u(kernels.F32), Float32, in, [4]float32{})
	}
	return o.mapOp(name, binaryOps[name].expr(kernels.F32), Float32, in, [4]float32{})
}
