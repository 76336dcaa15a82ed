package tensor_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// BenchmarkMatMul reports GFLOP/s of an N×N float32 product; each op is
// one product, and the batch is read back (one element) at the end.
func BenchmarkMatMul(b *testing.B) {
	for _, n := range []int{256, 512, 1024, 2048} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := testgpu.Engine(b)
			r := rand.New(rand.NewPCG(1, 2))
			x := e.FromFloat32s(randF32(r, n*n, -1, 1), n, n)
			y := e.FromFloat32s(randF32(r, n*n, -1, 1), n, n)
			defer x.Dispose()
			defer y.Dispose()
			b.ResetTimer()
			var last *tensor.Tensor
			for range b.N {
				last.Dispose()
				last = e.MatMul(x, y)
			}
			f32s(b, last)
			b.StopTimer()
			last.Dispose()
			b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkMatMulGo is the plain-Go reference for the same products: an
// i-k-j loop over float32 slices.
func BenchmarkMatMulGo(b *testing.B) {
	for _, n := range []int{256, 512, 1024} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			x, y := randF32(r, n*n, -1, 1), randF32(r, n*n, -1, 1)
			c := make([]float32, n*n)
			for range b.N {
				clear(c)
				for i := range n {
					ci := c[i*n : (i+1)*n]
					for k := range n {
						a := x[i*n+k]
						yk := y[k*n : (k+1)*n]
						for j := range ci {
							ci[j] += a * yk[j]
						}
					}
				}
			}
			b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkElementwiseChain is y = relu(a*b + a) on 2^20 floats as three
// ops, intermediates disposed; GB/s counts 32 bytes per element per chain.
func BenchmarkElementwiseChain(b *testing.B) {
	const n = 1 << 20
	e := testgpu.Engine(b)
	r := rand.New(rand.NewPCG(3, 4))
	x := e.FromFloat32s(randF32(r, n, -1, 1))
	y := e.FromFloat32s(randF32(r, n, -1, 1))
	defer x.Dispose()
	defer y.Dispose()
	b.ResetTimer()
	var last *tensor.Tensor
	for range b.N {
		last.Dispose()
		p := e.Mul(x, y)
		s := e.Add(p, x)
		last = e.Relu(s)
		p.Dispose()
		s.Dispose()
	}
	f32s(b, last)
	b.StopTimer()
	last.Dispose()
	b.ReportMetric(32*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

// BenchmarkSmallAdds is 1,000 sequential x = x + y on 1,024 floats, then
// one readback; it reports the cost per add.
func BenchmarkSmallAdds(b *testing.B) {
	e := testgpu.Engine(b)
	y := e.Ones(tensor.Float32, 1024)
	defer y.Dispose()
	for range b.N {
		x := e.Zeros(tensor.Float32, 1024)
		for range 1000 {
			nx := e.Add(x, y)
			x.Dispose()
			x = nx
		}
		if v := f32s(b, x); v[0] != 1000 {
			b.Fatalf("x[0] = %v after 1000 adds", v[0])
		}
		x.Dispose()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "µs/add")
}
