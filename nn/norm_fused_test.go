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

// A LayerNorm over one axis or several runs the fused kernels: one
// dispatch forward and one backward (the one-dispatch kernel's vec4 form
// for vectors of a multiple of 4, the kernel of one slice for up to 64
// vectors of other lengths); without affine parameters too (no kernel
// makes its ones and zeros).
// Vectors longer than the fused kernel takes (here 256·257 = 65,792
// elements) are normalised by the composed ops, against float64 as well.
func TestLayerNormUsesTheFusedKernels(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	b := nn.NewBuilder(e, 3)
	for _, c := range []struct {
		name  string
		l     *nn.LayerNorm
		shape []int
		want  []string
	}{
		{"LayerNorm(16), 8 vectors", b.LayerNorm(16), []int{8, 16}, []string{"layer_norm", "layer_norm_grad_columns_vec4"}},
		{"LayerNorm([3 4]), 100 vectors", b.LayerNormShape([]int{3, 4}, nn.WeightInit(nn.Uniform(0.5, 1.5))), []int{10, 10, 3, 4}, []string{"layer_norm", "layer_norm_grad_columns_vec4"}},
		{"LayerNorm([3 3]), 100 vectors", b.LayerNormShape([]int{3, 3}, nn.WeightInit(nn.Uniform(0.5, 1.5))), []int{10, 10, 3, 3}, []string{"layer_norm", "layer_norm_grad_columns"}},
		{"LayerNorm([2 5]), no affine", b.LayerNormShape([]int{2, 5}, nn.NoAffine()), []int{3, 2, 5}, []string{"layer_norm", "layer_norm_grad"}},
	} {
		require.NoError(t, b.Err())
		xs := randFloats(rng, prod(c.shape), -3, 3)
		err := tidy.Do(e, func() error {
			x := e.FromFloat32s(xs, c.shape...)
			seed := e.FromFloat32s(randFloats(rng, prod(c.shape), -1, 1), c.shape...)
			wrt := append([]*tensor.Tensor{x}, nn.Tensors(c.l.Params())...)
			p, err := e.Profile(context.Background(), func() error {
				tape := grad.NewTape(e)
				defer tape.Dispose()
				var y *tensor.Tensor
				if err := tape.Record(func() error { y = c.l.Forward(x); return y.Err() }); err != nil {
					return err
				}
				gs, err := tape.Gradients(y, wrt, &grad.Options{Seed: seed})
				if err != nil {
					return err
				}
				_, err = gs[0].Float32s(context.Background())
				return err
			})
			if err != nil {
				return err
			}
			var names []string
			for _, d := range p.Dispatches {
				names = append(names, d.Kernel)
			}
			assert.Equal(t, c.want, names, c.name)
			return nil
		})
		require.NoError(t, err, c.name)
		c.l.Dispose()
	}

	long := b.LayerNormShape([]int{256, 257}, nn.NoAffine())
	require.NoError(t, b.Err())
	defer long.Dispose()
	xs := randFloats(rng, 2*256*257, -3, 3)
	x := e.FromFloat32s(xs, 2, 256, 257)
	defer x.Dispose()
	var names []string
	var got []float32
	p, err := e.Profile(context.Background(), func() error {
		got = forward(t, e, long, x)
		return nil
	})
	require.NoError(t, err)
	for _, d := range p.Dispatches {
		names = append(names, d.Kernel)
	}
	assert.NotContains(t, names, "layer_norm", "a vector of 65,792 elements")
	requireClose(t, hostLayerNormShape(xs, 256*257, 1e-5, nil, nil), got, 1e-4, "LayerNorm([256 257]), no affine")
}

// prod is the product of s.
func prod(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}
