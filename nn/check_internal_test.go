package nn

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// through and plus free the intermediates they made as soon as they are
// used, and never what they were given: a function that returns its
// input keeps it alive.
func TestThroughFreesIntermediatesOnly(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	x := e.Ones(tensor.Float32, 3)
	defer x.Dispose()
	same := func(h *tensor.Tensor) *tensor.Tensor { return h }
	double := func(h *tensor.Tensor) *tensor.Tensor { return e.Add(h, h) }
	y, failed := through(x, same, double, same, double, same)
	require.Equal(t, -1, failed)
	assert.Equal(t, 2, e.NumTensors(), "x and the result: the first double's result was freed")
	v, err := y.Float32s(ctx)
	require.NoError(t, err)
	assert.Equal(t, []float32{4, 4, 4}, v)
	z := plus(e, x, same)
	v, err = z.Float32s(ctx)
	require.NoError(t, err)
	assert.Equal(t, []float32{2, 2, 2}, v)
	assert.False(t, x.IsDisposed())
	tidy.Dispose([]*tensor.Tensor{y, z})
}
