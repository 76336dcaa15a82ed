package grad

import (
	"context"
	"math"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// BenchmarkAttention times a forward and backward pass of causal
// attention over B=16, H=4, T=64, D=32 (issue 20's transformer_train_step
// has these heads), through a tape: the fused op
// (ScaledDotProductAttention: one kernel forward, two backward) beside
// the composition a user writes without it (MatMulT, a scale, a causal
// -Inf mask, Softmax, MatMul: about ten kernels each way, over [T, T]
// scores per head). Each pass reads the gradients back. /forward times
// the forward alone, read back.
func BenchmarkAttention(b *testing.B) {
	const B, H, T, D = 16, 4, 64, 32
	composed := func(e *tensor.Engine, q, k, v, causal *tensor.Tensor) *tensor.Tensor {
		s := e.Mul(e.MatMulT(q, k, false, true), e.Scalar(float32(1/math.Sqrt(D))))
		return e.MatMul(e.Softmax(e.MaskedFill(s, causal, float32(math.Inf(-1))), -1), v)
	}
	for _, c := range []struct {
		name string
		f    func(e *tensor.Engine, q, k, v, causal *tensor.Tensor) *tensor.Tensor
	}{
		{"fused", func(e *tensor.Engine, q, k, v, _ *tensor.Tensor) *tensor.Tensor {
			return e.ScaledDotProductAttention(q, k, v, tensor.AttentionOptions{Causal: true})
		}},
		{"composed", composed},
	} {
		e := testgpu.Engine(b)
		q, k, v := e.RandNormal(1, 0, 1, B, H, T, D), e.RandNormal(2, 0, 1, B, H, T, D), e.RandNormal(3, 0, 1, B, H, T, D)
		ones := e.Ones(tensor.Uint32, T, T)
		causal := e.Triu(ones, 1)
		seed := e.RandNormal(4, 0, 1, B, H, T, D)
		ins := []*tensor.Tensor{q, k, v}
		step := func() error {
			return tidy.Do(e, func() error {
				_, gs, err := ValueAndGrad(e, func(ps []*tensor.Tensor) (*tensor.Tensor, error) {
					y := c.f(e, ps[0], ps[1], ps[2], causal)
					return y, y.Err()
				}, ins, &Options{Seed: seed})
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
		}
		forward := func() error {
			return tidy.Do(e, func() error {
				_, err := c.f(e, q, k, v, causal).Float32s(context.Background())
				return err
			})
		}
		if err := step(); err != nil { // compiles the kernels
			b.Fatal(err)
		}
		b.Run(c.name+"/forward", func(b *testing.B) {
			for b.Loop() {
				if err := forward(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/forward_backward", func(b *testing.B) {
			for b.Loop() {
				if err := step(); err != nil {
					b.Fatal(err)
				}
			}
		})
		tidy.Dispose([]*tensor.Tensor{q, k, v, ones, causal, seed})
	}
}
