package tensor_test

import (
	"context"
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Creating tensors, running a chain of ops, reading the result back and
// disposing everything.
func Example() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{Adapter: "llvmpipe"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)

	x := e.FromFloat32s([]float32{1, -2, 3, -4, 5, -6}, 2, 3)
	w := e.FromFloat32s([]float32{1, 0, 0, 1, 1, 1}, 3, 2)
	bias := e.FromFloat32s([]float32{0.5, -0.5}, 2)

	// relu(x·w + bias): the bias broadcasts over the rows.
	xw := e.MatMul(x, w)
	sum := e.Add(xw, bias)
	y := e.Relu(sum)
	total := e.Sum(y, false) // over every axis

	v, err := y.Float32s(ctx)
	fmt.Println(y.Shape(), v, err)
	t, _ := total.Float32s(ctx)
	fmt.Println("sum:", t)

	for _, t := range []*tensor.Tensor{x, w, bias, xw, sum, y, total} {
		t.Dispose()
	}
	fmt.Println("live tensors:", e.NumTensors())
	// Output:
	// [2 2] [4.5 0.5 0 0] <nil>
	// sum: [5]
	// live tensors: 0
}

// A failed op returns a tensor carrying the error; ops on it pass it on.
func ExampleOpError() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{Adapter: "llvmpipe"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	a := e.Zeros(tensor.Float32, 2, 3)
	b := e.Zeros(tensor.Float32, 4)
	defer a.Dispose()
	defer b.Dispose()

	c := e.Exp(e.Add(a, b))
	fmt.Println(c.Err())
	// Output:
	// tensor: add [2 3] [4]: shapes do not broadcast: dimension -1 is 3 in one shape and 4 in another: shape mismatch
}
