package tensor_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Issue 11 item 9: reading a disposed tensor said "wgpu: buffer already
// released". Every read and every op on a disposed tensor now fails with
// tensor.ErrDisposed, whose text speaks of a tensor, in the same words;
// errors.Is still matches wgpu.ErrDisposed for callers that test that.
func TestDisposedTensorErrorsReadTheSame(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1}, 1)
	id := x.ID()
	x.Dispose()
	ctx := context.Background()
	_, readErr := x.Float32s(ctx)
	_, dataErr := x.Data().Await(ctx)
	for name, err := range map[string]error{
		"Float32s": readErr,
		"Data":     dataErr,
		"ReadInto": tensor.ReadInto(ctx, x, make([]float32, 1)),
		"Neg":      e.Neg(x).Err(),
		"Reshape":  e.Reshape(x, 1, 1).Err(),
		"MatMul":   e.MatMul(x, x).Err(),
	} {
		assert.ErrorIs(t, err, tensor.ErrDisposed, name)
		assert.ErrorIs(t, err, wgpu.ErrDisposed, name)
		assert.NotContains(t, err.Error(), "buffer", name)
		assert.Contains(t, err.Error(), fmt.Sprintf("tensor %d was disposed", id), name)
	}
	assert.Equal(t, "tensor was disposed", tensor.ErrDisposed.Error())
}
