package optim_test

import (
	"context"
	"fmt"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// An optimizer updates named parameters in place, one kernel each, and
// keeps its state under the parameters' names until Dispose.
func ExampleAdam() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)

	w := e.FromFloat32s([]float32{1, -2, 3}, 3)
	params := []optim.Param{{Name: "0.weight", T: w}}
	opt, err := optim.NewAdam(e, params, optim.AdamConfig{LR: 0.1, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
	if err != nil {
		fmt.Println(err)
		return
	}
	for step := range 2 {
		opt.LR = 0.1 / float64(step+1) // a schedule: no kernel is compiled again
		_, err := tidy.Run(e, func() (struct{}, error) {
			grad := e.FromFloat32s([]float32{0.5, -1, 0}, 3)
			return struct{}{}, opt.Step([]*tensor.Tensor{grad})
		})
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	v, _ := w.Float32s(ctx)
	fmt.Printf("%.2f version %d\n", v, w.Version())
	for _, s := range opt.State() {
		fmt.Println(s.Name, s.T.Shape())
	}
	opt.Dispose()
	w.Dispose()
	fmt.Println("live tensors:", e.NumTensors())
	// Output:
	// [0.85 -1.85 3.00] version 2
	// 0.weight.exp_avg [3]
	// 0.weight.exp_avg_sq [3]
	// live tensors: 0
}
