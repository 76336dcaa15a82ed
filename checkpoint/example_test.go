package checkpoint_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// A model's parameters saved, then loaded in place into another model of
// the same shapes; a file with a name the model lacks is refused, unless
// the load is non-strict.
func Example() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)

	trained := []optim.Param{
		{Name: "0.weight", T: e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)},
		{Name: "0.bias", T: e.FromFloat32s([]float32{0.5, -0.5}, 2)},
	}
	var file bytes.Buffer // or checkpoint.SaveFile(ctx, "model.safetensors", ...)
	if err := checkpoint.Save(ctx, &file, trained, checkpoint.SaveOptions{}); err != nil {
		fmt.Println(err)
		return
	}

	fresh := []optim.Param{
		{Name: "0.weight", T: e.Zeros(tensor.Float32, 2, 2)},
		{Name: "0.bias", T: e.Zeros(tensor.Float32, 2)},
	}
	r := bytes.NewReader(file.Bytes())
	if _, err := checkpoint.Load(ctx, e, r, r.Size(), fresh, checkpoint.LoadOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	w, _ := fresh[0].T.Float32s(ctx)
	b, _ := fresh[1].T.Float32s(ctx)
	fmt.Println("weight", w, "bias", b, "version", fresh[0].T.Version())

	_, err = checkpoint.Load(ctx, e, r, r.Size(), fresh[:1], checkpoint.LoadOptions{})
	fmt.Println(err)
	rep, err := checkpoint.Load(ctx, e, r, r.Size(), fresh[:1], checkpoint.LoadOptions{NonStrict: true})
	fmt.Println("non-strict:", err, "skipped", rep.Unexpected)

	for _, p := range append(trained, fresh...) {
		p.T.Dispose()
	}
	fmt.Println("live tensors:", e.NumTensors())
	// Output:
	// weight [1 2 3 4] bias [0.5 -0.5] version 1
	// checkpoint: the file does not match the model: nothing in the model takes "0.bias" (NonStrict skips it)
	// non-strict: <nil> skipped [0.bias]
	// live tensors: 0
}
