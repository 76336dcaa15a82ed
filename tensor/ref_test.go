package tensor_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/tensor"
)

// Plain-Go references the kernels are checked against.

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func randF32(r *rand.Rand, n int, lo, hi float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = lo + (hi-lo)*r.Float32()
	}
	return v
}

func strides(s []int) []int {
	st := make([]int, len(s))
	acc := 1
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= s[i]
	}
	return st
}

func size(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// unravel writes the multi-index of flat index i in shape s into idx.
func unravel(i int, s []int, idx []int) {
	for d := len(s) - 1; d >= 0; d-- {
		if s[d] > 0 {
			idx[d] = i % s[d]
			i /= s[d]
		}
	}
}

// bcast returns the broadcast shape, or ok=false.
func bcast(a, b []int) ([]int, bool) {
	r := max(len(a), len(b))
	out := make([]int, r)
	for i := range r {
		da, db := 1, 1
		if j := i - (r - len(a)); j >= 0 {
			da = a[j]
		}
		if j := i - (r - len(b)); j >= 0 {
			db = b[j]
		}
		switch {
		case da == db || db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			return nil, false
		}
	}
	return out, true
}

// at reads x (shape s) at the broadcast multi-index idx of a larger shape.
func at[T any](x []T, s []int, idx []int) T {
	off := len(idx) - len(s)
	st := strides(s)
	p := 0
	for d := range s {
		if s[d] != 1 {
			p += idx[off+d] * st[d]
		}
	}
	return x[p]
}

// refBinary applies f elementwise with broadcasting.
func refBinary[T, U any](a []T, as []int, b []T, bs []int, f func(T, T) U) ([]U, []int) {
	out, _ := bcast(as, bs)
	res := make([]U, size(out))
	idx := make([]int, len(out))
	for i := range res {
		unravel(i, out, idx)
		res[i] = f(at(a, as, idx), at(b, bs, idx))
	}
	return res, out
}

// refMatMul multiplies batched matrices with broadcasting and transposes.
func refMatMul(a []float32, as []int, b []float32, bs []int, ta, tb bool) ([]float32, []int) {
	ra, rb := len(as), len(bs)
	M, K := as[ra-2], as[ra-1]
	if ta {
		M, K = K, M
	}
	N := bs[rb-1]
	if tb {
		N = bs[rb-2]
	}
	batch, _ := bcast(as[:ra-2], bs[:rb-2])
	out := append(append([]int{}, batch...), M, N)
	res := make([]float32, size(out))
	idx := make([]int, len(batch))
	for z := range size(batch) {
		unravel(z, batch, idx)
		ao := 0
		if ra > 2 {
			ao = batchOffset(as[:ra-2], idx) * M * K
		}
		bo := 0
		if rb > 2 {
			bo = batchOffset(bs[:rb-2], idx) * K * N
		}
		for m := range M {
			for n := range N {
				var acc float64
				for k := range K {
					av := a[ao+m*K+k]
					if ta {
						av = a[ao+k*M+m]
					}
					bv := b[bo+k*N+n]
					if tb {
						bv = b[bo+n*K+k]
					}
					acc += float64(av) * float64(bv)
				}
				res[z*M*N+m*N+n] = float32(acc)
			}
		}
	}
	return res, out
}

func batchOffset(s []int, idx []int) int {
	off := len(idx) - len(s)
	st := strides(s)
	p := 0
	for d := range s {
		if s[d] != 1 {
			p += idx[off+d] * st[d]
		}
	}
	return p
}

// closeTo checks got against want elementwise within abs + rel*|want|;
// NaNs must match NaNs.
func closeTo(t testing.TB, want, got []float32, abs, rel float64, msg string, args ...any) {
	t.Helper()
	require.Len(t, got, len(want), append([]any{msg}, args...)...)
	bad := 0
	for i := range want {
		w, g := float64(want[i]), float64(got[i])
		if math.IsNaN(w) && math.IsNaN(g) || w == g {
			continue
		}
		if math.Abs(w-g) > abs+rel*math.Abs(w) || math.IsNaN(g) != math.IsNaN(w) {
			if bad < 5 {
				t.Errorf("%s: element %d: got %v, want %v", sprintf(msg, args...), i, g, w)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements out of tolerance", sprintf(msg, args...), bad, len(want))
	}
}

// values reads x back through read, failing t on any error.
func values[T any](t testing.TB, x *tensor.Tensor, read func(*tensor.Tensor, context.Context) ([]T, error)) []T {
	t.Helper()
	require.NoError(t, x.Err())
	v, err := read(x, ctxT(t))
	require.NoError(t, err)
	return v
}

func f32s(t testing.TB, x *tensor.Tensor) []float32 {
	t.Helper()
	return values(t, x, (*tensor.Tensor).Float32s)
}
func i32s(t testing.TB, x *tensor.Tensor) []int32 {
	t.Helper()
	return values(t, x, (*tensor.Tensor).Int32s)
}
func u32s(t testing.TB, x *tensor.Tensor) []uint32 {
	t.Helper()
	return values(t, x, (*tensor.Tensor).Uint32s)
}

func sprintf(format string, args ...any) string { return fmtSprintf(format, args...) }

var fmtSprintf = fmt.Sprintf
