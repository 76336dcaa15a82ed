package nn_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// hostConv2D is the convolution of x [n, h, w, in] by the HWIO filter f
// [kh, kw, in/groups, out] plus bias (nil: none), in float64, over the
// window geometry g.
func hostConv2D(x []float32, n, in int, f []float32, out, groups int, bias []float32, g tensor.Window2D) []float64 {
	inG, outG := in/groups, out/groups
	y := make([]float64, n*g.OutH*g.OutW*out)
	for b := range n {
		for oy := range g.OutH {
			for ox := range g.OutW {
				for o := range out {
					s := 0.0
					if bias != nil {
						s = float64(bias[o])
					}
					for ky := range g.KernelH {
						iy := oy*g.StrideH - g.PadTop + ky*g.DilationH
						for kx := range g.KernelW {
							ix := ox*g.StrideW - g.PadLeft + kx*g.DilationW
							if iy < 0 || iy >= g.InH || ix < 0 || ix >= g.InW {
								continue
							}
							for c := range inG {
								xv := x[((b*g.InH+iy)*g.InW+ix)*in+o/outG*inG+c]
								s += float64(xv) * float64(f[((ky*g.KernelW+kx)*inG+c)*out+o])
							}
						}
					}
					y[((b*g.OutH+oy)*g.OutW+ox)*out+o] = s
				}
			}
		}
	}
	return y
}

// hostPool2D is the max or average pooling of x [n, h, w, c] over g,
// padded positions left out.
func hostPool2D(x []float32, n, c int, isMax bool, g tensor.Window2D) []float64 {
	y := make([]float64, n*g.OutH*g.OutW*c)
	for b := range n {
		for oy := range g.OutH {
			for ox := range g.OutW {
				for ch := range c {
					acc, count := 0.0, 0
					if isMax {
						acc = math.Inf(-1)
					}
					for ky := range g.KernelH {
						for kx := range g.KernelW {
							iy, ix := oy*g.StrideH-g.PadTop+ky, ox*g.StrideW-g.PadLeft+kx
							if iy < 0 || iy >= g.InH || ix < 0 || ix >= g.InW {
								continue
							}
							v := float64(x[((b*g.InH+iy)*g.InW+ix)*c+ch])
							if isMax {
								acc = math.Max(acc, v)
							} else {
								acc += v
							}
							count++
						}
					}
					if !isMax {
						acc /= float64(count)
					}
					y[((b*g.OutH+oy)*g.OutW+ox)*c+ch] = acc
				}
			}
		}
	}
	return y
}

// Conv2D layers compute the convolution of their HWIO weight plus their
// bias, for each padding, stride, dilation and grouping.
func TestConv2DMatchesHost(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	cases := []struct {
		name           string
		n, h, w, in    int
		out            int
		kernel         [2]int
		stride, dilate [2]int
		pad            tensor.Padding
		groups         int
		bias           bool
		wantH, wantW   int
	}{
		{"3x3 same", 2, 7, 5, 3, 4, [2]int{3, 3}, [2]int{1, 1}, [2]int{1, 1}, tensor.Same(), 1, true, 7, 5},
		{"3x3 valid", 1, 6, 6, 2, 3, [2]int{3, 3}, [2]int{1, 1}, [2]int{1, 1}, tensor.Valid(), 1, true, 4, 4},
		{"stride 2, explicit padding", 2, 9, 8, 1, 2, [2]int{3, 2}, [2]int{2, 2}, [2]int{1, 1}, tensor.Explicit(1, 0, 2, 1), 1, false, 4, 5},
		{"dilation 2, groups 2", 1, 8, 7, 4, 6, [2]int{3, 3}, [2]int{1, 1}, [2]int{2, 2}, tensor.Same(), 2, true, 8, 7},
		{"depthwise", 2, 5, 5, 3, 3, [2]int{3, 3}, [2]int{1, 1}, [2]int{1, 1}, tensor.Same(), 3, true, 5, 5},
		{"1x1", 3, 4, 4, 5, 2, [2]int{1, 1}, [2]int{1, 1}, [2]int{1, 1}, tensor.Valid(), 1, true, 4, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := nn.NewBuilder(e, 3)
			opts := []nn.Option{nn.Stride(c.stride[0], c.stride[1]), nn.Dilation(c.dilate[0], c.dilate[1]), nn.Pad(c.pad), nn.Groups(c.groups),
				nn.BiasInit(nn.Uniform(-1, 1))}
			if !c.bias {
				opts = append(opts[:4], nn.NoBias())
			}
			l := b.Conv2D(c.in, c.out, c.kernel, opts...)
			require.NoError(t, b.Err())
			defer l.Dispose()
			weight := byName(t, l.Params(), "weight")
			assert.Equal(t, tensor.Shape{c.kernel[0], c.kernel[1], c.in / c.groups, c.out}, weight.Shape())
			var bias []float32
			if c.bias {
				bias = read(t, byName(t, l.Params(), "bias"))
			} else {
				assert.Equal(t, []string{"weight"}, names(l.Params()))
			}
			g, err := tensor.NewWindow2D(c.h, c.w, c.kernel[0], c.kernel[1], c.stride, c.dilate, c.pad)
			require.NoError(t, err)
			require.Equal(t, [2]int{c.wantH, c.wantW}, [2]int{g.OutH, g.OutW})

			xs := randFloats(rng, c.n*c.h*c.w*c.in, -2, 2)
			x := e.FromFloat32s(xs, c.n, c.h, c.w, c.in)
			defer x.Dispose()
			got := forward(t, e, l, x)
			requireClose(t, hostConv2D(xs, c.n, c.in, read(t, weight), c.out, c.groups, bias, g), got, 1e-4, c.name)
		})
	}
}

// Pooling layers take the max or the average of each window, padded
// positions left out.
func TestPool2DLayersMatchHost(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	const n, h, w, c = 2, 7, 6, 3
	xs := randFloats(rng, n*h*w*c, -2, 2)
	x := e.FromFloat32s(xs, n, h, w, c)
	defer x.Dispose()
	for _, o := range []tensor.Pool2DOptions{
		{Window: [2]int{2, 2}},
		{Window: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: tensor.Same()},
		{Window: [2]int{3, 2}, Stride: [2]int{1, 2}, Padding: tensor.Explicit(1, 1, 0, 1)},
	} {
		stride := o.Stride
		if stride == [2]int{} {
			stride = o.Window
		}
		g, err := tensor.NewWindow2D(h, w, o.Window[0], o.Window[1], stride, [2]int{}, o.Padding)
		require.NoError(t, err)
		for _, isMax := range []bool{true, false} {
			l := nn.AvgPool2D(o)
			if isMax {
				l = nn.MaxPool2D(o)
			}
			requireClose(t, hostPool2D(xs, n, c, isMax, g), forward(t, e, l, x), 1e-5, fmt.Sprintf("max %v, %+v", isMax, o))
			l.Dispose()
		}
	}
}

// Convolution layers refuse what cannot be made, and inputs of the wrong
// rank or channels, naming the layer and leaving nothing.
func TestConv2DErrors(t *testing.T) {
	e := testgpu.Engine(t)
	before := live(t, e)
	for _, c := range []struct {
		name  string
		build func(b *nn.Builder) nn.Module
		text  string
	}{
		{"zero channels", func(b *nn.Builder) nn.Module { return b.Conv2D(0, 4, [2]int{3, 3}) }, "channels and window must be positive"},
		{"empty window", func(b *nn.Builder) nn.Module { return b.Conv2D(2, 4, [2]int{0, 3}) }, "channels and window must be positive"},
		{"groups not dividing", func(b *nn.Builder) nn.Module { return b.Conv2D(3, 4, [2]int{3, 3}, nn.Groups(2)) }, "2 groups do not divide"},
		{"option of another layer", func(b *nn.Builder) nn.Module { return b.Conv2D(3, 4, [2]int{3, 3}, nn.Eps(1e-3)) }, "option Eps does not apply"},
		// Issue 19, item 13: zeros ran as 1, a negative stride failed only
		// in Forward.
		{"zero stride", func(b *nn.Builder) nn.Module { return b.Conv2D(3, 4, [2]int{3, 3}, nn.Stride(0, 1)) }, "Stride[0 1] is below 1"},
		{"negative stride", func(b *nn.Builder) nn.Module { return b.Conv2D(3, 4, [2]int{3, 3}, nn.Stride(-1, 1)) }, "Stride[-1 1] is below 1"},
		{"zero dilation", func(b *nn.Builder) nn.Module { return b.Conv2D(3, 4, [2]int{3, 3}, nn.Dilation(0, 0)) }, "Dilation[0 0] is below 1"},
		{"zero groups", func(b *nn.Builder) nn.Module { return b.Conv2D(3, 4, [2]int{3, 3}, nn.Groups(0)) }, "Groups[0] is below 1"},
		{"stride past 32 bits", func(b *nn.Builder) nn.Module { return b.Conv2D(3, 4, [2]int{3, 3}, nn.Stride(1<<32, 1)) }, "past 2^31-1"},
		{"negative padding", func(b *nn.Builder) nn.Module {
			return b.Conv2D(3, 4, [2]int{3, 3}, nn.Pad(tensor.Explicit(0, -1, 0, 0)))
		}, "Pad(explicit(0,-1,0,0)) is negative"},
		{"unknown padding", func(b *nn.Builder) nn.Module {
			return b.Conv2D(3, 4, [2]int{3, 3}, nn.Pad(tensor.Padding{Mode: 9}))
		}, "unknown mode"},
	} {
		b := nn.NewBuilder(e, 1)
		m := c.build(b)
		assert.ErrorIs(t, b.Err(), tensor.ErrArgument, c.name)
		assert.ErrorContains(t, b.Err(), c.text, c.name)
		m.Dispose()
		assert.Equal(t, before, live(t, e), c.name)
	}

	b := nn.NewBuilder(e, 1)
	conv := b.Conv2D(3, 4, [2]int{3, 3})
	require.NoError(t, b.Err())
	defer conv.Dispose()
	before = live(t, e)
	pool := nn.MaxPool2D(tensor.Pool2DOptions{Window: [2]int{2, 2}})
	for _, c := range []struct {
		name string
		run  func() *tensor.Tensor
		kind error
		text string
	}{
		{"Conv2D, wrong channels", func() *tensor.Tensor { return conv.Forward(e.Ones(tensor.Float32, 1, 5, 5, 2)) }, tensor.ErrShape, "nn: Conv2D(3, 4, 3x3): input float32 [1 5 5 2]: last dimension 2, want 3"},
		{"Conv2D, rank 3", func() *tensor.Tensor { return conv.Forward(e.Ones(tensor.Float32, 5, 5, 3)) }, tensor.ErrShape, "want rank 4"},
		{"Conv2D, window past the input", func() *tensor.Tensor { return conv.Forward(e.Ones(tensor.Float32, 1, 2, 2, 3)) }, tensor.ErrShape, "conv2d"},
		{"MaxPool2D, rank 2", func() *tensor.Tensor { return pool.Forward(e.Ones(tensor.Float32, 4, 4)) }, tensor.ErrShape, "nn: MaxPool2D(2x2): input float32 [4 4]: want rank 4"},
	} {
		err := tidy.Do(e, func() error { return c.run().Err() })
		assert.ErrorIs(t, err, c.kind, c.name)
		assert.ErrorContains(t, err, c.text, c.name)
		assert.Equal(t, before, live(t, e), c.name)
	}
}
