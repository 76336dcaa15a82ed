package tensor_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Profile runs a function and reports every kernel it dispatched: calls,
// time, bytes and memory, as a table sorted by time (WriteTable) and as a
// trace for Perfetto (WriteTrace). Fusion stays on: the fused program is
// named by its ops. (Times vary from run to run, so this prints only the
// kernels and their calls.)
func ExampleEngine_Profile() {
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
	defer x.Dispose()
	defer w.Dispose()

	p, err := e.Profile(ctx, func() error {
		xw := e.MatMul(x, w)
		y := e.Relu(e.Add(xw, xw)) // add and relu run in the product's kernel
		defer xw.Dispose()
		defer y.Dispose()
		_, err := y.Float32s(ctx)
		return err
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = p.WriteTable(io.Discard) // or os.Stdout
	_ = p.WriteTrace(io.Discard) // or a file that ui.perfetto.dev opens

	kernels := slices.Clone(p.Kernels)
	slices.SortFunc(kernels, func(a, b tensor.KernelStats) int { return strings.Compare(a.Name, b.Name) })
	for _, k := range kernels {
		fmt.Printf("%s: %d call(s), fused %v, ops %v\n", k.Name, k.Calls, k.Fused(), k.Ops)
	}
	fmt.Println("dispatches:", len(p.Dispatches))
	// Output:
	// matmul+add+relu: 1 call(s), fused true, ops [matmul add relu]
	// dispatches: 1
}
