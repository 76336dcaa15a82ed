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

// Parameter groups: AdamW with weight decay on the weights only, each
// group at its own rate, in one optimizer (so one checkpoint holds it).
func ExampleNewAdamWGroups() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)

	weight := e.FromFloat32s([]float32{1, -1, 2, -2}, 2, 2)
	bias := e.FromFloat32s([]float32{0.5, -0.5}, 2)
	decay := optim.AdamWDefaults()
	decay.LR = 0.1
	noDecay := decay
	noDecay.WeightDecay, noDecay.LR = 0, 0.01
	opt, err := optim.NewAdamWGroups(e, []optim.AdamGroup{
		{Params: []optim.Param{{Name: "0.weight", T: weight}}, Config: decay},
		{Params: []optim.Param{{Name: "0.bias", T: bias}}, Config: noDecay},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = tidy.Run(e, func() (struct{}, error) {
		gw := e.FromFloat32s([]float32{1, 1, 1, 1}, 2, 2)
		gb := e.FromFloat32s([]float32{1, 1}, 2)
		return struct{}{}, opt.Step([]*tensor.Tensor{gw, gb}) // in the order of opt.Params()
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = opt.SetLR(1, 0.02) // group 1 only: nothing is compiled
	w, _ := weight.Float32s(ctx)
	b, _ := bias.Float32s(ctx)
	fmt.Printf("weight %.3f\nbias %.3f\n", w, b)
	fmt.Println("groups:", opt.NumGroups(), "rates:", opt.GroupLR(0), opt.GroupLR(1))
	for _, s := range opt.State() {
		fmt.Println(s.Name)
	}
	_, err = optim.NewAdamWGroups(e, []optim.AdamGroup{
		{Params: []optim.Param{{Name: "0.weight", T: weight}}, Config: decay},
		{Params: []optim.Param{{Name: "0.weight", T: weight}}, Config: noDecay},
	})
	fmt.Println(err)
	opt.Dispose()
	weight.Dispose()
	bias.Dispose()
	// Output:
	// weight [0.899 -1.099 1.898 -2.098]
	// bias [0.490 -0.510]
	// groups: 2 rates: 0.1 0.02
	// 0.weight.exp_avg
	// 0.weight.exp_avg_sq
	// 0.bias.exp_avg
	// 0.bias.exp_avg_sq
	// optim: adamw: group 1: parameter "0.weight" is in group 0 too; a parameter belongs to one group: optim: invalid argument
}

// A linear warm-up then a cosine decay, applied to every group of an
// optimizer after each step; its state goes into a checkpoint's metadata.
func ExampleScheduler() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	w := e.Zeros(tensor.Float32, 4)
	defer w.Dispose()
	opt, err := optim.NewSGD(e, []optim.Param{{Name: "w", T: w}}, optim.SGDConfig{LR: 0.1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer opt.Dispose()

	sched, err := optim.NewScheduler(opt, optim.CosineLR{WarmupSteps: 2, TotalSteps: 6})
	if err != nil {
		fmt.Println(err)
		return
	}
	for step := range 6 {
		fmt.Printf("step %d: lr %.4f\n", step, opt.GroupLR(0))
		// ... opt.Step(grads) ...
		if err := sched.Step(); err != nil {
			fmt.Println(err)
			return
		}
	}
	state, _ := sched.MarshalText() // for checkpoint.SaveOptions.Metadata["lr_scheduler"]
	fmt.Println(string(state))

	cycle, _ := optim.NewScheduler(opt, optim.OneCycleLR{TotalSteps: 1})
	_ = cycle.Step()
	fmt.Println(cycle.Step())
	// Output:
	// step 0: lr 0.0000
	// step 1: lr 0.0500
	// step 2: lr 0.1000
	// step 3: lr 0.0854
	// step 4: lr 0.0500
	// step 5: lr 0.0146
	// {"schedule":"optim.CosineLR","step":6,"groups":[0],"bases":["0.1"]}
	// optim: scheduler: group 0: optim: one-cycle lr: tried to step 2 times; the total steps are 1: optim: the schedule has no step so far
}

// Clipping by the global norm, as torch.nn.utils.clip_grad_norm_: the
// norm stays on the device until it is read.
func ExampleClipGradNorm() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	_, err = tidy.Run(e, func() (struct{}, error) {
		a := e.FromFloat32s([]float32{3, 4}, 2)
		b := e.FromFloat32s([]float32{0, 0, 12}, 3)
		total, err := optim.ClipGradNorm(e, []*tensor.Tensor{a, nil, b}, 1.3, optim.ClipOptions{})
		if err != nil {
			return struct{}{}, err
		}
		n, _ := total.Float32s(ctx)
		va, _ := a.Float32s(ctx)
		vb, _ := b.Float32s(ctx)
		fmt.Printf("norm %.1f, clipped to %.2f %.2f\n", n[0], va, vb)
		return struct{}{}, nil
	})
	fmt.Println(err, "live tensors:", e.NumTensors())
	// Output:
	// norm 13.0, clipped to [0.30 0.40] [0.00 0.00 1.20]
	// <nil> live tensors: 0
}

// Gradient accumulation over micro-batches into persistent buffers, as
// PyTorch's .grad and zero_grad: no nested scopes, flat memory.
func ExampleAccumulator() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	w := e.FromFloat32s([]float32{1, 1}, 2)
	defer w.Dispose()
	params := []optim.Param{{Name: "w", T: w}}
	opt, _ := optim.NewSGD(e, params, optim.SGDConfig{LR: 0.5})
	defer opt.Dispose()
	acc, err := optim.NewAccumulator(e, params, optim.AccumulatorOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer acc.Dispose()

	for micro := range 4 { // each micro-batch's gradient, already divided by 4
		_, err := tidy.Run(e, func() (struct{}, error) {
			g := e.FromFloat32s([]float32{float32(micro) / 4, 0.25}, 2)
			return struct{}{}, acc.Add([]*tensor.Tensor{g}) // g is still the scope's
		})
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	grads, _ := acc.Grads()
	sum, _ := grads[0].Float32s(ctx)
	if err := opt.Step(grads); err != nil {
		fmt.Println(err)
		return
	}
	acc.Zero() // zero_grad: the next Add starts afresh
	v, _ := w.Float32s(ctx)
	fmt.Println("accumulated", sum, "weights", v, "live tensors:", e.NumTensors())
	// Output:
	// accumulated [1.5 1] weights [0.25 0.5] live tensors: 2
}
