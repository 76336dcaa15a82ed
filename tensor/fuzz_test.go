package tensor_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// randShape draws a shape of rank up to 4 with dimensions 0 to 6, biased
// toward 1 so that broadcasting happens.
func randShape(r *rand.Rand) []int {
	s := make([]int, r.IntN(5))
	for i := range s {
		switch r.IntN(4) {
		case 0:
			s[i] = 1
		default:
			s[i] = r.IntN(7)
		}
	}
	return s
}

// broadcastPartner derives from s a shape that broadcasts with it.
func broadcastPartner(r *rand.Rand, s []int) []int {
	drop := r.IntN(len(s) + 1)
	p := append([]int{}, s[drop:]...)
	for i := range p {
		if r.IntN(3) == 0 {
			p[i] = 1
		}
	}
	return p
}

func FuzzBinaryBroadcast(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(3), uint64(99))
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		e := testgpu.Engine(t)
		r := rand.New(rand.NewPCG(s1, s2))
		as := randShape(r)
		bs := broadcastPartner(r, as)
		if r.IntN(2) == 0 {
			as, bs = bs, as
		}
		av, bv := randF32(r, size(as), -3, 3), randF32(r, size(bs), -3, 3)
		a, b := e.FromFloat32s(av, as...), e.FromFloat32s(bv, bs...)
		defer a.Dispose()
		defer b.Dispose()
		for name, op := range map[string]struct {
			gpu func(a, b *tensor.Tensor) *tensor.Tensor
			ref func(x, y float32) float32
		}{
			"add": {e.Add, func(x, y float32) float32 { return x + y }},
			"mul": {e.Mul, func(x, y float32) float32 { return x * y }},
			"sub": {e.Sub, func(x, y float32) float32 { return x - y }},
		} {
			y := op.gpu(a, b)
			want, shape := refBinary(av, as, bv, bs, op.ref)
			require.NoError(t, y.Err(), "%s %v %v", name, as, bs)
			assert.Equal(t, tensor.Shape(shape), y.Shape())
			closeTo(t, want, f32s(t, y), 1e-6, 1e-6, "%s %v %v", name, as, bs)
			y.Dispose()
		}
	})
}

func FuzzMatMul(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(5), uint64(6))
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		e := testgpu.Engine(t)
		r := rand.New(rand.NewPCG(s1, s2))
		M, K, N := r.IntN(140), r.IntN(140), r.IntN(140)
		ta, tb := r.IntN(2) == 0, r.IntN(2) == 0
		batchA := broadcastPartner(r, []int{1 + r.IntN(3), 1 + r.IntN(3)})
		batchB := broadcastPartner(r, []int{1 + r.IntN(3), 1 + r.IntN(3)})
		if _, ok := bcast(batchA, batchB); !ok {
			batchB = batchA
		}
		as := append(append([]int{}, batchA...), M, K)
		if ta {
			as = append(append([]int{}, batchA...), K, M)
		}
		bs := append(append([]int{}, batchB...), K, N)
		if tb {
			bs = append(append([]int{}, batchB...), N, K)
		}
		matmulCase(t, e, r, as, bs, ta, tb)
	})
}
