package grad

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// narrowEverything makes autocast tapes save every activation narrow,
// whatever its size, for the rest of the test.
func narrowEverything(t *testing.T) {
	minNarrow, checkAutocast = 1, tensor.BFloat16
	t.Cleanup(func() { minNarrow, checkAutocast = AutocastMinElements, tensor.Float32 })
}

// Gradients through activations saved in bfloat16 match central finite
// differences of the float32 function within the checks' tolerance: an
// MLP with GELU and layer norm, a convolution with pooling, softmax and a
// product of two activations. (Attention's are the op's gradient at its
// rounded operands: TestAutocastAttention.)
func TestAutocastGradientsAgainstFiniteDifferences(t *testing.T) {
	e := testgpu.Engine(t)
	narrowEverything(t)
	rng := rngFor(t)
	gen := func() float64 { return rng.Float64()*2 - 1 }
	t.Run("mlp", func(t *testing.T) {
		checkGradient(t, e, func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
			h := e.GeluErf(e.MatMul(in[0], in[1]))
			h = e.LayerNorm(h, in[2], e.Zeros(tensor.Float32, 6), 1e-5)
			return e.Tanh(e.MatMul(e.Mul(h, e.Sigmoid(h)), in[3]))
		}, genIn([]int{4, 5}, gen), genIn([]int{5, 6}, gen), genIn([]int{6}, func() float64 { return 1 + rng.Float64() }), genIn([]int{6, 3}, gen))
	})
	t.Run("conv", func(t *testing.T) {
		checkGradient(t, e, func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
			y := e.Tanh(e.Conv2D(in[0], in[1], tensor.Conv2DOptions{Padding: tensor.Same()}))
			return e.Softmax(e.AvgPool2D(y, tensor.Pool2DOptions{Window: [2]int{2, 2}}), -1)
		}, genIn([]int{1, 4, 4, 2}, gen), genIn([]int{3, 3, 2, 3}, gen))
	})
}

// An autocast tape saves attention's q, k and v (here one packed qkv) in
// bfloat16 and neither its output nor its log-sum-exp, which the rule
// recomputes from them (Rule.Recompute); the gradients, the op's at the
// rounded operands, are float32's (checked against finite differences in
// rules_attention_test.go) within bfloat16's precision, in both layouts,
// with masks and dropout, for scores of order 1 (as a model's norms and
// initialisation keep them: where they reach tens, the weights are so
// sharp that rounding q and k moves the gradient by 10%, as computing
// attention in bfloat16 under PyTorch's autocast does).
func TestAutocastAttention(t *testing.T) {
	e := testgpu.Engine(t)
	narrowEverything(t)
	rng := rngFor(t)
	gen := func() float64 { return rng.Float64()*4 - 2 }
	const batch, T, heads, hd = 2, 9, 3, 8
	d := heads * hd
	mask := make([]float64, T*T)
	for i := range mask {
		mask[i] = float64(i%3) - 1
	}
	cases := []struct {
		name string
		f    checkFunc
		in   []hostIn
	}{
		{"packed causal", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
			qkv := e.MatMul(in[0], in[1])
			return e.ScaledDotProductAttentionPacked(qkv, tensor.AttentionOptions{Heads: heads, Causal: true})
		}, []hostIn{genIn([]int{batch, T, d}, gen), genIn([]int{d, 3 * d}, func() float64 { return gen() / math.Sqrt(float64(d)) })}},
		{"separate, float mask, dropout", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
			q, k, v := e.Tanh(in[0]), e.Tanh(in[1]), e.Tanh(in[2])
			return e.ScaledDotProductAttention(q, k, v, tensor.AttentionOptions{Heads: heads, Mask: in[3], Dropout: 0.25, Seed: 7})
		}, []hostIn{genIn([]int{batch, T, d}, gen), genIn([]int{batch, T, d}, gen), genIn([]int{batch, T, d}, gen),
			{shape: []int{T, T}, data: mask}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seed := genIn([]int{batch, T, d}, gen)
			checkAutocast = tensor.Float32
			exact, err := tapeGradients(e, c.f, c.in, seed)
			require.NoError(t, err)
			checkAutocast = tensor.BFloat16
			narrow, err := tapeGradients(e, c.f, c.in, seed)
			require.NoError(t, err)
			for i := range exact {
				var diff, norm float64
				for j, g := range exact[i] {
					diff += math.Pow(float64(narrow[i][j]-g), 2)
					norm += float64(g) * float64(g)
				}
				rel := math.Sqrt(diff / norm)
				t.Logf("input %d: relative difference %.2g", i, rel)
				assert.Less(t, rel, 1.0/128, "input %d", i)
				assert.NotZero(t, diff, "input %d: the gradient reads the rounded operands", i)
			}
		})
	}

	// What the tape holds: the bfloat16 qkv alone.
	err := tidy.Do(e, func() error {
		qkv := e.RandNormal(3, 0, 1, batch, T, 3*d)
		tensor.SetCategory(qkv, tensor.CategoryActivation)
		base := e.Memory().Bytes
		tape := NewTape(e)
		require.NoError(t, tape.SetAutocast(tensor.BFloat16))
		var out *tensor.Tensor
		require.NoError(t, tape.Record(func() error {
			out = e.ScaledDotProductAttentionPacked(qkv, tensor.AttentionOptions{Heads: heads})
			return out.Err()
		}))
		out.Dispose()
		assert.Equal(t, uint64(2*batch*T*3*d), e.Memory().Bytes-base, "the saved copy of qkv, in bfloat16")
		tape.Dispose()
		return nil
	})
	require.NoError(t, err)
}

// An autocast tape records the same ops as a float32 one (none of its own
// casts), holds its saved activations in bfloat16 (half the bytes a
// float32 tape's saves hold once the forward pass lets its own go), gives
// gradients within 1% of float32's, and leaves nothing live.
func TestAutocastHalvesSavedActivations(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	const batch, width, depth = 64, 256, 4
	ws := make([]*tensor.Tensor, depth)
	for i := range ws {
		ws[i] = e.RandNormal(uint64(10+i), 0, float32(1/math.Sqrt(width)), width, width)
	}
	x := e.RandNormal(9, 0, 1, batch, width)
	defer tidy.Dispose(append(ws, x))
	// forward frees each layer's intermediates as a layer does.
	forward := func() *tensor.Tensor {
		h := x
		for _, w := range ws {
			y, _ := tidy.Run(e, func() (*tensor.Tensor, error) {
				return e.GeluErf(e.LayerNorm(e.MatMul(h, w), e.Ones(tensor.Float32, width), e.Zeros(tensor.Float32, width), 1e-5)), nil
			})
			if h != x {
				h.Dispose()
			}
			h = y
		}
		l := e.Mean(e.Square(h), false)
		h.Dispose()
		return l
	}
	type run struct {
		held  uint64 // bytes live between the forward pass and the backward
		ops   int
		grads [][]float32
	}
	measure := func(d tensor.DType) run {
		var r run
		err := tidy.Do(e, func() error {
			base := e.Memory().Bytes
			tape := NewTape(e)
			require.NoError(t, tape.SetAutocast(d))
			var l *tensor.Tensor
			require.NoError(t, tape.Record(func() error { l = forward(); return l.Err() }))
			require.NoError(t, e.Flush())
			r.held, r.ops = e.Memory().Bytes-base, tape.Len()
			gs, err := tape.Gradients(l, ws, nil)
			require.NoError(t, err)
			for _, g := range gs {
				v, err := g.Float32s(ctx)
				require.NoError(t, err)
				r.grads = append(r.grads, v)
			}
			return nil
		})
		require.NoError(t, err)
		return r
	}
	f32, bf := measure(tensor.Float32), measure(tensor.BFloat16)
	t.Logf("held between the passes: %d B with float32 saves, %d B with bfloat16 (%.1f%%)", f32.held, bf.held, 100*float64(bf.held)/float64(f32.held))
	assert.Equal(t, f32.ops, bf.ops, "the tape records no cast of its own")
	assert.Less(t, float64(bf.held), 0.56*float64(f32.held), "about half: the activations, not the small stats")
	for i := range f32.grads {
		var d, n float64
		for j, g := range f32.grads[i] {
			d += math.Pow(float64(bf.grads[i][j]-g), 2)
			n += float64(g) * float64(g)
		}
		assert.Less(t, math.Sqrt(d/n), 0.01, "weight %d's gradient", i)
	}

	// Refusals.
	tape := NewTape(e)
	defer tape.Dispose()
	require.ErrorIs(t, tape.SetAutocast(tensor.Float16), tensor.ErrDType)
	require.NoError(t, tape.Record(func() error {
		assert.ErrorIs(t, tape.SetAutocast(tensor.BFloat16), ErrTapeUsed)
		return nil
	}))
	require.ErrorIs(t, (*Tape)(nil).SetAutocast(tensor.BFloat16), tensor.ErrArgument)
	_, _, err := ValueAndGrad(e, func(p []*tensor.Tensor) (*tensor.Tensor, error) { return e.Sum(p[0], false), nil }, ws[:1], &Options{Autocast: tensor.Int8})
	require.ErrorIs(t, err, tensor.ErrDType)
}
