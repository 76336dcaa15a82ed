package tensor_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// cumsumRef is Cumsum in float64 along axis of shape s.
func cumsumRef(x []float64, s []int, axis int, exclusive, reverse bool) []float64 {
	out := make([]float64, len(x))
	outer, n, inner := size(s[:axis]), s[axis], size(s[axis+1:])
	for o := range outer {
		for k := range inner {
			acc := 0.0
			for q := range n {
				j := q
				if reverse {
					j = n - 1 - q
				}
				at := (o*n+j)*inner + k
				if exclusive {
					out[at] = acc
					acc += x[at]
				} else {
					acc += x[at]
					out[at] = acc
				}
			}
		}
	}
	return out
}

func TestCumsumAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(14, 3))
	for _, c := range []struct {
		shape []int
		axis  int
	}{
		{[]int{7}, 0},
		{[]int{3, 5}, 1},
		{[]int{3, 5}, 0},
		{[]int{2, 3, 4}, -2},
		{[]int{1, 1}, 1},
		{[]int{4, 1500, 3}, 1}, // two segments along the axis
		{[]int{0, 4}, 1},
		{[]int{3, 0}, 1},
	} {
		xv := randF32(r, size(c.shape), -2, 2)
		x64 := make([]float64, len(xv))
		for i, v := range xv {
			x64[i] = float64(v)
		}
		x := e.FromFloat32s(xv, c.shape...)
		ax := (c.axis + len(c.shape)) % len(c.shape)
		for _, ex := range []bool{false, true} {
			for _, rev := range []bool{false, true} {
				y := e.Cumsum(x, c.axis, ex, rev)
				assert.Equal(t, tensor.Shape(c.shape), y.Shape())
				want := cumsumRef(x64, c.shape, ax, ex, rev)
				closeTo(t, f32sOf(want), f32s(t, y), 1e-4, 1e-5, "%v axis %d exclusive %v reverse %v", c.shape, c.axis, ex, rev)
				y.Dispose()
			}
		}
		x.Dispose()
	}
}

func f32sOf(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// An axis longer than a segment squared takes the totals' scan through a
// second level; integers make every sum exact, so the check is exact too.
func TestCumsumLongAxis(t *testing.T) {
	e := testgpu.Engine(t)
	n := kernels.ScanSegment*kernels.ScanSegment + 70_001
	require.Greater(t, n, kernels.MaxLoopTrips)
	xv := make([]int32, 2*n)
	for i := range xv {
		xv[i] = int32(i%7) - 3
	}
	x := e.FromInt32s(xv, 2, n)
	defer x.Dispose()
	for _, ex := range []bool{false, true} {
		for _, rev := range []bool{false, true} {
			y := e.Cumsum(x, 1, ex, rev)
			got := i32s(t, y)
			y.Dispose()
			x64 := make([]float64, len(xv))
			for i, v := range xv {
				x64[i] = float64(v)
			}
			want := cumsumRef(x64, []int{2, n}, 1, ex, rev)
			bad := 0
			for i := range want {
				if float64(got[i]) != want[i] {
					if bad < 3 {
						t.Errorf("exclusive %v reverse %v: element %d: got %d, want %v", ex, rev, i, got[i], want[i])
					}
					bad++
				}
			}
			assert.Zero(t, bad, "exclusive %v reverse %v", ex, rev)
		}
	}
	// And a float32 axis past the loop limit, along the first axis.
	m := 70_000
	fv := make([]float32, m*2)
	for i := range fv {
		fv[i] = 0.25
	}
	f := e.FromFloat32s(fv, m, 2)
	defer f.Dispose()
	y := e.Cumsum(f, 0, false, false)
	defer y.Dispose()
	got := f32s(t, y)
	assert.Equal(t, float32(m)/4, got[len(got)-1], "quarters add up exactly")
	assert.Equal(t, float32(m/2)/4, got[m-2])
}

// NaN and infinities propagate from where they appear on, in the order of
// the scan.
func TestCumsumEdgeValues(t *testing.T) {
	e := testgpu.Engine(t)
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	x := e.FromFloat32s([]float32{1, nan, 2, inf, -inf}, 5)
	defer x.Dispose()
	y := e.Cumsum(x, 0, false, false)
	defer y.Dispose()
	got := f32s(t, y)
	assert.Equal(t, float32(1), got[0])
	for _, v := range got[1:] {
		assert.True(t, isNaN32(v))
	}
	z := e.FromFloat32s([]float32{1, inf, 2, -inf}, 4)
	defer z.Dispose()
	yz := e.Cumsum(z, 0, true, true)
	defer yz.Dispose()
	gz := f32s(t, yz)
	assert.True(t, isNaN32(gz[0]), "-inf + inf, then on")
	assert.Equal(t, []float32{-inf, -inf, 0}, gz[1:])
}

func TestCumsumInts(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromUint32s([]uint32{1, 2, 3, math.MaxUint32}, 4)
	defer x.Dispose()
	y := e.Cumsum(x, -1, false, false)
	defer y.Dispose()
	assert.Equal(t, []uint32{1, 3, 6, 5}, u32s(t, y), "uint32 sums wrap")
}

func TestCumsumErrors(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 2, 3)
	defer x.Dispose()
	s := e.Scalar(1)
	defer s.Dispose()
	for _, c := range []struct {
		name string
		x    *tensor.Tensor
		axis int
	}{{"axis 2 of rank 2", x, 2}, {"axis -3 of rank 2", x, -3}, {"a scalar", s, 0}} {
		live := e.NumTensors()
		err := e.Cumsum(c.x, c.axis, false, false).Err()
		var oe *tensor.OpError
		require.True(t, errors.As(err, &oe), "%s: %v", c.name, err)
		assert.ErrorIs(t, err, tensor.ErrAxis, c.name)
		assert.Contains(t, err.Error(), "cumsum", c.name)
		assert.Equal(t, live, e.NumTensors(), c.name)
	}
}
