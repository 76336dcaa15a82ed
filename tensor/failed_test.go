package tensor_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Issue 14: layers built from ops need to report their own errors in
// tensor's error model. Failed's tensor carries the error through ops,
// readbacks and tidy.Run, holds no memory and counts as no live tensor.
func TestFailedCarriesItsError(t *testing.T) {
	e := testgpu.Engine(t)
	want := errors.New("layer refused its input")
	_, err := tidy.Run(e, func() (*tensor.Tensor, error) {
		f := e.Failed(want)
		y := e.Relu(e.Add(f, e.Scalar(1)))
		_, readErr := y.Float32s(context.Background())
		assert.ErrorIs(t, readErr, want)
		assert.True(t, f.IsDisposed(), "an error tensor holds no memory")
		return y, y.Err()
	})
	assert.ErrorIs(t, err, want)
	assert.ErrorIs(t, e.Failed(nil).Err(), tensor.ErrArgument)
	assert.Zero(t, e.NumTensors())
	assert.Zero(t, e.Memory().Bytes)
}
