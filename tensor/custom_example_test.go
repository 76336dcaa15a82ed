package tensor_test

import (
	"context"
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// cumsumRows is a kernel the library lacks: the running sum along each row
// of a matrix, one invocation per row. The uniform block is the launch
// header, then the caller's param, the row length.
var cumsumRows = tensor.Kernel{
	Name:      "cumsum_rows",
	Workgroup: 64,
	Source: `
struct Params { first: u32, end: u32, row: u32, threads: u32, cols: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let r = p.first + id.x + id.y * p.row; // this invocation's row
	if (r >= p.end) { return; }
	var acc = 0.0;
	for (var c = 0u; c < p.cols; c++) {
		acc += x[r * p.cols + c];
		y[r * p.cols + c] = acc;
	}
}`,
}

// RunKernel runs the caller's WGSL on tensors: inputs bound read-only,
// outputs allocated by the engine, params in a uniform block. The result
// is an ordinary tensor.
func ExampleEngine_RunKernel() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)

	x := e.FromFloat32s([]float32{1, 2, 3, 4, 5, 6, 7, 8}, 2, 4)
	rows, cols := x.Shape()[0], x.Shape()[1]
	res := e.RunKernel(cumsumRows, tensor.Launch{
		Inputs:  []*tensor.Tensor{x},
		Outputs: []tensor.Out{{Shape: x.Shape(), DType: tensor.Float32}},
		Threads: rows, // one invocation per row
		Params:  []any{uint32(cols)},
	})
	y := res[0]
	v, err := y.Float32s(ctx)
	fmt.Println(y.Shape(), v, err)

	// A mistake comes back as an error on the result, naming the kernel.
	bad := e.RunKernel(cumsumRows, tensor.Launch{Inputs: []*tensor.Tensor{x}, Threads: rows})
	fmt.Println(bad[0].Err())

	x.Dispose()
	y.Dispose()
	fmt.Println("live tensors:", e.NumTensors())
	// Output:
	// [2 4] [1 3 6 10 5 11 18 26] <nil>
	// tensor: kernel "cumsum_rows" [2 4]: no outputs and no InOut: a kernel writes at least one: bad argument
	// live tensors: 0
}
