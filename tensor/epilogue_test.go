package tensor_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// epilogueCase is a product followed by a bias, GELU and a residual: the
// ops after a transformer's projection.
type epilogueCase struct {
	batch      []int // batch dimensions of a (b is one matrix, broadcast)
	M, K, N    int
	ta, tb     bool
	keepInside bool // hold the product and the intermediate results too
}

// epilogueChain computes the case on e: p = op(a)·op(b), y = p + bias,
// z = gelu(y), r = z + resid, each result read back (nil for those not
// held when the ops are dispatched).
func epilogueChain(t *testing.T, e *tensor.Engine, c epilogueCase, av, bv, bias, resid []float32) (p, y, z, r []float32) {
	t.Helper()
	as, bs := []int{c.M, c.K}, []int{c.K, c.N}
	if c.ta {
		as = []int{c.K, c.M}
	}
	if c.tb {
		bs = []int{c.N, c.K}
	}
	as = append(append([]int{}, c.batch...), as...)
	out := append(append([]int{}, c.batch...), c.M, c.N)
	a, b := e.FromFloat32s(av, as...), e.FromFloat32s(bv, bs...)
	bt, rt := e.FromFloat32s(bias, c.N), e.FromFloat32s(resid, out...)
	defer func() {
		for _, x := range []*tensor.Tensor{a, b, bt, rt} {
			x.Dispose()
		}
	}()
	pt := e.MatMulT(a, b, c.ta, c.tb)
	yt := e.Add(pt, bt)
	zt := e.Gelu(yt)
	res := e.Add(zt, rt)
	defer res.Dispose()
	if !c.keepInside {
		pt.Dispose()
		yt.Dispose()
		zt.Dispose()
		return nil, nil, nil, f32s(t, res)
	}
	defer pt.Dispose()
	defer yt.Dispose()
	defer zt.Dispose()
	return f32s(t, pt), f32s(t, yt), f32s(t, zt), f32s(t, res)
}

// A product's epilogue (bias, GELU, residual) in the product's kernel
// gives the bits of the ops dispatched one by one, with every kernel, at
// edge shapes (one element, odd sizes, one tile, past a tile, an empty
// inner dimension, batches) and edge values (NaN, ±Inf, -0, subnormals,
// overflow), whether the intermediate results are held or not; and its
// results are those of a float64 reference. The GELU joins the epilogue
// as it does on GPUs (AnyEpilogue), and as the CPU adapters' rule keeps it
// apart.
func TestMatMulEpilogueIsTheUnfusedOps(t *testing.T) {
	cases := []epilogueCase{
		{M: 1, K: 1, N: 1}, {M: 3, K: 5, N: 7}, {M: 3, K: 0, N: 5}, {M: 64, K: 16, N: 64},
		{M: 65, K: 33, N: 130, ta: true}, {M: 130, K: 20, N: 68, tb: true}, {M: 128, K: 64, N: 132},
		{batch: []int{2, 3}, M: 5, K: 3, N: 9}, {batch: []int{2}, M: 33, K: 12, N: 8, ta: true, tb: true},
	}
	for _, kernel := range []string{"tiled", "register", "vec4", "small"} {
		t.Run(kernel, func(t *testing.T) {
			t.Setenv("WGT_MATMUL", kernel)
			e, gpuLike := testgpu.Engine(t), testgpu.Engine(t)
			tensor.AnyEpilogue(gpuLike)
			rng := rand.New(rand.NewPCG(21, uint64(len(kernel))))
			for i, c := range cases {
				c.keepInside = i%2 == 0
				t.Run(fmt.Sprintf("%v%dx%dx%d/ta=%v/tb=%v/held=%v", c.batch, c.M, c.K, c.N, c.ta, c.tb, c.keepInside), func(t *testing.T) {
					checkEpilogue(t, gpuLike, c, rng)
					checkEpilogue(t, e, c, rng)
				})
			}
		})
	}
}

func checkEpilogue(t *testing.T, e *tensor.Engine, c epilogueCase, rng *rand.Rand) {
	batches := size(c.batch)
	av := randF32(rng, batches*c.M*c.K, -1, 1)
	bv := randF32(rng, c.K*c.N, -1, 1)
	bias := randF32(rng, c.N, -1, 1)
	resid := randF32(rng, batches*c.M*c.N, -1, 1)
	edges := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)),
		math.Float32frombits(1), -math.Float32frombits(0x007fffff), math.MaxFloat32, 1e30}
	plant := func(x []float32, n int) {
		for i := 0; i < n && len(x) > 0; i++ {
			x[rng.IntN(len(x))] = edges[rng.IntN(len(edges))]
		}
	}
	plant(av, 2)
	plant(bias, 2)
	plant(resid, 3)

	p, y, z, r := epilogueChain(t, e, c, av, bv, bias, resid)
	require.NoError(t, e.SetFusion(false))
	defer func() { require.NoError(t, e.SetFusion(true)) }()
	up, uy, uz, ur := epilogueChain(t, e, c, av, bv, bias, resid)
	for _, pair := range []struct {
		name      string
		got, want []float32
	}{{"product", p, up}, {"bias", y, uy}, {"gelu", z, uz}, {"residual", r, ur}} {
		require.Len(t, pair.got, len(pair.want), pair.name)
		for i := range pair.want {
			g, w := pair.got[i], pair.want[i]
			if g != g && w != w {
				continue
			}
			if math.Float32bits(g) != math.Float32bits(w) {
				t.Fatalf("%s, element %d: fused %v (%#x), unfused %v (%#x)", pair.name, i, g, math.Float32bits(g), w, math.Float32bits(w))
			}
		}
	}

	// Against float64, where the product's row of A and column of B hold
	// no planted value (those are compared bit for bit above: float32
	// overflows where float64 does not).
	planted := func(v float32) bool { return !(math.Abs(float64(v)) <= 1) }
	rowPlanted := make([]bool, batches*c.M)
	for z := range batches {
		for m := range c.M {
			for k := range c.K {
				i := z*c.M*c.K + m*c.K + k
				if c.ta {
					i = z*c.M*c.K + k*c.M + m
				}
				rowPlanted[z*c.M+m] = rowPlanted[z*c.M+m] || planted(av[i])
			}
		}
	}
	colPlanted := make([]bool, c.N)
	for n := range c.N {
		for k := range c.K {
			i := k*c.N + n
			if c.tb {
				i = n*c.K + k
			}
			colPlanted[n] = colPlanted[n] || planted(bv[i])
		}
	}
	as, bs := []int{c.M, c.K}, []int{c.K, c.N}
	if c.ta {
		as = []int{c.K, c.M}
	}
	if c.tb {
		bs = []int{c.N, c.K}
	}
	prod, _ := refMatMul(av, append(append([]int{}, c.batch...), as...), bv, bs, c.ta, c.tb)
	want := make([]float32, len(prod))
	for i, v := range prod {
		x := float64(v) + float64(bias[i%c.N])
		g := 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
		switch {
		case math.IsInf(x, 1):
			g = x
		case math.IsInf(x, -1):
			g = math.NaN() // as in PyTorch: -Inf · 0
		}
		want[i] = float32(g + float64(resid[i]))
	}
	for i := range want {
		if rowPlanted[i/c.N] || colPlanted[i%c.N] || math.IsNaN(float64(want[i])) || math.Abs(float64(want[i])) > 1e20 {
			want[i], r[i] = 0, 0
		}
	}
	closeTo(t, want, r, 1e-4, 1e-4, "against float64")
}

// The ops after a product that run in its kernel are not dispatches of
// their own: a Linear layer's projection, bias and GELU take one, and so
// does the residual after the next projection. A CPU adapter keeps the
// GELU apart (see Engine.MatMul).
func TestMatMulEpilogueDispatches(t *testing.T) {
	for _, anyOp := range []bool{false, true} {
		e := testgpu.Engine(t)
		want := []string{"matmul+add+gelu", "matmul+add+add"}
		if anyOp {
			tensor.AnyEpilogue(e)
		} else if e.Device().Info().Type == wgpu.AdapterCPU {
			want = []string{"matmul+add", "gelu", "matmul+add+add"}
		}
		checkEpilogueDispatches(t, e, want)
	}
}

func checkEpilogueDispatches(t *testing.T, e *tensor.Engine, want []string) {
	x := e.FromFloat32s(randF32(rand.New(rand.NewPCG(1, 2)), 8*16, -1, 1), 8, 16)
	w1, b1 := e.Fill(tensor.Float32, 0.5, 16, 32), e.Fill(tensor.Float32, 0.25, 32)
	w2, b2 := e.Fill(tensor.Float32, 0.125, 32, 16), e.Fill(tensor.Float32, -1, 16)
	defer func() {
		for _, t := range []*tensor.Tensor{x, w1, b1, w2, b2} {
			t.Dispose()
		}
	}()
	var held []*tensor.Tensor
	keep := func(t *tensor.Tensor) *tensor.Tensor { held = append(held, t); return t }
	p, err := e.Profile(ctxT(t), func() error {
		h := keep(e.Gelu(keep(e.Add(keep(e.MatMul(x, w1)), b1))))
		keep(e.Add(x, keep(e.Add(keep(e.MatMul(h, w2)), b2))))
		return e.Flush()
	})
	require.NoError(t, err)
	for _, t := range held {
		t.Dispose()
	}
	var kernels []string
	for _, d := range p.Dispatches {
		kernels = append(kernels, d.Kernel)
	}
	assert.Equal(t, want, kernels)
}

// A product whose inner dimension is summed in several dispatches keeps
// its ops apart and gives the same bits; so does one whose operands are
// disposed, or overwritten in place, before it is dispatched; and a
// product nobody holds or reads is never computed.
func TestMatMulEpilogueEdges(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 5))

	t.Run("long K", func(t *testing.T) {
		const K = 40000
		a, b := e.FromFloat32s(randF32(rng, 2*K, -1, 1), 2, K), e.FromFloat32s(randF32(rng, K*3, -1, 1), K, 3)
		bias := e.Fill(tensor.Float32, 2, 3)
		defer func() { a.Dispose(); b.Dispose(); bias.Dispose() }()
		p := e.MatMul(a, b)
		sum := e.Add(p, bias)
		defer sum.Dispose()
		y := e.Relu(sum)
		got := f32s(t, y)
		want := f32s(t, p)
		for i := range want {
			want[i] = float32(math.Max(float64(want[i]+2), 0))
		}
		assert.Equal(t, want, got)
		p.Dispose()
		y.Dispose()
	})

	t.Run("operands released and overwritten", func(t *testing.T) {
		av, bv := randF32(rng, 6*4, -1, 1), randF32(rng, 4*5, -1, 1)
		a, b := e.FromFloat32s(av, 6, 4), e.FromFloat32s(bv, 4, 5)
		p := e.MatMul(a, b)
		y := e.Neg(p)
		a.Dispose() // the pending product holds its operands
		zero := e.Zeros(tensor.Float32, 4, 5)
		require.NoError(t, e.Assign(b, zero))
		zero.Dispose()
		b.Dispose()
		want, _ := refMatMul(av, []int{6, 4}, bv, []int{4, 5}, false, false)
		got := f32s(t, y)
		for i := range want {
			assert.InDelta(t, -want[i], got[i], 1e-5)
		}
		p.Dispose()
		y.Dispose()
	})

	t.Run("never needed", func(t *testing.T) {
		a, b := e.Ones(tensor.Float32, 8, 8), e.Ones(tensor.Float32, 8, 8)
		defer func() { a.Dispose(); b.Dispose() }()
		prof, err := e.Profile(ctx, func() error {
			p := e.MatMul(a, b)
			y := e.Neg(p)
			p.Dispose()
			y.Dispose()
			return e.Flush()
		})
		require.NoError(t, err)
		assert.Empty(t, prof.Dispatches)
	})
}

// The sum over a tensor's leading dimensions that comes before a product
// reading the tensor as its K×N operand (a bias's gradient before its
// weight's) is computed by the product's kernel: one dispatch, the
// product's bits unchanged, the sums within (K-1)·2⁻²⁴·Σ|x| of float64's,
// with every kernel, at edge shapes, both operand sides, and NaN, ±Inf, -0
// and subnormals in the summed tensor.
func TestMatMulComputesTheBiasGradient(t *testing.T) {
	cases := []struct{ K, N, M int }{{1, 1, 2}, {3, 5, 7}, {64, 8, 64}, {65, 68, 129}, {300, 130, 3}, {16, 4, 4}}
	for _, kernel := range []string{"tiled", "register", "vec4", "small"} {
		t.Run(kernel, func(t *testing.T) {
			t.Setenv("WGT_MATMUL", kernel)
			e := testgpu.Engine(t)
			rng := rand.New(rand.NewPCG(8, uint64(len(kernel))))
			for _, c := range cases {
				for _, sideA := range []bool{false, true} {
					t.Run(fmt.Sprintf("K%d/N%d/M%d/A=%v", c.K, c.N, c.M, sideA), func(t *testing.T) {
						checkBiasGradient(t, e, rng, c.K, c.N, c.M, sideA)
					})
				}
			}
		})
	}
}

func checkBiasGradient(t *testing.T, e *tensor.Engine, rng *rand.Rand, K, N, M int, sideA bool) {
	dyv, hv := randF32(rng, K*N, -1, 1), randF32(rng, K*M, -1, 1)
	edges := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Copysign(0, -1)), math.Float32frombits(3)}
	for range 2 {
		dyv[rng.IntN(len(dyv))] = edges[rng.IntN(len(edges))]
	}
	dy, h := e.FromFloat32s(dyv, K, N), e.FromFloat32s(hv, K, M)
	defer dy.Dispose()
	defer h.Dispose()
	product := func() *tensor.Tensor {
		if sideA {
			return e.MatMulT(dy, h, true, false) // [N, M]: a Linear's dW, its weight [out, in]
		}
		return e.MatMulT(h, dy, true, false) // [M, N]: dW of x·W
	}
	var s, w *tensor.Tensor
	prof, err := e.Profile(ctxT(t), func() error {
		s = e.Sum(dy, false, 0)
		w = product()
		return e.Flush()
	})
	require.NoError(t, err)
	defer s.Dispose()
	defer w.Dispose()
	require.Len(t, prof.Dispatches, 1, "the sum runs in the product's kernel")
	assert.Contains(t, prof.Dispatches[0].Key, map[bool]string{true: "/sum_a", false: "/sum_b"}[sideA])
	got, gotW := f32s(t, s), f32s(t, w)

	require.NoError(t, e.SetFusion(false))
	apart, apartW := e.Sum(dy, false, 0), product()
	require.NoError(t, e.SetFusion(true))
	defer apart.Dispose()
	defer apartW.Dispose()
	want, wantW := f32s(t, apart), f32s(t, apartW)
	for i := range wantW {
		if wantW[i] == wantW[i] || gotW[i] == gotW[i] {
			require.Equal(t, math.Float32bits(wantW[i]), math.Float32bits(gotW[i]), "product element %d", i)
		}
	}
	for n := range N {
		var exact, abs float64
		for k := range K {
			v := float64(dyv[k*N+n])
			exact += v
			abs += math.Abs(v)
		}
		g := float64(got[n])
		switch {
		case math.IsNaN(exact):
			assert.True(t, math.IsNaN(g), "column %d: %v, want NaN", n, g)
		case math.IsInf(exact, 0):
			assert.Equal(t, exact, g, "column %d", n)
		default:
			bound := float64(max(K-1, 0))*math.Ldexp(abs, -24) + 1e-45
			assert.InDelta(t, exact, g, bound, "column %d against float64", n)
			assert.InDelta(t, float64(want[n]), g, 2*bound, "column %d against Sum's own kernel", n)
		}
	}
}

// A pending sum is dispatched on its own when something needs it before a
// product comes, when the product does not read the summed tensor, or is
// disposed unread; disposed, it is not computed.
func TestPendingSumEdges(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rand.New(rand.NewPCG(9, 9))
	dyv := randF32(rng, 6*4, -1, 1)
	dy, h := e.FromFloat32s(dyv, 6, 4), e.FromFloat32s(randF32(rng, 6*3, -1, 1), 6, 3)
	defer dy.Dispose()
	defer h.Dispose()
	want := make([]float32, 4)
	for k := range 6 {
		for n := range 4 {
			want[n] += dyv[k*4+n]
		}
	}
	kernels := func(f func() error) []string {
		p, err := e.Profile(ctxT(t), f)
		require.NoError(t, err)
		var ks []string
		for _, d := range p.Dispatches {
			ks = append(ks, d.Kernel)
		}
		return ks
	}
	var s, w *tensor.Tensor
	assert.Equal(t, []string{"sum", "matmul"}, kernels(func() error {
		s = e.Sum(dy, false, 0)
		w = e.MatMulT(h, h, true, false) // another operand
		return e.Flush()
	}))
	closeTo(t, want, f32s(t, s), 1e-6, 1e-6, "sum apart")
	s.Dispose()
	w.Dispose()
	assert.Equal(t, []string{"matmul"}, kernels(func() error {
		s = e.Sum(dy, false, 0)
		w = e.MatMulT(h, dy, true, false)
		w.Dispose() // the product's result is not needed: only its sums
		return e.Flush()
	}))
	closeTo(t, want, f32s(t, s), 1e-6, 1e-6, "sums without the product")
	s.Dispose()
	assert.Empty(t, kernels(func() error {
		s = e.Sum(dy, false, 0)
		s.Dispose()
		return e.Flush()
	}))
}
