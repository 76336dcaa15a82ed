package tensor_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

func TestTextFormatsLikeNumPy(t *testing.T) {
	e := testgpu.Engine(t)
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	negZero := float32(math.Copysign(0, -1))
	iota := func(dtype tensor.DType, shape ...int) *tensor.Tensor {
		flat := e.Range(dtype, 0, float64(tensor.Shape(shape).Size()), 1)
		defer flat.Dispose()
		return e.Reshape(flat, shape...)
	}
	for _, c := range []struct {
		name string
		make func() *tensor.Tensor
		want string
	}{
		{"int32 matrix", func() *tensor.Tensor { return e.FromInt32s([]int32{1, -2, 30, 4}, 2, 2) },
			"tensor([[ 1, -2],\n        [30,  4]], shape=[2 2], dtype=int32)"},
		{"uint32", func() *tensor.Tensor { return e.FromUint32s([]uint32{1, 10, 4294967295}, 3) },
			"tensor([         1,         10, 4294967295], shape=[3], dtype=uint32)"},
		{"whole floats", func() *tensor.Tensor { return e.FromFloat32s([]float32{1, -2, 300}, 3) },
			"tensor([  1.,  -2., 300.], shape=[3], dtype=float32)"},
		{"decimals", func() *tensor.Tensor { return e.FromFloat32s([]float32{0.5, -1.25, 3}, 3) },
			"tensor([ 0.5000, -1.2500,  3.0000], shape=[3], dtype=float32)"},
		{"scientific", func() *tensor.Tensor { return e.FromFloat32s([]float32{1e-5, 1.5}, 2) },
			"tensor([1.0000e-05, 1.5000e+00], shape=[2], dtype=float32)"},
		{"large", func() *tensor.Tensor { return e.FromFloat32s([]float32{1e9, 2}, 2) },
			"tensor([1.0000e+09, 2.0000e+00], shape=[2], dtype=float32)"},
		{"nan, inf and -0", func() *tensor.Tensor { return e.FromFloat32s([]float32{nan, inf, -inf, negZero, 2}, 5) },
			"tensor([ nan,  inf, -inf,  -0.,   2.], shape=[5], dtype=float32)"},
		{"nan among decimals", func() *tensor.Tensor { return e.FromFloat32s([]float32{nan, 0.5}, 2) },
			"tensor([   nan, 0.5000], shape=[2], dtype=float32)"},
		{"scalar", func() *tensor.Tensor { return e.Scalar(3.5) }, "tensor(3.5000, shape=[], dtype=float32)"},
		{"int scalar", func() *tensor.Tensor { return e.Fill(tensor.Int32, -7) }, "tensor(-7, shape=[], dtype=int32)"},
		{"empty", func() *tensor.Tensor { return e.Zeros(tensor.Float32, 0, 3) }, "tensor([], shape=[0 3], dtype=float32)"},
		{"3-d", func() *tensor.Tensor { return iota(tensor.Int32, 2, 2, 2) },
			"tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]], shape=[2 2 2], dtype=int32)"},
		{"pending op", func() *tensor.Tensor {
			x := e.FromFloat32s([]float32{1, 2}, 2)
			defer x.Dispose()
			return e.Add(x, x)
		}, "tensor([2., 4.], shape=[2], dtype=float32)"},
		{"1-d abbreviated", func() *tensor.Tensor { return iota(tensor.Int32, 2000) },
			"tensor([   0,    1,    2, ..., 1997, 1998, 1999], shape=[2000], dtype=int32)"},
		{"1,000 elements in full", func() *tensor.Tensor { return e.Zeros(tensor.Uint32, 1000) },
			"tensor([" + repeatJoin("0", 1000) + "], shape=[1000], dtype=uint32)"},
		{"2-d abbreviated", func() *tensor.Tensor { return iota(tensor.Float32, 200, 10) },
			"tensor([[   0.,    1.,    2., ...,    7.,    8.,    9.],\n" +
				"        [  10.,   11.,   12., ...,   17.,   18.,   19.],\n" +
				"        [  20.,   21.,   22., ...,   27.,   28.,   29.],\n" +
				"        ...,\n" +
				"        [1970., 1971., 1972., ..., 1977., 1978., 1979.],\n" +
				"        [1980., 1981., 1982., ..., 1987., 1988., 1989.],\n" +
				"        [1990., 1991., 1992., ..., 1997., 1998., 1999.]], shape=[200 10], dtype=float32)"},
		{"3-d abbreviated, short rows whole", func() *tensor.Tensor { return iota(tensor.Int32, 200, 2, 3) },
			"tensor([[[   0,    1,    2],\n         [   3,    4,    5]],\n\n" +
				"        [[   6,    7,    8],\n         [   9,   10,   11]],\n\n" +
				"        [[  12,   13,   14],\n         [  15,   16,   17]],\n\n" +
				"        ...,\n\n" +
				"        [[1182, 1183, 1184],\n         [1185, 1186, 1187]],\n\n" +
				"        [[1188, 1189, 1190],\n         [1191, 1192, 1193]],\n\n" +
				"        [[1194, 1195, 1196],\n         [1197, 1198, 1199]]], shape=[200 2 3], dtype=int32)"},
	} {
		x := c.make()
		got, err := x.Text(t.Context())
		x.Dispose()
		if assert.NoError(t, err, c.name) {
			assert.Equal(t, c.want, got, c.name)
		}
	}
}

func repeatJoin(s string, n int) string {
	out := s
	for range n - 1 {
		out += ", " + s
	}
	return out
}

// An abbreviated tensor reads back the elements shown, in as few runs as
// gaps of up to 1,024 skipped elements allow.
func TestTextReadsOnlyWhatItShows(t *testing.T) {
	for _, c := range []struct {
		shape tensor.Shape
		want  [][2]int
	}{
		{tensor.Shape{}, [][2]int{{0, 1}}},
		{tensor.Shape{0, 5}, nil},
		{tensor.Shape{1000}, [][2]int{{0, 1000}}},
		{tensor.Shape{1000000}, [][2]int{{0, 3}, {999997, 1000000}}},
		{tensor.Shape{1000, 1000}, [][2]int{{0, 3000}, {997000, 1000000}}},
		{tensor.Shape{10, 100000}, [][2]int{{0, 3}, {99997, 100003}, {199997, 200003}, {299997, 300000},
			{700000, 700003}, {799997, 800003}, {899997, 900003}, {999997, 1000000}}},
	} {
		assert.Equal(t, c.want, tensor.TextReads(c.shape), "%v", c.shape)
	}
}

func TestTextOfABadTensorIsAnError(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := t.Context()
	x := e.FromFloat32s([]float32{1, 2}, 2)
	x.Dispose()
	_, err := x.Text(ctx)
	assert.ErrorIs(t, err, tensor.ErrDisposed)

	a, b := e.Zeros(tensor.Float32, 2), e.Zeros(tensor.Float32, 3)
	defer a.Dispose()
	defer b.Dispose()
	bad := e.Add(a, b)
	_, err = bad.Text(ctx)
	assert.ErrorIs(t, err, tensor.ErrShape)
	assert.Equal(t, bad.Err(), err)

	_, err = (*tensor.Tensor)(nil).Text(ctx)
	assert.ErrorIs(t, err, tensor.ErrArgument)
	_, err = new(tensor.Tensor).Text(ctx)
	assert.ErrorIs(t, err, tensor.ErrArgument)

	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err = a.Text(done)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, fmt.Sprint(bad), "error: "+bad.Err().Error(), "String still prints the header alone")
}

// Printing a tensor's values.
func ExampleTensor_Text() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)

	x := e.FromFloat32s([]float32{1, -2.5, 3, float32(math.NaN()), float32(math.Inf(1)), 0}, 2, 3)
	defer x.Dispose()
	s, err := x.Text(ctx)
	fmt.Println(s, err)
	// Output:
	// tensor([[ 1.0000, -2.5000,  3.0000],
	//         [    nan,     inf,  0.0000]], shape=[2 3], dtype=float32) <nil>
}
