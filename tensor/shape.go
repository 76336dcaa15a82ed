package tensor

import (
	"fmt"
	"slices"

	"github.com/wgtensor/wgtensor/internal/kernels"
)

// view returns a new tensor of shape sharing x's storage.
func (o *op) view(x *Tensor, shape Shape) *Tensor {
	if err := shape.check(); err != nil {
		return o.fail(ErrShape, "%v", err)
	}
	x.st.retain()
	t := &Tensor{shape: shape, dtype: x.dtype, st: x.st, site: o.site}
	x.st.addHolder(t)
	return o.register(t)
}

// Reshape returns x with a new shape of the same size, sharing x's
// storage. One dimension may be -1: it is inferred.
func (e *Engine) Reshape(x *Tensor, shape ...int) *Tensor {
	o, bad := e.beginLazy("reshape", callerSite(), x)
	if bad != nil {
		return bad
	}
	defer o.end()
	s, err := inferShape(Shape(shape).clone(), x.Size())
	if err != nil {
		return o.fail(ErrShape, "to %v: %v", Shape(shape), err)
	}
	o.attrs.Shape = s
	return o.view(x, s)
}

// inferShape fills in s's -1 dimension, if any, for size elements, and
// checks that s holds exactly that many.
func inferShape(s Shape, size int) (Shape, error) {
	infer := slices.Index(s, -1)
	if infer >= 0 && slices.Index(s[infer+1:], -1) >= 0 {
		return nil, fmt.Errorf("more than one dimension is -1")
	}
	if infer >= 0 {
		s[infer] = 1 // the product of the others, for now
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	if infer >= 0 {
		known := s.Size()
		if known == 0 || size%known != 0 {
			return nil, fmt.Errorf("cannot infer dimension %d for %d elements", infer, size)
		}
		s[infer] = size / known
	}
	if s.Size() != size {
		return nil, fmt.Errorf("%d elements do not fit", size)
	}
	return s, nil
}

// Clone returns a view sharing x's storage; Copy makes an independent copy.
// Disposing either of x and its Clone leaves the other intact, but a
// write into the storage (Assign, a kernel's Launch.InOut, WriteBytes)
// shows through both, as through every view: to keep values that will be
// overwritten (the best weights so far, say), Copy them.
func (e *Engine) Clone(x *Tensor) *Tensor {
	o, bad := e.beginLazy("clone", callerSite(), x)
	if bad != nil {
		return bad
	}
	defer o.end()
	return o.view(x, x.shape.clone())
}

// Copy returns a new tensor of x's shape and dtype holding x's values in
// storage of its own (PyTorch's clone()): a later write into x's storage
// (Assign, Launch.InOut, WriteBytes) does not change the copy, nor a
// write into the copy x. The values are copied bit for bit (NaN payloads
// and subnormals included, on every device) by one copy kernel, recorded
// in order with every other op, so the copy holds the values x holds at
// the call. Its gradient passes through unchanged (package grad). Like
// every op, Copy belongs to the Engine's goroutine.
func (e *Engine) Copy(x *Tensor) *Tensor {
	o, bad := e.begin("copy", callerSite(), x)
	if bad != nil {
		return bad
	}
	defer o.end()
	out, err := o.alloc(x.shape.clone(), x.dtype)
	if err != nil {
		return o.e.errTensor(err)
	}
	n := x.Size()
	if x.dtype.narrow() { // the whole words, padding included
		n = int(storageBytes(n, x.dtype) / 4)
	}
	if err := o.copyElements(1, x, out, []int{n}, 0, []int{1}, 0, []int{1}); err != nil {
		out.Dispose()
		return o.e.errTensor(err)
	}
	return out
}

// ExpandDims inserts a dimension of size 1 at axis (which may be negative,
// counting from the end of the result).
func (e *Engine) ExpandDims(x *Tensor, axis int) *Tensor {
	o, bad := e.beginLazy("expand_dims", callerSite(), x)
	if bad != nil {
		return bad
	}
	defer o.end()
	ax, ok := normAxis(axis, x.Rank()+1)
	if !ok {
		return o.fail(ErrAxis, "axis %d", axis)
	}
	o.attrs.Axis = ax
	return o.view(x, slices.Insert(x.shape.clone(), ax, 1))
}

// Squeeze removes the given dimensions of size 1, or all of them when no
// axis is given.
func (e *Engine) Squeeze(x *Tensor, axes ...int) *Tensor {
	o, bad := e.beginLazy("squeeze", callerSite(), x)
	if bad != nil {
		return bad
	}
	defer o.end()
	o.attrs.Axes = axes
	drop := make([]bool, x.Rank())
	for _, a := range axes {
		ax, ok := normAxis(a, x.Rank())
		switch {
		case !ok || x.shape[ax] != 1:
			return o.fail(ErrAxis, "axis %d is not a dimension of size 1", a)
		case drop[ax]:
			return o.fail(ErrAxis, "axes %v name dimension %d twice", axes, ax)
		}
		drop[ax] = true
	}
	var s Shape = Shape{}
	for i, d := range x.shape {
		if (len(axes) == 0 && d == 1) || drop[i] {
			continue
		}
		s = append(s, d)
	}
	return o.view(x, s)
}

// copyRegion records a strided copy of a region of dims from src (at
// offset, with strides) to dst (at offset, with strides), in elements of
// their dtype.
func (o *op) copyRegion(src, dst *Tensor, dims []int, srcOff int, srcStrides []int, dstOff int, dstStrides []int) error {
	return o.copyElements(src.dtype.perWord(), src, dst, dims, srcOff, srcStrides, dstOff, dstStrides)
}

// copyElements is copyRegion in elements perWord to a 32-bit word (1, 2
// or 4).
func (o *op) copyElements(perWord int, src, dst *Tensor, dims []int, srcOff int, srcStrides []int, dstOff int, dstStrides []int) error {
	n := Shape(dims).Size()
	if n == 0 {
		return nil
	}
	c := kernels.Copy{Rank: len(dims), PerWord: perWord}
	p := &kernels.CopyParams{SrcOffset: uint32(srcOff), DstOffset: uint32(dstOff), Dims: u32s(dims), SrcStrides: u32s(srcStrides), DstStrides: u32s(dstStrides)}
	return o.run(c.Key(), c.Spec, n, c.ThreadWork(), p, src.buf(), dst.buf())
}

// allocForCopies allocates a result that copies of elements will fill: a
// float16, bfloat16 or int8 one whose last word is not whole has that word
// zeroed first, since no copy writes its padding.
func (o *op) allocForCopies(shape Shape, dtype DType) (*Tensor, error) {
	t, err := o.alloc(shape, dtype)
	if err != nil || shape.Size()%dtype.perWord() == 0 {
		return t, err
	}
	if err := o.e.dev.Write(t.buf(), t.bytes()-4, make([]byte, 4)); err != nil {
		t.Dispose()
		return nil, &OpError{Op: o.name, Shapes: o.shapes(), Err: err}
	}
	return t, nil
}

// gatherCopy makes a new tensor of shape dims whose element c is src's
// element at srcOff + Σ c·srcStrides.
func (o *op) gatherCopy(src *Tensor, dims Shape, srcOff int, srcStrides []int) *Tensor {
	out, err := o.allocForCopies(dims, src.dtype)
	if err != nil {
		return o.e.errTensor(err)
	}
	if err := o.copyRegion(src, out, dims, srcOff, srcStrides, 0, dims.strides()); err != nil {
		out.Dispose()
		return o.e.errTensor(err)
	}
	return out
}

// Transpose permutes x's dimensions: dimension i of the result is
// dimension perm[i] of x. With no perm the dimensions are reversed.
func (e *Engine) Transpose(x *Tensor, perm ...int) *Tensor {
	o, bad := e.begin("transpose", callerSite(), x)
	if bad != nil {
		return bad
	}
	defer o.end()
	o.attrs.Perm = perm
	return o.transpose(x, perm)
}

func (o *op) transpose(x *Tensor, perm []int) *Tensor {
	r := x.Rank()
	if perm == nil {
		for i := range r {
			perm = append(perm, r-1-i)
		}
	}
	if len(perm) != r {
		return o.fail(ErrAxis, "permutation %v of %d dimensions", perm, r)
	}
	seen := make([]bool, r)
	dims := make(Shape, r)
	strides := make([]int, r)
	in := x.shape.strides()
	for i, p := range perm {
		ax, ok := normAxis(p, r)
		if !ok || seen[ax] {
			return o.fail(ErrAxis, "%v is not a permutation", perm)
		}
		seen[ax] = true
		dims[i], strides[i] = x.shape[ax], in[ax]
	}
	return o.gatherCopy(x, dims, 0, strides)
}

// Slice returns the block of x starting at begin with the given size per
// dimension; a size of -1 extends to the end. Missing trailing dimensions
// are taken whole.
func (e *Engine) Slice(x *Tensor, begin, size []int) *Tensor {
	o, bad := e.begin("slice", callerSite(), x)
	if bad != nil {
		return bad
	}
	defer o.end()
	o.attrs.Begin, o.attrs.Size = begin, size
	return o.slice(x, begin, size)
}

func (o *op) slice(x *Tensor, begin, size []int) *Tensor {
	r := x.Rank()
	if len(begin) > r || len(size) > r {
		return o.fail(ErrShape, "begin %v, size %v for rank %d", begin, size, r)
	}
	dims := x.shape.clone()
	off := 0
	strides := x.shape.strides()
	for i := range r {
		b, s := 0, -1
		if i < len(begin) {
			b = begin[i]
		}
		if i < len(size) {
			s = size[i]
		}
		if b < 0 || b > x.shape[i] {
			return o.fail(ErrShape, "begin %v, size %v out of bounds in dimension %d", begin, size, i)
		}
		if s == -1 {
			s = x.shape[i] - b
		}
		if s < 0 || s > x.shape[i]-b {
			return o.fail(ErrShape, "begin %v, size %v out of bounds in dimension %d", begin, size, i)
		}
		dims[i] = s
		off += b * strides[i]
	}
	return o.gatherCopy(x, dims, off, strides)
}

// BroadcastTo returns x repeated along broadcast dimensions to shape.
func (e *Engine) BroadcastTo(x *Tensor, shape ...int) *Tensor {
	o, bad := e.begin("broadcast_to", callerSite(), x)
	if bad != nil {
		return bad
	}
	defer o.end()
	s := Shape(shape).clone()
	o.attrs.Shape = s
	if err := s.check(); err != nil {
		return o.fail(ErrShape, "to %v", err)
	}
	if b, err := broadcast(x.shape, s); err != nil || !b.Equal(s) {
		return o.fail(ErrShape, "cannot broadcast to %v", s)
	}
	return o.gatherCopy(x, s, 0, broadcastStrides(x.shape, s))
}

// Concat joins tensors of one dtype along axis; their other dimensions
// must match.
func (e *Engine) Concat(axis int, ts ...*Tensor) *Tensor {
	o, bad := e.begin("concat", callerSite(), ts...)
	if bad != nil {
		return bad
	}
	defer o.end()
	return o.concat(axis, ts)
}

func (o *op) concat(axis int, ts []*Tensor) *Tensor {
	if len(ts) == 0 {
		return o.fail(ErrArgument, "no tensors")
	}
	first := ts[0]
	ax, ok := normAxis(axis, first.Rank())
	if !ok {
		return o.fail(ErrAxis, "axis %d", axis)
	}
	o.attrs.Axis = ax // Concat's, or Stack's new axis
	shape := first.shape.clone()
	shape[ax] = 0
	for i, t := range ts {
		if t.dtype != first.dtype {
			return o.fail(ErrDType, "input %d is %s, input 0 %s", i, t.dtype, first.dtype)
		}
		if t.Rank() != first.Rank() {
			return o.fail(ErrShape, "input %d has rank %d, input 0 %d", i, t.Rank(), first.Rank())
		}
		for d := range t.shape {
			if d != ax && t.shape[d] != first.shape[d] {
				return o.fail(ErrShape, "input %d differs in dimension %d", i, d)
			}
		}
		var ok bool
		if shape[ax], ok = addDims(shape[ax], t.shape[ax]); !ok {
			return o.fail(ErrShape, "dimension %d of the result passes %d elements (MaxElements)", ax, MaxElements)
		}
	}
	out, err := o.allocForCopies(shape, first.dtype)
	if err != nil {
		return o.e.errTensor(err)
	}
	outStrides := shape.strides()
	at := 0
	for _, t := range ts {
		if err := o.copyRegion(t, out, t.shape, 0, t.shape.strides(), at*outStrides[ax], outStrides); err != nil {
			out.Dispose()
			return o.e.errTensor(err)
		}
		at += t.shape[ax]
	}
	return out
}

// Stack joins tensors of one shape along a new dimension at axis.
func (e *Engine) Stack(axis int, ts ...*Tensor) *Tensor {
	o, bad := e.begin("stack", callerSite(), ts...)
	if bad != nil {
		return bad
	}
	defer o.end()
	if len(ts) == 0 {
		return o.fail(ErrArgument, "no tensors")
	}
	ax, ok := normAxis(axis, ts[0].Rank()+1)
	if !ok {
		return o.fail(ErrAxis, "axis %d", axis)
	}
	views := make([]*Tensor, len(ts))
	for i, t := range ts {
		if !t.shape.Equal(ts[0].shape) {
			return o.fail(ErrShape, "input %d differs from input 0", i)
		}
		views[i] = &Tensor{shape: slices.Insert(t.shape.clone(), ax, 1), dtype: t.dtype, st: t.st}
	}
	return o.concat(ax, views)
}

// maxEmptyPieces is the most pieces Split cuts a tensor into when it has
// fewer elements than that.
const maxEmptyPieces = 1 << 16

// Split cuts x along axis into pieces of the given sizes, which must add
// up to the dimension. With one size n, x is cut into equal pieces of n:
// at most x.Size() pieces, or 65536 for smaller (even empty) tensors.
func (e *Engine) Split(x *Tensor, axis int, sizes ...int) []*Tensor {
	o, bad := e.begin("split", callerSite(), x)
	if bad != nil {
		return []*Tensor{bad}
	}
	defer o.end()
	ax, ok := normAxis(axis, x.Rank())
	if !ok {
		return []*Tensor{o.fail(ErrAxis, "axis %d", axis)}
	}
	dim := x.shape[ax]
	if len(sizes) == 1 && sizes[0] > 0 && dim%sizes[0] == 0 && sizes[0] != dim {
		n := dim / sizes[0]
		// Bound the work by the output, not by a dimension of an empty x.
		if most := max(x.Size(), maxEmptyPieces); n > most {
			return []*Tensor{o.fail(ErrArgument, "%d pieces of %d; at most %d", n, sizes[0], most)}
		}
		sizes = slices.Repeat([]int{sizes[0]}, n)
	}
	total := 0
	for _, s := range sizes {
		if s < 0 {
			return []*Tensor{o.fail(ErrArgument, "sizes %v", sizes)}
		}
		if s > dim-total {
			return []*Tensor{o.fail(ErrShape, "sizes %v do not add up to dimension %d (%d)", sizes, ax, dim)}
		}
		total += s
	}
	if total != dim || len(sizes) == 0 {
		return []*Tensor{o.fail(ErrShape, "sizes %v do not add up to dimension %d (%d)", sizes, ax, dim)}
	}
	o.attrs.Axis, o.attrs.Sizes = ax, sizes
	out := make([]*Tensor, 0, len(sizes))
	begin := make([]int, x.Rank())
	size := x.shape.clone()
	for _, s := range sizes {
		size[ax] = s
		piece := o.slice(x, begin, size)
		if piece.err != nil {
			for _, p := range out {
				p.Dispose()
			}
			return []*Tensor{piece}
		}
		out = append(out, piece)
		begin[ax] += s
	}
	return out
}

// Gather picks slices of x along axis by the int32 indices: the result's
// shape is x's with dimension axis replaced by indices' shape. Negative
// indices count from the end; indices out of range give zeros (as tfjs on
// the GPU), since checking them would need a readback.
func (e *Engine) Gather(x, indices *Tensor, axis int) *Tensor {
	o, bad := e.begin("gather", callerSite(), x, indices)
	if bad != nil {
		return bad
	}
	defer o.end()
	if indices.dtype != Int32 {
		return o.fail(ErrDType, "indices are %s, not int32", indices.dtype)
	}
	ax, ok := normAxis(axis, x.Rank())
	if !ok {
		return o.fail(ErrAxis, "axis %d", axis)
	}
	o.attrs.Axis = ax
	shape := slices.Concat(x.shape[:ax], indices.shape, x.shape[ax+1:])
	out, err := o.allocForCopies(shape, x.dtype)
	if err != nil {
		return o.e.errTensor(err)
	}
	inner := Shape(x.shape[ax+1:]).Size()
	if shape.Size() > 0 {
		g := kernels.Gather{PerWord: x.dtype.perWord()}
		p := &kernels.GatherParams{Inner: uint32(inner), Count: uint32(indices.Size()), Axis: uint32(x.shape[ax])}
		if err := o.run(g.Key(), g.Spec, shape.Size(), g.ThreadWork(), p, x.buf(), indices.buf(), out.buf()); err != nil {
			out.Dispose()
			return o.e.errTensor(err)
		}
	}
	return out
}

// Pad surrounds x with value (converted as Fill converts): pads[i] is the
// count before and after dimension i.
func (e *Engine) Pad(x *Tensor, pads [][2]int, value float64) *Tensor {
	o, bad := e.begin("pad", callerSite(), x)
	if bad != nil {
		return bad
	}
	defer o.end()
	o.attrs.Pads, o.attrs.Value = pads, value
	if len(pads) != x.Rank() {
		return o.fail(ErrShape, "%d pads for rank %d", len(pads), x.Rank())
	}
	shape := x.shape.clone()
	off := 0
	for i, p := range pads {
		if p[0] < 0 || p[1] < 0 {
			return o.fail(ErrArgument, "negative padding %v", p)
		}
		var ok bool
		if shape[i], ok = addDims(shape[i], p[0], p[1]); !ok {
			return o.fail(ErrShape, "padding %v passes %d elements (MaxElements) in dimension %d", p, MaxElements, i)
		}
	}
	if err := shape.check(); err != nil {
		return o.fail(ErrShape, "%v", err)
	}
	strides := shape.strides()
	for i, p := range pads {
		off += p[0] * strides[i]
	}
	out, err := o.alloc(shape, x.dtype)
	if err != nil {
		return o.e.errTensor(err)
	}
	// The fill is written before the copy: the copy asks for out's buffer.
	err = o.record(out, fillNode(x.dtype), kernels.NodeParams{Words: [2]uint32{bitsOf(value, x.dtype)}}, nil)
	if err == nil {
		err = o.copyRegion(x, out, x.shape, 0, x.shape.strides(), off, strides)
	}
	if err != nil {
		out.Dispose()
		return o.e.errTensor(err)
	}
	return out
}
