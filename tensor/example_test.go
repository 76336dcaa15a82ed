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
	d, err := wgpu.Open(ctx, wgpu.Options{})
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
	d, err := wgpu.Open(ctx, wgpu.Options{})
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

// Elementwise ops are fused: a chain of them runs as one kernel, reading
// its inputs once. The results are those of the unfused ops, bit for bit.
func ExampleEngine_SetFusion() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	for _, fuse := range []bool{true, false} {
		e := tensor.New(d)
		_ = e.SetFusion(fuse)
		a := e.FromFloat32s([]float32{1, -2, 3})
		b := e.FromFloat32s([]float32{2, 2, -1})
		before := d.Stats().Dispatches
		p := e.Mul(a, b)
		s := e.Add(p, a)
		y := e.Relu(s) // relu(a*b + a)
		v, _ := y.Float32s(ctx)
		fmt.Printf("fusion %v: %v in %d dispatches\n", fuse, v, d.Stats().Dispatches-before)
		for _, t := range []*tensor.Tensor{a, b, p, s, y} {
			t.Dispose()
		}
	}
	// Output:
	// fusion true: [3 0 0] in 1 dispatches
	// fusion false: [3 0 0] in 3 dispatches
}

// ReadInto reads a tensor back into a slice the caller reuses, so that a
// loop reading large results allocates nothing.
func ExampleReadInto() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	buf := make([]float32, 4)
	for step := range 3 {
		x := e.Range(tensor.Float32, float64(step), float64(step+4), 1)
		if err := tensor.ReadInto(ctx, x, buf); err != nil {
			fmt.Println(err)
		}
		x.Dispose()
		fmt.Println(buf)
	}
	// Output:
	// [0 1 2 3]
	// [1 2 3 4]
	// [2 3 4 5]
}
