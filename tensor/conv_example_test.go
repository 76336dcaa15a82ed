package tensor_test

import (
	"context"
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// A 2×2 filter of ones over a 3×3 image with one channel sums each 2×2
// window; with same padding and stride 2 the windows at the edges read
// zeros past the image. Layouts are TensorFlow's: NHWC images, HWIO
// filters.
func ExampleEngine_Conv2D() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)

	x := e.FromFloat32s([]float32{
		1, 2, 3,
		4, 5, 6,
		7, 8, 9,
	}, 1, 3, 3, 1)
	ones := e.Ones(tensor.Float32, 2, 2, 1, 1)
	valid := e.Conv2D(x, ones, tensor.Conv2DOptions{})
	same := e.Conv2D(x, ones, tensor.Conv2DOptions{Stride: [2]int{2, 2}, Padding: tensor.Same()})

	for _, y := range []*tensor.Tensor{valid, same} {
		v, err := y.Float32s(ctx)
		fmt.Println(y.Shape(), v, err)
	}
	for _, t := range []*tensor.Tensor{x, ones, valid, same} {
		t.Dispose()
	}
	// Output:
	// [1 2 2 1] [12 16 24 28] <nil>
	// [1 2 2 1] [12 9 15 9] <nil>
}
