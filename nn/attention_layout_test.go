package nn_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// mhaStep runs one forward and backward pass of m on x (the gradient of
// its result seeded with seed, with respect to x and every parameter) and
// reads the gradients back: what a training step of the layer costs.
func mhaStep(tb testing.TB, e *tensor.Engine, m nn.Module, x, kv, seed *tensor.Tensor) {
	tb.Helper()
	err := tidy.Do(e, func() error {
		tape := grad.NewTape(e)
		var y *tensor.Tensor
		if err := tape.Record(func() error {
			if kv != nil {
				y = m.(*nn.MultiheadAttention).Attend(x, kv, kv, nn.AttendOptions{})
			} else {
				y = m.Forward(x)
			}
			return y.Err()
		}); err != nil {
			return err
		}
		wrt := append([]*tensor.Tensor{x}, nn.Tensors(m.Params())...)
		gs, err := tape.Gradients(y, wrt, &grad.Options{Seed: seed})
		if err != nil {
			return err
		}
		for _, g := range gs {
			if _, err := g.Float32s(context.Background()); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(tb, err)
}

// mhaSetUp builds MultiheadAttention(128, 4), an input [16, 64, 128]
// (and, for cross-attention, keys and values [16, 48, 128]) and the seed
// of the gradient, of the result's shape.
func mhaSetUp(tb testing.TB, e *tensor.Engine, cross bool) (m *nn.MultiheadAttention, x, kv, seed *tensor.Tensor) {
	b := nn.NewBuilder(e, 3)
	m = b.MultiheadAttention(128, 4, nn.AttentionConfig{Causal: !cross})
	require.NoError(tb, b.Err())
	x = e.RandNormal(5, 0, 1, 16, 64, 128)
	if cross {
		kv = e.RandNormal(6, 0, 1, 16, 48, 128)
	}
	seed = e.RandNormal(7, 0, 1, 16, 64, 128)
	return m, x, kv, seed
}

// One MultiheadAttention forward and backward (B=16, T=64, D=128, H=4)
// copies no activation (no transpose, slice or concat): the attention
// kernels read the projections in place and write the merged heads
// straight into out_proj's operand, and their gradients likewise. It logs
// the dispatches of the step (issue 21).
func TestMultiheadAttentionStepHasNoCopies(t *testing.T) {
	e := testgpu.Engine(t)
	for _, cross := range []bool{false, true} {
		t.Run(map[bool]string{false: "self", true: "cross"}[cross], func(t *testing.T) {
			m, x, kv, seed := mhaSetUp(t, e, cross)
			defer m.Dispose()
			defer tidy.Dispose([]*tensor.Tensor{x, kv, seed})
			mhaStep(t, e, m, x, kv, seed) // compile the kernels
			before := e.Device().Stats().Dispatches
			mhaStep(t, e, m, x, kv, seed)
			n := e.Device().Stats().Dispatches - before
			p, err := e.Profile(context.Background(), func() error { mhaStep(t, e, m, x, kv, seed); return nil })
			require.NoError(t, err)
			t.Logf("%d dispatches a step", n)
			for _, k := range p.Kernels {
				t.Logf("  %-40s %3d calls", k.Name, k.Calls)
			}
			// Self-attention copies nothing; cross-attention copies only
			// in_proj's weights and bias, split in three forward and
			// joined backward, never an activation.
			var copies int
			for _, d := range p.Dispatches {
				if d.Kernel == "copy" || d.Kernel == "gather" {
					copies++
					assert.LessOrEqual(t, d.Written, uint64(3*128*128*4), "an activation is copied")
				}
			}
			if cross {
				assert.LessOrEqual(t, copies, 12, "copies in a step")
			} else {
				assert.Zero(t, copies, "copies in a step")
			}
			assert.Equal(t, 1, p.Total("attention_forward").Calls)
			assert.Equal(t, 1, p.Total("attention_grad_q").Calls)
			assert.Equal(t, 1, p.Total("attention_grad_kv").Calls)
		})
	}
}

// BenchmarkMultiheadAttentionStep times one forward and backward of
// MultiheadAttention(128, 4) on [16, 64, 128], self-attention (causal)
// and cross-attention to 48 keys.
func BenchmarkMultiheadAttentionStep(b *testing.B) {
	e := testgpu.Engine(b)
	for _, c := range []struct {
		name  string
		cross bool
	}{{"self", false}, {"cross", true}} {
		b.Run(c.name, func(b *testing.B) {
			m, x, kv, seed := mhaSetUp(b, e, c.cross)
			defer m.Dispose()
			defer tidy.Dispose([]*tensor.Tensor{x, kv, seed})
			mhaStep(b, e, m, x, kv, seed)
			before := e.Device().Stats().Dispatches
			b.ResetTimer()
			for range b.N {
				mhaStep(b, e, m, x, kv, seed)
			}
			b.StopTimer()
			b.ReportMetric(float64(e.Device().Stats().Dispatches-before)/float64(b.N), "dispatches/op")
		})
	}
}
