package tensor_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/half"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// halfDTypes are the half-width dtypes with their Go conversions.
var halfDTypes = []struct {
	dtype  tensor.DType
	widen  func(uint16) float32
	narrow func(float32) uint16
}{{tensor.Float16, half.Float16To32, half.Float16From32}, {tensor.BFloat16, half.BFloat16To32, half.BFloat16From32}}

// fromBits makes a tensor of a half dtype from bits.
func fromBits(e *tensor.Engine, dtype tensor.DType, bits []uint16, shape ...int) *tensor.Tensor {
	if dtype == tensor.BFloat16 {
		return e.FromBFloat16Bits(bits, shape...)
	}
	return e.FromFloat16Bits(bits, shape...)
}

// halfEdges are float32s at the edges of both half formats: zeros, the
// smallest subnormals and normals, the largest finite values and what
// rounds past them, infinities, NaN, ties either way, and random values
// over the formats' ranges.
func halfEdges(rng *rand.Rand, n int) []float32 {
	v := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 65504, 65519, 65520, -65520, 1e10, float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), 5.960464477539063e-08, 2.98e-08, 2.9802322387695312e-08, 6.103515625e-05, 1 + 1.0/2048, 1 + 3.0/2048,
		math.MaxFloat32, 1e-40, 1.1754944e-38, 3.3895314e+38, 3.3961776e+38}
	for len(v) < n {
		v = append(v, float32(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(12)-6))))
	}
	return v
}

// randomHalf makes a tensor of h's dtype and shape of normal values of
// deviation sd, rounded to it.
func randomHalf(e *tensor.Engine, rng *rand.Rand, dtype tensor.DType, narrow func(float32) uint16, sd float64, shape ...int) *tensor.Tensor {
	bits := make([]uint16, tensor.Shape(shape).Size())
	for i := range bits {
		bits[i] = narrow(float32(rng.NormFloat64() * sd))
	}
	return fromBits(e, dtype, bits, shape...)
}

// narrowConvs are convolutions for the narrow dtypes' tests: the Vec4 kernel
// (channels by fours), the scalar one reading B by vec4s, the scalar one,
// groups, strides and padding.
var narrowConvs = []struct {
	x, f []int
	o    tensor.Conv2DOptions
}{
	{[]int{2, 7, 6, 4}, []int{3, 3, 4, 8}, tensor.Conv2DOptions{Padding: tensor.Same()}},
	{[]int{1, 9, 9, 3}, []int{3, 3, 3, 16}, tensor.Conv2DOptions{Stride: [2]int{2, 2}}},
	{[]int{1, 5, 5, 3}, []int{2, 2, 3, 5}, tensor.Conv2DOptions{}},
	{[]int{2, 6, 6, 8}, []int{3, 3, 2, 8}, tensor.Conv2DOptions{Groups: 4, Padding: tensor.Same()}},
}

func TestHalfTensorsRoundTripEveryPattern(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	for _, h := range halfDTypes {
		bits := make([]uint16, 1<<16-1) // odd: the last word's padding
		for i := range bits {
			bits[i] = uint16(i)
		}
		x := fromBits(e, h.dtype, bits, len(bits))
		require.NoError(t, x.Err())
		got, err := x.Uint16s(ctx)
		require.NoError(t, err)
		require.Equal(t, bits, got)
		wide, err := x.Float32s(ctx)
		require.NoError(t, err)
		for i, b := range bits {
			require.Equal(t, math.Float32bits(h.widen(b)), math.Float32bits(wide[i]), "%s %#04x", h.dtype, b)
		}
		v := e.Reshape(x, 5, 13107)
		got, err = v.Uint16s(ctx)
		require.NoError(t, err)
		require.Equal(t, bits, got, "a view")
		assert.Equal(t, 2, h.dtype.Size())
		var b uint64
		for _, ti := range e.LiveTensors() {
			if ti.ID == x.ID() {
				b = ti.Bytes
			}
		}
		assert.Equal(t, uint64(2*len(bits)+2), b, "two bytes an element, in whole words")
		x.Dispose()
		v.Dispose()
	}
}

// Cast to and from the half dtypes rounds as internal/half does (and
// Float16Bits, BFloat16Bits), at every edge, with odd and vec4 counts.
func TestCastToAndFromHalfDTypes(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 7, 1024, 4097} {
		v := halfEdges(rng, n)[:n]
		x := e.FromFloat32s(v)
		for _, h := range halfDTypes {
			err := tidy.Do(e, func() error {
				y := e.Cast(x, h.dtype)
				got, err := y.Uint16s(ctx)
				require.NoError(t, err)
				for i, f := range v {
					require.Equal(t, h.narrow(f), got[i], "%s of %g (n %d)", h.dtype, f, n)
				}
				back, err := e.Cast(y, tensor.Float32).Float32s(ctx)
				require.NoError(t, err)
				for i := range v {
					require.Equal(t, math.Float32bits(h.widen(got[i])), math.Float32bits(back[i]))
				}
				// To the other half dtype: through float32, rounded once more.
				other := tensor.BFloat16
				narrowOther := half.BFloat16From32
				if h.dtype == tensor.BFloat16 {
					other, narrowOther = tensor.Float16, half.Float16From32
				}
				z, err := e.Cast(y, other).Uint16s(ctx)
				require.NoError(t, err)
				for i := range v {
					require.Equal(t, narrowOther(h.widen(got[i])), z[i])
				}
				// Integers: as float32 does.
				ints, err := e.Cast(y, tensor.Int32).Int32s(ctx)
				require.NoError(t, err)
				want, err := e.Cast(e.Cast(y, tensor.Float32), tensor.Int32).Int32s(ctx)
				require.NoError(t, err)
				require.Equal(t, want, ints)
				return nil
			})
			require.NoError(t, err)
		}
		x.Dispose()
	}
	// Integers past float16's range overflow to Inf; others round.
	i := e.FromInt32s([]int32{0, 1, -3, 2049, 65504, 65519, 65520, 1 << 30, math.MinInt32})
	defer i.Dispose()
	hi := e.Cast(i, tensor.Float16)
	defer hi.Dispose()
	h, err := hi.Uint16s(ctx)
	require.NoError(t, err)
	assert.Equal(t, tensor.Float16Bits([]float32{0, 1, -3, 2049, 65504, 65519, 65520, 1 << 30, math.MinInt32}), h)
	assert.Equal(t, uint16(0x7c00), h[6])
}

// Elementwise ops on half tensors compute in float32 and round the result
// to the dtype: the bits of Go's float32 arithmetic rounded, and of the
// float32 ops followed by a Cast; fused chains give the bits of the ops
// one by one; broadcasts through strides, odd and vec4 shapes.
func TestElementwiseOpsOnHalfTensors(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 10))
	for _, h := range halfDTypes {
		for _, shape := range [][]int{{3, 5}, {4, 8}, {1}, {2, 3, 7}} {
			n := shape[0] * shape[len(shape)-1]
			if len(shape) == 3 {
				n *= shape[1]
			}
			rows := n / shape[len(shape)-1]
			cols := shape[len(shape)-1]
			a, b := make([]uint16, n), make([]uint16, cols)
			for i := range a {
				a[i] = h.narrow(halfEdges(rng, 40)[rng.IntN(40)])
			}
			for i := range b {
				b[i] = h.narrow(float32(rng.NormFloat64()))
			}
			err := tidy.Do(e, func() error {
				x, y := fromBits(e, h.dtype, a, shape...), fromBits(e, h.dtype, b, cols)
				// Go's float32 arithmetic, rounded.
				for _, c := range []struct {
					name string
					op   func(x, y *tensor.Tensor) *tensor.Tensor
					ref  func(p, q float32) float32
				}{
					{"add", e.Add, func(p, q float32) float32 { return p + q }},
					{"mul", e.Mul, func(p, q float32) float32 { return p * q }},
					{"div", e.Div, func(p, q float32) float32 { return p / q }},
					{"sub", e.Sub, func(p, q float32) float32 { return p - q }},
				} {
					got, err := c.op(x, y).Uint16s(ctx)
					require.NoError(t, err)
					for r := range rows {
						for k := range cols {
							i := r*cols + k
							want := h.narrow(c.ref(h.widen(a[i]), h.widen(b[k])))
							if math.IsNaN(float64(h.widen(want))) {
								require.True(t, math.IsNaN(float64(h.widen(got[i]))), "%s %s %v at %d", h.dtype, c.name, shape, i)
								continue
							}
							require.Equal(t, want, got[i], "%s %s %v at %d: %g, %g", h.dtype, c.name, shape, i, h.widen(a[i]), h.widen(b[k]))
						}
					}
				}
				// Float32 ops, then a Cast: the same bits, fused or not.
				chain := func(x, y *tensor.Tensor) *tensor.Tensor {
					return e.Relu(e.Sub(e.Exp(e.Mul(e.Sigmoid(x), y)), e.Tanh(y)))
				}
				fused, err := chain(x, y).Uint16s(ctx)
				require.NoError(t, err)
				require.NoError(t, e.SetFusion(false))
				unfused, err := chain(x, y).Uint16s(ctx)
				require.NoError(t, e.SetFusion(true))
				require.NoError(t, err)
				require.Equal(t, unfused, fused, "fused and unfused")
				x32, y32 := e.Cast(x, tensor.Float32), e.Cast(y, tensor.Float32)
				// r rounds a float32 result to the dtype, and widens it back.
				r := func(t *tensor.Tensor) *tensor.Tensor { return e.Cast(e.Cast(t, h.dtype), tensor.Float32) }
				step := r(e.Relu(r(e.Sub(r(e.Exp(r(e.Mul(r(e.Sigmoid(x32)), y32)))), r(e.Tanh(y32))))))
				want, err := e.Cast(step, h.dtype).Uint16s(ctx)
				require.NoError(t, err)
				require.Equal(t, want, fused, "float32 ops each rounded to %s", h.dtype)
				// Comparisons are uint32; where keeps the dtype.
				less := e.Less(x, y)
				require.Equal(t, tensor.Uint32, less.DType())
				w := e.Where(less, x, y)
				require.Equal(t, h.dtype, w.DType())
				got, err := w.Uint16s(ctx)
				require.NoError(t, err)
				lt, err := less.Uint32s(ctx)
				require.NoError(t, err)
				for i := range a {
					want := b[i%cols]
					if lt[i] != 0 {
						want = a[i]
					}
					require.Equal(t, want, got[i])
				}
				return nil
			})
			require.NoError(t, err)
		}
	}
}

// Ops that do not take half tensors yet, and mixed dtypes, fail with an
// error naming the op and the dtypes, and leave nothing behind.
func TestHalfTensorsRefusedWhereNotTaken(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat16Bits(tensor.Float16Bits([]float32{1, 2, 3, 4}), 2, 2)
	f := e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
	bf := e.FromBFloat16Bits(tensor.BFloat16Bits([]float32{1, 2, 3, 4}), 2, 2)
	defer tidy.Dispose([]*tensor.Tensor{x, f, bf})
	idx := e.FromInt32s([]int32{1, 0})
	defer idx.Dispose()
	for name, y := range map[string]*tensor.Tensor{
		"matmul": e.MatMul(x, bf),
		"cumsum": e.Cumsum(x, 0, false, false),
	} {
		require.ErrorIs(t, y.Err(), tensor.ErrDType, name)
		require.ErrorContains(t, y.Err(), name)
		require.ErrorContains(t, y.Err(), "float16")
	}
	for _, y := range []*tensor.Tensor{e.Add(x, f), e.Mul(x, bf)} {
		require.ErrorIs(t, y.Err(), tensor.ErrDType)
		require.ErrorContains(t, y.Err(), "float16")
	}
	_, err := f.Uint16s(context.Background())
	require.ErrorIs(t, err, tensor.ErrDType)
	_, err = x.Int32s(context.Background())
	require.ErrorIs(t, err, tensor.ErrDType)
	require.ErrorIs(t, e.FromFloat16Bits([]uint16{1, 2, 3}, 2, 2).Err(), tensor.ErrShape)
}

// Creation ops make half tensors, rounded; Text prints them as float32's
// values with their dtype.
func TestHalfTensorsFromCreationOpsAndAsText(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	for _, h := range halfDTypes {
		err := tidy.Do(e, func() error {
			z, err := e.Zeros(h.dtype, 3).Uint16s(ctx)
			require.NoError(t, err)
			assert.Equal(t, []uint16{0, 0, 0}, z)
			f, err := e.Fill(h.dtype, 1.0/3, 5).Uint16s(ctx)
			require.NoError(t, err)
			want := h.narrow(float32(1.0 / 3))
			assert.Equal(t, []uint16{want, want, want, want, want}, f)
			// Range, and MaskedFill by every kind of mask: the float32 op, rounded.
			for _, c := range []struct {
				got, want *tensor.Tensor
			}{
				{e.Range(h.dtype, 0.1, 3, 0.3), e.Range(tensor.Float32, 0.1, 3, 0.3)},
				{e.MaskedFill(e.Range(h.dtype, 0, 4, 1), e.FromUint32s([]uint32{0, 1, 0, 1}), float32(math.Inf(-1))),
					e.MaskedFill(e.Range(tensor.Float32, 0, 4, 1), e.FromUint32s([]uint32{0, 1, 0, 1}), float32(math.Inf(-1)))},
				{e.MaskedFill(e.Range(h.dtype, 0, 4, 1), fromBits(e, h.dtype, []uint16{0, h.narrow(2), 0x8000, h.narrow(-1)}), 1.0/3),
					e.MaskedFill(e.Range(tensor.Float32, 0, 4, 1), e.FromFloat32s([]float32{0, 2, float32(math.Copysign(0, -1)), -1}), 1.0/3)},
			} {
				got, err := c.got.Uint16s(ctx)
				require.NoError(t, err)
				want, err := e.Cast(c.want, h.dtype).Uint16s(ctx)
				require.NoError(t, err)
				require.Equal(t, want, got, "%s", h.dtype)
			}
			x := fromBits(e, h.dtype, []uint16{h.narrow(1), h.narrow(2.5), h.narrow(float32(math.Copysign(0, -1)))}, 3)
			text, err := x.Text(ctx)
			require.NoError(t, err)
			ref, err := e.Cast(x, tensor.Float32).Text(ctx)
			require.NoError(t, err)
			assert.Equal(t, strings.Replace(ref, "float32", h.dtype.String(), 1), text)
			return nil
		})
		require.NoError(t, err)
	}
}

// Float32 values rounded to float16 on the host, as Cast rounds them.
func ExampleFloat16Bits() {
	fmt.Printf("%#04x\n", tensor.Float16Bits([]float32{1, 0.1, 65504, 65520, -2e-8}))
	fmt.Println(tensor.Float16Values([]uint16{0x3c00, 0x2e66, 0x7bff, 0x7c00, 0x8000}))
	// Output:
	// [0x3c00 0x2e66 0x7bff 0x7c00 0x8000]
	// [1 0.099975586 65504 +Inf -0]
}

// A float16 tensor holds half the bytes of a float32 one; its ops compute
// in float32 and round.
func ExampleEngine_FromFloat16Bits() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	x := e.FromFloat16Bits(tensor.Float16Bits([]float32{1, 2, 3, 1000}), 4)
	y := e.Mul(x, x) // float16: 1000² is past 65,504
	v, err := y.Float32s(ctx)
	fmt.Println(y.DType(), v, err)
	fmt.Println(e.Memory().Bytes) // two tensors of 4 elements, 8 bytes each
	x.Dispose()
	y.Dispose()
	// Output:
	// float16 [1 4 9 +Inf] <nil>
	// 16
}

// Memory reports say what each dtype holds: ByDType, Summary, Snapshot,
// and the pprof profile's dtype labels; half tensors hold half the bytes.
func TestMemoryReportsByDType(t *testing.T) {
	e := testgpu.Engine(t)
	f := e.Zeros(tensor.Float32, 1000)
	h := e.Zeros(tensor.Float16, 1000)
	v := e.Reshape(h, 10, 100) // a view: its storage counted once
	b := e.Zeros(tensor.BFloat16, 3)
	defer tidy.Dispose([]*tensor.Tensor{f, h, v, b})
	by := e.ByDType()
	require.Equal(t, []tensor.DTypeSummary{
		{DType: tensor.Float32, Tensors: 1, Storages: 1, Bytes: 4000},
		{DType: tensor.Float16, Tensors: 2, Storages: 1, Bytes: 2000},
		{DType: tensor.BFloat16, Tensors: 1, Storages: 1, Bytes: 8},
	}, by)
	var sum uint64
	for _, d := range by {
		sum += d.Bytes
	}
	require.Equal(t, e.Memory().Bytes, sum)

	var s strings.Builder
	require.NoError(t, e.Summary(&s))
	require.Contains(t, s.String(), "float16")
	require.Contains(t, s.String(), "1.95 KiB")
	snap := e.Snapshot()
	require.Equal(t, []tensor.SnapshotDType{{"float32", 1, 1, 4000}, {"float16", 2, 1, 2000}, {"bfloat16", 1, 1, 8}}, snap.DTypes)

	var pb bytes.Buffer
	require.NoError(t, e.WriteProfile(&pb))
	p, err := profile.Parse(&pb)
	require.NoError(t, err)
	bytesOf := map[string]int64{}
	for _, smp := range p.Sample {
		bytesOf[smp.Label["dtype"][0]] += smp.Value[1]
	}
	require.Equal(t, int64(2*2000), bytesOf["float16"], "each tensor counts its storage's bytes in the profile, views too")
	require.Equal(t, int64(8), bytesOf["bfloat16"])
}

// Shape ops copy half tensors element by element, mid-word offsets and odd
// sizes included: the bits of the same ops on float32, narrowed.
func TestShapeOpsOnHalfTensors(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, h := range halfDTypes {
		mk := func(shape ...int) *tensor.Tensor { return randomHalf(e, rng, h.dtype, h.narrow, 100, shape...) }
		err := tidy.Do(e, func() error {
			x, y, z := mk(3, 5, 7), mk(3, 2, 7), mk(3, 5, 7)
			for name, op := range map[string]func(f func(*tensor.Tensor) *tensor.Tensor, x, y, z *tensor.Tensor) *tensor.Tensor{
				"transpose": func(f func(*tensor.Tensor) *tensor.Tensor, x, y, z *tensor.Tensor) *tensor.Tensor {
					return e.Transpose(f(x), 2, 0, 1)
				},
				"slice": func(f func(*tensor.Tensor) *tensor.Tensor, x, y, z *tensor.Tensor) *tensor.Tensor {
					return e.Slice(f(x), []int{1, 1, 3}, []int{2, 3, 3})
				},
				"concat": func(f func(*tensor.Tensor) *tensor.Tensor, x, y, z *tensor.Tensor) *tensor.Tensor {
					return e.Concat(1, f(x), f(y), f(x))
				},
				"stack": func(f func(*tensor.Tensor) *tensor.Tensor, x, y, z *tensor.Tensor) *tensor.Tensor {
					return e.Stack(2, f(x), f(z))
				},
				"split": func(f func(*tensor.Tensor) *tensor.Tensor, x, y, z *tensor.Tensor) *tensor.Tensor {
					return e.Split(f(x), 2, 3, 1, 3)[1]
				},
				"pad": func(f func(*tensor.Tensor) *tensor.Tensor, x, y, z *tensor.Tensor) *tensor.Tensor {
					return e.Pad(f(y), [][2]int{{0, 1}, {1, 0}, {2, 1}}, 1.0/3)
				},
				"broadcast_to": func(f func(*tensor.Tensor) *tensor.Tensor, x, y, z *tensor.Tensor) *tensor.Tensor {
					return e.BroadcastTo(e.Slice(f(x), []int{0, 0, 0}, []int{1, 5, 1}), 3, 5, 3)
				},
				"copy": func(f func(*tensor.Tensor) *tensor.Tensor, x, y, z *tensor.Tensor) *tensor.Tensor {
					return e.Copy(f(x))
				},
			} {
				same := func(t *tensor.Tensor) *tensor.Tensor { return t }
				wide := func(t *tensor.Tensor) *tensor.Tensor { return e.Cast(t, tensor.Float32) }
				got := op(same, x, y, z)
				require.Equal(t, h.dtype, got.DType(), name)
				bits, err := got.Uint16s(ctx)
				require.NoError(t, err, name)
				want, err := e.Cast(op(wide, x, y, z), h.dtype).Uint16s(ctx)
				require.NoError(t, err, name)
				require.Equal(t, want, bits, "%s %s", h.dtype, name)
			}
			return nil
		})
		require.NoError(t, err)
	}
}

// Reductions of half tensors accumulate in float32 and round the result
// (arg reductions give int32): the bits of the same reduction of the
// float32 values, rounded; rows by a thread, by a workgroup, in segments,
// along leading and scattered axes.
func TestReductionsOfHalfTensors(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 14))
	for _, h := range halfDTypes {
		for _, c := range []struct {
			shape []int
			axes  []int
		}{
			{[]int{3, 5}, []int{1}},
			{[]int{3, 5}, []int{0}},
			{[]int{2, 3000}, []int{1}},
			{[]int{4, 3, 5}, []int{0, 2}},
			{[]int{1, 70001}, []int{1}},
		} {
			n := 1
			for _, d := range c.shape {
				n *= d
			}
			bits := make([]uint16, n)
			for i := range bits {
				bits[i] = h.narrow(float32(rng.NormFloat64()))
			}
			err := tidy.Do(e, func() error {
				x := fromBits(e, h.dtype, bits, c.shape...)
				x32 := e.Cast(x, tensor.Float32)
				for name, op := range map[string]func(*tensor.Tensor) *tensor.Tensor{
					"sum":  func(t *tensor.Tensor) *tensor.Tensor { return e.Sum(t, false, c.axes...) },
					"mean": func(t *tensor.Tensor) *tensor.Tensor { return e.Mean(t, true, c.axes...) },
					"max":  func(t *tensor.Tensor) *tensor.Tensor { return e.Max(t, false, c.axes...) },
					"min":  func(t *tensor.Tensor) *tensor.Tensor { return e.Min(t, false, c.axes...) },
				} {
					got := op(x)
					require.Equal(t, h.dtype, got.DType(), name)
					g, err := got.Uint16s(ctx)
					require.NoError(t, err, "%s %v", name, c.shape)
					want, err := e.Cast(op(x32), h.dtype).Uint16s(ctx)
					require.NoError(t, err)
					require.Equal(t, want, g, "%s %s of %v over %v", h.dtype, name, c.shape, c.axes)
				}
				if len(c.axes) == 1 {
					got, err := e.ArgMax(x, c.axes[0]).Int32s(ctx)
					require.NoError(t, err)
					want, err := e.ArgMax(x32, c.axes[0]).Int32s(ctx)
					require.NoError(t, err)
					require.Equal(t, want, got, "%s argmax of %v", h.dtype, c.shape)
				}
				return nil
			})
			require.NoError(t, err)
		}
	}
}

// halfProducts are the products the half tests take: transposes, a batch,
// small and large shapes, the Vec4 kernel's shapes, and an inner
// dimension summed over several dispatches.
var halfProducts = []struct {
	a, b   []int
	ta, tb bool
}{
	{[]int{3, 5}, []int{5, 7}, false, false},
	{[]int{5, 3}, []int{7, 5}, true, true},
	{[]int{2, 65, 33}, []int{33, 70}, false, false},
	{[]int{130, 40}, []int{130, 66}, true, false},
	{[]int{2, 20000}, []int{20000, 3}, false, false},
	{[]int{64, 128}, []int{96, 128}, false, true}, // the Vec4 kernel's shapes
	{[]int{128, 64}, []int{128, 96}, true, false},
	{[]int{2, 36, 128}, []int{128, 132}, false, false},
}

// Products of half tensors sum in float32 and round the result: the bits
// of the product of the float32 values, rounded; transposes, a batch,
// small and large shapes, and an inner dimension summed over several
// dispatches.
func TestMatMulOfHalfTensors(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(15, 16))
	for _, h := range halfDTypes {
		for _, c := range halfProducts {
			err := tidy.Do(e, func() error {
				a, b := randomHalf(e, rng, h.dtype, h.narrow, 1, c.a...), randomHalf(e, rng, h.dtype, h.narrow, 1, c.b...)
				y := e.MatMulT(a, b, c.ta, c.tb)
				require.Equal(t, h.dtype, y.DType())
				got, err := y.Uint16s(ctx)
				require.NoError(t, err)
				want, err := e.Cast(e.MatMulT(e.Cast(a, tensor.Float32), e.Cast(b, tensor.Float32), c.ta, c.tb), h.dtype).Uint16s(ctx)
				require.NoError(t, err)
				require.Equal(t, want, got, "%s %v·%v", h.dtype, c.a, c.b)
				return nil
			})
			require.NoError(t, err)
		}
	}
}

// Softmax and LogSoftmax of half tensors compute in float32 and round:
// the bits of the float32 op on the values, rounded; rows by a thread, by
// a workgroup, along a leading axis, and longer than a workgroup takes.
func TestSoftmaxOfHalfTensors(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(17, 18))
	for _, h := range halfDTypes {
		for _, c := range []struct {
			shape []int
			axis  int
		}{{[]int{3, 5}, -1}, {[]int{2, 3000}, 1}, {[]int{5, 3}, 0}, {[]int{1, 70001}, 1}} {
			n := 1
			for _, d := range c.shape {
				n *= d
			}
			bits := make([]uint16, n)
			for i := range bits {
				bits[i] = h.narrow(float32(rng.NormFloat64() * 4))
			}
			err := tidy.Do(e, func() error {
				x := fromBits(e, h.dtype, bits, c.shape...)
				x32 := e.Cast(x, tensor.Float32)
				for _, log := range []bool{false, true} {
					op := e.Softmax
					if log {
						op = e.LogSoftmax
					}
					y := op(x, c.axis)
					require.Equal(t, h.dtype, y.DType())
					got, err := y.Uint16s(ctx)
					require.NoError(t, err)
					want, err := e.Cast(op(x32, c.axis), h.dtype).Uint16s(ctx)
					require.NoError(t, err)
					require.Equal(t, want, got, "%s softmax (log %v) of %v along %d", h.dtype, log, c.shape, c.axis)
				}
				return nil
			})
			require.NoError(t, err)
		}
	}
}

// Gather picks half elements as they are (mid-word ones included), and
// zeros for indices out of range, as for float32.
func TestGatherOfHalfTensors(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(19, 20))
	for _, h := range halfDTypes {
		bits := make([]uint16, 7*5*3)
		for i := range bits {
			bits[i] = h.narrow(float32(rng.NormFloat64()))
		}
		err := tidy.Do(e, func() error {
			x := fromBits(e, h.dtype, bits, 7, 5, 3)
			idx := e.FromInt32s([]int32{4, -1, 0, 9, 2, 2, 3}, 7)
			for axis := range 3 {
				if axis == 2 {
					idx = e.FromInt32s([]int32{2, 0, -3, 1, 5})
				}
				got, err := e.Gather(x, idx, axis).Uint16s(ctx)
				require.NoError(t, err)
				want, err := e.Cast(e.Gather(e.Cast(x, tensor.Float32), idx, axis), h.dtype).Uint16s(ctx)
				require.NoError(t, err)
				require.Equal(t, want, got, "%s gather along %d", h.dtype, axis)
			}
			return nil
		})
		require.NoError(t, err)
	}
}

// LayerNorm of half tensors (x, gamma and beta of one half dtype) computes
// in float32 and rounds: the float32 op's bits on the values, rounded;
// odd and even rows. Its gradient does not take them.
func TestLayerNormOfHalfTensors(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(21, 22))
	for _, h := range halfDTypes {
		for _, shape := range [][]int{{3, 5}, {4, 64}, {2, 3, 7}} {
			n := shape[len(shape)-1]
			size := 1
			for _, d := range shape {
				size *= d
			}
			mk := func(k int, scale float64) []uint16 {
				b := make([]uint16, k)
				for i := range b {
					b[i] = h.narrow(float32(rng.NormFloat64() * scale))
				}
				return b
			}
			err := tidy.Do(e, func() error {
				x, g, b := fromBits(e, h.dtype, mk(size, 3), shape...), fromBits(e, h.dtype, mk(n, 1), n), fromBits(e, h.dtype, mk(n, 1), n)
				y := e.LayerNorm(x, g, b, 1e-5)
				require.Equal(t, h.dtype, y.DType())
				got, err := y.Uint16s(ctx)
				require.NoError(t, err)
				f := func(t *tensor.Tensor) *tensor.Tensor { return e.Cast(t, tensor.Float32) }
				want, err := e.Cast(e.LayerNorm(f(x), f(g), f(b), 1e-5), h.dtype).Uint16s(ctx)
				require.NoError(t, err)
				require.Equal(t, want, got, "%s layer norm of %v", h.dtype, shape)
				_, _, db := e.LayerNormGrad(x, g, x, 1e-5)
				require.ErrorIs(t, db.Err(), tensor.ErrDType)
				mixed := e.LayerNorm(x, f(g), b, 1e-5)
				require.ErrorIs(t, mixed.Err(), tensor.ErrDType)
				return nil
			})
			require.NoError(t, err)
		}
	}
}

// Attention of half tensors takes the composed path (products, softmax,
// masks in the operands' dtype): close to the float32 attention of the
// same values, with a causal mask, an additive float32 mask, merged heads
// and a packed projection.
func TestAttentionOfHalfTensors(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(23, 24))
	for _, h := range halfDTypes {
		tol := 0.01
		if h.dtype == tensor.BFloat16 {
			tol = 0.06
		}
		mk := func(shape ...int) *tensor.Tensor { return randomHalf(e, rng, h.dtype, h.narrow, 1, shape...) }
		err := tidy.Do(e, func() error {
			mask := e.FromFloat32s([]float32{0, -1, -2, 0, 0, -0.5, 0, 0, 0}, 3, 3)
			for name, c := range map[string]struct {
				q, k, v *tensor.Tensor
				opt     tensor.AttentionOptions
				packed  bool
			}{
				"causal": {mk(2, 2, 3, 8), mk(2, 2, 3, 8), mk(2, 2, 3, 8), tensor.AttentionOptions{Causal: true}, false},
				"mask":   {mk(2, 2, 3, 8), mk(2, 2, 3, 8), mk(2, 2, 3, 8), tensor.AttentionOptions{Mask: mask}, false},
				"heads":  {mk(2, 3, 16), mk(2, 3, 16), mk(2, 3, 16), tensor.AttentionOptions{Heads: 2, Causal: true}, false},
				"packed": {mk(2, 3, 48), nil, nil, tensor.AttentionOptions{Heads: 2}, true},
			} {
				f := func(t *tensor.Tensor) *tensor.Tensor { return e.Cast(t, tensor.Float32) }
				var got, want *tensor.Tensor
				if c.packed {
					got = e.ScaledDotProductAttentionPacked(c.q, c.opt)
					want = e.ScaledDotProductAttentionPacked(f(c.q), c.opt)
				} else {
					got = e.ScaledDotProductAttention(c.q, c.k, c.v, c.opt)
					want = e.ScaledDotProductAttention(f(c.q), f(c.k), f(c.v), c.opt)
				}
				require.NoError(t, got.Err(), name)
				require.Equal(t, h.dtype, got.DType(), name)
				gv, err := got.Float32s(ctx)
				require.NoError(t, err)
				wv, err := want.Float32s(ctx)
				require.NoError(t, err)
				for i := range wv {
					require.InDelta(t, wv[i], gv[i], tol*math.Max(1, math.Abs(float64(wv[i]))), "%s %s element %d", h.dtype, name, i)
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
}

// Conv2D of float16 and bfloat16 images and filters sums in float32 and
// rounds: the bits of the float32 convolution of the values, rounded; on
// the Vec4 kernel (channels by fours), the scalar one reading B by vec4s,
// the scalar one, with groups, strides and padding.
func TestConv2DOfHalfTensors(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(41, 42))
	for _, h := range halfDTypes {
		for _, c := range narrowConvs {
			err := tidy.Do(e, func() error {
				x, f := randomHalf(e, rng, h.dtype, h.narrow, 1, c.x...), randomHalf(e, rng, h.dtype, h.narrow, 1, c.f...)
				y := e.Conv2D(x, f, c.o)
				require.NoError(t, y.Err())
				require.Equal(t, h.dtype, y.DType())
				got, err := y.Uint16s(ctx)
				require.NoError(t, err)
				want, err := e.Cast(e.Conv2D(e.Cast(x, tensor.Float32), e.Cast(f, tensor.Float32), c.o), h.dtype).Uint16s(ctx)
				require.NoError(t, err)
				require.Equal(t, want, got, "%s %v * %v", h.dtype, c.x, c.f)
				// Mixed dtypes fail naming both.
				bad := e.Conv2D(e.Cast(x, tensor.Float32), f, c.o)
				require.ErrorIs(t, bad.Err(), tensor.ErrDType)
				require.ErrorContains(t, bad.Err(), h.dtype.String())
				return nil
			})
			require.NoError(t, err)
		}
	}
}

// Pooling float16 and bfloat16 tensors gives the bits of the float32
// pooling of the values, rounded (the maximum exact): windows with
// padding and strides, channels by fours (the Vec4 kernel) and not.
func TestPoolingOfHalfTensors(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(43, 44))
	for _, h := range halfDTypes {
		for _, shape := range [][]int{{2, 7, 6, 4}, {1, 5, 5, 3}} {
			n := shape[0] * shape[1] * shape[2] * shape[3]
			bits := make([]uint16, n)
			for i := range bits {
				bits[i] = h.narrow(float32(rng.NormFloat64() * 10))
			}
			err := tidy.Do(e, func() error {
				x := fromBits(e, h.dtype, bits, shape...)
				for _, o := range []tensor.Pool2DOptions{{Window: [2]int{2, 2}}, {Window: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: tensor.Same()}} {
					for name, f := range map[string]func(*tensor.Tensor, tensor.Pool2DOptions) *tensor.Tensor{"max": e.MaxPool2D, "avg": e.AvgPool2D} {
						y := f(x, o)
						require.NoError(t, y.Err())
						require.Equal(t, h.dtype, y.DType())
						got, err := y.Uint16s(ctx)
						require.NoError(t, err)
						want, err := e.Cast(f(e.Cast(x, tensor.Float32), o), h.dtype).Uint16s(ctx)
						require.NoError(t, err)
						require.Equal(t, want, got, "%s %s pool of %v, %+v", h.dtype, name, shape, o)
					}
				}
				return nil
			})
			require.NoError(t, err)
		}
	}
}

// A float32 operand times a half one, either side, is the float32 product
// of their values, bit for bit: every transpose, odd shapes, the Vec4
// kernel's, a batch, an inner dimension summed over several dispatches,
// and with an epilogue.
func TestMatMulOfFloat32AndHalf(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(21, 22))
	for _, h := range halfDTypes {
		for _, c := range halfProducts {
			for _, narrowA := range []bool{true, false} {
				err := tidy.Do(e, func() error {
					a, b := randomHalf(e, rng, h.dtype, h.narrow, 1, c.a...), randomHalf(e, rng, h.dtype, h.narrow, 1, c.b...)
					a32, b32 := e.Cast(a, tensor.Float32), e.Cast(b, tensor.Float32)
					x, y := a, b32
					if !narrowA {
						x, y = a32, b
					}
					p := e.MatMulT(x, y, c.ta, c.tb)
					require.Equal(t, tensor.Float32, p.DType())
					got, err := p.Float32s(ctx)
					require.NoError(t, err)
					want, err := e.MatMulT(a32, b32, c.ta, c.tb).Float32s(ctx)
					require.NoError(t, err)
					require.Equal(t, want, got, "%s %v·%v, the narrow one A: %v", h.dtype, c.a, c.b, narrowA)
					bias := e.Cast(randomHalf(e, rng, h.dtype, h.narrow, 1, p.Shape()[p.Rank()-1]), tensor.Float32)
					got, err = e.Relu(e.Add(e.MatMulT(x, y, c.ta, c.tb), bias)).Float32s(ctx)
					require.NoError(t, err)
					want, err = e.Relu(e.Add(e.MatMulT(a32, b32, c.ta, c.tb), bias)).Float32s(ctx)
					require.NoError(t, err)
					require.Equal(t, want, got, "with an epilogue: %s %v·%v", h.dtype, c.a, c.b)
					return nil
				})
				require.NoError(t, err)
			}
		}
	}
	// The pairs it does not take, named.
	err := tidy.Do(e, func() error {
		f16, bf16 := e.Zeros(tensor.Float16, 2, 2), e.Zeros(tensor.BFloat16, 2, 2)
		q := e.FromInt8s([]int8{1, 2, 3, 4}, 2, 2)
		for _, pair := range [][2]*tensor.Tensor{{f16, bf16}, {f16, q}, {q, e.Zeros(tensor.Float32, 2, 2)}} {
			err := e.MatMul(pair[0], pair[1]).Err()
			require.ErrorIs(t, err, tensor.ErrDType)
			assert.ErrorContains(t, err, fmt.Sprintf("got %s and %s", pair[0].DType(), pair[1].DType()))
		}
		return nil
	})
	require.NoError(t, err)
}
