package tensor_test

import (
	"context"
	"fmt"
	"math"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Max and average pooling of a 4x4 single-channel image by 2x2 windows,
// and the gradient of the max pooling.
func ExampleEngine_MaxPool2D() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	err = tidy.Do(e, func() error {
		x := e.FromFloat32s([]float32{
			1, 2, 5, 6,
			3, 4, 8, 7,
			0, 0, 1, 1,
			0, 9, 1, 1,
		}, 1, 4, 4, 1) // NHWC
		o := tensor.Pool2DOptions{Window: [2]int{2, 2}} // stride defaults to the window
		mx, _ := e.MaxPool2D(x, o).Float32s(ctx)
		avg, _ := e.AvgPool2D(x, o).Float32s(ctx)
		g, err := e.MaxPool2DGrad(x, e.Ones(tensor.Float32, 1, 2, 2, 1), o).Float32s(ctx)
		fmt.Println("max:", mx)
		fmt.Println("avg:", avg)
		fmt.Println("max grad:", g)
		return err
	})
	fmt.Println(err, e.NumTensors())
	// Output:
	// max: [4 8 9 1]
	// avg: [2.5 6.5 2.25 1]
	// max grad: [0 0 0 0 0 1 1 0 0 0 1 0 0 1 0 0]
	// <nil> 0
}

// One-hot rows of class labels; an index out of range gives a row of off.
func ExampleEngine_OneHot() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	labels := e.FromInt32s([]int32{2, 0, 5}, 3)
	hot := e.OneHot(labels, 3, 1, 0)
	v, err := hot.Float32s(ctx)
	fmt.Println(hot.Shape(), v, err)
	tidy.Dispose([]*tensor.Tensor{labels, hot})
	// Output:
	// [3 3] [0 0 1 1 0 0 0 0 0] <nil>
}

// Cumulative sums along the last axis: inclusive, exclusive and reversed.
func ExampleEngine_Cumsum() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	x := e.FromFloat32s([]float32{1, 2, 3, 4}, 4)
	defer x.Dispose()
	for _, c := range []struct{ exclusive, reverse bool }{{false, false}, {true, false}, {false, true}} {
		y := e.Cumsum(x, -1, c.exclusive, c.reverse)
		v, _ := y.Float32s(ctx)
		fmt.Printf("exclusive %v reverse %v: %v\n", c.exclusive, c.reverse, v)
		y.Dispose()
	}
	// Output:
	// exclusive false reverse false: [1 3 6 10]
	// exclusive true reverse false: [0 1 3 6]
	// exclusive false reverse true: [10 9 7 4]
}

// The two largest scores of each row and their positions; ties keep the
// lower position first.
func ExampleEngine_TopK() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	scores := e.FromFloat32s([]float32{
		0.1, 0.7, 0.2,
		0.5, 0.1, 0.5,
	}, 2, 3)
	vals, idx := e.TopK(scores, 2)
	v, _ := vals.Float32s(ctx)
	i, err := idx.Int32s(ctx)
	fmt.Println(vals.Shape(), v, i, err)
	tidy.Dispose([]*tensor.Tensor{scores, vals, idx})
	// Output:
	// [2 2] [0.7 0.2 0.5 0.5] [1 2 0 2] <nil>
}

// Layer normalisation of each row, scaled by gamma and shifted by beta: a
// constant row normalises to beta.
func ExampleEngine_LayerNorm() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	x := e.FromFloat32s([]float32{1, 2, 3, 4, 10, 10, 10, 10}, 2, 4)
	gamma := e.FromFloat32s([]float32{1, 1, 2, 2}, 4)
	beta := e.FromFloat32s([]float32{0, 0, 0, 1}, 4)
	y := e.LayerNorm(x, gamma, beta, 1e-5)
	v, err := y.Float32s(ctx)
	for i := range v {
		v[i] = float32(math.Round(float64(v[i])*1000) / 1000)
	}
	fmt.Println(v, err)
	tidy.Dispose([]*tensor.Tensor{x, gamma, beta, y})
	// Output:
	// [-1.342 -0.447 0.894 3.683 0 0 0 1] <nil>
}
