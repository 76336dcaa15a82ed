package tensor

import "math"

// Attention composed of ops, for heads too wide for the fused kernels
// (shaders.AttentionFits) and for the gradient of a float mask: it
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

// zero is a scalar 0 of dtype.
func (c *composer) zero(dtype DType) *Tensor { return c.t(c.e.Fill(dtype, 0)) }

// scores returns q·kᵀ·scale plus the float mask, with -Inf where a key
// is masked (by Causal, a boolean mask or the key padding): [.., Tq, Tk].
func (c *composer) scores(q, k *Tensor, opt AttentionOptions, g attnGeom) *Tensor {
	e := c.e
	s := c.t(e.Mul(c.t(e.MatMulT(q, k, false, true)), c.scalar(g.scale)))
	if g.maskAdd {
		s = c.t(e.Add(s, opt.Mask))
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
	return c.t(e.Where(keep, c.t(e.Mul(w, c.scalar(g.params(opt).DropScale))), c.scalar(0)))
}

// attentionComposed is attention for heads too wide for the fused
// kernels: out, and lse if wantLSE.
func (e *Engine) attentionComposed(q, k, v *Tensor, opt AttentionOptions, g attnGeom, wantLSE bool) (out, lse *Tensor) {
	c := composer{e: e}
	defer c.free()
	rowShape := q.shape[:q.Rank()-1]
	if g.Tk == 0 {
		out = e.Zeros(Float32, append(rowShape.clone(), g.Dv)...)
		if wantLSE {
			lse = e.Fill(Float32, math.Inf(1), rowShape...)
		}
		return out, lse
	}
	s := c.scores(q, k, opt, g)
	rowMax := c.t(e.Max(s, true, -1))
	empty := c.t(e.Equal(rowMax, c.scalar(float32(math.Inf(-1)))))
	s = c.t(e.MaskedFill(s, empty, 0)) // a finite softmax, then zeroed
	w := c.t(e.MaskedFill(c.t(e.Softmax(s, -1)), empty, 0))
	out = c.keep(e.MatMul(c.dropout(w, opt, g), v))
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

// attentionGradComposed is ScaledDotProductAttentionGrad for heads too
// wide for the fused kernels.
func (e *Engine) attentionGradComposed(q, k, v, out, lse, dout *Tensor, opt AttentionOptions, g attnGeom) (dq, dk, dv *Tensor) {
	c := composer{e: e}
	defer c.free()
	ds := c.scoresGrad(q, k, v, out, lse, dout, opt, g)
	w := c.dropout(c.weights(q, k, lse, opt, g), opt, g)
	sc := c.scalar(g.scale)
	dq = c.keep(e.Mul(c.t(e.MatMul(ds, k)), sc))
	dk = c.keep(e.Mul(c.t(e.MatMulT(ds, q, true, false)), sc))
	dv = c.keep(e.MatMulT(w, dout, true, false))
	return dq, dk, dv
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
