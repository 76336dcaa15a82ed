package tensor_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/kernels"
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
		{[]int{2, 64, 256}, []int{64, 128}, true, false}, // batched
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

// Issue 13: a batch of small matrices took a 64×64 (or 128×128) tile per
// matrix, hundreds of times the useful work: [65537 6 6]·[65537 6 6] ran
// for about 10 s on lavapipe. Products whose tiles would be mostly empty
// take the Small kernel (a thread per element), on every adapter, and the
// large products keep their tiles: on the test device as run, and as the
// choice is made for a GPU's tiled family (on an H200 the Small kernel took
// every product up to 4096×4096 before GPUs had their own estimate).
func TestSmallProductsTakeTheSmallKernel(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		a, b   []int
		ta, tb bool
		small  bool
	}{
		{[]int{4096, 6, 6}, []int{4096, 6, 6}, false, false, true},
		{[]int{4096, 6, 6}, []int{4096, 6, 6}, true, true, true},
		{[]int{1024, 16, 16}, []int{16, 16}, false, true, true},
		{[]int{5000, 1, 1}, []int{1, 1}, false, false, true},
		{[]int{3, 1, 300}, []int{2, 1, 300, 2}, false, false, true},
		{[]int{128, 784}, []int{784, 256}, false, false, false},
		{[]int{128, 10}, []int{256, 10}, false, true, false},
		{[]int{256, 256}, []int{256, 256}, true, false, false},
		{[]int{1024, 1024}, []int{1024, 1024}, false, false, false},
		{[]int{4096, 4096}, []int{4096, 4096}, false, false, false},
	} {
		M, K := c.a[len(c.a)-2], c.a[len(c.a)-1]
		if c.ta {
			M, K = K, M
		}
		N := c.b[len(c.b)-1]
		if c.tb {
			N = c.b[len(c.b)-2]
		}
		batches := max(size(c.a[:len(c.a)-2]), size(c.b[:len(c.b)-2]))
		for _, family := range []string{"vec4", "tiled"} {
			k := kernels.MatMul{TransA: c.ta, TransB: c.tb}
			assert.Equal(t, c.small, tensor.PickMatMul(family, k, M, K, N, batches), "%s: %v·%v T(%v,%v)", family, c.a, c.b, c.ta, c.tb)
		}
		if M*N*K > 1<<30 {
			continue // the choice is enough; lavapipe would take seconds
		}
		a, b := e.FromFloat32s(randF32(r, size(c.a), -1, 1), c.a...), e.FromFloat32s(randF32(r, size(c.b), -1, 1), c.b...)
		var got *tensor.Tensor
		kinds := matmulKinds(t, e, func() { got = e.MatMulT(a, b, c.ta, c.tb) })
		assert.NoError(t, got.Err())
		assert.Equal(t, c.small, len(kinds) > 0 && kinds[0] == "small", "%v·%v T(%v,%v): %v", c.a, c.b, c.ta, c.tb, kinds)
		got.Dispose()
		a.Dispose()
		b.Dispose()
	}
}

// Batches of small matrices, with the kernel the engine chooses: 1×1,
// odd sizes, broadcast batches, each transpose, and more batches than a
// grid dimension holds.
func TestSmallBatchedProducts(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ a, b []int }{
		{[]int{65537, 6, 6}, []int{65537, 6, 6}},
		{[]int{1000, 1, 1}, []int{1000, 1, 1}},
		{[]int{7, 3, 5}, []int{7, 5, 1}},
		{[]int{4, 1, 3, 7}, []int{5, 7, 2}},     // batches broadcast both ways
		{[]int{9, 2, 1}, []int{1, 5}},           // K = 1, B shared
		{[]int{3, 1, 300}, []int{2, 1, 300, 2}}, // a long K
		{[]int{2, 0, 3}, []int{2, 3, 4}},        // no rows
		{[]int{6, 4, 0}, []int{6, 0, 3}},        // K = 0: zeros
	} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			as, bs := transposedShape(c.a, tr[0]), transposedShape(c.b, tr[1])
			matmulCase(t, e, r, as, bs, tr[0], tr[1])
		}
	}
}

// transposedShape is s with its last two dimensions swapped when t is set.
func transposedShape(s []int, t bool) []int {
	s = append([]int{}, s...)
	if n := len(s); t {
		s[n-2], s[n-1] = s[n-1], s[n-2]
	}
	return s
}

// Every kernel sums each element's products in the order of k, with one
// fused multiply-add each: all of them, the vec4 kernel with transposed
// operands and the small kernel included, give the same bits.
func TestMatMulKernelsAgreeBitForBit(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ a, b []int }{
		{[]int{132, 20}, []int{20, 68}},
		{[]int{2, 1, 36, 40}, []int{3, 40, 12}},
		{[]int{5, 7, 9}, []int{9, 3}},
	} {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			as, bs := transposedShape(c.a, tr[0]), transposedShape(c.b, tr[1])
			a, b := e.FromFloat32s(randF32(r, size(as), -1, 1), as...), e.FromFloat32s(randF32(r, size(bs), -1, 1), bs...)
			var want []float32
			for _, kernel := range []string{"tiled", "register", "vec4", "small"} {
				t.Setenv("WGT_MATMUL", kernel)
				got := e.MatMulT(a, b, tr[0], tr[1])
				v := f32s(t, got)
				got.Dispose()
				if want == nil {
					want = v
					continue
				}
				assert.Equal(t, float32Bits(want), float32Bits(v), "%v·%v T(%v,%v): %s differs from tiled", as, bs, tr[0], tr[1], kernel)
			}
			a.Dispose()
			b.Dispose()
		}
	}
}

func float32Bits(v []float32) []uint32 {
	bits := make([]uint32, len(v))
	for i, x := range v {
		bits[i] = math.Float32bits(x)
	}
	return bits
}
