package tensor

import "math"

// Attention composed of ops, for heads too wide for the fused kernels
// (kernels.AttentionFits) and for the gradient of a float mask: it
// materialises the [Tq, Tk] scores of every head, and gives what the
// fused kernels give (to rounding): the same masking, the same zero rows
// where every key is masked, the same dropout mask.

// composer runs public ops and disposes the intermediates it made, all
// but those it was asked to keep.
type composer struct {
	e    *Engine
	tmp  []*Tensor
	kept map[*Tensor]bool
}

// t notes x as an intermediate and returns it.
func (c *composer) t(x *Tensor) *Tensor {
	c.tmp = append(c.tmp, x)
	return x
}

// keep returns x, which free will not dispose.
func (c *composer) keep(x *Tensor) *Tensor {
	if c.kept == nil {
		c.kept = map[*Tensor]bool{}
	}
	c.kept[x] = true
	return x
}

// free disposes the intermediates not kept.
func (c *composer) free() {
	for _, x := range c.tmp {
		if !c.kept[x] {
			x.Dispose()
		}
	}
	c.tmp = nil
}

func (c *composer) scalar(v float32) *Tensor { return c.t(c.e.Scalar(v)) }

// scalarAs is a scalar v of x's dtype: for ops on half-width operands.
func (c *composer) scalarAs(v float32, x *Tensor) *Tensor {
	s := c.scalar(v)
	if x.dtype != Float32 {
		s = c.t(c.e.Cast(s, x.dtype))
	}
	return s
}

// zero is a scalar 0 of dtype.
func (c *composer) zero(dtype DType) *Tensor { return c.t(c.e.Fill(dtype, 0)) }

// scores returns q·kᵀ·scale plus the float mask, with -Inf where a key
// is masked (by Causal, a boolean mask or the key padding): [.., Tq, Tk].
func (c *composer) scores(q, k *Tensor, opt AttentionOptions, g attnGeom) *Tensor {
	e := c.e
	s := c.t(e.MatMulT(q, k, false, true))
	s = c.t(e.Mul(s, c.scalarAs(g.scale, s)))
	if g.maskAdd {
		mask := opt.Mask
		if s.dtype != Float32 { // a float32 mask, rounded to the scores' dtype
			mask = c.t(e.Cast(mask, s.dtype))
		}
		s = c.t(e.Add(s, mask))
	}
	var masked *Tensor // uint32, 1 where masked
	or := func(m *Tensor) {
		if masked == nil {
			masked = m
			return
		}
		masked = c.t(e.Maximum(masked, m))
	}
	if g.maskBool {
		or(c.t(e.Equal(opt.Mask, c.zero(opt.Mask.dtype))))
	}
	if g.padding {
		kp := c.t(e.NotEqual(opt.KeyPadding, c.zero(opt.KeyPadding.dtype)))
		if g.rank3 {
			or(c.t(e.Reshape(kp, g.B, 1, g.Tk)))
		} else {
			or(c.t(e.Reshape(kp, g.B, 1, 1, g.Tk)))
		}
	}
	if opt.Causal {
		or(c.t(e.Triu(c.t(e.Ones(Uint32, g.Tq, g.Tk)), 1)))
	}
	if masked != nil {
		s = c.t(e.MaskedFill(s, masked, float32(math.Inf(-1))))
	}
	return s
}

// dropout returns w with dropout applied: the mask the fused kernels draw.
func (c *composer) dropout(w *Tensor, opt AttentionOptions, g attnGeom) *Tensor {
	if opt.Dropout <= 0 {
		return w
	}
	e := c.e
	keep := c.t(e.GreaterEqual(c.t(e.RandUniform(opt.Seed, 0, 1, w.shape...)), c.scalar(opt.Dropout)))
	return c.t(e.Where(keep, c.t(e.Mul(w, c.scalarAs(g.params(opt).DropScale, w))), c.scalarAs(0, w)))
}

// splitHeads returns x [B, T, H·n] (merged heads) as [B, H, T, n]; x
// itself where g's operands are not merged.
func (c *composer) splitHeads(x *Tensor, g attnGeom, n int) *Tensor {
	if !g.merged {
		return x
	}
	t := x.shape[1]
	return c.t(c.e.Transpose(c.t(c.e.Reshape(x, g.B, t, g.H, n)), 0, 2, 1, 3))
}

// mergeHeads returns x [B, H, T, n] as [B, T, H·n] where g's operands
// are merged; x itself otherwise.
func (c *composer) mergeHeads(x *Tensor, g attnGeom) *Tensor {
	if !g.merged {
		return x
	}
	s := x.shape
	return c.t(c.e.Reshape(c.t(c.e.Transpose(x, 0, 2, 1, 3)), s[0], s[2], s[1]*s[3]))
}

// headMajor returns in's q, k and v as [B, H, T, D] (sliced from a packed
// qkv, heads split), and g for them; as they are where not merged.
func (c *composer) headMajor(in attnIn, g attnGeom) (q, k, v *Tensor, g4 attnGeom) {
	q, k, v = in.q, in.k, in.v
	if in.packed {
		w := g.H * g.D
		part := func(i int) *Tensor {
			return c.t(c.e.Slice(in.q, []int{0, 0, i * w}, []int{g.B, g.Tq, w}))
		}
		q, k, v = part(0), part(1), part(2)
	}
	g4 = g
	g4.merged, g4.packed = false, false
	return c.splitHeads(q, g, g.D), c.splitHeads(k, g, g.D), c.splitHeads(v, g, g.Dv), g4
}

// attentionComposed is attention for heads too wide for the fused
// kernels: out, and lse if wantLSE. Merged or packed operands are
// transposed to [B, H, T, D] first, and the result back.
func (e *Engine) attentionComposed(in attnIn, opt AttentionOptions, g attnGeom, wantLSE bool) (out, lse *Tensor) {
	c := composer{e: e}
	defer c.free()
	if g.Tk == 0 {
		out = e.Zeros(in.q.dtype, g.outShape...)
		if wantLSE {
			lse = e.Fill(Float32, math.Inf(1), g.lseShape...)
		}
		return out, lse
	}
	q, k, v, g4 := c.headMajor(in, g)
	rowShape := q.shape[:q.Rank()-1]
	s := c.scores(q, k, opt, g4)
	rowMax := c.t(e.Max(s, true, -1))
	empty := c.t(e.Equal(rowMax, c.scalarAs(float32(math.Inf(-1)), rowMax)))
	s = c.t(e.MaskedFill(s, empty, 0)) // a finite softmax, then zeroed
	w := c.t(e.MaskedFill(c.t(e.Softmax(s, -1)), empty, 0))
	out = c.keep(c.mergeHeads(c.t(e.MatMul(c.dropout(w, opt, g4), v)), g))
	if wantLSE {
		m := c.t(e.MaskedFill(rowMax, empty, 0))
		l := c.t(e.Add(c.t(e.Log(c.t(e.Sum(c.t(e.Exp(c.t(e.Sub(s, m)))), true, -1)))), m))
		lse = c.keep(e.Reshape(c.t(e.MaskedFill(l, empty, float32(math.Inf(1)))), rowShape...))
	}
	return out, lse
}

// scoresGrad returns the gradient of the scores, P·(dP − Δ), [.., Tq,
// Tk].
func (c *composer) scoresGrad(q, k, v, out, lse, dout *Tensor, opt AttentionOptions, g attnGeom) *Tensor {
	e := c.e
	p := c.weights(q, k, lse, opt, g)
	dp := c.dropout(c.t(e.MatMulT(dout, v, false, true)), opt, g)
	delta := c.t(e.Sum(c.t(e.Mul(dout, out)), true, -1))
	return c.t(e.Mul(p, c.t(e.Sub(dp, delta))))
}

// weights returns the attention weights before dropout, exp(s − lse):
// 0 where masked and in rows with no key (lse +Inf).
func (c *composer) weights(q, k, lse *Tensor, opt AttentionOptions, g attnGeom) *Tensor {
	e := c.e
	return c.t(e.Exp(c.t(e.Sub(c.scores(q, k, opt, g), c.t(e.ExpandDims(lse, -1))))))
}

// attentionGradComposed is attentionGrad for heads too wide for the
// fused kernels: dq, dk and dv, in the layouts of q, k and v, or for
// packed operands their concatenation, the gradient of qkv.
func (e *Engine) attentionGradComposed(in attnIn, out, lse, dout *Tensor, opt AttentionOptions, g attnGeom) []*Tensor {
	c := composer{e: e}
	defer c.free()
	q, k, v, g4 := c.headMajor(in, g)
	out, dout = c.splitHeads(out, g, g.Dv), c.splitHeads(dout, g, g.Dv)
	ds := c.scoresGrad(q, k, v, out, lse, dout, opt, g4)
	w := c.dropout(c.weights(q, k, lse, opt, g4), opt, g4)
	sc := c.scalar(g.scale)
	dq := c.mergeHeads(c.t(e.Mul(c.t(e.MatMul(ds, k)), sc)), g)
	dk := c.mergeHeads(c.t(e.Mul(c.t(e.MatMulT(ds, q, true, false)), sc)), g)
	dv := c.mergeHeads(c.t(e.MatMulT(w, dout, true, false)), g)
	if in.packed {
		return []*Tensor{c.keep(e.Concat(-1, dq, dk, dv))}
	}
	return []*Tensor{c.keep(dq), c.keep(dk), c.keep(dv)}
}

// sumTo sums x over the dimensions where shape, to which x broadcast,
// has 1 or none, and returns it with shape.
func (c *composer) sumTo(x *Tensor, shape Shape) *Tensor {
	off := x.Rank() - len(shape)
	var axes []int
	for i := range x.Rank() {
		if i < off || shape[i-off] == 1 && x.shape[i] != 1 {
			axes = append(axes, i)
		}
	}
	if len(axes) > 0 {
		x = c.t(c.e.Sum(x, true, axes...))
	}
	return c.e.Reshape(x, shape...)
}
