package tensor_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// everyInt8 is every int8 value, -128 first.
func everyInt8() []int8 {
	v := make([]int8, 256)
	for i := range v {
		v[i] = int8(i - 128)
	}
	return v
}

// randInt8s is n random int8s.
func randInt8s(rng *rand.Rand, n int) []int8 {
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(rng.IntN(256) - 128)
	}
	return v
}

// wrapInt8 is Cast's int8 of v: as Cast to int32 (truncated, saturated,
// NaN 0), then the low byte.
func wrapInt8(v float64) int8 {
	switch {
	case math.IsNaN(v):
		return 0
	case v >= math.MaxInt32:
		return -1 // 0x7fffffff's low byte
	case v <= math.MinInt32:
		return 0
	}
	return int8(int32(v))
}

// Int8 tensors go up and come back for every value and sizes that end
// inside a word, and print as integers.
func TestInt8TensorsRoundTripAndPrint(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	all := everyInt8()
	for _, n := range []int{0, 1, 3, 5, 255, 256} {
		x := e.FromInt8s(all[:n])
		require.Equal(t, tensor.Int8, x.DType())
		got, err := x.Int8s(ctx)
		require.NoError(t, err)
		require.Equal(t, all[:n], got[:n], "n %d", n)
		x.Dispose()
	}
	x := e.FromInt8s([]int8{-128, 0, 7, 127, -1, 3}, 2, 3)
	defer x.Dispose()
	s, err := x.Text(ctx)
	require.NoError(t, err)
	require.Equal(t, "tensor([[-128,    0,    7],\n        [ 127,   -1,    3]], shape=[2 3], dtype=int8)", s)
	require.Equal(t, 1, tensor.Int8.Size())
	require.ErrorIs(t, e.FromInt8s([]int8{1, 2, 3}, 2, 2).Err(), tensor.ErrShape)
	_, err = x.Float32s(ctx)
	require.ErrorIs(t, err, tensor.ErrDType)
}

// Cast from int8 is exact to every dtype; to int8 it converts as to int32
// and keeps the low byte, from float edges (NaN, ±Inf, -0, halves,
// overflow), int32s and uint32s.
func TestCastToAndFromInt8(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	all := everyInt8()
	err := tidy.Do(e, func() error {
		x := e.FromInt8s(all[1:]) // 255: the last word part padding
		f, err := e.Cast(x, tensor.Float32).Float32s(ctx)
		require.NoError(t, err)
		i, err := e.Cast(x, tensor.Int32).Int32s(ctx)
		require.NoError(t, err)
		u, err := e.Cast(x, tensor.Uint32).Uint32s(ctx)
		require.NoError(t, err)
		h, err := e.Cast(x, tensor.Float16).Float32s(ctx)
		require.NoError(t, err)
		b, err := e.Cast(x, tensor.BFloat16).Float32s(ctx)
		require.NoError(t, err)
		for k, v := range all[1:] {
			require.Equal(t, float32(v), f[k])
			require.Equal(t, int32(v), i[k])
			require.Equal(t, uint32(int32(v)), u[k])
			require.Equal(t, float32(v), h[k])
			require.Equal(t, float32(v), b[k])
		}

		floats := []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 1.99, -1.99, 127, 128, 255, 256, 300, -129, -200,
			1e10, -1e10, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-40, 2147483520}
		got, err := e.Cast(e.FromFloat32s(floats), tensor.Int8).Int8s(ctx)
		require.NoError(t, err)
		for k, v := range floats {
			require.Equal(t, wrapInt8(float64(v)), got[k], "int8 of %g", v)
		}
		ints := []int32{0, 1, -1, 127, 128, -128, -129, 255, 256, 300, math.MaxInt32, math.MinInt32}
		got, err = e.Cast(e.FromInt32s(ints), tensor.Int8).Int8s(ctx)
		require.NoError(t, err)
		for k, v := range ints {
			require.Equal(t, int8(v), got[k], "int8 of %d", v)
		}
		uints := []uint32{0, 127, 128, 255, 256, math.MaxUint32}
		got, err = e.Cast(e.FromUint32s(uints), tensor.Int8).Int8s(ctx)
		require.NoError(t, err)
		for k, v := range uints {
			require.Equal(t, int8(v), got[k], "int8 of %d", v)
		}
		halves, err := e.Cast(e.Cast(e.FromFloat32s(floats), tensor.Float16), tensor.Int8).Int8s(ctx)
		require.NoError(t, err)
		for k, v := range floats {
			w := tensor.Float16Values(tensor.Float16Bits([]float32{v}))[0]
			require.Equal(t, wrapInt8(float64(w)), halves[k], "int8 of float16 %g", v)
		}
		return nil
	})
	require.NoError(t, err)
}

// Elementwise ops on int8 tensors compute in int32 and wrap, as Go's int8
// arithmetic does; fused chains, broadcasts, odd and vec4 shapes; int8
// fills, ranges and masked fills.
func TestElementwiseOpsOnInt8Tensors(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(31, 32))
	for _, shape := range [][2]int{{3, 5}, {4, 8}, {1, 1}, {17, 3}} {
		R, C := shape[0], shape[1]
		a, row, col := randInt8s(rng, R*C), randInt8s(rng, C), randInt8s(rng, R)
		err := tidy.Do(e, func() error {
			x := e.FromInt8s(a, R, C)
			r := e.FromInt8s(row, 1, C)
			c := e.FromInt8s(col, R, 1)
			sum := e.Add(x, r)
			prod := e.Mul(sum, c)
			neg := e.Neg(prod)
			less := e.Less(x, r)
			gs, err := sum.Int8s(ctx)
			require.NoError(t, err)
			gp, err := prod.Int8s(ctx)
			require.NoError(t, err)
			gn, err := neg.Int8s(ctx)
			require.NoError(t, err)
			gl, err := less.Uint32s(ctx)
			require.NoError(t, err)
			for i := range R {
				for j := range C {
					k := i*C + j
					s := a[k] + row[j]
					require.Equal(t, s, gs[k], "sum %v at %d", shape, k)
					require.Equal(t, s*col[i], gp[k], "product %v at %d", shape, k)
					require.Equal(t, -(s * col[i]), gn[k], "negation %v at %d", shape, k)
					require.Equal(t, map[bool]uint32{true: 1}[a[k] < row[j]], gl[k])
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
	err := tidy.Do(e, func() error {
		fill, err := e.Fill(tensor.Int8, 300, 5).Int8s(ctx)
		require.NoError(t, err)
		require.Equal(t, []int8{44, 44, 44, 44, 44}, fill)
		rng, err := e.Range(tensor.Int8, -3, 126, 43).Int8s(ctx)
		require.NoError(t, err)
		require.Equal(t, []int8{-3, 40, 83}, rng)
		require.ErrorIs(t, e.Range(tensor.Int8, 0, 200, 1).Err(), tensor.ErrArgument)
		x := e.FromInt8s([]int8{1, 2, 3, 4, 5})
		m := e.FromInt8s([]int8{0, 1, 0, -1, 0})
		got, err := e.MaskedFill(x, m, -7).Int8s(ctx)
		require.NoError(t, err)
		require.Equal(t, []int8{1, -7, 3, -7, 5}, got)
		return nil
	})
	require.NoError(t, err)
}

// Shape ops and gather move int8 elements as the same ops move int32 ones:
// regions that start and end inside words, odd sizes.
func TestShapeOpsOnInt8Tensors(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(33, 34))
	mk := func(shape ...int) *tensor.Tensor {
		n := 1
		for _, d := range shape {
			n *= d
		}
		return e.FromInt8s(randInt8s(rng, n), shape...)
	}
	err := tidy.Do(e, func() error {
		x, y, z := mk(3, 5, 7), mk(3, 2, 7), mk(3, 5, 7)
		idx := e.FromInt32s([]int32{4, -1, 0, 9, 2, 2, 3})
		for name, op := range map[string]func(f func(*tensor.Tensor) *tensor.Tensor) *tensor.Tensor{
			"transpose": func(f func(*tensor.Tensor) *tensor.Tensor) *tensor.Tensor { return e.Transpose(f(x), 2, 0, 1) },
			"slice": func(f func(*tensor.Tensor) *tensor.Tensor) *tensor.Tensor {
				return e.Slice(f(x), []int{1, 1, 3}, []int{2, 3, 3})
			},
			"concat": func(f func(*tensor.Tensor) *tensor.Tensor) *tensor.Tensor { return e.Concat(1, f(x), f(y), f(x)) },
			"stack":  func(f func(*tensor.Tensor) *tensor.Tensor) *tensor.Tensor { return e.Stack(2, f(x), f(z)) },
			"split":  func(f func(*tensor.Tensor) *tensor.Tensor) *tensor.Tensor { return e.Split(f(x), 2, 3, 1, 3)[1] },
			"pad": func(f func(*tensor.Tensor) *tensor.Tensor) *tensor.Tensor {
				return e.Pad(f(y), [][2]int{{0, 1}, {1, 0}, {2, 1}}, -5)
			},
			"broadcast_to": func(f func(*tensor.Tensor) *tensor.Tensor) *tensor.Tensor {
				return e.BroadcastTo(e.Slice(f(x), []int{0, 0, 0}, []int{1, 5, 1}), 3, 5, 3)
			},
			"copy": func(f func(*tensor.Tensor) *tensor.Tensor) *tensor.Tensor { return e.Copy(f(x)) },
			"gather 0": func(f func(*tensor.Tensor) *tensor.Tensor) *tensor.Tensor {
				return e.Gather(f(x), e.Slice(idx, []int{0}, []int{3}), 0)
			},
			"gather 2": func(f func(*tensor.Tensor) *tensor.Tensor) *tensor.Tensor { return e.Gather(f(x), idx, 2) },
		} {
			same := func(t *tensor.Tensor) *tensor.Tensor { return t }
			wide := func(t *tensor.Tensor) *tensor.Tensor { return e.Cast(t, tensor.Int32) }
			got := op(same)
			require.NoError(t, got.Err(), name)
			require.Equal(t, tensor.Int8, got.DType(), name)
			v, err := got.Int8s(ctx)
			require.NoError(t, err, name)
			want, err := e.Cast(op(wide), tensor.Int8).Int8s(ctx)
			require.NoError(t, err, name)
			require.Equal(t, want, v, name)
		}
		return nil
	})
	require.NoError(t, err)
}

// A float32 matrix times int8 weights is the product with the weights'
// values as float32, bit for bit: every transpose, odd shapes, shapes the
// Vec4 kernel takes (its int8 loads one word for four), batches, and an
// inner dimension summed over several dispatches.
func TestMatMulOfFloat32AndInt8(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(35, 36))
	for _, c := range []struct {
		a, b   []int
		ta, tb bool
	}{
		{[]int{3, 5}, []int{5, 7}, false, false},
		{[]int{5, 3}, []int{7, 5}, true, true},
		{[]int{2, 65, 33}, []int{33, 70}, false, false},
		{[]int{64, 128}, []int{96, 128}, false, true},
		{[]int{130, 64}, []int{64, 256}, false, false},
		{[]int{2, 3, 40}, []int{2, 24, 40}, false, true},
		{[]int{2, 20000}, []int{20000, 4}, false, false},
	} {
		n := func(s []int) int {
			p := 1
			for _, d := range s {
				p *= d
			}
			return p
		}
		av := make([]float32, n(c.a))
		for i := range av {
			av[i] = float32(rng.NormFloat64())
		}
		bv := randInt8s(rng, n(c.b))
		err := tidy.Do(e, func() error {
			a, b := e.FromFloat32s(av, c.a...), e.FromInt8s(bv, c.b...)
			y := e.MatMulT(a, b, c.ta, c.tb)
			require.Equal(t, tensor.Float32, y.DType())
			got, err := y.Float32s(ctx)
			require.NoError(t, err)
			want, err := e.MatMulT(a, e.Cast(b, tensor.Float32), c.ta, c.tb).Float32s(ctx)
			require.NoError(t, err)
			require.Equal(t, want, got, "%v·%v (%v, %v)", c.a, c.b, c.ta, c.tb)
			// A bias and a scale after it, as a quantized layer computes.
			scale := e.FromFloat32s(av[:y.Shape()[y.Rank()-1]])
			got, err = e.Add(e.Mul(e.MatMulT(a, b, c.ta, c.tb), scale), scale).Float32s(ctx)
			require.NoError(t, err)
			want, err = e.Add(e.Mul(e.MatMulT(a, e.Cast(b, tensor.Float32), c.ta, c.tb), scale), scale).Float32s(ctx)
			require.NoError(t, err)
			require.Equal(t, want, got, "with an epilogue: %v·%v", c.a, c.b)
			return nil
		})
		require.NoError(t, err)
	}
}

// Ops that do not take int8 refuse it naming the op and the dtype; a
// product takes int8 only as float32's right operand.
func TestInt8TensorsRefusedWhereNotTaken(t *testing.T) {
	e := testgpu.Engine(t)
	err := tidy.Do(e, func() error {
		q := e.FromInt8s([]int8{1, 2, 3, 4}, 2, 2)
		f := e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
		h := e.Cast(f, tensor.Float16)
		for name, y := range map[string]*tensor.Tensor{
			"sum":     e.Sum(q, false, 0),
			"softmax": e.Softmax(e.Cast(q, tensor.Int8), 1),
			"cumsum":  e.Cumsum(q, 0, false, false),
		} {
			require.ErrorIs(t, y.Err(), tensor.ErrDType, name)
			require.ErrorContains(t, y.Err(), name)
			require.ErrorContains(t, y.Err(), "int8")
		}
		for _, y := range []*tensor.Tensor{e.MatMul(q, f), e.MatMul(q, q), e.MatMul(h, q), e.Add(q, f)} {
			require.ErrorIs(t, y.Err(), tensor.ErrDType)
			require.ErrorContains(t, y.Err(), "int8")
		}
		return nil
	})
	require.NoError(t, err)
}

// QuantizeInt8 gives each channel the scale max|w|/127 (1 for zeros) and
// q = w/scale rounded to nearest even within ±127, checked in float64:
// along every axis, float16 weights, a vector, zero channels, subnormals.
func TestQuantizeInt8(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(37, 38))
	check := func(w []float32, shape []int, axis int, name string) {
		t.Helper()
		err := tidy.Do(e, func() error {
			x := e.FromFloat32s(w, shape...)
			q, scale := e.QuantizeInt8(x, axis)
			if axis < 0 {
				axis += len(shape)
			}
			require.NoError(t, q.Err(), name)
			require.Equal(t, tensor.Int8, q.DType())
			require.Equal(t, tensor.Shape(shape), q.Shape())
			require.Equal(t, tensor.Shape{shape[axis]}, scale.Shape())
			qv, err := q.Int8s(ctx)
			require.NoError(t, err)
			sv, err := scale.Float32s(ctx)
			require.NoError(t, err)
			inner := 1
			for _, d := range shape[axis+1:] {
				inner *= d
			}
			amax := make([]float64, shape[axis])
			for i, v := range w {
				ch := i / inner % shape[axis]
				amax[ch] = math.Max(amax[ch], math.Abs(float64(v)))
			}
			for ch, a := range amax {
				if a == 0 {
					require.Equal(t, float32(1), sv[ch], "%s: the scale of zeros", name)
					continue
				}
				// Within float32's rounding: relative, or a subnormal's step.
				require.LessOrEqual(t, math.Abs(float64(sv[ch])-a/127), 1e-6*a/127+0x1p-149, "%s: channel %d's scale", name, ch)
			}
			for i, v := range w {
				s := float64(sv[i/inner%shape[axis]])
				want := math.Max(-127, math.Min(127, math.RoundToEven(float64(v)/s)))
				require.LessOrEqual(t, math.Abs(float64(qv[i])-want), 1.0, "%s: q at %d", name, i)
				if math.Abs(float64(v)/s-math.Trunc(float64(v)/s)) != 0.5 { // off a tie, exactly
					require.Equal(t, want, float64(qv[i]), "%s: q at %d, %g / %g", name, i, v, s)
				}
				require.LessOrEqual(t, math.Abs(float64(qv[i])*s-float64(v)), s/2*(1+1e-5), "%s: q·scale at %d", name, i)
			}
			return nil
		})
		require.NoError(t, err)
	}
	normal := func(n int, sd float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * sd)
		}
		return v
	}
	check(normal(7*13, 0.1), []int{7, 13}, 0, "linear [7 13]")
	check(normal(7*13, 3), []int{7, 13}, 1, "columns [7 13]")
	check(normal(3*3*4*5, 1), []int{3, 3, 4, 5}, 3, "conv HWIO")
	check(normal(9, 1), []int{9}, 0, "vector")
	w := normal(4*6, 1)
	copy(w[6:12], make([]float32, 6))                            // a channel of zeros
	copy(w[12:18], []float32{1e-40, -2e-40, 0, 3e-41, 0, 1e-45}) // subnormals
	check(w, []int{4, 6}, -2, "zeros and subnormals")

	// Half weights quantize as their float32 values do.
	err := tidy.Do(e, func() error {
		v := normal(5*8, 1)
		h := e.Cast(e.FromFloat32s(v, 5, 8), tensor.Float16)
		q16, s16 := e.QuantizeInt8(h, 0)
		q32, s32 := e.QuantizeInt8(e.Cast(h, tensor.Float32), 0)
		a, err := q16.Int8s(ctx)
		require.NoError(t, err)
		b, err := q32.Int8s(ctx)
		require.NoError(t, err)
		require.Equal(t, b, a)
		c, err := s16.Float32s(ctx)
		require.NoError(t, err)
		d, err := s32.Float32s(ctx)
		require.NoError(t, err)
		require.Equal(t, d, c)
		// Bad input.
		q, s := e.QuantizeInt8(e.FromInt32s([]int32{1, 2}), 0)
		require.ErrorIs(t, q.Err(), tensor.ErrDType)
		require.ErrorIs(t, s.Err(), tensor.ErrDType)
		q, _ = e.QuantizeInt8(h, 2)
		require.ErrorIs(t, q.Err(), tensor.ErrShape)
		require.ErrorContains(t, q.Err(), "quantize_int8")
		q, _ = e.QuantizeInt8(e.Scalar(1), 0)
		require.ErrorIs(t, q.Err(), tensor.ErrShape)
		return nil
	})
	require.NoError(t, err)
}

// Conv2D of float32 images with an int8 filter is the convolution with the
// filter's values as float32, bit for bit: the Vec4 kernel (channels by
// fours), the scalar one reading B by vec4s, the scalar one, groups,
// strides and padding.
func TestConv2DWithInt8Filter(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(39, 40))
	for _, c := range narrowConvs {
		n := func(s []int) int { return tensor.Shape(s).Size() }
		xv := make([]float32, n(c.x))
		for i := range xv {
			xv[i] = float32(rng.NormFloat64())
		}
		fv := randInt8s(rng, n(c.f))
		err := tidy.Do(e, func() error {
			x, f := e.FromFloat32s(xv, c.x...), e.FromInt8s(fv, c.f...)
			got, err := e.Conv2D(x, f, c.o).Float32s(ctx)
			require.NoError(t, err, "%v * %v", c.x, c.f)
			want, err := e.Conv2D(x, e.Cast(f, tensor.Float32), c.o).Float32s(ctx)
			require.NoError(t, err)
			require.Equal(t, want, got, "%v * %v", c.x, c.f)
			return nil
		})
		require.NoError(t, err)
	}
	err := tidy.Do(e, func() error {
		q := e.FromInt8s(make([]int8, 9), 3, 3, 1, 1)
		y := e.Conv2D(e.Cast(e.Fill(tensor.Float32, 1, 1, 4, 4, 1), tensor.Int8), q, tensor.Conv2DOptions{})
		require.ErrorIs(t, y.Err(), tensor.ErrDType)
		y = e.Conv2DBackpropInput(e.Fill(tensor.Float32, 1, 1, 2, 2, 1), q, tensor.Shape{1, 4, 4, 1}, tensor.Conv2DOptions{})
		require.ErrorIs(t, y.Err(), tensor.ErrDType)
		require.ErrorContains(t, y.Err(), "int8")
		return nil
	})
	require.NoError(t, err)
}
