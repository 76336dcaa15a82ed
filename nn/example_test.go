package nn_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// A Sequential model, built from one root seed, trains with a tape and
// Adam, predicts in inference mode, and frees everything with Dispose.
func ExampleSequential() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)

	b := nn.NewBuilder(e, 42)
	model := nn.NewSequential(b.Linear(2, 16), nn.ReLU(), b.Dropout(0.1), b.Linear(16, 2))
	if err := b.Err(); err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range model.Params() {
		fmt.Println(p.Name, p.T.Shape())
	}

	// Tell apart points above and below the diagonal.
	x := e.FromFloat32s([]float32{0, 1, 1, 0, -1, 1, 1, -1, 0.5, 2, 2, 0.5}, 6, 2)
	labels := e.FromInt32s([]int32{1, 0, 1, 0, 1, 0}, 6)
	opt, err := optim.NewAdam(e, model.Params(), optim.AdamConfig{LR: 0.05, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
	if err != nil {
		fmt.Println(err)
		return
	}
	losses := make([]float32, 0, 50)
	for range 50 {
		l, err := tidy.Run(e, func() ([]float32, error) {
			tape := grad.NewTape(e) // disposed by the scope
			var l *tensor.Tensor
			if err := tape.Record(func() error {
				l = loss.SoftmaxCrossEntropy(e, model.Forward(x), labels, loss.Mean)
				return l.Err()
			}); err != nil {
				return nil, err
			}
			gs, err := tape.Gradients(l, nn.Tensors(model.Params()), nil)
			if err != nil {
				return nil, err
			}
			if err := opt.Step(gs); err != nil {
				return nil, err
			}
			return l.Float32s(ctx)
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		losses = append(losses, l[0])
	}
	fmt.Println("loss fell below a tenth:", losses[49] < losses[0]/10)

	model.SetTraining(false) // model.eval(): Dropout passes everything
	predicted, err := tidy.Run(e, func() ([]int32, error) {
		return e.ArgMax(model.Forward(x), 1).Int32s(ctx)
	})
	fmt.Println("predicted:", predicted, err)

	opt.Dispose()
	model.Dispose()
	x.Dispose()
	labels.Dispose()
	fmt.Println("live tensors:", e.NumTensors())
	// Output:
	// 0.weight [16 2]
	// 0.bias [16]
	// 3.weight [2 16]
	// 3.bias [2]
	// loss fell below a tenth: true
	// predicted: [1 0 1 0 1 0] <nil>
	// live tensors: 0
}

// One model in inference mode serves goroutines that each compute on their
// own engine: Forward runs on its input's engine, and only reads the model.
func ExampleModule_concurrent() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	b := nn.NewBuilder(e, 7)
	model := nn.NewSequential(b.Linear(3, 8), b.LayerNorm(8), nn.Tanh(), b.Linear(8, 1))
	if err := b.Err(); err != nil {
		fmt.Println(err)
		return
	}
	defer model.Dispose()
	model.SetTraining(false)

	sums := make([]float32, 4)
	var wg sync.WaitGroup
	for g := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := tensor.New(d) // an engine per goroutine
			y, err := tidy.Run(e, func() ([]float32, error) {
				x := e.Fill(tensor.Float32, 1, 2, 3)
				return model.Forward(x).Float32s(ctx)
			})
			if err == nil {
				sums[g] = y[0] + y[1]
			}
		}()
	}
	wg.Wait()
	fmt.Println("every goroutine got the same:", sums[0] == sums[1] && sums[1] == sums[2] && sums[2] == sums[3] && sums[0] != 0)
	// Output:
	// every goroutine got the same: true
}

// A model converted to float16 for inference holds half the bytes and
// takes float16 inputs.
func ExampleToDtype() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	b := nn.NewBuilder(e, 1)
	model := nn.NewSequential(b.Linear(64, 64), nn.GELU(), b.LayerNorm(64), b.Linear(64, 10))
	defer model.Dispose()
	fmt.Println(e.Memory().Bytes, "bytes in float32")
	if err := nn.ToDtype(model, tensor.Float16); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Memory().Bytes, "bytes in float16")
	model.SetTraining(false)
	x := e.FromFloat16Bits(tensor.Float16Bits(make([]float32, 64)), 1, 64)
	y := model.Forward(x)
	fmt.Println(y.DType(), y.Shape(), y.Err())
	tidy.Dispose([]*tensor.Tensor{x, y})
	// Output:
	// 19752 bytes in float32
	// 9876 bytes in float16
	// float16 [1 10] <nil>
}
