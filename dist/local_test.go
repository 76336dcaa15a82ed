package dist_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/dist"
	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// On a Comm of one rank (Local, no MPI), DataParallel trains exactly as
// the optimizer alone does, bit for bit, whether the gradients were
// announced by Ready or not (the mean is the gradient: nothing is
// exchanged); its buckets follow the reverse of the parameters within
// BucketBytes; the engine's memory is the same after the last step as
// after the first; and its refusals name the problem.
func TestDataParallelOnOneRankIsPlainTraining(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	c := dist.Local()
	assert.Equal(t, 0, c.Rank())
	assert.Equal(t, 1, c.Size())
	odd := e.Zeros(tensor.Float16, 3) // half a word past its last element
	defer odd.Dispose()
	r, err := c.Differs(ctx, []*tensor.Tensor{odd})
	require.NoError(t, err)
	assert.Equal(t, -1, r, "one rank agrees with itself")
	x := e.RandNormal(1, 0, 1, 12, 5)
	y := e.RandNormal(2, 0, 1, 12, 3)
	defer tidy.Dispose([]*tensor.Tensor{x, y})
	newParams := func() []optim.Param {
		return []optim.Param{
			{Name: "w1", T: e.RandNormal(3, 0, 0.5, 5, 7)}, {Name: "b1", T: e.Zeros(tensor.Float32, 7)},
			{Name: "w2", T: e.RandNormal(4, 0, 0.5, 7, 3)},
		}
	}
	lossOf := func(p []*tensor.Tensor) (*tensor.Tensor, error) {
		d := e.Sub(e.MatMul(e.Tanh(e.Add(e.MatMul(x, p[0]), p[1])), p[2]), y)
		l := e.Mean(e.Mul(d, d), false)
		return l, l.Err()
	}
	tensorsOf := func(ps []optim.Param) []*tensor.Tensor {
		ts := make([]*tensor.Tensor, len(ps))
		for i, p := range ps {
			ts[i] = p.T
		}
		return ts
	}
	train := func(data bool, ready bool) [][]float32 {
		ps := newParams()
		defer tidy.Dispose(tensorsOf(ps))
		opt, err := optim.NewAdam(e, ps, optim.AdamDefaults())
		require.NoError(t, err)
		defer opt.Dispose()
		var ddp *dist.DataParallel
		if data {
			ddp, err = dist.NewDataParallel(ctx, c, e, opt, &dist.DataParallelOptions{BucketBytes: 4 * (7*3 + 7)})
			require.NoError(t, err)
			defer ddp.Close()
			assert.Equal(t, 2, ddp.Stats().Buckets, "w2 and b1, then w1 (past the size) alone")
		}
		var after1 tensor.Memory
		for step := range 4 {
			o := &grad.Options{}
			if ready && ddp != nil {
				o.Ready = ddp.Ready
			}
			l, gs, err := grad.ValueAndGrad(e, lossOf, tensorsOf(ps), o)
			require.NoError(t, err)
			if ddp != nil {
				require.NoError(t, ddp.Step(ctx, gs))
			} else {
				require.NoError(t, opt.Step(gs))
			}
			tidy.Dispose(append(gs, l))
			require.NoError(t, e.Flush())
			if step == 0 {
				after1 = e.Memory()
			}
		}
		assert.Equal(t, after1.Bytes, e.Memory().Bytes)
		var vs [][]float32
		for _, p := range ps {
			v, err := p.T.Float32s(ctx)
			require.NoError(t, err)
			vs = append(vs, v)
		}
		return vs
	}
	want := train(false, false)
	assert.Equal(t, want, train(true, true), "with Ready")
	assert.Equal(t, want, train(true, false), "without")

	// Refusals.
	ps := newParams()
	defer tidy.Dispose(tensorsOf(ps))
	opt, err := optim.NewSGD(e, ps, optim.SGDConfig{LR: 0.1})
	require.NoError(t, err)
	defer opt.Dispose()
	_, err = dist.NewDataParallel(ctx, nil, e, opt, nil)
	assert.ErrorIs(t, err, dist.ErrArgument)
	_, err = dist.NewDataParallel(ctx, c, e, opt, &dist.DataParallelOptions{BucketBytes: -1})
	assert.ErrorIs(t, err, dist.ErrArgument)
	ddp, err := dist.NewDataParallel(ctx, c, e, opt, nil)
	require.NoError(t, err)
	defer ddp.Close()
	assert.ErrorIs(t, ddp.Step(ctx, nil), dist.ErrArgument, "no gradients for three parameters")
	swapped := []*tensor.Tensor{e.Zeros(tensor.Float32, 7), e.Zeros(tensor.Float32, 5, 7), e.Zeros(tensor.Float32, 7, 3)}
	defer tidy.Dispose(swapped)
	err = ddp.Step(ctx, swapped)
	assert.ErrorIs(t, err, dist.ErrArgument)
	assert.ErrorContains(t, err, `parameter "w1" float32 [5 7]`)
	ddp.Close()
	assert.ErrorIs(t, ddp.Step(ctx, swapped), dist.ErrArgument, "after Close")
	assert.ErrorIs(t, c.Broadcast(ctx, []byte{1}, 1), dist.ErrArgument, "rank 1 of 1")
	require.NoError(t, c.Close())
	assert.ErrorIs(t, c.Barrier(ctx), dist.ErrFault, "after Close")
}
