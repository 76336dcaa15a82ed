package tensor_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// convCase is a convolution's geometry: input [n, h, w, c], filter
// [kh, kw, c/groups, outC], options.
type convCase struct {
	name                  string
	n, h, w, c, kh, kw, o int
	opts                  tensor.Conv2DOptions
}

func (c convCase) xShape() []int { return []int{c.n, c.h, c.w, c.c} }
func (c convCase) fShape() []int {
	return []int{c.kh, c.kw, c.c / max(c.opts.Groups, 1), c.o}
}

// convRef is a plain-Go (float64) convolution of one geometry: its window
// and, for each of the three products, the value and the sum of the
// absolute values of its terms (for a tolerance).
type convRef struct {
	convCase
	win    tensor.Window2D
	groups int
}

func newConvRef(t testing.TB, c convCase) convRef {
	win, err := tensor.NewWindow2D(c.h, c.w, c.kh, c.kw, c.opts.Stride, c.opts.Dilation, c.opts.Padding)
	require.NoError(t, err)
	return convRef{convCase: c, win: win, groups: max(c.opts.Groups, 1)}
}

func (r convRef) yShape() []int { return []int{r.n, r.win.OutH, r.win.OutW, r.o} }

// each calls f for every term of the forward sum: output element yi,
// input element xi (-1 in the padding) and filter element fi.
func (r convRef) each(f func(yi, xi, fi int)) {
	w, gin, gout := r.win, r.c/r.groups, r.o/r.groups
	for n := range r.n {
		for oy := range w.OutH {
			for ox := range w.OutW {
				for o := range r.o {
					yi := ((n*w.OutH+oy)*w.OutW+ox)*r.o + o
					g := o / gout
					for ky := range r.kh {
						for kx := range r.kw {
							iy := oy*w.StrideH + ky*w.DilationH - w.PadTop
							ix := ox*w.StrideW + kx*w.DilationW - w.PadLeft
							for i := range gin {
								fi := ((ky*r.kw+kx)*gin+i)*r.o + o
								xi := -1
								if iy >= 0 && iy < r.h && ix >= 0 && ix < r.w {
									xi = ((n*r.h+iy)*r.w+ix)*r.c + g*gin + i
								}
								f(yi, xi, fi)
							}
						}
					}
				}
			}
		}
	}
}

// forward, input and filter are the three products: y from x and f, dx
// from dy and f (padded terms add nothing), df from x and dy (padded x
// reads as 0). Each returns the values and the absolute sums.
func (r convRef) forward(x, f []float32) ([]float64, []float64) {
	y, abs := make([]float64, size(r.yShape())), make([]float64, size(r.yShape()))
	r.each(func(yi, xi, fi int) {
		v := 0.0
		if xi >= 0 {
			v = float64(x[xi])
		}
		y[yi] += v * float64(f[fi])
		abs[yi] += math.Abs(v * float64(f[fi]))
	})
	return y, abs
}

func (r convRef) input(dy, f []float32) ([]float64, []float64) {
	dx, abs := make([]float64, size(r.xShape())), make([]float64, size(r.xShape()))
	r.each(func(yi, xi, fi int) {
		if xi >= 0 {
			dx[xi] += float64(dy[yi]) * float64(f[fi])
			abs[xi] += math.Abs(float64(dy[yi]) * float64(f[fi]))
		}
	})
	return dx, abs
}

func (r convRef) filter(x, dy []float32) ([]float64, []float64) {
	df, abs := make([]float64, size(r.fShape())), make([]float64, size(r.fShape()))
	r.each(func(yi, xi, fi int) {
		v := 0.0
		if xi >= 0 {
			v = float64(x[xi])
		}
		df[fi] += v * float64(dy[yi])
		abs[fi] += math.Abs(v * float64(dy[yi]))
	})
	return df, abs
}

// near checks got against the float64 reference want: within a float32
// sum's rounding of the terms' absolute sum abs; NaNs and infinities must
// match.
func near(t testing.TB, want, abs []float64, got []float32, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	bad := 0
	for i, w := range want {
		g := float64(got[i])
		ok := g == w || math.IsNaN(g) && math.IsNaN(w) || math.Abs(g-w) <= 1e-5*abs[i]+1e-30
		if !ok {
			if bad < 5 {
				t.Errorf("%s: element %d: got %v, want %v", what, i, g, w)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements out of tolerance", what, bad, len(want))
	}
}

func convCases() []convCase {
	o := func(stride, dilation [2]int, pad tensor.Padding, groups int) tensor.Conv2DOptions {
		return tensor.Conv2DOptions{Stride: stride, Dilation: dilation, Padding: pad, Groups: groups}
	}
	one := [2]int{1, 1}
	return []convCase{
		{"3x3 valid", 1, 5, 5, 1, 3, 3, 1, tensor.Conv2DOptions{}},
		{"odd sizes stride 2x1 same", 2, 7, 6, 3, 3, 2, 5, o([2]int{2, 1}, one, tensor.Same(), 1)},
		{"vec4 stride 2 same", 2, 9, 8, 4, 3, 3, 8, o([2]int{2, 2}, one, tensor.Same(), 1)},
		{"stride 3 dilation 2x1 explicit", 1, 11, 10, 6, 3, 3, 4, o([2]int{3, 3}, [2]int{2, 1}, tensor.Explicit(1, 2, 0, 1), 1)},
		{"two groups", 2, 6, 7, 4, 3, 3, 6, o(one, one, tensor.Same(), 2)},
		{"two groups vec4", 1, 6, 5, 8, 3, 3, 8, o(one, one, tensor.Valid(), 2)},
		{"depthwise", 1, 8, 8, 5, 3, 3, 5, o(one, one, tensor.Same(), 5)},
		{"depthwise multiplier 2 stride 2", 2, 7, 9, 3, 3, 3, 6, o([2]int{2, 2}, one, tensor.Same(), 3)},
		{"1x1", 3, 4, 5, 8, 1, 1, 12, tensor.Conv2DOptions{}},
		{"1x1 stride 2", 1, 5, 5, 3, 1, 1, 2, o([2]int{2, 2}, one, tensor.Valid(), 1)},
		{"empty batch", 0, 5, 5, 3, 3, 3, 2, o(one, one, tensor.Same(), 1)},
		{"no input channels", 1, 3, 3, 0, 2, 2, 4, tensor.Conv2DOptions{}},
		{"non-square window", 1, 9, 7, 2, 1, 4, 3, o([2]int{1, 2}, [2]int{2, 1}, tensor.Same(), 1)},
		{"dilation 2 stride 2 same", 2, 10, 9, 4, 3, 3, 4, o([2]int{2, 2}, [2]int{2, 2}, tensor.Same(), 1)},
		{"window larger than the input", 1, 2, 3, 2, 4, 4, 3, o(one, one, tensor.Explicit(2, 1, 1, 2), 1)},
		{"several tiles vec4", 2, 20, 17, 16, 3, 3, 36, o(one, one, tensor.Same(), 1)},
		{"several tiles scalar", 1, 18, 16, 3, 3, 3, 70, o([2]int{1, 1}, one, tensor.Same(), 1)},
		// Filter gradients of long sums, split in slices of k (and, with a
		// small work budget, in k ranges within each slice).
		{"long filter sum one channel", 3, 28, 28, 1, 3, 3, 16, o(one, one, tensor.Same(), 1)},
		{"long filter sum two groups vec4", 2, 24, 23, 8, 3, 3, 8, o(one, one, tensor.Same(), 2)},
		// The scalar kernel reading B by vec4s: groups of 8 output channels
		// (a 16-column tile, its second thread past N).
		{"b4 two groups stride 2", 2, 9, 8, 6, 3, 3, 16, o([2]int{2, 1}, one, tensor.Same(), 2)},
		// The CPU kernels (kernels.Conv2D.CPU), each just past its tiles:
		// the Vec4 kernel's 192 rows and 32 columns (16 for 16 columns or
		// fewer, Narrow; 20 input channels are the input gradient's
		// columns), its filter gradient's 48 rows (96 Narrow); the
		// scalar kernel's 128 rows, in groups of 16 output channels (two
		// tiles across here); and the scalar filter gradient's 9 rows and
		// 16 columns per thread, eight slices of k (times groups) a
		// workgroup, its last workgroup partly past them (9 and 18). Then
		// a single pixel and an empty batch.
		{"cpu vec4 past a tile", 1, 15, 13, 20, 3, 3, 36, o(one, one, tensor.Same(), 1)},
		{"cpu vec4 past a tile stride 2", 1, 31, 25, 20, 3, 3, 36, o([2]int{2, 2}, one, tensor.Same(), 1)},
		{"cpu vec4 narrow odd", 1, 13, 15, 4, 3, 3, 12, o(one, one, tensor.Same(), 1)},
		{"cpu scalar past a tile", 1, 12, 11, 3, 3, 3, 32, o(one, one, tensor.Same(), 1)},
		{"cpu filter lanes", 5, 30, 30, 2, 3, 3, 32, o(one, one, tensor.Same(), 1)},
		{"cpu filter lanes two groups stride 1x2", 5, 30, 59, 4, 3, 3, 32, o([2]int{1, 2}, one, tensor.Same(), 2)},
		{"cpu one pixel vec4", 1, 1, 1, 4, 1, 1, 16, tensor.Conv2DOptions{}},
		{"cpu one pixel scalar", 1, 1, 1, 1, 1, 1, 16, tensor.Conv2DOptions{}},
		{"cpu empty batch", 0, 5, 5, 4, 3, 3, 16, o(one, one, tensor.Same(), 1)},
	}
}

// convKernels are the choices of kernels WGT_CONV forces (see
// tensor.Engine.Conv2D's kernels): the scalar kernel where the Vec4 one
// fits, and the tile shapes of CPU adapters or of GPUs whatever the
// adapter.
var convKernels = []string{"default", "scalar", "cpu", "scalar,cpu", "gpu", "scalar,gpu"}

// Conv2D and both its gradients match the plain-Go reference over
// strides, paddings, dilations, groups and odd sizes, with each kernel.
func TestConv2DMatchesReference(t *testing.T) {
	for _, kernel := range convKernels {
		t.Run(kernel, func(t *testing.T) {
			if kernel != "default" {
				t.Setenv("WGT_CONV", kernel)
			}
			e := testgpu.Engine(t)
			r := rand.New(rand.NewPCG(1, 2))
			for _, c := range convCases() {
				checkConv(t, e, r, c)
			}
		})
	}
}

// checkConv runs the three products of case c on random values and
// compares them with the reference.
func checkConv(t *testing.T, e *tensor.Engine, r *rand.Rand, c convCase) {
	t.Helper()
	ref := newConvRef(t, c)
	xv := randF32(r, size(c.xShape()), -1, 1)
	fv := randF32(r, size(c.fShape()), -1, 1)
	dyv := randF32(r, size(ref.yShape()), -1, 1)
	x, f, dy := e.FromFloat32s(xv, c.xShape()...), e.FromFloat32s(fv, c.fShape()...), e.FromFloat32s(dyv, ref.yShape()...)
	defer x.Dispose()
	defer f.Dispose()
	defer dy.Dispose()
	checkProduct(t, e.Conv2D(x, f, c.opts), ref.yShape(), c.name+": conv2d", func() ([]float64, []float64) { return ref.forward(xv, fv) })
	checkProduct(t, e.Conv2DBackpropInput(dy, f, c.xShape(), c.opts), c.xShape(), c.name+": input gradient", func() ([]float64, []float64) { return ref.input(dyv, fv) })
	checkProduct(t, e.Conv2DBackpropFilter(x, dy, c.fShape(), c.opts), c.fShape(), c.name+": filter gradient", func() ([]float64, []float64) { return ref.filter(xv, dyv) })
}

func checkProduct(t *testing.T, got *tensor.Tensor, shape []int, what string, ref func() ([]float64, []float64)) {
	t.Helper()
	defer got.Dispose()
	require.NoError(t, got.Err(), what)
	assert.Equal(t, tensor.Shape(shape), got.Shape(), what)
	want, abs := ref()
	near(t, want, abs, f32s(t, got), what)
}

// Every kernel gives the same bits (the scalar and Vec4 kernels, the CPU
// and GPU tiles), a filter gradient summed in slices of k included: of
// channels the Vec4 kernel takes, and of channels only the scalar one
// does, in groups of 16 output channels and slices enough for the CPU
// filter gradient's workgroups of eight.
func TestConv2DKernelsAgree(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []convCase{
		{"sliced", 2, 24, 23, 8, 3, 3, 16, tensor.Conv2DOptions{Padding: tensor.Same(), Groups: 2}},
		{"sliced scalar", 4, 32, 33, 2, 3, 3, 32, tensor.Conv2DOptions{Padding: tensor.Same()}},
	} {
		ref := newConvRef(t, c)
		xv, fv := randF32(r, size(c.xShape()), -1, 1), randF32(r, size(c.fShape()), -1, 1)
		dyv := randF32(r, size(ref.yShape()), -1, 1)
		x, f, dy := e.FromFloat32s(xv, c.xShape()...), e.FromFloat32s(fv, c.fShape()...), e.FromFloat32s(dyv, ref.yShape()...)
		products := func() [][]float32 {
			var got [][]float32
			for _, y := range []*tensor.Tensor{e.Conv2D(x, f, c.opts), e.Conv2DBackpropInput(dy, f, c.xShape(), c.opts), e.Conv2DBackpropFilter(x, dy, c.fShape(), c.opts)} {
				got = append(got, f32s(t, y))
				y.Dispose()
			}
			return got
		}
		want := products()
		for _, kernel := range convKernels[1:] {
			t.Setenv("WGT_CONV", kernel)
			assert.Equal(t, want, products(), "%s: %s", c.name, kernel)
		}
		t.Setenv("WGT_CONV", "")
		tidy.Dispose([]*tensor.Tensor{x, f, dy})
	}
}

// NaN and infinities in the input, the filter and dy propagate as in a
// sum of products: to exactly the outputs whose windows read them (the
// reference says which; a padded position is a term 0·w of the forward
// sum, and no term of the input's gradient), and through both gradients.
func TestConv2DEdgeValues(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []convCase{
		{"scalar", 1, 7, 6, 3, 3, 3, 2, tensor.Conv2DOptions{Padding: tensor.Same()}},
		{"vec4", 1, 7, 6, 4, 3, 3, 4, tensor.Conv2DOptions{Padding: tensor.Same(), Stride: [2]int{2, 1}}},
	} {
		ref := newConvRef(t, c)
		xv := randF32(r, size(c.xShape()), 0.5, 1)
		fv := randF32(r, size(c.fShape()), 0.5, 1)
		dyv := randF32(r, size(ref.yShape()), 0.5, 1)
		xv[5] = float32(math.NaN())
		xv[len(xv)/2] = float32(math.Inf(1))
		xv[len(xv)-1] = float32(math.Inf(-1))
		fv[2] = float32(math.Inf(1)) // facing the padding too: 0·Inf in the forward sum, nothing in dx
		dyv[1] = float32(math.Inf(1))
		dyv[len(dyv)-2] = float32(math.NaN())
		x, f, dy := e.FromFloat32s(xv, c.xShape()...), e.FromFloat32s(fv, c.fShape()...), e.FromFloat32s(dyv, ref.yShape()...)
		checkProduct(t, e.Conv2D(x, f, c.opts), ref.yShape(), c.name+": conv2d", func() ([]float64, []float64) { return ref.forward(xv, fv) })
		checkProduct(t, e.Conv2DBackpropInput(dy, f, c.xShape(), c.opts), c.xShape(), c.name+": input gradient", func() ([]float64, []float64) { return ref.input(dyv, fv) })
		checkProduct(t, e.Conv2DBackpropFilter(x, dy, c.fShape(), c.opts), c.fShape(), c.name+": filter gradient", func() ([]float64, []float64) { return ref.filter(xv, dyv) })
		x.Dispose()
		f.Dispose()
		dy.Dispose()
	}
}

// modValues returns n values k mod m: products of two such values and
// their sums stay exact in float32 for the sizes used here.
func modValues(n, m int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i % m)
	}
	return v
}

// Sums longer than a WGSL loop may run (65,535 trips on lavapipe) are
// exact: the forward product's K (many input channels, with each kernel),
// the filter gradient's (many output pixels) and the input gradient's
// (many output channels), each on a GPU's budget (one dispatch per k
// range) and a CPU's.
func TestConv2DLongSums(t *testing.T) {
	const K = 70004
	for _, budget := range []wgpu.Work{0, wgpu.GPUWorkBudget} {
		t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
			opts := testgpu.DefaultOptions()
			opts.WorkBudget = budget
			e := testgpu.EngineOn(t, testgpu.OpenWith(t, opts))
			a, b := modValues(K*16, 5), modValues(K*16, 3)
			forward := func(x, f *tensor.Tensor) *tensor.Tensor { return e.Conv2D(x, f, tensor.Conv2DOptions{}) }
			// Each case's operands are a[:size(xs)] and b[:size(ys)],
			// a[i] = i mod 5, b[i] = i mod 3; term(k, j) is the k-th term
			// of output j.
			byRow := func(out int) func(k, j int) int { return func(k, j int) int { return (k % 5) * ((k*out + j) % 3) } }
			for _, c := range []struct {
				name   string
				run    func(x, y *tensor.Tensor) *tensor.Tensor
				xs, ys []int
				want   []int
				term   func(k, j int) int
				scalar bool
			}{
				{"forward vec4", forward, []int{1, 1, 1, K}, []int{1, 1, K, 4}, []int{1, 1, 1, 4}, byRow(4), false},
				{"forward scalar", forward, []int{1, 1, 1, K}, []int{1, 1, K, 4}, []int{1, 1, 1, 4}, byRow(4), true},
				{"forward scalar 16 channels", forward, []int{1, 1, 1, K}, []int{1, 1, K, 16}, []int{1, 1, 1, 16}, byRow(16), true},
				{"filter gradient", func(x, dy *tensor.Tensor) *tensor.Tensor {
					return e.Conv2DBackpropFilter(x, dy, tensor.Shape{1, 1, 1, 1}, tensor.Conv2DOptions{})
				}, []int{1, 1, K, 1}, []int{1, 1, K, 1}, []int{1, 1, 1, 1}, byRow(1), false},
				{"filter gradient 16 channels", func(x, dy *tensor.Tensor) *tensor.Tensor {
					return e.Conv2DBackpropFilter(x, dy, tensor.Shape{1, 1, 1, 16}, tensor.Conv2DOptions{})
				}, []int{1, 1, K, 1}, []int{1, 1, K, 16}, []int{1, 1, 1, 16}, func(k, j int) int { return (k % 5) * ((k*16 + j) % 3) }, false},
				{"filter gradient vec4", func(x, dy *tensor.Tensor) *tensor.Tensor {
					return e.Conv2DBackpropFilter(x, dy, tensor.Shape{1, 1, 4, 4}, tensor.Conv2DOptions{})
				}, []int{1, 1, K, 4}, []int{1, 1, K, 4}, []int{1, 1, 4, 4}, func(k, j int) int { return ((k*4 + j/4) % 5) * ((k*4 + j%4) % 3) }, false},
				{"input gradient", func(dy, f *tensor.Tensor) *tensor.Tensor {
					return e.Conv2DBackpropInput(dy, f, tensor.Shape{1, 1, 1, 1}, tensor.Conv2DOptions{})
				}, []int{1, 1, 1, K}, []int{1, 1, 1, K}, []int{1, 1, 1, 1}, byRow(1), false},
				{"input gradient vec4", func(dy, f *tensor.Tensor) *tensor.Tensor {
					return e.Conv2DBackpropInput(dy, f, tensor.Shape{1, 1, 1, 4}, tensor.Conv2DOptions{})
				}, []int{1, 1, 1, K}, []int{1, 1, 4, K}, []int{1, 1, 1, 4}, func(k, j int) int { return (k % 5) * ((j*K + k) % 3) }, false},
			} {
				if c.scalar {
					t.Setenv("WGT_CONV", "scalar")
				}
				x, y := e.FromFloat32s(a[:size(c.xs)], c.xs...), e.FromFloat32s(b[:size(c.ys)], c.ys...)
				got := c.run(x, y)
				out := size(c.want)
				want := make([]float32, out)
				for k := range K {
					for j := range out {
						want[j] += float32(c.term(k, j))
					}
				}
				assert.Equal(t, want, f32s(t, got), c.name)
				got.Dispose()
				x.Dispose()
				y.Dispose()
				t.Setenv("WGT_CONV", "")
			}
		})
	}
}

// A convolution split by a small work budget gives the results of one
// dispatch, and no submission passes the budget.
func TestConv2DSplitsByWorkBudget(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.WorkBudget = 20_000
	e := testgpu.EngineOn(t, testgpu.OpenWith(t, opts))
	before := e.Device().Stats()
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []convCase{
		{"vec4", 2, 40, 33, 8, 3, 3, 72, tensor.Conv2DOptions{Padding: tensor.Same()}},
		{"scalar groups", 2, 30, 31, 6, 3, 3, 70, tensor.Conv2DOptions{Padding: tensor.Same(), Groups: 2}},
		// On CPU adapters, the filter gradient's workgroups of eight
		// slices, each slice summed in ranges.
		{"scalar slices", 5, 30, 30, 2, 3, 3, 32, tensor.Conv2DOptions{Padding: tensor.Same()}},
	} {
		checkConv(t, e, r, c)
	}
	checkBounded(t, e, before)
}

// A product of more row tiles than a grid dimension takes (65,535
// workgroups) is cut into several dispatches and computed whole.
func TestConv2DManyRowTiles(t *testing.T) {
	if testing.Short() {
		t.Skip("4 million output pixels")
	}
	e := testgpu.Engine(t)
	const h, w = 2049, 2049 // 4,198,401 pixels: 65,601 tiles of 64 rows
	xv := modValues(h*w, 7)
	x, f := e.FromFloat32s(xv, 1, h, w, 1), e.FromFloat32s([]float32{3}, 1, 1, 1, 1)
	defer x.Dispose()
	defer f.Dispose()
	y := e.Conv2D(x, f, tensor.Conv2DOptions{})
	defer y.Dispose()
	got := f32s(t, y)
	for i, v := range got {
		if v != 3*xv[i] {
			t.Fatalf("pixel %d: got %v, want %v", i, v, 3*xv[i])
		}
	}
}

// Bad shapes and options give an *OpError naming the op and the shapes,
// of the right kind, and allocate nothing.
func TestConv2DErrors(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 1, 5, 5, 4)
	f := e.Zeros(tensor.Float32, 3, 3, 4, 6)
	dy := e.Zeros(tensor.Float32, 1, 3, 3, 6)
	i := e.Zeros(tensor.Int32, 1, 5, 5, 4)
	v := e.Zeros(tensor.Float32, 5, 5, 4)
	dyWide, dyNarrow := e.Zeros(tensor.Float32, 1, 5, 5, 6), e.Zeros(tensor.Float32, 1, 3, 3, 5)
	defer tensorsDispose(x, f, dy, i, v, dyWide, dyNarrow)
	live := e.NumTensors()
	xs, fs := tensor.Shape{1, 5, 5, 4}, tensor.Shape{3, 3, 4, 6}
	none := tensor.Conv2DOptions{}
	for _, c := range []struct {
		name, want string
		kind       error
		run        func() *tensor.Tensor
	}{
		{"rank 3 input", "conv2d [5 5 4] [3 3 4 6]: input must be NHWC", tensor.ErrShape, func() *tensor.Tensor { return e.Conv2D(v, f, none) }},
		{"int32 input", "conv2d [1 5 5 4] [3 3 4 6]: x is int32 and the filter float32", tensor.ErrDType, func() *tensor.Tensor { return e.Conv2D(i, f, none) }},
		{"channels differ", "filter has 4 input channels", tensor.ErrShape, func() *tensor.Tensor { return e.Conv2D(x, f, tensor.Conv2DOptions{Groups: 2}) }},
		{"groups do not divide", "not multiples of 3 groups", tensor.ErrShape, func() *tensor.Tensor { return e.Conv2D(x, f, tensor.Conv2DOptions{Groups: 3}) }},
		{"negative groups", "groups -1 is negative", tensor.ErrArgument, func() *tensor.Tensor { return e.Conv2D(x, f, tensor.Conv2DOptions{Groups: -1}) }},
		{"negative stride", "is negative", tensor.ErrArgument, func() *tensor.Tensor { return e.Conv2D(x, f, tensor.Conv2DOptions{Stride: [2]int{-1, 1}}) }},
		{"negative dilation", "is negative", tensor.ErrArgument, func() *tensor.Tensor { return e.Conv2D(x, f, tensor.Conv2DOptions{Dilation: [2]int{1, -2}}) }},
		{"negative padding", "padding explicit(-1,0,0,0) is negative", tensor.ErrArgument, func() *tensor.Tensor {
			return e.Conv2D(x, f, tensor.Conv2DOptions{Padding: tensor.Explicit(-1, 0, 0, 0)})
		}},
		{"unknown padding", "unknown padding mode 7", tensor.ErrArgument, func() *tensor.Tensor { return e.Conv2D(x, f, tensor.Conv2DOptions{Padding: tensor.Padding{Mode: 7}}) }},
		{"window past the input", "larger than the padded input", tensor.ErrShape, func() *tensor.Tensor {
			return e.Conv2D(x, f, tensor.Conv2DOptions{Dilation: [2]int{3, 3}})
		}},
		{"nil filter", "conv2d", tensor.ErrArgument, func() *tensor.Tensor { return e.Conv2D(x, nil, none) }},
		// Issue 19, item 6: a stride of 2^32 ran as stride 0.
		{"stride past 32 bits", "past 2^31-1", tensor.ErrArgument, func() *tensor.Tensor {
			return e.Conv2D(x, f, tensor.Conv2DOptions{Stride: [2]int{1 << 32, 1}})
		}},
		{"dilation past 32 bits", "past 2^31-1", tensor.ErrArgument, func() *tensor.Tensor {
			return e.Conv2D(x, f, tensor.Conv2DOptions{Dilation: [2]int{1, 1<<32 + 1}, Padding: tensor.Explicit(0, 0, 0, 1<<33)})
		}},
		{"padding past 32 bits", "past 2^31-1", tensor.ErrArgument, func() *tensor.Tensor {
			return e.Conv2D(x, f, tensor.Conv2DOptions{Padding: tensor.Explicit(1<<32, 0, 0, 0)})
		}},
		{"padded span past 31 bits", "past 2^31-1", tensor.ErrArgument, func() *tensor.Tensor {
			return e.Conv2D(x, f, tensor.Conv2DOptions{Stride: [2]int{1 << 30, 1}, Padding: tensor.Explicit(1<<30, 1<<30, 0, 0)})
		}},
		{"groups past 32 bits", "past 2^31-1", tensor.ErrArgument, func() *tensor.Tensor { return e.Conv2D(x, f, tensor.Conv2DOptions{Groups: 1 << 32}) }},
		{"input gradient: stride past 32 bits", "past 2^31-1", tensor.ErrArgument, func() *tensor.Tensor {
			return e.Conv2DBackpropInput(dy, f, xs, tensor.Conv2DOptions{Stride: [2]int{1, 1 << 32}})
		}},
		{"filter gradient: padding past 32 bits", "past 2^31-1", tensor.ErrArgument, func() *tensor.Tensor {
			return e.Conv2DBackpropFilter(x, dy, fs, tensor.Conv2DOptions{Padding: tensor.Explicit(0, 0, 1<<32, 0)})
		}},
		{"input gradient: dy shape", "conv2d_backprop_input [1 5 5 6] [3 3 4 6]: input shape [1 5 5 4]: dy is [1 5 5 6]; the convolution's result is [1 3 3 6]", tensor.ErrShape, func() *tensor.Tensor {
			return e.Conv2DBackpropInput(dyWide, f, xs, none)
		}},
		{"input gradient: bad input shape", "input shape [1 5 5]: input must be NHWC", tensor.ErrShape, func() *tensor.Tensor {
			return e.Conv2DBackpropInput(dy, f, tensor.Shape{1, 5, 5}, none)
		}},
		{"input gradient: int32 dy", "input 0 is int32", tensor.ErrDType, func() *tensor.Tensor { return e.Conv2DBackpropInput(i, f, xs, none) }},
		{"input gradient: negative input shape", "input shape [1 -5 5 4]", tensor.ErrShape, func() *tensor.Tensor {
			return e.Conv2DBackpropInput(dy, f, tensor.Shape{1, -5, 5, 4}, none)
		}},
		{"filter gradient: dy shape", "conv2d_backprop_filter [1 5 5 4] [1 3 3 5]: filter shape [3 3 4 6]: dy is [1 3 3 5]", tensor.ErrShape, func() *tensor.Tensor {
			return e.Conv2DBackpropFilter(x, dyNarrow, fs, none)
		}},
		{"filter gradient: filter shape", "filter has 3 input channels", tensor.ErrShape, func() *tensor.Tensor {
			return e.Conv2DBackpropFilter(x, dy, tensor.Shape{3, 3, 3, 6}, none)
		}},
		{"filter gradient: bad stride", "is negative", tensor.ErrArgument, func() *tensor.Tensor {
			return e.Conv2DBackpropFilter(x, dy, fs, tensor.Conv2DOptions{Stride: [2]int{1, -1}})
		}},
	} {
		got := c.run()
		err := got.Err()
		require.Error(t, err, c.name)
		assert.ErrorIs(t, err, c.kind, c.name)
		var opErr *tensor.OpError
		assert.ErrorAs(t, err, &opErr, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
		got.Dispose()
		assert.Equal(t, live, e.NumTensors(), "%s: tensors left", c.name)
	}
}

func tensorsDispose(ts ...*tensor.Tensor) {
	for _, t := range ts {
		t.Dispose()
	}
}
