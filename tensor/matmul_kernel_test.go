package tensor_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// matmulKinds returns the kind of matmul kernel (the second part of its
// key: "vec4", "register", ...) of every dispatch fn recorded on e.
func matmulKinds(t *testing.T, e *tensor.Engine, fn func()) []string {
	t.Helper()
	p, err := e.Profile(ctxT(t), func() error { fn(); return nil })
	require.NoError(t, err)
	var kinds []string
	for _, d := range p.Dispatches {
		if d.Kernel == "matmul" {
			kinds = append(kinds, strings.Split(d.Key, "/")[1])
		}
	}
	return kinds
}

// Issue 13: on a CPU adapter a product with a transposed operand fell
// back from the vec4 kernel to the register kernel, 2.5 to 3 times
// slower, though the training step's backward products (dY·Wᵀ and Xᵀ·dY)
// are as large as its forward ones. Each of the MLP's large products, and
// square ones, takes the vec4 kernel whatever the transposes.
func TestTransposedProductsTakeTheVec4Kernel(t *testing.T) {
	e := testgpu.Engine(t)
	if e.Device().Info().Type != wgpu.AdapterCPU {
		t.Skip("the vec4 kernel is the choice of CPU adapters")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		a, b   []int
		ta, tb bool
	}{
		{[]int{128, 784}, []int{784, 256}, false, false}, // X·W
		{[]int{128, 256}, []int{784, 256}, false, true},  // dY·Wᵀ
		{[]int{128, 784}, []int{128, 256}, true, false},  // Xᵀ·dY
		{[]int{256, 256}, []int{256, 256}, true, true},
		{[]int{2, 64, 36}, []int{64, 20}, true, false}, // batched, ragged tiles
	} {
		a, b := e.FromFloat32s(randF32(r, size(c.a), -1, 1), c.a...), e.FromFloat32s(randF32(r, size(c.b), -1, 1), c.b...)
		var got *tensor.Tensor
		kinds := matmulKinds(t, e, func() { got = e.MatMulT(a, b, c.ta, c.tb) })
		require.NoError(t, got.Err())
		assert.Equal(t, []string{"vec4"}, kinds, "%v·%v T(%v,%v)", c.a, c.b, c.ta, c.tb)
		got.Dispose()
		a.Dispose()
		b.Dispose()
	}
}
