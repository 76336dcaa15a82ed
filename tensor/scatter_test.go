package tensor_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// scatterAddRef is ScatterAdd in float64: x of shape xs, with updates of
// x's shape along axis replaced by count indices.
func scatterAddRef(x []float64, xs []int, idx []int32, upd []float64, axis int) []float64 {
	out := slices.Clone(x)
	inner := size(xs[axis+1:])
	outer := size(xs[:axis])
	n := xs[axis]
	for o := range outer {
		for j, v := range idx {
			a := int(v)
			if a < 0 {
				a += n
			}
			if a < 0 || a >= n {
				continue
			}
			for k := range inner {
				out[(o*n+a)*inner+k] += upd[(o*len(idx)+j)*inner+k]
			}
		}
	}
	return out
}

func TestScatterAddSmall(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s(iota32(12), 3, 4)
	defer x.Dispose()
	idx := e.FromInt32s([]int32{2, 0, -1, 7}, 2, 2)
	defer idx.Dispose()
	u0 := e.FromFloat32s(slices.Repeat([]float32{1, 10, 100, 1000}, 4), 2, 2, 4)
	defer u0.Dispose()
	s0 := e.ScatterAdd(x, idx, u0, 0)
	defer s0.Dispose()
	assert.Equal(t, tensor.Shape{3, 4}, s0.Shape())
	// Rows 2 (twice: 2 and -1) and 0 get an update each; index 7 adds nothing.
	assert.Equal(t, []float32{1, 11, 102, 1003, 4, 5, 6, 7, 10, 29, 210, 2011}, f32s(t, s0))

	u1 := e.FromFloat32s(iota32(12), 3, 2, 2)
	defer u1.Dispose()
	s1 := e.ScatterAdd(x, idx, u1, -1)
	defer s1.Dispose()
	// Row r of x gets u1[r] = [a, b, c, d] at columns 2, 0, 3 (-1) and nowhere (7).
	assert.Equal(t, []float32{1, 1, 2, 5, 9, 5, 10, 13, 17, 9, 18, 21}, f32s(t, s1))
}

// ScatterAdd is Gather's adjoint: <Gather(x, i), u> = <x, ScatterAdd(0, i, u)>.
func TestScatterAddIsGathersAdjoint(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(5, 6))
	xs, is := []int{3, 5, 4}, []int{2, 3}
	xv := randF32(r, size(xs), -1, 1)
	iv := make([]int32, size(is))
	for i := range iv {
		iv[i] = int32(r.IntN(12) - 6) // some negative, some out of range
	}
	x := e.FromFloat32s(xv, xs...)
	defer x.Dispose()
	idx := e.FromInt32s(iv, is...)
	defer idx.Dispose()
	us := []int{3, 2, 3, 4}
	uv := randF32(r, size(us), -1, 1)
	u := e.FromFloat32s(uv, us...)
	defer u.Dispose()
	g := e.Gather(x, idx, 1)
	defer g.Dispose()
	z := e.Zeros(tensor.Float32, xs...)
	defer z.Dispose()
	s := e.ScatterAdd(z, idx, u, 1)
	defer s.Dispose()
	var lhs, rhs float64
	for i, v := range f32s(t, g) {
		lhs += float64(v) * float64(uv[i])
	}
	for i, v := range f32s(t, s) {
		rhs += float64(v) * float64(xv[i])
	}
	assert.InDelta(t, lhs, rhs, 1e-5)
}

// Random shapes with empty, unit, odd and long dimensions, repeated
// indices, every axis and every dtype, against scatterAddRef. Float sums
// are compared within float32 rounding of the sum of magnitudes (1e-6
// relative); integer sums exactly (uint32 wraps as the kernel does).
func TestScatterAddAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct {
		xs, is []int
		axis   int
	}{
		{[]int{1}, []int{1}, 0},
		{[]int{0, 3}, []int{4}, 1},
		{[]int{3, 0}, []int{4}, 0},
		{[]int{5, 3}, []int{0}, 0},
		{[]int{5, 3}, []int{2, 0}, 1},
		{[]int{7}, []int{kernels.ScatterChunk*2 + 3}, 0}, // three dispatches, heavy repeats
		{[]int{2, 9, 3}, []int{5, 7}, 1},
		{[]int{2, 9, 3}, []int{11}, -1},
		{[]int{257, 3}, []int{1000}, 0},
		{[]int{3, 5, 1, 2}, []int{3}, 2},
		{[]int{300, 70}, []int{513}, 1},
		// Fewer indices than positions: a thread per update element.
		{[]int{50, 4}, []int{7}, 0},
		{[]int{3, 100, 2}, []int{4, 5}, 1},
		{[]int{2, 3000}, []int{kernels.ScatterChunk}, -1},
		{[]int{9}, []int{1}, 0},
		// Inner sizes in whole vec4s: a thread per four elements.
		{[]int{6, 8}, []int{kernels.ScatterChunk + 5}, 0},
		{[]int{4, 3, 12}, []int{9}, 1},
		{[]int{64, 128}, []int{2048}, 0}, // an embedding's gradient
		{[]int{40, 2, 4}, []int{3}, 0},
	} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32} {
			checkScatterAdd(t, e, r, c.xs, c.is, c.axis, dt)
		}
	}
}

func checkScatterAdd(t *testing.T, e *tensor.Engine, r *rand.Rand, xs, is []int, axis int, dt tensor.DType) {
	t.Helper()
	ax := axis
	if ax < 0 {
		ax += len(xs)
	}
	us := slices.Concat(xs[:ax], is, xs[ax+1:])
	iv := make([]int32, size(is))
	for i := range iv {
		iv[i] = int32(r.IntN(xs[ax]+3) - xs[ax] - 1) // from -n-1 to 1 past the end
	}
	xv, uv := make([]float64, size(xs)), make([]float64, size(us))
	for i := range xv {
		xv[i] = float64(r.IntN(200) - 100)
	}
	for i := range uv {
		uv[i] = float64(r.IntN(200) - 100)
		if dt == tensor.Float32 {
			uv[i] = r.Float64()*2 - 1
		}
	}
	make := func(v []float64, s []int) *tensor.Tensor {
		switch dt {
		case tensor.Int32:
			w := make([]int32, len(v))
			for i, f := range v {
				w[i] = int32(f)
			}
			return e.FromInt32s(w, s...)
		case tensor.Uint32:
			w := make([]uint32, len(v))
			for i, f := range v {
				w[i] = uint32(int32(f))
			}
			return e.FromUint32s(w, s...)
		}
		w := make([]float32, len(v))
		for i, f := range v {
			w[i] = float32(f)
			v[i] = float64(w[i])
		}
		return e.FromFloat32s(w, s...)
	}
	x, u := make(xv, xs), make(uv, us)
	defer x.Dispose()
	defer u.Dispose()
	idx := e.FromInt32s(iv, is...)
	defer idx.Dispose()
	y := e.ScatterAdd(x, idx, u, axis)
	defer y.Dispose()
	require.NoError(t, y.Err(), "%v %v axis %d %s", xs, is, axis, dt)
	assert.Equal(t, tensor.Shape(xs), y.Shape())
	want := scatterAddRef(xv, xs, iv, uv, ax)
	switch dt {
	case tensor.Float32:
		mag := scatterAddRef(absAll(xv), xs, iv, absAll(uv), ax)
		got := f32s(t, y)
		for i, w := range want {
			if math.Abs(float64(got[i])-w) > 1e-6*mag[i]+1e-7 {
				t.Fatalf("%v %v axis %d: element %d is %v, want %v", xs, is, axis, i, got[i], w)
			}
		}
	case tensor.Int32:
		got := i32s(t, y)
		for i, w := range want {
			require.Equal(t, int32(w), got[i], "%v %v axis %d: element %d", xs, is, axis, i)
		}
	case tensor.Uint32:
		got := u32s(t, y)
		for i, w := range want {
			require.Equal(t, uint32(int32(w)), got[i], "%v %v axis %d: element %d", xs, is, axis, i)
		}
	}
}

func absAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Abs(x)
	}
	return out
}

// Repeated indices are summed in index order, whatever the dispatches:
// two runs, and a run split into many dispatches by a tiny work budget,
// give the same bits.
func TestScatterAddIsDeterministic(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.WorkBudget = 2000
	split, whole := testgpu.EngineOn(t, testgpu.OpenWith(t, opts)), testgpu.Engine(t)
	r := rand.New(rand.NewPCG(9, 10))
	iv := make([]int32, 3*kernels.ScatterChunk/2)
	for i := range iv {
		iv[i] = int32(r.IntN(5))
	}
	uv := randF32(r, len(iv)*33, -1e4, 1e4)
	run := func(e *tensor.Engine) []float32 {
		x := e.Zeros(tensor.Float32, 5, 33)
		defer x.Dispose()
		idx := e.FromInt32s(iv, len(iv))
		defer idx.Dispose()
		u := e.FromFloat32s(uv, len(iv), 33)
		defer u.Dispose()
		y := e.ScatterAdd(x, idx, u, 0)
		defer y.Dispose()
		return f32s(t, y)
	}
	first := run(whole)
	assert.Equal(t, first, run(whole))
	assert.Equal(t, first, run(split))
}

// The kernel by update element (fewer indices than positions) and the
// kernel by element of x sum the same values in the same order: the same
// indices and updates into an x of 200 positions and of 5 give the same
// bits at the 5 positions both have.
func TestScatterAddKernelsAgree(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(13, 14))
	iv := make([]int32, 100)
	for i := range iv {
		iv[i] = int32(r.IntN(5))
	}
	idx := e.FromInt32s(iv, 100)
	defer idx.Dispose()
	u := e.FromFloat32s(randF32(r, 100*3, -1e3, 1e3), 100, 3)
	defer u.Dispose()
	into := func(positions int) []float32 {
		x := e.Zeros(tensor.Float32, positions, 3)
		defer x.Dispose()
		y := e.ScatterAdd(x, idx, u, 0)
		defer y.Dispose()
		return f32s(t, y)[:5*3]
	}
	assert.Equal(t, into(5), into(200))
}

// The kernels by four elements along the inner dimension sum each
// element's updates in the order the scalar kernels do: an inner size of
// 8 (vec4) and of 9 (scalar, its ninth column apart) give the same bits,
// by element and by index, with negative and out-of-range indices.
func TestScatterAddVec4IsTheScalarKernel(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(15, 16))
	for _, c := range []struct{ positions, count int }{{5, 300}, {400, 37}} {
		iv := make([]int32, c.count)
		for i := range iv {
			iv[i] = int32(r.IntN(c.positions+2) - 1) // -1 counts from the end; positions is out of range
		}
		idx := e.FromInt32s(iv, c.count)
		u9 := randF32(r, c.count*9, -1e3, 1e3)
		u8 := make([]float32, 0, c.count*8)
		for j := range c.count {
			u8 = append(u8, u9[j*9:j*9+8]...)
		}
		into := func(inner int, uv []float32) []float32 {
			x := e.Zeros(tensor.Float32, c.positions, inner)
			u := e.FromFloat32s(uv, c.count, inner)
			defer x.Dispose()
			defer u.Dispose()
			y := e.ScatterAdd(x, idx, u, 0)
			defer y.Dispose()
			return f32s(t, y)
		}
		got8, got9 := into(8, u8), into(9, u9)
		idx.Dispose()
		for p := range c.positions {
			for k := range 8 {
				require.Equal(t, math.Float32bits(got9[p*9+k]), math.Float32bits(got8[p*8+k]), "%d positions, %d indices: [%d %d]", c.positions, c.count, p, k)
			}
		}
	}
}

func TestScatterAddErrors(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 3, 4)
	defer x.Dispose()
	idx := e.FromInt32s([]int32{0, 1}, 2)
	defer idx.Dispose()
	fidx := e.Zeros(tensor.Float32, 2)
	defer fidx.Dispose()
	u := e.Zeros(tensor.Float32, 2, 4)
	defer u.Dispose()
	ui := e.Zeros(tensor.Int32, 2, 4)
	defer ui.Dispose()
	gone := e.Zeros(tensor.Float32, 2, 4)
	gone.Dispose()
	for _, c := range []struct {
		name string
		y    *tensor.Tensor
		want error
	}{
		{"float indices", e.ScatterAdd(x, fidx, u, 0), tensor.ErrDType},
		{"updates of another dtype", e.ScatterAdd(x, idx, ui, 0), tensor.ErrDType},
		{"updates of the wrong shape", e.ScatterAdd(x, idx, u, 1), tensor.ErrShape},
		{"axis out of range", e.ScatterAdd(x, idx, u, 2), tensor.ErrAxis},
		{"disposed updates", e.ScatterAdd(x, idx, gone, 0), tensor.ErrDisposed},
	} {
		require.Error(t, c.y.Err(), c.name)
		assert.ErrorIs(t, c.y.Err(), c.want, c.name)
		assert.Contains(t, c.y.Err().Error(), "scatter_add", c.name)
		c.y.Dispose()
	}
	err := e.ScatterAdd(x, idx, u, 1).Err()
	assert.Contains(t, err.Error(), "[3 2]", "the error names the shape updates must have")
}

// Edge values: infinities add up as float32 does (Inf + -Inf is NaN, a
// finite sum may overflow), and an element no index hits keeps its bits,
// -0 included.
func TestScatterAddEdgeValues(t *testing.T) {
	e := testgpu.Engine(t)
	inf := float32(math.Inf(1))
	x := e.FromFloat32s([]float32{1, float32(math.Copysign(0, -1)), 2, 3e38}, 4)
	defer x.Dispose()
	idx := e.FromInt32s([]int32{0, 2, 2, 3, 0}, 5)
	defer idx.Dispose()
	u := e.FromFloat32s([]float32{inf, inf, -inf, 3e38, 1}, 5)
	defer u.Dispose()
	y := e.ScatterAdd(x, idx, u, 0)
	defer y.Dispose()
	got := f32s(t, y)
	assert.True(t, math.IsInf(float64(got[0]), 1), "1 + Inf + 1: %v", got[0])
	assert.True(t, math.Signbit(float64(got[1])) && got[1] == 0, "-0, never hit, stays -0: %v", got[1])
	assert.True(t, math.IsNaN(float64(got[2])), "Inf + -Inf: %v", got[2])
	assert.True(t, math.IsInf(float64(got[3]), 1), "3e38 + 3e38 overflows: %v", got[3])
}

// Issue 19, item 15: each update is added to the running value of its
// position in index order, as the doc says (and PyTorch's index_add on the
// CPU), not summed first and then added to x: by either kernel, and across
// the dispatches of ScatterChunk indices each.
func TestScatterAddAddsInIndexOrder(t *testing.T) {
	e := testgpu.Engine(t)
	inOrder := func(x []float32, idx []int32, upd []float32) []float32 {
		out := slices.Clone(x)
		for j, a := range idx {
			out[a] += upd[j]
		}
		return out
	}
	check := func(name string, x []float32, idx []int32, upd []float32) {
		xt, it, ut := e.FromFloat32s(x), e.FromInt32s(idx), e.FromFloat32s(upd)
		defer xt.Dispose()
		defer it.Dispose()
		defer ut.Dispose()
		y := e.ScatterAdd(xt, it, ut, 0)
		defer y.Dispose()
		assert.Equal(t, inOrder(x, idx, upd), f32s(t, y), name)
	}
	// The reported case: by element of x (4 indices, 2 positions)...
	check("by element", []float32{1e8, 5}, []int32{0, 0, 0, 1}, []float32{1, -1e8, 1, 2})
	assert.Equal(t, []float32{1, 7}, inOrder([]float32{1e8, 5}, []int32{0, 0, 0, 1}, []float32{1, -1e8, 1, 2}))
	// ...and by update (4 indices, 8 positions).
	check("by update", []float32{1e8, 5, 0, 0, 0, 0, 0, 0}, []int32{0, 0, 0, 1}, []float32{1, -1e8, 1, 2})
	// Across a dispatch boundary: 1 last in the first chunk, -1e8 and 1
	// first in the second.
	n := kernels.ScatterChunk + 2
	idx, upd := make([]int32, n), make([]float32, n)
	upd[n-3], upd[n-2], upd[n-1] = 1, -1e8, 1
	check("across chunks", []float32{1e8, 0}, idx, upd)
}
