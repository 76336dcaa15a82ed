package main

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// With the autotuner on, the matmul workload tunes its shape before it
// times and names the kernel its products then take; sampleRounds reports
// the tuning's cost, and names the kernels of a workload that names none.
func TestWorkloadsShowTheirTunedKernels(t *testing.T) {
	t.Setenv("WGT_AUTOTUNE", "1")
	t.Setenv("WGT_AUTOTUNE_CACHE", "")
	t.Setenv("WGT_MATMUL", "")
	ctx := context.Background()
	e := testgpu.Engine(t)
	products := workload{name: "products", run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
		a, b := e.Fill(tensor.Float32, 1, 4, 4), e.Fill(tensor.Float32, 1, 200, 256)
		defer a.Dispose()
		defer b.Dispose()
		for range 3 {
			c := e.MatMul(a, a)
			if err := e.Flush(); err != nil {
				return Result{}, err
			}
			c.Dispose()
		}
		c := e.MatMulT(b, b, false, true)
		defer c.Dispose()
		_, err := c.Float32s(ctx)
		return Result{Value: 1, Unit: "correct", Ok: err == nil}, err
	}}
	rs := sampleRounds(ctx, e, []workload{matmul(256), products}, 2, func(string, ...any) {})
	require.Len(t, rs, 2)
	for _, r := range rs {
		require.True(t, r.Ok, "%s: %s", r.Workload, r.Check)
	}
	tuned := tensor.Autotune(e.Device())
	require.True(t, tuned.Enabled)
	assert.GreaterOrEqual(t, tuned.Tuned, 2, "%+v", tuned.Choices)

	a := e.FromFloat32s(make([]float32, 256*256), 256, 256)
	defer a.Dispose()
	p, err := e.Profile(ctx, func() error {
		c := e.MatMul(a, a)
		defer c.Dispose()
		return e.Flush()
	})
	require.NoError(t, err)
	assert.Equal(t, p.Total("matmul").Key, rs[0].Kernel)
	assert.True(t, slices.ContainsFunc(rs[0].Extra, func(m Metric) bool { return m.Name == "autotune" && m.Unit == "ms" && m.Value > 0 }), "%v", rs[0].Extra)
	assert.Regexp(t, `^matmul [a-z4]+( 75% \+ [a-z4]+ 25%)?$`, rs[1].Kernel)
	assert.True(t, slices.ContainsFunc(rs[1].Extra, func(m Metric) bool { return m.Name == "autotune" }), "%v", rs[1].Extra)
}

func TestKernelsUsed(t *testing.T) {
	assert.Equal(t, "", kernelsUsed(nil))
	assert.Equal(t, "", kernelsUsed(map[string]uint64{"vec4": 0}))
	assert.Equal(t, "matmul vec4", kernelsUsed(map[string]uint64{"vec4": 7, "small": 0}))
	assert.Equal(t, "matmul vec4 75% + small 25%", kernelsUsed(map[string]uint64{"small": 2, "vec4": 6}))
	assert.Equal(t, "matmul register 50% + tiled 50%", kernelsUsed(map[string]uint64{"tiled": 1, "register": 1}))
}
