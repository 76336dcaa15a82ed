package tensor_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Issue 11 item 1: with the register and tiled kernels a product with
// K ≥ 58,256 lost terms ([1 58256]·[58256 1] of ones gave 58255): a
// WGSL loop on lavapipe stops after 65,535 trips, counted over the
// kernel's nested loops. Every kernel sums every K up to the maximum
// exactly, with ones and with values whose sum is exact in float32.
// A GPU's work budget lets one dispatch sum the whole of K; a CPU
// adapter's splits K in ranges: both are checked.
func TestMatMulLongKIsExact(t *testing.T) {
	ks := []int{58256, 65535, 65536, 65537, 1<<17 + 1, kernels.MaxMatMulK}
	for _, budget := range []wgpu.Work{0, wgpu.GPUWorkBudget} {
		for _, kernel := range []string{"tiled", "register", "vec4", "small"} {
			t.Run(fmt.Sprintf("%s/budget=%d", kernel, budget), func(t *testing.T) {
				t.Setenv("WGT_MATMUL", kernel)
				opts := testgpu.DefaultOptions()
				opts.WorkBudget = budget
				e := testgpu.EngineOn(t, testgpu.OpenWith(t, opts))
				for _, K := range ks {
					checkLongK(t, e, K)
				}
			})
		}
	}
}

// checkLongK multiplies [1 K]·[K 1] of ones, then of a[k] = k mod 5 and
// b[k] = k mod 3 (products at most 8, a sum below 2^24: exact).
func checkLongK(t *testing.T, e *tensor.Engine, K int) {
	t.Helper()
	av, bv := make([]float32, K), make([]float32, K)
	want := 0
	for k := range K {
		av[k], bv[k] = float32(k%5), float32(k%3)
		want += (k % 5) * (k % 3)
	}
	for _, c := range []struct {
		name   string
		a, b   *tensor.Tensor
		expect float32
	}{
		{"ones", e.Ones(tensor.Float32, 1, K), e.Ones(tensor.Float32, K, 1), float32(K)},
		{"mod", e.FromFloat32s(av, 1, K), e.FromFloat32s(bv, K, 1), float32(want)},
	} {
		got := e.MatMul(c.a, c.b)
		v := f32s(t, got)
		assert.Equal(t, []float32{c.expect}, v, "K = %d, %s", K, c.name)
		got.Dispose()
		c.a.Dispose()
		c.b.Dispose()
	}
}

// K past the maximum is refused, and the error names the limit.
func TestMatMulKPastTheLimit(t *testing.T) {
	e := testgpu.Engine(t)
	K := kernels.MaxMatMulK + 1
	a, b := e.Zeros(tensor.Float32, 1, K), e.Zeros(tensor.Float32, K, 1)
	defer a.Dispose()
	defer b.Dispose()
	err := e.MatMul(a, b).Err()
	require.ErrorIs(t, err, tensor.ErrShape)
	assert.Contains(t, err.Error(), fmt.Sprintf("at most %d", kernels.MaxMatMulK))
}
