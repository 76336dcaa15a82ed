package grad_test

import (
	"context"
	"fmt"

	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Recording a computation on a tape, then asking for the gradient of its
// scalar result with respect to a weight. The tape and everything but
// the gradient go with the scope.
func ExampleTape() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	x := e.FromFloat32s([]float32{1, 2, 3}, 1, 3)
	w := e.FromFloat32s([]float32{0.5, -1, 2}, 3, 1)

	gw, err := tidy.Run(e, func() (*tensor.Tensor, error) {
		tape := grad.NewTape(e) // disposed with the scope
		var y *tensor.Tensor
		err := tape.Record(func() error {
			y = e.Square(e.MatMul(x, w)) // (x·w)², of shape [1 1]: a scalar
			return y.Err()
		})
		if err != nil {
			return nil, err
		}
		gs, err := tape.Gradients(y, []*tensor.Tensor{w}, nil)
		if err != nil {
			return nil, err
		}
		return gs[0], nil // 2(x·w)·xᵀ
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := gw.Float32s(ctx)
	fmt.Println(gw.Shape(), v, err)
	for _, t := range []*tensor.Tensor{x, w, gw} {
		t.Dispose()
	}
	fmt.Println("live tensors:", e.NumTensors())
	// Output:
	// [3 1] [9 18 27] <nil>
	// live tensors: 0
}

// The value of a function of the parameters and its gradients, as
// jax.value_and_grad and tf.variableGrads give them.
func ExampleValueAndGrad() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	x := e.FromFloat32s([]float32{1, 2, 3}, 1, 3)
	w := e.FromFloat32s([]float32{0.5, -1, 2}, 3, 1)
	b := e.FromFloat32s([]float32{0.5}, 1, 1)

	// loss(w, b) = (x·w + b)²
	loss := func(p []*tensor.Tensor) (*tensor.Tensor, error) {
		y := e.Square(e.Add(e.MatMul(x, p[0]), p[1]))
		return y, y.Err()
	}
	value, grads, err := grad.ValueAndGrad(e, loss, []*tensor.Tensor{w, b}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := value.Float32s(ctx)
	gw, _ := grads[0].Float32s(ctx)
	gb, _ := grads[1].Float32s(ctx)
	fmt.Println("loss", v, "d/dw", gw, "d/db", gb)
	for _, t := range append([]*tensor.Tensor{x, w, b, value}, grads...) {
		t.Dispose()
	}
	fmt.Println("live tensors:", e.NumTensors())
	// Output:
	// loss [25] d/dw [10 20 30] d/db [10]
	// live tensors: 0
}
