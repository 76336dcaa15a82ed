package tensor_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wgtensor/wgtensor/internal/cputime"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// BenchmarkMatMul reports GFLOP/s of an N×N float32 product; each op is
// one product, flushed (a product disposed unread is not computed), and the
// batch is read back (one element) at the end.
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
				if err := e.Flush(); err != nil {
					b.Fatal(err)
				}
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
		// Else the next chain joins this one's kernel and disposes its
		// result unwritten: most chains would never be computed.
		if err := e.Flush(); err != nil {
			b.Fatal(err)
		}
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

// rowShapes are the shapes BenchmarkRows reduces along their last axis:
// short rows, medium, long, very long, and many short ones (issue 11
// item 10).
var rowShapes = [][2]int{{128, 3}, {4096, 16}, {1024, 128}, {128, 1024}, {16, 65536}, {8, 16384}, {2, 16384}}

// rowOps are the row ops BenchmarkRows times, each along the last axis.
var rowOps = map[string]func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor{
	"softmax":    func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Softmax(x, -1) },
	"logsoftmax": func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.LogSoftmax(x, -1) },
	"sum":        func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Sum(x, false, -1) },
	"max":        func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Max(x, false, -1) },
	"argmax":     func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.ArgMax(x, -1) },
	// softmax as five ops: what a user would write without Softmax.
	"softmax5": func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor {
		mx := e.Max(x, true, -1)
		d := e.Sub(x, mx)
		ex := e.Exp(d)
		s := e.Sum(ex, true, -1)
		out := e.Div(ex, s)
		for _, t := range []*tensor.Tensor{mx, d, ex, s} {
			t.Dispose()
		}
		return out
	},
}

// BenchmarkRows times the row ops over rowShapes: the kernel the engine
// chooses (auto), and each kernel forced (thread: a thread per row;
// group: a workgroup per row). Each op is one op over the whole tensor;
// the last result is read back at the end.
func BenchmarkRows(b *testing.B) {
	for _, name := range []string{"softmax", "softmax5", "logsoftmax", "sum", "max", "argmax"} {
		for _, s := range rowShapes {
			for _, kind := range []string{"auto", "thread", "group"} {
				if name == "softmax5" && kind != "auto" {
					continue
				}
				b.Run(fmt.Sprintf("%s/%dx%d/%s", name, s[0], s[1], kind), func(b *testing.B) {
					benchRows(b, rowOps[name], s, kind)
				})
			}
		}
	}
}

func benchRows(b *testing.B, op func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor, s [2]int, kind string) {
	e := testgpu.Engine(b)
	if kind != "auto" {
		tensor.ForceRowKernel(e, kind)
	}
	r := rand.New(rand.NewPCG(3, 4))
	x := e.FromFloat32s(randF32(r, s[0]*s[1], -4, 4), s[0], s[1])
	defer x.Dispose()
	warm := op(e, x) // compiles the kernels
	readBack(b, warm)
	warm.Dispose()
	b.ResetTimer()
	var last *tensor.Tensor
	for range b.N {
		last.Dispose()
		last = op(e, x)
	}
	readBack(b, last)
	b.StopTimer()
	last.Dispose()
}

// readBack reads x back, whatever its dtype, failing b on an error.
func readBack(b *testing.B, x *tensor.Tensor) {
	b.Helper()
	if _, err := x.Data().Await(ctxT(b)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkOpOverhead times the host side of one op that does no GPU work
// (Reshape, a view) and its Dispose: checks, the creation site's capture,
// registration.
func BenchmarkOpOverhead(b *testing.B) {
	e := testgpu.Engine(b)
	x := e.Zeros(tensor.Float32, 4, 4)
	defer x.Dispose()
	b.ReportAllocs()
	for b.Loop() {
		e.Reshape(x, 16).Dispose()
	}
}

// matmulBenchShapes are the products BenchmarkMatMulShapes times, named
// by their role: the 784-256-10 MLP's training step at batch 128 (the
// forward products, the input gradients dY·Wᵀ and the weight gradients
// Xᵀ·dY), square products with each transpose, and batches of small
// matrices.
var matmulBenchShapes = []struct {
	name   string
	a, b   []int
	ta, tb bool
}{
	{"mlp/fwd1/128x784x256", []int{128, 784}, []int{784, 256}, false, false},
	{"mlp/dx1/128x256x784_tb", []int{128, 256}, []int{784, 256}, false, true},
	{"mlp/dw1/784x128x256_ta", []int{128, 784}, []int{128, 256}, true, false},
	{"mlp/fwd2/128x256x10", []int{128, 256}, []int{256, 10}, false, false},
	{"mlp/dx2/128x10x256_tb", []int{128, 10}, []int{256, 10}, false, true},
	{"mlp/dw2/256x128x10_ta", []int{128, 256}, []int{128, 10}, true, false},
	{"square/512", []int{512, 512}, []int{512, 512}, false, false},
	{"square/512_ta", []int{512, 512}, []int{512, 512}, true, false},
	{"square/512_tb", []int{512, 512}, []int{512, 512}, false, true},
	{"square/512_ta_tb", []int{512, 512}, []int{512, 512}, true, true},
	{"batched/4096x6x6x6", []int{4096, 6, 6}, []int{4096, 6, 6}, false, false},
	{"batched/4096x6x6x6_ta_tb", []int{4096, 6, 6}, []int{4096, 6, 6}, true, true},
	{"batched/1024x16x16x16", []int{1024, 16, 16}, []int{1024, 16, 16}, false, false},
	{"batched/16384x1x1x1", []int{16384, 1, 1}, []int{16384, 1, 1}, false, false},
}

// BenchmarkMatMulShapes times the products of matmulBenchShapes with the
// kernels the engine chooses; each op is one product, and the last is read
// back at the end. GFLOP/s counts the useful multiply-adds; cpu-µs/op is
// the processor time the process used per product, which on a software
// driver is the kernel's work and, unlike the time per op, does not stretch
// when other processes share the machine: compare backends by it there.
func BenchmarkMatMulShapes(b *testing.B) {
	for _, s := range matmulBenchShapes {
		b.Run(s.name, func(b *testing.B) {
			e := testgpu.Engine(b)
			r := rand.New(rand.NewPCG(1, 2))
			x := e.FromFloat32s(randF32(r, size(s.a), -1, 1), s.a...)
			y := e.FromFloat32s(randF32(r, size(s.b), -1, 1), s.b...)
			defer x.Dispose()
			defer y.Dispose()
			warm := e.MatMulT(x, y, s.ta, s.tb) // compiles the kernel
			readBack(b, warm)
			b.ResetTimer()
			cpu0, cpuOK := cputime.Process()
			last := warm
			for range b.N {
				last.Dispose()
				last = e.MatMulT(x, y, s.ta, s.tb)
				if err := e.Flush(); err != nil {
					b.Fatal(err)
				}
			}
			readBack(b, last)
			b.StopTimer()
			if cpu1, _ := cputime.Process(); cpuOK {
				b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
			}
			shape := last.Shape()
			last.Dispose()
			K := s.a[len(s.a)-1]
			if s.ta {
				K = s.a[len(s.a)-2]
			}
			b.ReportMetric(2*float64(shape.Size()*K)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			// One more product under Engine.Profile: the kernels' own time,
			// without the host's.
			p, err := e.Profile(ctxT(b), func() error {
				c := e.MatMulT(x, y, s.ta, s.tb)
				defer c.Dispose()
				return e.Flush()
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(p.Total("matmul").Time.Microseconds()), "kernel-µs")
		})
	}
}
