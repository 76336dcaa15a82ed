package grad

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Tolerances: checkGradient's (fdAtol, fdRtol in check_test.go). Inputs
// lie in [-1.5, 1.5], where the softmax's third derivatives are small.

// attnShape is [B, H, T, D], or [B, T, D] when rank3.
func attnShape(rank3 bool, b, h, t, d int) []int {
	if rank3 {
		return []int{b * h, t, d}
	}
	return []int{b, h, t, d}
}

func TestScaledDotProductAttentionGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	inf := float32(math.Inf(-1))
	for _, c := range []struct {
		name            string
		b, h, tq, tk    int
		d, dv           int
		rank3           bool
		opts            func(e *tensor.Engine) tensor.AttentionOptions // constants made per evaluation
		maskShape       []int                                          // a float mask, differentiated
		wantsComposed   bool
		checksDropout   bool
		checksAllMasked bool
	}{
		{name: "plain odd D", b: 1, h: 2, tq: 3, tk: 4, d: 3, dv: 2},
		{name: "rank 3", b: 2, h: 1, tq: 3, tk: 2, d: 4, dv: 4, rank3: true},
		{name: "causal", b: 1, h: 1, tq: 5, tk: 5, d: 2, dv: 3, opts: func(*tensor.Engine) tensor.AttentionOptions {
			return tensor.AttentionOptions{Causal: true}
		}},
		{name: "causal Tq < Tk, scale", b: 1, h: 1, tq: 2, tk: 5, d: 2, dv: 2, opts: func(*tensor.Engine) tensor.AttentionOptions {
			return tensor.AttentionOptions{Causal: true, Scale: 0.8}
		}},
		{name: "additive mask with -Inf, constant", b: 1, h: 2, tq: 3, tk: 4, d: 2, dv: 2, opts: func(e *tensor.Engine) tensor.AttentionOptions {
			return tensor.AttentionOptions{Mask: e.FromFloat32s([]float32{0, -1, inf, 0.5, inf, 0, 0, 1, 0.3, inf, -0.2, 0}, 3, 4)}
		}},
		{name: "additive mask differentiated", b: 1, h: 2, tq: 3, tk: 4, d: 2, dv: 3, maskShape: []int{3, 4}},
		{name: "additive mask per head differentiated, causal", b: 2, h: 2, tq: 3, tk: 3, d: 3, dv: 1, maskShape: []int{1, 2, 1, 3},
			opts: func(*tensor.Engine) tensor.AttentionOptions { return tensor.AttentionOptions{Causal: true} }},
		{name: "boolean mask", b: 1, h: 1, tq: 4, tk: 3, d: 3, dv: 2, opts: func(e *tensor.Engine) tensor.AttentionOptions {
			return tensor.AttentionOptions{Mask: e.FromUint32s([]uint32{1, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1}, 4, 3)}
		}},
		{name: "key padding, a batch all padded", b: 2, h: 1, tq: 2, tk: 3, d: 2, dv: 2, checksAllMasked: true,
			opts: func(e *tensor.Engine) tensor.AttentionOptions {
				return tensor.AttentionOptions{KeyPadding: e.FromInt32s([]int32{1, 1, 1, 0, 1, 0}, 2, 3)}
			}},
		{name: "past the rows of a thread", b: 1, h: 1, tq: 70, tk: 70, d: 3, dv: 2, opts: func(*tensor.Engine) tensor.AttentionOptions {
			return tensor.AttentionOptions{Causal: true}
		}},
		{name: "dropout", b: 1, h: 2, tq: 4, tk: 5, d: 3, dv: 2, checksDropout: true, opts: func(*tensor.Engine) tensor.AttentionOptions {
			return tensor.AttentionOptions{Dropout: 0.3, Seed: 42}
		}},
		{name: "composed wide heads, causal, padded, dropout", b: 1, h: 1, tq: 2, tk: 3, d: 40, dv: 100, wantsComposed: true,
			opts: func(e *tensor.Engine) tensor.AttentionOptions {
				return tensor.AttentionOptions{Causal: true, KeyPadding: e.FromUint32s([]uint32{0, 1, 0}, 1, 3), Dropout: 0.25, Seed: 9}
			}},
		{name: "composed, mask differentiated", b: 1, h: 1, tq: 2, tk: 3, d: 61, dv: 3, wantsComposed: true, maskShape: []int{2, 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.wantsComposed, !kernels.AttentionFits(c.d, c.dv))
			f := func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
				var o tensor.AttentionOptions
				if c.opts != nil {
					o = c.opts(e)
				}
				if c.maskShape != nil {
					o.Mask = in[3]
				}
				return e.ScaledDotProductAttention(in[0], in[1], in[2], o)
			}
			ins := []hostIn{
				randIn(rng, -1.5, 1.5, attnShape(c.rank3, c.b, c.h, c.tq, c.d)...),
				randIn(rng, -1.5, 1.5, attnShape(c.rank3, c.b, c.h, c.tk, c.d)...),
				randIn(rng, -1.5, 1.5, attnShape(c.rank3, c.b, c.h, c.tk, c.dv)...),
			}
			if c.maskShape != nil {
				ins = append(ins, randIn(rng, -1, 1, c.maskShape...))
			}
			checkGradient(t, e, f, ins...)
			if c.checksAllMasked || c.checksDropout {
				// The batch whose keys are all padded gets zero output and
				// zero gradients; dropout drops the same weights in the
				// forward and the backward, run after run.
				got, err := tapeGradients(e, f, ins, genIn(attnShape(c.rank3, c.b, c.h, c.tq, c.dv), func() float64 { return 1 }))
				require.NoError(t, err)
				again, err := tapeGradients(e, f, ins, genIn(attnShape(c.rank3, c.b, c.h, c.tq, c.dv), func() float64 { return 1 }))
				require.NoError(t, err)
				assert.Equal(t, got, again, "the same seed gives the same gradients")
				if c.checksAllMasked {
					for i, g := range got {
						half := len(g) / 2
						assert.Equal(t, make([]float32, half), g[:half], "input %d: the padded batch's gradient", i)
					}
				}
			}
		})
	}
}

// The fused backward runs the two gradient kernels and forms no [Tq, Tk]
// matrix (no matmul, no softmax); a constant float mask costs nothing
// more, and one whose gradient is asked for costs its composition.
func TestScaledDotProductAttentionBackwardKernels(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	err := tidy.Do(e, func() error {
		q := e.RandNormal(1, 0, 1, 2, 2, 16, 8)
		k := e.RandNormal(2, 0, 1, 2, 2, 16, 8)
		v := e.RandNormal(3, 0, 1, 2, 2, 16, 8)
		mask := e.RandNormal(4, 0, 1, 16, 16)
		for _, wrtMask := range []bool{false, true} {
			wrt := []*tensor.Tensor{q, k, v}
			if wrtMask {
				wrt = append(wrt, mask)
			}
			tape := NewTape(e)
			var y *tensor.Tensor
			if err := tape.Record(func() error {
				y = e.Sum(e.ScaledDotProductAttention(q, k, v, tensor.AttentionOptions{Causal: true, Mask: mask}), false)
				return y.Err()
			}); err != nil {
				return err
			}
			p, err := e.Profile(ctx, func() error { _, err := tape.Gradients(y, wrt, nil); return err })
			if err != nil {
				return err
			}
			assert.Equal(t, 1, p.Total("attention_grad_q").Calls)
			assert.Equal(t, 1, p.Total("attention_grad_kv").Calls)
			assert.Equal(t, 0, p.Total("softmax").Calls)
			if wrtMask {
				assert.Positive(t, p.Total("matmul").Calls, "the mask's gradient is composed")
			} else {
				assert.Equal(t, 0, p.Total("matmul").Calls, "no matrix of scores")
			}
		}
		return nil
	})
	require.NoError(t, err)
}

// A gradient that reaches the logsumexp (through
// ScaledDotProductAttentionLSE) is refused, not dropped.
func TestScaledDotProductAttentionLSEHasNoGradient(t *testing.T) {
	e := testgpu.Engine(t)
	err := tidy.Do(e, func() error {
		q := e.RandNormal(1, 0, 1, 1, 1, 3, 4)
		tape := NewTape(e)
		var y *tensor.Tensor
		if err := tape.Record(func() error {
			_, lse := e.ScaledDotProductAttentionLSE(q, q, q, tensor.AttentionOptions{})
			y = e.Sum(lse, false)
			return y.Err()
		}); err != nil {
			return err
		}
		_, err := tape.Gradients(y, []*tensor.Tensor{q}, nil)
		assert.True(t, errors.Is(err, ErrNoGradient), "%v", err)
		return nil
	})
	require.NoError(t, err)
}

func TestMaskOpsGradients(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, k := range []int{0, 1, -1, 5} {
		checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return e.Tril(x[0], k) }, randIn(rng, -2, 2, 2, 3, 4))
		checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor { return e.Triu(x[0], k) }, randIn(rng, -2, 2, 4, 3))
	}
	for _, c := range []struct{ x, m []int }{{[]int{3, 4}, []int{3, 4}}, {[]int{3, 4}, []int{4}}, {[]int{4}, []int{2, 4}}, {[]int{2, 1}, []int{1, 3}}} {
		mv := make([]uint32, size(c.m))
		for i := range mv {
			mv[i] = uint32(rng.IntN(2))
		}
		checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
			return e.MaskedFill(x[0], e.FromUint32s(mv, c.m...), 3)
		}, randIn(rng, -2, 2, c.x...))
	}
}
