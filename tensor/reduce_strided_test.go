package tensor_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// TestReduceInPlaceOfAxes: a reduction over one block of adjacent axes
// that are not the innermost (the batch axis of a bias gradient) runs
// reduce kernels only, without a transposing copy first, and gives
// bit for bit what reducing the transposed tensor gives: the kernel takes
// the elements in the same order.
func TestReduceInPlaceOfAxes(t *testing.T) {
	ctx := ctxT(t)
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(21, 22))
	cases := []struct {
		shape, axes, perm []int
	}{
		{[]int{128, 256}, []int{0}, []int{1, 0}},
		{[]int{128, 10}, []int{0}, []int{1, 0}},
		{[]int{2, 3, 5}, []int{1}, []int{0, 2, 1}},
		{[]int{4, 3, 2}, []int{0, 1}, []int{2, 0, 1}},
		{[]int{3, 1, 4, 2}, []int{0, 2}, []int{1, 3, 0, 2}}, // a size-1 axis between
		{[]int{70000, 2}, []int{0}, []int{1, 0}},            // segmented
	}
	ops := map[string]func(*tensor.Tensor, bool, ...int) *tensor.Tensor{
		"sum": e.Sum, "mean": e.Mean, "max": e.Max,
		"argmax": func(x *tensor.Tensor, _ bool, axes ...int) *tensor.Tensor { return e.ArgMax(x, axes[0]) },
	}
	for _, c := range cases {
		x := e.FromFloat32s(randF32(r, size(c.shape), -1, 1), c.shape...)
		defer x.Dispose()
		xt := e.Transpose(x, c.perm...)
		defer xt.Dispose()
		lastAxes := make([]int, len(c.axes))
		for i := range lastAxes {
			lastAxes[i] = len(c.shape) - len(c.axes) + i
		}
		for name, op := range ops {
			if name == "argmax" && len(c.axes) > 1 {
				continue
			}
			want := op(xt, false, lastAxes...)
			defer want.Dispose()
			var got *tensor.Tensor
			p, err := e.Profile(ctx, func() error {
				got = op(x, false, c.axes...)
				return got.Err()
			})
			require.NoError(t, err)
			defer got.Dispose()
			for _, d := range p.Dispatches {
				require.True(t, strings.HasPrefix(d.Key, "reduce/"), "%s %v axes %v dispatched %s", name, c.shape, c.axes, d.Key)
			}
			if name == "argmax" {
				require.Equal(t, i32s(t, want), i32s(t, got), "%s %v axes %v", name, c.shape, c.axes)
			} else {
				require.Equal(t, f32s(t, want), f32s(t, got), "%s %v axes %v", name, c.shape, c.axes)
			}
		}
	}
}

// TestSoftmaxInPlaceOfAxes: softmax and log-softmax along an axis other
// than the last run one softmax kernel, without transposing copies before
// and after, and give bit for bit what softmax of the transposed tensor
// gives, transposed back.
func TestSoftmaxInPlaceOfAxes(t *testing.T) {
	ctx := ctxT(t)
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(23, 24))
	cases := []struct {
		shape []int
		axis  int
		perm  []int // swaps axis and the last
	}{
		{[]int{5, 7}, 0, []int{1, 0}},
		{[]int{2, 300, 3}, 1, []int{0, 2, 1}}, // a workgroup per row
		{[]int{3, 1, 4}, 0, []int{2, 1, 0}},
	}
	for _, c := range cases {
		x := e.FromFloat32s(randF32(r, size(c.shape), -5, 5), c.shape...)
		defer x.Dispose()
		xt := e.Transpose(x, c.perm...)
		defer xt.Dispose()
		for name, op := range map[string]func(*tensor.Tensor, int) *tensor.Tensor{"softmax": e.Softmax, "log_softmax": e.LogSoftmax} {
			st := op(xt, -1)
			defer st.Dispose()
			want := e.Transpose(st, c.perm...)
			defer want.Dispose()
			var got *tensor.Tensor
			p, err := e.Profile(ctx, func() error {
				got = op(x, c.axis)
				return got.Err()
			})
			require.NoError(t, err)
			defer got.Dispose()
			require.Len(t, p.Dispatches, 1, "%s %v axis %d", name, c.shape, c.axis)
			require.True(t, strings.HasPrefix(p.Dispatches[0].Key, "softmax/"), "%s %v axis %d dispatched %s", name, c.shape, c.axis, p.Dispatches[0].Key)
			require.Equal(t, f32s(t, want), f32s(t, got), "%s %v axis %d", name, c.shape, c.axis)
		}
	}
}
