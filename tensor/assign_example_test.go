package tensor_test

import (
	"context"
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Assign writes a result into an existing tensor's storage, as tfjs's
// variable.assign does: the tensor keeps its buffer, views of it see the
// new values, and its version counts the writes.
func ExampleEngine_Assign() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)

	w := e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
	flat := e.Reshape(w, 4) // shares w's storage
	before := w.Data()      // started before the assignment: sees the old values

	step := e.Mul(w, e.Scalar(0.5))
	err = e.Assign(w, e.Sub(w, step)) // w ← w − 0.5w, in place
	fmt.Println(err, w.Version(), flat.Version())

	old, _ := before.Await(ctx)
	v, _ := flat.Float32s(ctx)
	fmt.Println(tensor.Float32sFromBytes(old), v)

	// A mismatch is an error naming the op and the shapes; nothing is written.
	fmt.Println(e.Assign(w, flat))
	// Output:
	// <nil> 1 1
	// [1 2 3 4] [0.5 1 1.5 2]
	// tensor: assign [2 2] [4]: dst is [2 2], src is [4]: shapes must be equal: shape mismatch
}
