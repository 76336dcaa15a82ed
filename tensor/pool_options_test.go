package tensor_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// Issue 20, item 4: the pooling options PyTorch users rely on — ceil_mode,
// count_include_pad and a max pooling's dilation — checked against a
// float64 reference written from PyTorch's definitions (not from the
// kernels), and against PyTorch's own values (testdata/torch_pool.json).

// optGeom is a pooling's geometry as the reference derives it, from the
// options alone: the padding on each side, the output's size by PyTorch's
// rule (pooling_output_shape), and the taps.
type optGeom struct {
	inH, inW, kh, kw, sh, sw, dh, dw int
	top, bottom, left, right         int
	outH, outW                       int
}

// refOut is PyTorch's pooling_output_shape for an input of in padded by
// before and after: floor or, with ceil, ceil of (span - ext)/stride, plus
// one, less a last window that would start in the trailing padding.
func refOut(in, before, after, kernel, stride, dil int, ceil bool) int {
	num := in + before + after - dil*(kernel-1) - 1
	if ceil {
		num += stride - 1
	}
	out := int(math.Floor(float64(num)/float64(stride))) + 1
	if ceil && (out-1)*stride >= in+before {
		out--
	}
	return out
}

func geomOf(t *testing.T, s []int, o tensor.Pool2DOptions) optGeom {
	t.Helper()
	g := optGeom{inH: s[1], inW: s[2], kh: o.Window[0], kw: o.Window[1], sh: o.Stride[0], sw: o.Stride[1], dh: max(o.Dilation[0], 1), dw: max(o.Dilation[1], 1)}
	if g.sh == 0 {
		g.sh = g.kh
	}
	if g.sw == 0 {
		g.sw = g.kw
	}
	switch o.Padding.Mode {
	case tensor.PadExplicit:
		g.top, g.bottom, g.left, g.right = o.Padding.Top, o.Padding.Bottom, o.Padding.Left, o.Padding.Right
	case tensor.PadSame: // TensorFlow's split, as NewWindow2D documents it
		w, err := tensor.NewWindow2D(g.inH, g.inW, g.kh, g.kw, [2]int{g.sh, g.sw}, [2]int{g.dh, g.dw}, o.Padding)
		require.NoError(t, err)
		g.top, g.bottom, g.left, g.right = w.PadTop, w.PadBottom, w.PadLeft, w.PadRight
	}
	g.outH = refOut(g.inH, g.top, g.bottom, g.kh, g.sh, g.dh, o.CeilMode)
	g.outW = refOut(g.inW, g.left, g.right, g.kw, g.sw, g.dw, o.CeilMode)
	return g
}

// refPool pools x (NHWC shape s) by o in float64: the max over the taps
// inside the input (NaN-free inputs; the first maximum wins, its flat
// index in arg) or the average, whose divisor counts the positions inside
// the input, or with CountIncludePad inside the padded input (PyTorch's
// hend = min(hstart + k, H + pad) before clipping). avgGrad spreads dy.
func refPool(g optGeom, s []int, o tensor.Pool2DOptions, x, dy []float32) (mx, avg []float64, arg []int, maxGrad, avgGrad []float64) {
	nb, c := s[0], s[3]
	maxGrad = make([]float64, len(x))
	avgGrad = make([]float64, len(x))
	at := 0
	for n := range nb {
		for oy := range g.outH {
			for ox := range g.outW {
				for ch := range c {
					y0, x0 := oy*g.sh-g.top, ox*g.sw-g.left
					best, bi, sum := math.Inf(-1), -1, 0.0
					var inside []int
					for ky := range g.kh {
						for kx := range g.kw {
							iy, ix := y0+ky*g.dh, x0+kx*g.dw
							if iy < 0 || iy >= g.inH || ix < 0 || ix >= g.inW {
								continue
							}
							i := ((n*g.inH+iy)*g.inW+ix)*c + ch
							v := float64(x[i])
							inside = append(inside, i)
							sum += v
							if bi < 0 || v > best {
								best, bi = v, i
							}
						}
					}
					count := len(inside)
					if o.CountIncludePad {
						hs, he := y0, min(y0+g.kh, g.inH+g.bottom)
						ws, we := x0, min(x0+g.kw, g.inW+g.right)
						count = (he - hs) * (we - ws)
					}
					mx = append(mx, best)
					arg = append(arg, bi)
					avg = append(avg, sum/float64(count))
					maxGrad[bi] += float64(dy[at])
					for _, i := range inside {
						avgGrad[i] += float64(dy[at]) / float64(count)
					}
					at++
				}
			}
		}
	}
	return mx, avg, arg, maxGrad, avgGrad
}

// distinctInput is n distinct values in [-2, 2) in a random order, so that
// no window's maximum is a tie.
func distinctInput(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i, p := range r.Perm(n) {
		x[i] = float32(p)/float32(n)*4 - 2
	}
	return x
}

func f64sOf(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func closeTo64(t *testing.T, want []float64, got []float32, abs, rel float64, msg string, args ...any) {
	t.Helper()
	w := make([]float32, len(want))
	for i, v := range want {
		w[i] = float32(v)
	}
	closeTo(t, w, got, abs, rel, msg, args...)
}

// poolOptionCases pair each option with the others and with the paths the
// kernels take: gathered and scattered gradients (strides below and at
// least the dilated window), four channels (vec4) and others, asymmetric
// and "same" padding.
var poolOptionCases = []poolCase{
	{"ceil, 3x3 stride 2 explicit", []int{2, 7, 8, 3}, tensor.Pool2DOptions{Window: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: tensor.Explicit(1, 1, 1, 1), CeilMode: true}},
	{"ceil, counting the padding, asymmetric", []int{2, 7, 8, 3}, tensor.Pool2DOptions{Window: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: tensor.Explicit(1, 0, 0, 1), CeilMode: true, CountIncludePad: true}},
	{"ceil, 2x2 stride 2, vec4", []int{1, 5, 7, 4}, tensor.Pool2DOptions{Window: [2]int{2, 2}, CeilMode: true}},
	{"ceil, scatter 3x3 stride 3 explicit, vec4", []int{2, 8, 7, 4}, tensor.Pool2DOptions{Window: [2]int{3, 3}, Padding: tensor.Explicit(1, 1, 1, 1), CeilMode: true, CountIncludePad: true}},
	{"ceil drops a window starting in the padding", []int{1, 5, 5, 2}, tensor.Pool2DOptions{Window: [2]int{2, 2}, Padding: tensor.Explicit(1, 1, 1, 1), CeilMode: true}},
	{"ceil, window larger than the input", []int{1, 2, 3, 1}, tensor.Pool2DOptions{Window: [2]int{3, 4}, Stride: [2]int{2, 2}, CeilMode: true, CountIncludePad: true}},
	{"ceil, same padding", []int{2, 7, 6, 3}, tensor.Pool2DOptions{Window: [2]int{3, 2}, Stride: [2]int{2, 2}, Padding: tensor.Same(), CeilMode: true, CountIncludePad: true}},
	{"counting the padding, gathered", []int{2, 6, 5, 3}, tensor.Pool2DOptions{Window: [2]int{3, 2}, Stride: [2]int{2, 1}, Padding: tensor.Explicit(1, 2, 0, 1), CountIncludePad: true}},
	{"counting the padding, scattered, vec4", []int{1, 7, 9, 8}, tensor.Pool2DOptions{Window: [2]int{2, 3}, Stride: [2]int{3, 3}, Padding: tensor.Explicit(1, 1, 2, 0), CountIncludePad: true}},
}

// poolDilationCases are max poolings only (an average takes no dilation).
var poolDilationCases = []poolCase{
	{"dilation 2, 3x3 stride 1", []int{2, 7, 6, 3}, tensor.Pool2DOptions{Window: [2]int{3, 3}, Stride: [2]int{1, 1}, Padding: tensor.Explicit(1, 1, 1, 1), Dilation: [2]int{2, 2}}},
	{"dilation 2x3, ceil", []int{1, 8, 9, 2}, tensor.Pool2DOptions{Window: [2]int{2, 3}, Stride: [2]int{2, 1}, Padding: tensor.Explicit(1, 0, 1, 2), Dilation: [2]int{2, 3}, CeilMode: true}},
	{"dilation 2, scatter, vec4", []int{2, 8, 10, 4}, tensor.Pool2DOptions{Window: [2]int{2, 2}, Stride: [2]int{3, 3}, Padding: tensor.Explicit(1, 1, 1, 1), Dilation: [2]int{2, 2}, CeilMode: true}},
	{"dilation 3, padding past a tap", []int{1, 9, 7, 5}, tensor.Pool2DOptions{Window: [2]int{3, 2}, Stride: [2]int{2, 1}, Padding: tensor.Explicit(4, 1, 2, 3), Dilation: [2]int{3, 3}}},
	{"dilation 4, same", []int{2, 9, 8, 3}, tensor.Pool2DOptions{Window: [2]int{2, 3}, Stride: [2]int{1, 2}, Padding: tensor.Same(), Dilation: [2]int{4, 2}}},
	{"dilation 2000 along a row: long gathers", []int{1, 1, 4003, 1}, tensor.Pool2DOptions{Window: [2]int{1, 2}, Stride: [2]int{1, 1}, Dilation: [2]int{1, 2000}}},
}

func TestPool2DOptionsAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(20, 4))
	run := func(c poolCase, avgToo bool) {
		g := geomOf(t, c.shape, c.o)
		xv := distinctInput(r, size(c.shape))
		outShape := tensor.Shape{c.shape[0], g.outH, g.outW, c.shape[3]}
		dyv := randF32(r, outShape.Size(), -1, 1)
		wantMax, wantAvg, _, wantMaxGrad, wantAvgGrad := refPool(g, c.shape, c.o, xv, dyv)
		x := e.FromFloat32s(xv, c.shape...)
		defer x.Dispose()
		dy := e.FromFloat32s(dyv, outShape...)
		defer dy.Dispose()
		mx := e.MaxPool2D(x, c.o)
		defer mx.Dispose()
		require.NoError(t, mx.Err(), c.name)
		assert.Equal(t, outShape, mx.Shape(), c.name)
		closeTo64(t, wantMax, f32s(t, mx), 0, 0, "%s: max", c.name)
		dirty(e, len(xv))
		gmx := e.MaxPool2DGrad(x, dy, c.o)
		defer gmx.Dispose()
		closeTo64(t, wantMaxGrad, f32s(t, gmx), 1e-6, 1e-6, "%s: max grad", c.name)
		if !avgToo {
			return
		}
		avg := e.AvgPool2D(x, c.o)
		defer avg.Dispose()
		closeTo64(t, wantAvg, f32s(t, avg), 1e-6, 1e-6, "%s: avg", c.name)
		dirty(e, len(xv))
		gavg := e.AvgPool2DGrad(dy, x.Shape(), c.o)
		defer gavg.Dispose()
		closeTo64(t, wantAvgGrad, f32s(t, gavg), 1e-6, 1e-6, "%s: avg grad", c.name)
	}
	for _, c := range poolOptionCases {
		run(c, true)
	}
	for _, c := range poolDilationCases {
		run(c, false)
	}
}

// The options' zero values keep the library's behaviour: an explicit
// dilation of 1 and CeilMode where the sizes divide change nothing.
func TestPool2DOptionsDefaultsKeepBehaviour(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(20, 5))
	x := e.FromFloat32s(distinctInput(r, 2*7*9*3), 2, 7, 9, 3)
	defer x.Dispose()
	base := tensor.Pool2DOptions{Window: [2]int{3, 2}, Stride: [2]int{2, 1}, Padding: tensor.Explicit(1, 2, 0, 1)}
	for _, avg := range []bool{false, true} {
		pool := e.MaxPool2D
		if avg {
			pool = e.AvgPool2D
		}
		want := pool(x, base)
		o := base
		o.Dilation = [2]int{1, 1}
		got := pool(x, o)
		assert.Equal(t, f32s(t, want), f32s(t, got), "avg %v: dilation 1", avg)
		want.Dispose()
		got.Dispose()
	}
	// 8 = (8 - 2)/2 + 1 windows either way: CeilMode adds none.
	even := e.FromFloat32s(distinctInput(r, 8*8), 1, 8, 8, 1)
	defer even.Dispose()
	o := tensor.Pool2DOptions{Window: [2]int{2, 2}}
	a := e.AvgPool2D(even, o)
	o.CeilMode, o.CountIncludePad = true, true
	b := e.AvgPool2D(even, o)
	assert.Equal(t, f32s(t, a), f32s(t, b))
	a.Dispose()
	b.Dispose()
}

// torchPoolCase is one case of testdata/torch_pool.json (see
// torch_pool.py): PyTorch's padding is symmetric.
type torchPoolCase struct {
	Name            string    `json:"name"`
	Shape           []int     `json:"shape"`
	Kernel          [2]int    `json:"kernel"`
	Stride          [2]int    `json:"stride"`
	Padding         [2]int    `json:"padding"`
	Dilation        [2]int    `json:"dilation"`
	CeilMode        bool      `json:"ceil_mode"`
	CountIncludePad *bool     `json:"count_include_pad"`
	X               []float32 `json:"x"`
	OutShape        []int     `json:"out_shape"`
	Dy              []float32 `json:"dy"`
	Max             []float32 `json:"max"`
	MaxGrad         []float32 `json:"max_grad"`
	Avg             []float32 `json:"avg"`
	AvgGrad         []float32 `json:"avg_grad"`
}

// Our pooling gives PyTorch's values (max_pool2d and avg_pool2d with
// ceil_mode, count_include_pad and dilation, and their gradients), read
// from testdata/torch_pool.json.
func TestPool2DOptionsMatchPyTorch(t *testing.T) {
	e := testgpu.Engine(t)
	raw, err := os.ReadFile(filepath.Join("testdata", "torch_pool.json"))
	require.NoError(t, err)
	var file struct {
		Cases []torchPoolCase `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(raw, &file))
	require.NotEmpty(t, file.Cases)
	for _, c := range file.Cases {
		o := tensor.Pool2DOptions{Window: c.Kernel, Stride: c.Stride, Dilation: c.Dilation, CeilMode: c.CeilMode,
			Padding: tensor.Explicit(c.Padding[0], c.Padding[0], c.Padding[1], c.Padding[1])}
		x := e.FromFloat32s(c.X, c.Shape...)
		dy := e.FromFloat32s(c.Dy, c.OutShape...)
		mx := e.MaxPool2D(x, o)
		require.NoError(t, mx.Err(), c.Name)
		assert.Equal(t, tensor.Shape(c.OutShape), mx.Shape(), c.Name)
		assert.Equal(t, c.Max, f32s(t, mx), "%s: max", c.Name)
		gmx := e.MaxPool2DGrad(x, dy, o)
		closeTo(t, c.MaxGrad, f32s(t, gmx), 1e-6, 1e-6, "%s: max grad", c.Name)
		for _, v := range []*tensor.Tensor{mx, gmx} {
			v.Dispose()
		}
		if c.CountIncludePad != nil {
			o.CountIncludePad = *c.CountIncludePad
			avg := e.AvgPool2D(x, o)
			closeTo(t, c.Avg, f32s(t, avg), 1e-6, 1e-6, "%s: avg", c.Name)
			gavg := e.AvgPool2DGrad(dy, x.Shape(), o)
			closeTo(t, c.AvgGrad, f32s(t, gavg), 1e-6, 1e-6, "%s: avg grad", c.Name)
			avg.Dispose()
			gavg.Dispose()
		}
		x.Dispose()
		dy.Dispose()
	}
}

// testdata/torch_pool.json is what torch_pool.py writes: the reference
// values are PyTorch's, not edited by hand.
func TestTorchPoolReferenceIsCurrent(t *testing.T) {
	py := testgpu.Torch(t)
	cmd := exec.Command(py, "torch_pool.py")
	cmd.Dir = "testdata"
	out, err := cmd.Output()
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join("testdata", "torch_pool.json"))
	require.NoError(t, err)
	var a, b struct {
		Cases []torchPoolCase `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(out, &a))
	require.NoError(t, json.Unmarshal(want, &b))
	assert.Equal(t, b.Cases, a.Cases, "regenerate testdata/torch_pool.json with torch_pool.py")
}

func TestPool2DOptionErrors(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 1, 4, 4, 1)
	defer x.Dispose()
	row := e.Zeros(tensor.Float32, 1, 1, 5, 1)
	defer row.Dispose()
	for _, c := range []struct {
		name string
		want string
		f    func() *tensor.Tensor
	}{
		{"avg with a dilation", "an average pooling takes none", func() *tensor.Tensor {
			return e.AvgPool2D(x, tensor.Pool2DOptions{Window: [2]int{2, 2}, Dilation: [2]int{1, 2}})
		}},
		{"avg grad with a dilation", "an average pooling takes none", func() *tensor.Tensor {
			dy := e.Zeros(tensor.Float32, 1, 2, 1, 1)
			defer dy.Dispose()
			return e.AvgPool2DGrad(dy, x.Shape(), tensor.Pool2DOptions{Window: [2]int{2, 2}, Dilation: [2]int{1, 2}})
		}},
		{"negative dilation", "dilation", func() *tensor.Tensor {
			return e.MaxPool2D(x, tensor.Pool2DOptions{Window: [2]int{2, 2}, Dilation: [2]int{-1, 1}})
		}},
		{"dilated window larger than the input", "larger", func() *tensor.Tensor {
			return e.MaxPool2D(x, tensor.Pool2DOptions{Window: [2]int{2, 2}, Dilation: [2]int{4, 1}})
		}},
		// Taps at -1 and 2 over one column: the padding and the tap past
		// the input leave the window empty.
		{"dilation stepping over the input", "no input element", func() *tensor.Tensor {
			one := e.Zeros(tensor.Float32, 1, 1, 2, 1)
			defer one.Dispose()
			return e.MaxPool2D(one, tensor.Pool2DOptions{Window: [2]int{1, 2}, Dilation: [2]int{1, 3}, Padding: tensor.Explicit(0, 0, 1, 1)})
		}},
		{"a dilated window whose gradient walks too many windows", "more than 65535", func() *tensor.Tensor {
			return e.MaxPool2D(row, tensor.Pool2DOptions{Window: [2]int{1, 2}, Stride: [2]int{1, 1}, Dilation: [2]int{1, 100000}, Padding: tensor.Explicit(0, 0, 0, 100000)})
		}},
		{"ceil, still too small", "larger", func() *tensor.Tensor {
			return e.MaxPool2D(x, tensor.Pool2DOptions{Window: [2]int{6, 2}, Stride: [2]int{1, 1}, CeilMode: true})
		}},
	} {
		live := e.NumTensors()
		y := c.f()
		err := y.Err()
		var oe *tensor.OpError
		require.True(t, errors.As(err, &oe), "%s: %v is not an *OpError", c.name, err)
		assert.ErrorIs(t, err, tensor.ErrArgument, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
		assert.Contains(t, err.Error(), "[", "%s: the error names the shapes", c.name)
		y.Dispose()
		assert.Equal(t, live, e.NumTensors(), "%s: a tensor was left behind", c.name)
	}
}
