package grad

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Attention over merged heads (AttentionOptions.Heads) and over a packed
// qkv, against float64 central differences: q, k and v [B, T, H·D] (or
// one [B, T, 3·H·D]), with the masks, dropout and composed wide heads.
func TestScaledDotProductAttentionLayoutGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	inf := float32(math.Inf(-1))
	for _, c := range []struct {
		name          string
		packed        bool
		b, h, tq, tk  int
		d, dv         int
		opts          func(e *tensor.Engine) tensor.AttentionOptions // constants made per evaluation
		maskShape     []int                                          // a float mask, differentiated
		wantsComposed bool
	}{
		{name: "merged", b: 2, h: 2, tq: 3, tk: 4, d: 3, dv: 2},
		{name: "merged, causal, mask differentiated", b: 1, h: 3, tq: 4, tk: 4, d: 2, dv: 4, maskShape: []int{4, 4},
			opts: func(*tensor.Engine) tensor.AttentionOptions { return tensor.AttentionOptions{Causal: true} }},
		{name: "merged, key padding, dropout", b: 2, h: 2, tq: 3, tk: 3, d: 4, dv: 3, opts: func(e *tensor.Engine) tensor.AttentionOptions {
			return tensor.AttentionOptions{KeyPadding: e.FromInt32s([]int32{0, 1, 0, 0, 0, 1}, 2, 3), Dropout: 0.3, Seed: 5}
		}},
		{name: "merged, composed wide heads", b: 1, h: 2, tq: 2, tk: 3, d: 35, dv: 5, wantsComposed: true, maskShape: []int{1, 2, 2, 3}},
		{name: "packed", packed: true, b: 2, h: 2, tq: 3, tk: 3, d: 2, dv: 2},
		{name: "packed, causal, mask per head differentiated", packed: true, b: 1, h: 2, tq: 4, tk: 4, d: 3, dv: 3, maskShape: []int{1, 2, 1, 4},
			opts: func(*tensor.Engine) tensor.AttentionOptions { return tensor.AttentionOptions{Causal: true} }},
		{name: "packed, constant mask with -Inf, padding, dropout", packed: true, b: 2, h: 1, tq: 3, tk: 3, d: 4, dv: 4,
			opts: func(e *tensor.Engine) tensor.AttentionOptions {
				return tensor.AttentionOptions{Mask: e.FromFloat32s([]float32{0, inf, 0.5, 0, 0, inf, 1, 0.2, 0}, 3, 3),
					KeyPadding: e.FromUint32s([]uint32{0, 0, 1, 1, 0, 0}, 2, 3), Dropout: 0.25, Seed: 8}
			}},
		{name: "packed, composed wide heads, causal", packed: true, b: 1, h: 2, tq: 2, tk: 2, d: 23, dv: 23, wantsComposed: true,
			opts: func(*tensor.Engine) tensor.AttentionOptions { return tensor.AttentionOptions{Causal: true} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.wantsComposed, !kernels.AttentionFits(c.d, c.dv))
			f := func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
				var o tensor.AttentionOptions
				if c.opts != nil {
					o = c.opts(e)
				}
				o.Heads = c.h
				if c.maskShape != nil {
					o.Mask = in[len(in)-1]
				}
				if c.packed {
					return e.ScaledDotProductAttentionPacked(in[0], o)
				}
				return e.ScaledDotProductAttention(in[0], in[1], in[2], o)
			}
			var ins []hostIn
			if c.packed {
				ins = append(ins, randIn(rng, -1.5, 1.5, c.b, c.tq, 3*c.h*c.d))
			} else {
				ins = append(ins, randIn(rng, -1.5, 1.5, c.b, c.tq, c.h*c.d), randIn(rng, -1.5, 1.5, c.b, c.tk, c.h*c.d),
					randIn(rng, -1.5, 1.5, c.b, c.tk, c.h*c.dv))
			}
			if c.maskShape != nil {
				ins = append(ins, randIn(rng, -1, 1, c.maskShape...))
			}
			checkGradient(t, e, f, ins...)
		})
	}
}

// The backward of packed self-attention is the two gradient kernels,
// writing the one gradient of qkv: no split, transpose, concat or
// other kernel (the seed has the output's shape); a
// float mask whose gradient is asked for costs its composition.
func TestScaledDotProductAttentionPackedBackwardKernels(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	err := tidy.Do(e, func() error {
		qkv := e.RandNormal(1, 0, 1, 2, 16, 3*4*8)
		mask := e.RandNormal(4, 0, 1, 16, 16)
		seed := e.RandNormal(5, 0, 1, 2, 16, 4*8)
		for _, wrtMask := range []bool{false, true} {
			wrt := []*tensor.Tensor{qkv}
			if wrtMask {
				wrt = append(wrt, mask)
			}
			tape := NewTape(e)
			var y *tensor.Tensor
			if err := tape.Record(func() error {
				y = e.ScaledDotProductAttentionPacked(qkv, tensor.AttentionOptions{Heads: 4, Causal: true, Mask: mask})
				return y.Err()
			}); err != nil {
				return err
			}
			var gs []*tensor.Tensor
			p, err := e.Profile(ctx, func() error { var err error; gs, err = tape.Gradients(y, wrt, &Options{Seed: seed}); return err })
			if err != nil {
				return err
			}
			assert.Equal(t, qkv.Shape(), gs[0].Shape())
			assert.Equal(t, 1, p.Total("attention_grad_q").Calls)
			assert.Equal(t, 1, p.Total("attention_grad_kv").Calls)
			if wrtMask {
				assert.Positive(t, p.Total("matmul").Calls, "the mask's gradient is composed")
			} else {
				assert.Len(t, p.Dispatches, 2, "the two gradient kernels and nothing else")
			}
		}
		return nil
	})
	require.NoError(t, err)
}
