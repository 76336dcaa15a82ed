package tensor_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Attention over merged heads (AttentionOptions.Heads: q, k, v [B, T,
// H·D], the result [B, Tq, H·Dv]) and over a packed qkv [B, T, 3·H·D]:
// the same kernels, reading and writing those layouts in place.

// mergeHost permutes x [B, H, T, n] (row-major) to [B, T, H·n].
func mergeHost[F float32 | float64](x []F, B, H, T, n int) []F {
	out := make([]F, len(x))
	for b := range B {
		for h := range H {
			for t := range T {
				copy(out[((b*T+t)*H+h)*n:][:n], x[((b*H+h)*T+t)*n:][:n])
			}
		}
	}
	return out
}

// packHost joins q, k and v [B, T, w] (merged) along their last
// dimension: [B, T, 3·w].
func packHost[F float32 | float64](q, k, v []F, B, T, w int) []F {
	out := make([]F, 0, 3*len(q))
	for r := range B * T {
		out = append(out, q[r*w:][:w]...)
		out = append(out, k[r*w:][:w]...)
		out = append(out, v[r*w:][:w]...)
	}
	return out
}

// requireSameBits requires got to hold exactly want's bits (NaN included).
func requireSameBits(t *testing.T, want, got []float32, msg string, args ...any) {
	t.Helper()
	require.Len(t, got, len(want), append([]any{msg}, args...)...)
	bad := 0
	for i := range want {
		if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
			if bad < 5 {
				t.Errorf("%s: element %d is %v (%#x), want %v (%#x)", fmt.Sprintf(msg, args...), i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements differ", fmt.Sprintf(msg, args...), bad, len(want))
	}
}

// layoutCases are the reference cases of rank 4 (heads of their own),
// and wide packed heads, composed.
func layoutCases() []attnCase {
	var cs []attnCase
	for _, c := range attnCases {
		if !c.rank3 {
			cs = append(cs, c)
		}
	}
	return append(cs,
		attnCase{name: "packed composed", B: 2, H: 2, Tq: 5, Tk: 5, D: 72, Dv: 72, causal: true, mask: "add", maskShape: []int{5, 5}, padding: true, fullyMaskedRowsOK: true},
		attnCase{name: "packed odd D many heads", B: 2, H: 5, Tq: 7, Tk: 7, D: 3, Dv: 3, mask: "u32", maskShape: []int{2, 1, 7, 7}, dropout: 0.2, seed: 17, fullyMaskedRowsOK: true},
		attnCase{name: "packed D 32, 4 heads", B: 3, H: 4, Tq: 9, Tk: 9, D: 32, Dv: 32, causal: true},
	)
}

// packable reports whether c's q, k and v can be packed in one tensor.
func packable(c attnCase) bool { return c.Tq == c.Tk && c.D == c.Dv }

// The merged and packed forms against the float64 reference, forward
// (out and logsumexp) and backward, from host data laid out as they
// take it.
func TestAttentionHeadsLayoutAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(21, 1))
	for _, c := range layoutCases() {
		t.Run(c.name, func(t *testing.T) {
			b := c.build(t, e, r)
			defer b.dispose()
			p := b.prob
			wantOut, wantLSE, _ := attnRef(p)
			dout := randF32(r, p.BH*p.Tq*p.Dv, -1, 1)
			wq, wk, wv := attnRefGrad(p, dout)
			opts := b.opts
			opts.Heads = c.H
			mq, mk, mv := mergeHost(p.q, c.B, c.H, c.Tq, c.D), mergeHost(p.k, c.B, c.H, c.Tk, c.D), mergeHost(p.v, c.B, c.H, c.Tk, c.Dv)
			mout, mdout := mergeHost(wantOut, c.B, c.H, c.Tq, c.Dv), mergeHost(dout, c.B, c.H, c.Tq, c.Dv)
			mdq, mdk, mdv := mergeHost(wq, c.B, c.H, c.Tq, c.D), mergeHost(wk, c.B, c.H, c.Tk, c.D), mergeHost(wv, c.B, c.H, c.Tk, c.Dv)
			err := tidy.Do(e, func() error {
				q := e.FromFloat32s(mq, c.B, c.Tq, c.H*c.D)
				k := e.FromFloat32s(mk, c.B, c.Tk, c.H*c.D)
				v := e.FromFloat32s(mv, c.B, c.Tk, c.H*c.Dv)
				dirty(e, c.B*c.Tq*c.H*max(c.Dv, 1)+p.BH*p.Tq)
				out, lse := e.ScaledDotProductAttentionLSE(q, k, v, opts)
				if err := lse.Err(); err != nil {
					return err
				}
				assert.Equal(t, tensor.Shape{c.B, c.Tq, c.H * c.Dv}, out.Shape())
				assert.Equal(t, tensor.Shape{c.B, c.H, c.Tq}, lse.Shape())
				closeTo(t, f32sFrom(mout), f32s(t, out), 2e-6, 2e-5, "out")
				checkLSE(t, wantLSE, f32s(t, lse), "lse")
				dirty(e, len(p.q)+len(p.k)+len(p.v)+p.BH*p.Tq)
				dq, dk, dv := e.ScaledDotProductAttentionGrad(q, k, v, out, lse, e.FromFloat32s(mdout, out.Shape()...), opts)
				if err := dq.Err(); err != nil {
					return err
				}
				assert.Equal(t, q.Shape(), dq.Shape())
				assert.Equal(t, k.Shape(), dk.Shape())
				assert.Equal(t, v.Shape(), dv.Shape())
				closeTo(t, f32sFrom(mdq), f32s(t, dq), 2e-6, 5e-5, "dq")
				closeTo(t, f32sFrom(mdk), f32s(t, dk), 2e-6, 5e-5, "dk")
				closeTo(t, f32sFrom(mdv), f32s(t, dv), 2e-6, 5e-5, "dv")
				if !packable(c) {
					return nil
				}
				w := c.H * c.D
				qkv := e.FromFloat32s(packHost(mq, mk, mv, c.B, c.Tq, w), c.B, c.Tq, 3*w)
				dirty(e, c.B*c.Tq*max(w, 1)+p.BH*p.Tq)
				pout, plse := e.ScaledDotProductAttentionPackedLSE(qkv, opts)
				if err := plse.Err(); err != nil {
					return err
				}
				assert.Equal(t, tensor.Shape{c.B, c.Tq, w}, pout.Shape())
				assert.Equal(t, tensor.Shape{c.B, c.H, c.Tq}, plse.Shape())
				closeTo(t, f32sFrom(mout), f32s(t, pout), 2e-6, 2e-5, "packed out")
				checkLSE(t, wantLSE, f32s(t, plse), "packed lse")
				dirty(e, 3*c.B*c.Tq*w+p.BH*p.Tq)
				dqkv := e.ScaledDotProductAttentionPackedGrad(qkv, pout, plse, e.FromFloat32s(mdout, pout.Shape()...), opts)
				if err := dqkv.Err(); err != nil {
					return err
				}
				assert.Equal(t, qkv.Shape(), dqkv.Shape())
				closeTo(t, f32sFrom(packHost(mdq, mdk, mdv, c.B, c.Tq, w)), f32s(t, dqkv), 2e-6, 5e-5, "dqkv")
				return nil
			})
			require.NoError(t, err)
		})
	}
}

// layoutRun is what one form of attention gave: out, lse, and the
// gradients of q, k and v, all read back, out and the gradients in the
// merged layout ([B, T, H·n]; the gradients of a packed qkv joined).
type layoutRun struct {
	out, lse, dq, dk, dv, dqkv []float32
}

// runLayouts runs attention over b's [B, H, T, D] tensors as they are,
// transposed around it (today's multi-head path), and over the same values
// merged and packed; it returns the first, transposed, and the others.
func runLayouts(t *testing.T, e *tensor.Engine, c attnCase, b attnBuilt, dout []float32) (ref, merged, packed layoutRun) {
	t.Helper()
	err := tidy.Do(e, func() error {
		merge := func(x *tensor.Tensor) *tensor.Tensor {
			s := x.Shape()
			return e.Reshape(e.Transpose(x, 0, 2, 1, 3), s[0], s[2], s[1]*s[3])
		}
		out, lse := e.ScaledDotProductAttentionLSE(b.q, b.k, b.v, b.opts)
		do := e.FromFloat32s(dout, out.Shape()...)
		dq, dk, dv := e.ScaledDotProductAttentionGrad(b.q, b.k, b.v, out, lse, do, b.opts)
		if err := dv.Err(); err != nil {
			return err
		}
		ref = layoutRun{out: f32s(t, merge(out)), lse: f32s(t, lse), dq: f32s(t, merge(dq)), dk: f32s(t, merge(dk)), dv: f32s(t, merge(dv))}
		if packable(c) {
			ref.dqkv = f32s(t, e.Concat(-1, merge(dq), merge(dk), merge(dv)))
		}

		opts := b.opts
		opts.Heads = c.H
		q, k, v, mdo := merge(b.q), merge(b.k), merge(b.v), merge(do)
		out, lse = e.ScaledDotProductAttentionLSE(q, k, v, opts)
		dq, dk, dv = e.ScaledDotProductAttentionGrad(q, k, v, out, lse, mdo, opts)
		if err := dv.Err(); err != nil {
			return err
		}
		merged = layoutRun{out: f32s(t, out), lse: f32s(t, lse), dq: f32s(t, dq), dk: f32s(t, dk), dv: f32s(t, dv)}
		requireSameBits(t, merged.out, f32s(t, e.ScaledDotProductAttention(q, k, v, opts)), "ScaledDotProductAttention differs from its LSE form")
		if !packable(c) {
			return nil
		}
		qkv := e.Concat(-1, q, k, v)
		out, lse = e.ScaledDotProductAttentionPackedLSE(qkv, opts)
		dqkv := e.ScaledDotProductAttentionPackedGrad(qkv, out, lse, mdo, opts)
		if err := dqkv.Err(); err != nil {
			return err
		}
		packed = layoutRun{out: f32s(t, out), lse: f32s(t, lse), dqkv: f32s(t, dqkv)}
		requireSameBits(t, packed.out, f32s(t, e.ScaledDotProductAttentionPacked(qkv, opts)), "ScaledDotProductAttentionPacked differs from its LSE form")
		return nil
	})
	require.NoError(t, err)
	return ref, merged, packed
}

// checkSameRuns requires merged and packed to be bit for bit ref.
func checkSameRuns(t *testing.T, c attnCase, ref, merged, packed layoutRun, what string) {
	t.Helper()
	requireSameBits(t, ref.out, merged.out, "%s: merged out", what)
	requireSameBits(t, ref.lse, merged.lse, "%s: merged lse", what)
	requireSameBits(t, ref.dq, merged.dq, "%s: merged dq", what)
	requireSameBits(t, ref.dk, merged.dk, "%s: merged dk", what)
	requireSameBits(t, ref.dv, merged.dv, "%s: merged dv", what)
	if packable(c) {
		requireSameBits(t, ref.out, packed.out, "%s: packed out", what)
		requireSameBits(t, ref.lse, packed.lse, "%s: packed lse", what)
		requireSameBits(t, ref.dqkv, packed.dqkv, "%s: packed dqkv", what)
	}
}

// Only the indexing differs: merged and packed attention give, bit for
// bit, what transposing to [B, H, T, D], attending and transposing back
// gives, forward and backward, fused and composed, with every mask, with
// dropout, and for each number of rows a thread takes.
func TestAttentionHeadsLayoutBitIdentical(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(21, 2))
	for _, c := range layoutCases() {
		t.Run(c.name, func(t *testing.T) {
			b := c.build(t, e, r)
			defer b.dispose()
			dout := randF32(r, b.prob.BH*c.Tq*c.Dv, -1, 1)
			ref, merged, packed := runLayouts(t, e, c, b, dout)
			checkSameRuns(t, c, ref, merged, packed, "")
		})
	}
	t.Run("rows a thread", func(t *testing.T) {
		defer tensor.ForceAttentionRows(0)
		cs := layoutCases()
		for _, rows := range []int{1, 2, 4} {
			tensor.ForceAttentionRows(rows)
			for _, c := range []attnCase{cs[0], cs[3], cs[len(cs)-2], cs[len(cs)-1]} {
				b := c.build(t, e, r)
				dout := randF32(r, b.prob.BH*c.Tq*c.Dv, -1, 1)
				ref, merged, packed := runLayouts(t, e, c, b, dout)
				checkSameRuns(t, c, ref, merged, packed, fmt.Sprintf("%s, %d rows", c.name, rows))
				b.dispose()
			}
		}
	})
}

// Sequences past kernels.AttentionInnerRange and past the loop budget
// take several dispatches in the merged layout too, each resuming from
// the last, with the same results as the transposed path.
func TestAttentionHeadsLayoutLongSequences(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(21, 3))
	n := kernels.AttentionInnerRange
	for _, c := range []attnCase{
		{name: "keys past the range", B: 1, H: 2, Tq: 5, Tk: n + 3, D: 4, Dv: 8, mask: "add", maskShape: []int{5, n + 3}},
		{name: "queries past the loop budget", B: 1, H: 2, Tq: kernels.MaxLoopTrips + 21, Tk: 3, D: 4, Dv: 4, causal: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := c.build(t, e, r)
			defer b.dispose()
			dout := randF32(r, b.prob.BH*c.Tq*c.Dv, -1, 1)
			ref, merged, packed := runLayouts(t, e, c, b, dout)
			checkSameRuns(t, c, ref, merged, packed, c.name)
			wantOut, _, _ := attnRef(b.prob)
			closeTo(t, f32sFrom(mergeHost(wantOut, c.B, c.H, c.Tq, c.Dv)), merged.out, 1e-5, 1e-3, "out")
		})
	}
}

// The merged and packed forms, forward and backward, are the three
// attention kernels and nothing else: no transpose, slice or concat.
func TestAttentionHeadsLayoutDispatches(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	err := tidy.Do(e, func() error {
		const B, T, H, D = 2, 16, 4, 8
		q := e.RandNormal(1, 0, 1, B, T, H*D)
		qkv := e.RandNormal(2, 0, 1, B, T, 3*H*D)
		dout := e.RandNormal(3, 0, 1, B, T, H*D)
		mask := e.RandNormal(4, 0, 1, T, T)
		opts := tensor.AttentionOptions{Heads: H, Causal: true, Mask: mask, Dropout: 0.1, Seed: 3}
		for _, packed := range []bool{false, true} {
			p, err := e.Profile(ctx, func() error {
				if packed {
					out, lse := e.ScaledDotProductAttentionPackedLSE(qkv, opts)
					return e.ScaledDotProductAttentionPackedGrad(qkv, out, lse, dout, opts).Err()
				}
				out, lse := e.ScaledDotProductAttentionLSE(q, q, q, opts)
				dq, _, _ := e.ScaledDotProductAttentionGrad(q, q, q, out, lse, dout, opts)
				return dq.Err()
			})
			if err != nil {
				return err
			}
			assert.Len(t, p.Dispatches, 3, "packed %v", packed)
			for _, name := range []string{"attention_forward", "attention_grad_q", "attention_grad_kv"} {
				assert.Equal(t, 1, p.Total(name).Calls, "packed %v: %s", packed, name)
			}
		}
		return nil
	})
	require.NoError(t, err)
}

// Bad Heads, packed shapes that are not [B, T, 3·Heads·D] and shapes that
// disagree give tensors carrying an *OpError that names the op and the
// shapes, and leave nothing live.
func TestAttentionHeadsLayoutErrors(t *testing.T) {
	e := testgpu.Engine(t)
	f := func(s ...int) *tensor.Tensor { return e.Zeros(tensor.Float32, s...) }
	var owned []*tensor.Tensor
	own := func(x *tensor.Tensor) *tensor.Tensor { owned = append(owned, x); return x }
	defer func() { tidy.Dispose(owned) }()
	q, k, v := own(f(2, 4, 8)), own(f(2, 5, 8)), own(f(2, 5, 6))
	h2 := tensor.AttentionOptions{Heads: 2}
	for _, c := range []struct {
		name    string
		q, k, v *tensor.Tensor
		o       tensor.AttentionOptions
		kind    error
		says    string
	}{
		{"heads do not divide q", q, k, v, tensor.AttentionOptions{Heads: 3}, tensor.ErrShape, "3 heads do not divide q's last dimension 8"},
		{"heads do not divide v", q, k, v, tensor.AttentionOptions{Heads: 4}, tensor.ErrShape, "4 heads do not divide v's last dimension 6"},
		{"negative heads", q, k, v, tensor.AttentionOptions{Heads: -1}, tensor.ErrArgument, "Heads -1"},
		{"rank 4 with heads", own(f(2, 2, 4, 4)), own(f(2, 2, 5, 4)), own(f(2, 2, 5, 3)), h2, tensor.ErrShape, "[B, T, Heads·D]"},
		{"k's width", q, own(f(2, 5, 6)), v, h2, tensor.ErrShape, "k's last dimension 6 differs from q's 8"},
		{"batch", q, own(f(3, 5, 8)), own(f(3, 5, 6)), h2, tensor.ErrShape, "batch"},
		{"keys", q, k, own(f(2, 4, 6)), h2, tensor.ErrShape, "v has 4 keys, k 5"},
		{"int q", own(e.Zeros(tensor.Int32, 2, 4, 8)), k, v, h2, tensor.ErrDType, "float32"},
		{"mask", q, k, v, tensor.AttentionOptions{Heads: 2, Mask: own(f(3, 4, 5))}, tensor.ErrShape, "does not broadcast to [2 2 4 5]"},
		{"key padding", q, k, v, tensor.AttentionOptions{Heads: 2, KeyPadding: own(e.Zeros(tensor.Int32, 2, 4))}, tensor.ErrShape, "[2 5]"},
	} {
		before := e.NumTensors()
		out, lse := e.ScaledDotProductAttentionLSE(c.q, c.k, c.v, c.o)
		err := out.Err()
		require.Error(t, err, c.name)
		require.Error(t, lse.Err(), c.name)
		var oe *tensor.OpError
		assert.True(t, errors.As(err, &oe), "%s: %T", c.name, err)
		assert.True(t, errors.Is(err, c.kind), "%s: %v", c.name, err)
		assert.Contains(t, err.Error(), "scaled_dot_product_attention", c.name)
		assert.Contains(t, err.Error(), c.says, c.name)
		assert.Contains(t, err.Error(), fmt.Sprint(c.q.Shape()), "%s: the error names the shapes", c.name)
		assert.Contains(t, err.Error(), fmt.Sprint(c.v.Shape()), "%s: the error names the shapes", c.name)
		dq, dk, dv := e.ScaledDotProductAttentionGrad(c.q, c.k, c.v, own(f(2, 4, 6)), own(f(2, 2, 4)), own(f(2, 4, 6)), c.o)
		for _, g := range []*tensor.Tensor{dq, dk, dv} {
			assert.ErrorIs(t, g.Err(), c.kind, c.name)
		}
		assert.Equal(t, before+3, e.NumTensors(), "%s: a failed op leaves nothing live", c.name)
	}

	qkv := own(f(2, 4, 24))
	for _, c := range []struct {
		name string
		qkv  *tensor.Tensor
		o    tensor.AttentionOptions
		kind error
		says string
	}{
		{"no heads", qkv, tensor.AttentionOptions{}, tensor.ErrArgument, "need Heads"},
		{"not 3·Heads·D", qkv, tensor.AttentionOptions{Heads: 3}, tensor.ErrShape, "qkv's last dimension 24 is not 3·Heads·D for 3 heads"},
		{"not a multiple of 3", own(f(2, 4, 20)), tensor.AttentionOptions{Heads: 1}, tensor.ErrShape, "last dimension 20 is not 3·Heads·D"},
		{"rank 4", own(f(2, 1, 4, 24)), tensor.AttentionOptions{Heads: 2}, tensor.ErrShape, "[B, T, 3·Heads·D]"},
		{"int", own(e.Zeros(tensor.Uint32, 2, 4, 24)), tensor.AttentionOptions{Heads: 2}, tensor.ErrDType, "qkv is uint32"},
		{"mask", qkv, tensor.AttentionOptions{Heads: 2, Mask: own(f(5, 4))}, tensor.ErrShape, "does not broadcast to [2 2 4 4]"},
	} {
		before := e.NumTensors()
		y := e.ScaledDotProductAttentionPacked(c.qkv, c.o)
		err := y.Err()
		require.Error(t, err, c.name)
		var oe *tensor.OpError
		assert.True(t, errors.As(err, &oe), "%s: %T", c.name, err)
		assert.True(t, errors.Is(err, c.kind), "%s: %v", c.name, err)
		assert.Contains(t, err.Error(), "scaled_dot_product_attention_packed", c.name)
		assert.Contains(t, err.Error(), c.says, c.name)
		assert.Contains(t, err.Error(), fmt.Sprint(c.qkv.Shape()), "%s: the error names the shape", c.name)
		out, lse := e.ScaledDotProductAttentionPackedLSE(c.qkv, c.o)
		require.Error(t, out.Err(), c.name)
		require.Error(t, lse.Err(), c.name)
		g := e.ScaledDotProductAttentionPackedGrad(c.qkv, own(f(2, 4, 8)), own(f(2, 2, 4)), own(f(2, 4, 8)), c.o)
		assert.ErrorIs(t, g.Err(), c.kind, c.name)
		assert.Contains(t, g.Err().Error(), "scaled_dot_product_attention_packed_grad", c.name)
		assert.Equal(t, before+3, e.NumTensors(), "%s: a failed op leaves nothing live", c.name)
	}

	// The gradients' own operands, in the merged layout.
	err := tidy.Do(e, func() error {
		out, lse := e.ScaledDotProductAttentionLSE(q, k, v, h2)
		for _, c := range []struct {
			name           string
			out, lse, dout *tensor.Tensor
			says           string
		}{
			{"dout of heads", out, lse, f(2, 2, 4, 3), "dout must be [2 4 6]"},
			{"lse of rows", out, f(2, 4), out, "lse must be [2 2 4]"},
		} {
			dq, _, _ := e.ScaledDotProductAttentionGrad(q, k, v, c.out, c.lse, c.dout, h2)
			assert.ErrorIs(t, dq.Err(), tensor.ErrShape, c.name)
			assert.ErrorContains(t, dq.Err(), c.says, c.name)
			assert.ErrorContains(t, dq.Err(), "scaled_dot_product_attention_grad", c.name)
		}
		pout, plse := e.ScaledDotProductAttentionPackedLSE(qkv, tensor.AttentionOptions{Heads: 2})
		g := e.ScaledDotProductAttentionPackedGrad(qkv, pout, plse, f(2, 4, 9), tensor.AttentionOptions{Heads: 2})
		assert.ErrorIs(t, g.Err(), tensor.ErrShape)
		assert.ErrorContains(t, g.Err(), "dout must be [2 4 8]")
		return nil
	})
	require.NoError(t, err)
}
