package grad

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Options.Ready hears of each gradient as soon as it is final, in the
// order backward finishes them (the last layer's first), with the values
// Gradients returns; a tensor named twice is heard of twice, and one no
// gradient reaches (NilGradient) not at all.
func TestReadyHearsOfEachFinalGradient(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	w1 := e.RandNormal(1, 0, 1, 4, 8)
	w2 := e.RandNormal(2, 0, 1, 8, 8)
	w3 := e.RandNormal(3, 0, 1, 8, 2)
	unused := e.Ones(tensor.Float32, 3)
	x := e.RandNormal(4, 0, 1, 5, 4)
	defer tidy.Dispose([]*tensor.Tensor{w1, w2, w3, unused, x})
	err := tidy.Do(e, func() error {
		tape := NewTape(e)
		var y *tensor.Tensor
		require.NoError(t, tape.Record(func() error {
			h := e.Tanh(e.MatMul(x, w1))
			h = e.Add(e.Tanh(e.MatMul(h, w2)), e.MatMul(h, w2)) // w2 read twice
			y = e.Sum(e.Square(e.MatMul(h, w3)), false)
			return y.Err()
		}))
		type heard struct {
			i int
			v []float32
		}
		var got []heard
		ready := func(i int, g *tensor.Tensor) {
			v, err := g.Float32s(ctx)
			require.NoError(t, err)
			got = append(got, heard{i, v})
		}
		wrt := []*tensor.Tensor{w1, w2, w3, unused, w3}
		gs, err := tape.Gradients(y, wrt, &Options{Ready: ready, NoPath: NilGradient})
		require.NoError(t, err)
		require.Len(t, got, 4)
		assert.Equal(t, []int{2, 4, 1, 0}, []int{got[0].i, got[1].i, got[2].i, got[3].i}, "w3 (twice), then w2, then w1")
		assert.Nil(t, gs[3])
		for _, h := range got {
			v, err := gs[h.i].Float32s(ctx)
			require.NoError(t, err)
			assert.Equal(t, v, h.v, "wrt[%d]", h.i)
		}
		return nil
	})
	require.NoError(t, err)
}
