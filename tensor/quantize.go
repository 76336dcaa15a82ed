package tensor

// QuantizeInt8 quantizes w (float32, float16 or bfloat16) symmetrically,
// per channel along axis (a negative one counts from the end), for
// weight-only int8 storage: each channel's scale is its largest absolute
// value over 127 (1 for a channel of zeros), and q is w over its channel's
// scale rounded to nearest, ties to even, within [-127, 127]. q is int8 of
// w's shape; scale is float32 of shape [w.Shape()[axis]]. q·scale is within
// scale/2 of w, element by element: a product with q (MatMul of a float32
// and an int8 tensor) times scale is the product with the dequantized
// weights, which are never made. A channel holding NaN or ±Inf gets a NaN
// or Inf scale: quantize finite weights.
//
// It runs a few fused ops (a max reduction and an elementwise pass) on
// w's engine; intermediates are disposed. Both results carry any error.
func (e *Engine) QuantizeInt8(w *Tensor, axis int) (q, scale *Tensor) {
	fail := func(kind error, format string, args ...any) (*Tensor, *Tensor) {
		err := opErr("quantize_int8", []Shape{w.Shape()}, kind, format, args...)
		return e.errTensor(err), e.errTensor(err)
	}
	switch {
	case w == nil || !w.made():
		return fail(ErrArgument, "no tensor")
	case w.err != nil:
		return e.errTensor(w.err), e.errTensor(w.err)
	case !w.dtype.IsFloat():
		return fail(ErrDType, "w is %s: quantize float32, float16 or bfloat16 weights", w.dtype)
	case w.Rank() == 0:
		return fail(ErrShape, "w is a scalar: it has no channel axis")
	}
	if axis < 0 {
		axis += w.Rank()
	}
	if axis < 0 || axis >= w.Rank() {
		return fail(ErrShape, "axis %d of a rank-%d tensor", axis, w.Rank())
	}
	others := make([]int, 0, w.Rank()-1)
	for d := range w.Rank() {
		if d != axis {
			others = append(others, d)
		}
	}
	c := composer{e: e}
	defer c.free()
	x := w
	if w.dtype != Float32 {
		x = c.t(e.Cast(w, Float32))
	}
	amax := c.t(e.Abs(x)) // a vector's channels are its elements
	if len(others) > 0 {
		amax = c.t(e.Max(amax, true, others...)) // w's rank, 1 but along axis
	}
	s := c.t(e.Where(c.t(e.Equal(amax, c.scalar(0))), c.scalar(1), c.t(e.Div(amax, c.scalar(127)))))
	r := c.t(e.Round(c.t(e.Div(x, s))))
	r = c.t(e.Minimum(c.t(e.Maximum(r, c.scalar(-127))), c.scalar(127)))
	q = e.Cast(r, Int8)
	scale = e.Reshape(s, w.shape[axis])
	return q, scale
}
