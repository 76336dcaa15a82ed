package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// The matmul workload's kernel is the one its timed products run, which
// its warm-up compiles: a smaller warm-up product may take another kernel
// (the Small one), leaving the timed products to compile theirs.
func TestMatMulWorkloadNamesTheKernelItTimes(t *testing.T) {
	ctx := context.Background()
	e := testgpu.Engine(t)
	const n = 256
	r, err := matmul(n).run(ctx, e)
	require.NoError(t, err)
	require.True(t, r.Ok, r.Check)

	a := e.FromFloat32s(make([]float32, n*n), n, n)
	defer a.Dispose()
	p, err := e.Profile(ctx, func() error {
		c := e.MatMul(a, a)
		defer c.Dispose()
		_, err := c.Float32s(ctx)
		return err
	})
	require.NoError(t, err)
	require.Equal(t, p.Total("matmul").Key, r.Kernel, "the kernel of a %d×%d product", n, n)
}

// conv2d_3x3 passes its check, names the kernel it timed (the Vec4 one:
// 64 channels in and out, with a CPU adapter's tiles on one) and reports
// its processor time.
func TestConv2D3x3Workload(t *testing.T) {
	e := testgpu.Engine(t)
	r, err := conv2D3x3.run(context.Background(), e)
	require.NoError(t, err)
	require.True(t, r.Ok, r.Check)
	want := "conv2d/forward/true"
	if e.Device().Info().Type == wgpu.AdapterCPU {
		want += "/cpu"
	}
	require.Equal(t, want, r.Kernel)
	require.Equal(t, "GFLOP/s", r.Unit)
	require.Positive(t, r.Value)
}
