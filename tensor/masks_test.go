package tensor_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// triangleRef keeps element (i, j) of each matrix of x (shape s) where
// keep(j - i).
func triangleRef(x []uint32, s []int, keep func(d int) bool) []uint32 {
	out := make([]uint32, len(x))
	rows, cols := s[len(s)-2], s[len(s)-1]
	for n := range x {
		i, j := n/max(cols, 1)%max(rows, 1), n%max(cols, 1)
		if keep(j - i) {
			out[n] = x[n]
		}
	}
	return out
}

// bitsOf reads x back as its 32-bit words, whatever its dtype.
func bitsOf(t *testing.T, x *tensor.Tensor) []uint32 {
	t.Helper()
	switch x.DType() {
	case tensor.Float32:
		v := f32s(t, x)
		out := make([]uint32, len(v))
		for i, f := range v {
			out[i] = math.Float32bits(f)
		}
		return out
	case tensor.Int32:
		v := i32s(t, x)
		out := make([]uint32, len(v))
		for i, f := range v {
			out[i] = uint32(f)
		}
		return out
	}
	return u32s(t, x)
}

// tensorOfBits uploads words as dtype.
func tensorOfBits(e *tensor.Engine, dtype tensor.DType, words []uint32, shape ...int) *tensor.Tensor {
	switch dtype {
	case tensor.Float32:
		v := make([]float32, len(words))
		for i, w := range words {
			v[i] = math.Float32frombits(w)
		}
		return e.FromFloat32s(v, shape...)
	case tensor.Int32:
		v := make([]int32, len(words))
		for i, w := range words {
			v[i] = int32(w)
		}
		return e.FromInt32s(v, shape...)
	}
	return e.FromUint32s(words, shape...)
}

func TestTrilTriuAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(20, 6))
	for _, s := range [][]int{{3, 4}, {4, 3}, {2, 3, 5}, {2, 1, 7, 7}, {4, 1}, {1, 4}, {0, 3}, {2, 0, 3}, {3, 66}, {67, 2}} {
		for _, dtype := range []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32} {
			words := make([]uint32, size(s))
			for i := range words {
				words[i] = r.Uint32()
			}
			if dtype == tensor.Float32 && len(words) > 2 {
				words[0] = 0x7fc01234 // a NaN payload, kept
				words[1] = 0x80000000 // -0
			}
			x := tensorOfBits(e, dtype, words, s...)
			for _, k := range []int{0, 1, -1, 2, -3, 100, -100, math.MaxInt32, math.MinInt32, 70000, -70000} {
				for _, upper := range []bool{false, true} {
					var y *tensor.Tensor
					var keep func(d int) bool
					if upper {
						y, keep = e.Triu(x, k), func(d int) bool { return d >= k }
					} else {
						y, keep = e.Tril(x, k), func(d int) bool { return d <= k }
					}
					require.NoError(t, y.Err())
					assert.Equal(t, tensor.Shape(s), y.Shape())
					assert.Equal(t, dtype, y.DType())
					assert.Equal(t, triangleRef(words, s, keep), bitsOf(t, y), "%v %s k %d upper %v", s, dtype, k, upper)
					y.Dispose()
				}
			}
			x.Dispose()
		}
	}
}

// Tril and Triu are elementwise ops: fused into a chain they give the
// unfused results, and a vec4 program (a last dimension of 4) indexes each
// lane right.
func TestTrilTriuFuse(t *testing.T) {
	e := testgpu.Engine(t)
	a := e.RandNormal(1, 0, 1, 3, 8, 4)
	b := e.RandNormal(2, 0, 1, 3, 8, 4)
	defer tidy.Dispose([]*tensor.Tensor{a, b})
	run := func() []float32 {
		v, err := tidy.Run(e, func() ([]float32, error) {
			return f32s(t, e.Relu(e.Triu(e.Add(e.Tril(e.Mul(a, b), 1), a), -2))), nil
		})
		require.NoError(t, err)
		return v
	}
	fused := run()
	require.NoError(t, e.SetFusion(false))
	unfused := run()
	require.NoError(t, e.SetFusion(true))
	assert.Equal(t, unfused, fused)
}

func TestMaskedFillAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(20, 7))
	nan := float32(math.NaN())
	for _, c := range []struct {
		x, m []int
	}{{[]int{3, 4}, []int{3, 4}}, {[]int{3, 4}, []int{4}}, {[]int{2, 3, 4}, []int{3, 1}}, {[]int{4}, []int{2, 4}}, {[]int{3, 1}, []int{1, 5}}, {[]int{}, []int{3}}, {[]int{0, 2}, []int{2}}} {
		for _, xd := range []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32} {
			for _, md := range []tensor.DType{tensor.Uint32, tensor.Int32, tensor.Float32} {
				xw := make([]uint32, size(c.x))
				for i := range xw {
					xw[i] = r.Uint32()
				}
				mw := make([]uint32, size(c.m))
				for i := range mw {
					switch r.IntN(4) {
					case 0:
						mw[i] = 0
					case 1:
						if md == tensor.Float32 {
							mw[i] = 0x80000000 // -0: not filled
						}
					case 2:
						if md == tensor.Float32 {
							mw[i] = math.Float32bits(nan) // NaN: filled
						} else {
							mw[i] = 0xffffffff
						}
					default:
						mw[i] = 1 + r.Uint32N(5)
						if md == tensor.Float32 {
							mw[i] = math.Float32bits(float32(mw[i]))
						}
					}
				}
				x, m := tensorOfBits(e, xd, xw, c.x...), tensorOfBits(e, md, mw, c.m...)
				for _, value := range []float32{-2.5, 7, nan, float32(math.Inf(-1)), 3e9, -3e9} {
					y := e.MaskedFill(x, m, value)
					require.NoError(t, y.Err())
					full := broadcastShapes(c.x, c.m)
					assert.Equal(t, tensor.Shape(full), y.Shape())
					var fill uint32
					switch xd {
					case tensor.Float32:
						fill = math.Float32bits(value)
					case tensor.Int32:
						switch {
						case value != value:
							fill = 0
						case value >= math.MaxInt32:
							fill = math.MaxInt32
						case value <= math.MinInt32:
							fill = 1 << 31
						default:
							fill = uint32(int32(value))
						}
					default:
						switch {
						case !(value > 0):
							fill = 0
						case value >= math.MaxUint32:
							fill = math.MaxUint32
						default:
							fill = uint32(value)
						}
					}
					want := make([]uint32, size(full))
					idx := make([]int, len(full))
					for n := range want {
						unravel(n, full, idx)
						xv, mv := xw[broadcastIndex(idx, c.x)], mw[broadcastIndex(idx, c.m)]
						want[n] = xv
						if mv&0x7fffffff != 0 || md != tensor.Float32 && mv != 0 {
							want[n] = fill
						}
					}
					assert.Equal(t, want, bitsOf(t, y), "x %v %s, mask %v %s, value %v", c.x, xd, c.m, md, value)
					y.Dispose()
				}
				tidy.Dispose([]*tensor.Tensor{x, m})
			}
		}
	}
}

// broadcastShapes is the broadcast shape of a and b (which broadcast).
func broadcastShapes(a, b []int) []int {
	n := max(len(a), len(b))
	out := make([]int, n)
	for i := range out {
		out[i] = 1
		for _, s := range [][]int{a, b} {
			if j := i - (n - len(s)); j >= 0 && s[j] != 1 {
				out[i] = s[j]
			}
		}
	}
	return out
}

// broadcastIndex is the flat index into shape s of the element that
// multi-index idx (of the broadcast shape) reads.
func broadcastIndex(idx, s []int) int {
	off, stride := 0, 1
	for d := len(s) - 1; d >= 0; d-- {
		if s[d] != 1 {
			off += idx[len(idx)-len(s)+d] * stride
		}
		stride *= s[d]
	}
	return off
}

func TestMaskFusesAndFillsLikeWhere(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.RandNormal(1, 0, 1, 4, 6)
	defer x.Dispose()
	run := func() [][]float32 {
		v, err := tidy.Run(e, func() ([][]float32, error) {
			m := e.Greater(x, e.Scalar(0.3))
			a := e.MaskedFill(e.Mul(x, x), m, -1)
			b := e.Where(m, e.Scalar(-1), e.Mul(x, x))
			return [][]float32{f32s(t, a), f32s(t, b)}, nil
		})
		require.NoError(t, err)
		return v
	}
	fused := run()
	assert.Equal(t, fused[1], fused[0], "MaskedFill is Where with a constant")
	require.NoError(t, e.SetFusion(false))
	unfused := run()
	require.NoError(t, e.SetFusion(true))
	assert.Equal(t, unfused, fused)
}

func TestMaskOpsErrors(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 3, 4)
	v := e.Zeros(tensor.Float32, 4)
	m := e.Zeros(tensor.Uint32, 2, 4)
	one := e.Scalar(1)
	defer tidy.Dispose([]*tensor.Tensor{x, v, m, one})
	for _, c := range []struct {
		name string
		y    *tensor.Tensor
		kind error
		says string
	}{
		{"tril", e.Tril(v, 0), tensor.ErrShape, "rank 2"},
		{"triu", e.Triu(one, 0), tensor.ErrShape, "rank 2"},
		{"masked_fill", e.MaskedFill(x, m, 0), tensor.ErrShape, "broadcast"},
		{"masked_fill", e.MaskedFill(x, &tensor.Tensor{}, 0), tensor.ErrArgument, "nil or zero"},
	} {
		err := c.y.Err()
		require.Error(t, err, c.name)
		assert.True(t, errors.Is(err, c.kind), "%s: %v", c.name, err)
		assert.Contains(t, err.Error(), c.name)
		assert.Contains(t, err.Error(), c.says)
	}
	assert.Equal(t, 4, e.NumTensors(), fmt.Sprint(e.LiveTensors())) // x, v, m and one
}
