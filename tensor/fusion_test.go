package tensor_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// refVal is a value of the Go reference: float32 data in a shape, and how
// far the GPU's value may be from it.
type refVal struct {
	data  []float32
	shape []int
	// exact: every op that made it is exact in float32, so the GPU's value
	// must equal it. Else it is within a tolerance of scale, the largest
	// magnitude among it and the values it was made of.
	exact bool
	scale float64
	// unchecked: a discontinuous op (a comparison, a truncation) took an
	// inexact value, so a difference within tolerance may have become any
	// difference at all; only fused against unfused is compared.
	unchecked bool
}

// fuzzOp is one op of a random elementwise program: what it computes on
// each engine and in the reference, and how close the reference must be.
type fuzzOp struct {
	name  string
	arity int
	gpu   func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor
	ref   func(a []float32) float32 // float32 arithmetic, rounded after every op
	exact bool                      // the reference is exact, not within tolerance
	jumps bool                      // discontinuous: compares or truncates
}

// The products are converted to float32 before they are summed: Go may
// otherwise fuse them into a multiply-add, as a shader compiler may.
var fuzzOps = []fuzzOp{
	{"add", 2, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor { return e.Add(a[0], a[1]) },
		func(a []float32) float32 { return a[0] + a[1] }, true, false},
	{"sub", 2, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor { return e.Sub(a[0], a[1]) },
		func(a []float32) float32 { return a[0] - a[1] }, true, false},
	{"mul", 2, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor { return e.Mul(a[0], a[1]) },
		func(a []float32) float32 { return float32(a[0] * a[1]) }, true, false},
	{"div", 2, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor {
		return e.Div(a[0], e.Add(e.Abs(a[1]), e.Scalar(1)))
	},
		func(a []float32) float32 { return a[0] / (float32(math.Abs(float64(a[1]))) + 1) }, false, false},
	{"maximum", 2, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor { return e.Maximum(a[0], a[1]) },
		func(a []float32) float32 { return max(a[0], a[1]) }, true, false},
	{"minimum", 2, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor { return e.Minimum(a[0], a[1]) },
		func(a []float32) float32 { return min(a[0], a[1]) }, true, false},
	{"neg", 1, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor { return e.Neg(a[0]) },
		func(a []float32) float32 { return -a[0] }, true, false},
	{"relu", 1, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor { return e.Relu(a[0]) },
		func(a []float32) float32 { return max(a[0], 0) }, true, false},
	{"square", 1, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor { return e.Square(a[0]) },
		func(a []float32) float32 { return float32(a[0] * a[0]) }, true, false},
	{"clip", 1, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor { return e.Clip(a[0], -1.5, 2) },
		func(a []float32) float32 { return min(max(a[0], -1.5), 2) }, true, false},
	{"leaky_relu", 1, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor { return e.LeakyRelu(a[0], 0.25) },
		func(a []float32) float32 {
			if a[0] > 0 {
				return a[0]
			}
			return float32(a[0] * 0.25)
		}, true, false},
	{"tanh", 1, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor { return e.Tanh(a[0]) },
		func(a []float32) float32 { return float32(math.Tanh(float64(a[0]))) }, false, false},
	{"exp", 1, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor { return e.Exp(e.Clip(a[0], -5, 5)) },
		func(a []float32) float32 { return float32(math.Exp(float64(min(max(a[0], -5), 5)))) }, false, false},
	{"where", 3, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor {
		return e.Where(e.Greater(a[0], a[1]), a[1], a[2])
	},
		func(a []float32) float32 {
			if a[0] > a[1] {
				return a[1]
			}
			return a[2]
		}, true, true},
	{"cast", 1, func(e *tensor.Engine, a []*tensor.Tensor) *tensor.Tensor {
		return e.Cast(e.Cast(e.Mul(a[0], e.Scalar(8)), tensor.Int32), tensor.Float32)
	}, func(a []float32) float32 { return float32(int32(float32(a[0] * 8))) }, true, true},
}

// The shapes values take, in three families: in each, every shape
// broadcasts to the first. [4, 3, 5] has a multiple of four elements, so
// programs over it without broadcasts run four elements per thread; [3, 7]
// does not; over [3, 2, 8] programs with broadcasts do too.
var fuzzShapes = [][][]int{
	{{4, 3, 5}, {4, 3, 5}, {4, 3, 5}, {3, 5}, {1, 5}, {4, 1, 1}, {}},
	{{3, 7}, {3, 7}, {3, 7}, {7}, {3, 1}, {}},
	// A last dimension of 8: broadcast leaves are read as vec4s (a row)
	// or splat (a scalar, a column), four elements per thread.
	{{3, 2, 8}, {3, 2, 8}, {2, 8}, {1, 8}, {3, 1, 8}, {3, 2, 1}, {3, 1, 1}, {}},
}

// TestFusedMatchesUnfusedAndReference runs random elementwise programs on
// an engine that fuses and on one that does not, over one device, with
// results disposed at random before anything is read. Every result kept is
// compared bit for bit between the engines and with a float32 reference.
func TestFusedMatchesUnfusedAndReference(t *testing.T) {
	d := testgpu.Open(t)
	fused, plain := testgpu.EngineOn(t, d), testgpu.EngineOn(t, d)
	require.NoError(t, plain.SetFusion(false))
	r := rand.New(rand.NewPCG(5, 8))
	for prog := range 60 {
		shapes := fuzzShapes[prog%len(fuzzShapes)]
		var refs []refVal
		var fv, pv []*tensor.Tensor
		for range 3 {
			s := shapes[r.IntN(len(shapes))]
			v := randF32(r, size(s), -2, 2)
			refs = append(refs, refVal{data: v, shape: s, exact: true, scale: 2})
			fv = append(fv, fused.FromFloat32s(v, s...))
			pv = append(pv, plain.FromFloat32s(v, s...))
		}
		alive := make([]bool, len(fv))
		for i := range alive {
			alive[i] = true
		}
		var trace []string
		for range 4 + r.IntN(20) {
			op := fuzzOps[r.IntN(len(fuzzOps))]
			var args []int
			for len(args) < op.arity {
				if i := r.IntN(len(fv)); alive[i] {
					args = append(args, i)
				}
			}
			fa, pa, ra := make([]*tensor.Tensor, len(args)), make([]*tensor.Tensor, len(args)), make([]refVal, len(args))
			for j, i := range args {
				fa[j], pa[j], ra[j] = fv[i], pv[i], refs[i]
			}
			var fres, pres *tensor.Tensor
			// Ops built of several (div, where, cast) leave their parts to
			// a scope, as user code would.
			fres = scoped(t, fused, func() *tensor.Tensor { return op.gpu(fused, fa) })
			pres = scoped(t, plain, func() *tensor.Tensor { return op.gpu(plain, pa) })
			require.NoError(t, fres.Err(), op.name)
			refs = append(refs, refOf(op, ra))
			fv, pv = append(fv, fres), append(pv, pres)
			alive = append(alive, true)
			trace = append(trace, fmt.Sprintf("%s%v", op.name, args))
			// Dispose a value now and then, pending or not.
			if i := r.IntN(len(fv)); alive[i] && r.IntN(3) == 0 {
				fv[i].Dispose()
				pv[i].Dispose()
				alive[i] = false
			}
		}
		for i := range fv {
			if !alive[i] {
				continue
			}
			got, want := f32s(t, fv[i]), f32s(t, pv[i])
			require.Equal(t, refs[i].shape, []int(fv[i].Shape()))
			for k := range got {
				if got[k] != want[k] && !(isNaN32(got[k]) && isNaN32(want[k])) {
					t.Fatalf("program %d %v: value %d element %d: fused %v, unfused %v", prog, trace, i, k, got[k], want[k])
				}
			}
			switch ref := refs[i]; {
			case ref.unchecked:
			case ref.exact:
				closeTo(t, ref.data, got, 0, 0, "program %d %v: value %d against the reference", prog, trace, i)
			default:
				closeTo(t, ref.data, got, 1e-5*ref.scale, 1e-5, "program %d %v: value %d against the reference", prog, trace, i)
			}
			fv[i].Dispose()
			pv[i].Dispose()
		}
	}
	st := d.Stats()
	t.Logf("%d dispatches, %d kernels compiled", st.Dispatches, st.KernelsCompiled)
}

// scoped runs f in a tidy scope of e's that keeps only f's result, as user
// code that builds one op of several would.
func scoped(t *testing.T, e *tensor.Engine, f func() *tensor.Tensor) *tensor.Tensor {
	res, err := tidy.Run(e, func() (*tensor.Tensor, error) { return f(), nil })
	require.NoError(t, err)
	return res
}

// collect is a tracker that keeps what it is told of, for tests that make
// many tensors in passing.
type collect struct{ xs []interface{ Dispose() } }

func (c *collect) Track(x interface{ Dispose() }) { c.xs = append(c.xs, x) }

func isNaN32(v float32) bool { return v != v }

// refOf is op's reference value over args.
func refOf(op fuzzOp, args []refVal) refVal {
	v := refApply(args, op.ref)
	v.exact = op.exact
	for _, a := range args {
		v.exact = v.exact && a.exact
		v.unchecked = v.unchecked || a.unchecked || (op.jumps && !a.exact)
		v.scale = max(v.scale, a.scale)
	}
	for _, x := range v.data {
		v.scale = max(v.scale, math.Abs(float64(x)))
	}
	return v
}

// refApply evaluates f elementwise over the broadcast of args.
func refApply(args []refVal, f func([]float32) float32) refVal {
	shape := []int{}
	for _, a := range args {
		s, ok := bcast(shape, a.shape)
		if !ok {
			panic("shapes do not broadcast")
		}
		shape = s
	}
	out := make([]float32, size(shape))
	idx := make([]int, len(shape))
	in := make([]float32, len(args))
	for i := range out {
		unravel(i, shape, idx)
		for j, a := range args {
			in[j] = at(a.data, a.shape, idx)
		}
		out[i] = f(in)
	}
	return refVal{data: out, shape: shape}
}

func TestFusionRunsAChainAsOneKernel(t *testing.T) {
	e := testgpu.Engine(t)
	d := e.Device()
	const n = 5000
	r := rand.New(rand.NewPCG(3, 4))
	av, bv := randF32(r, n, -1, 1), randF32(r, n, -1, 1)
	a, b := e.FromFloat32s(av), e.FromFloat32s(bv)
	defer a.Dispose()
	defer b.Dispose()
	require.NoError(t, e.Flush())
	before := d.Stats()
	p := e.Mul(a, b)
	s := e.Add(p, a)
	y := e.Relu(s)
	p.Dispose()
	s.Dispose()
	got := f32s(t, y)
	y.Dispose()
	after := d.Stats()
	assert.Equal(t, uint64(1), after.Dispatches-before.Dispatches, "relu(a*b + a) is one kernel")
	for i := range got {
		require.Equal(t, max(float32(av[i]*bv[i])+av[i], 0), got[i], "element %d", i)
	}
}

// Ops whose helpers share WGSL functions (both generators carry Philox)
// fuse into one kernel that defines each function once, and give the
// values they give apart.
func TestFusedOpsShareHelpers(t *testing.T) {
	d := testgpu.Open(t)
	fused, apart := testgpu.EngineOn(t, d), testgpu.EngineOn(t, d)
	require.NoError(t, apart.SetFusion(false))
	sum := func(e *tensor.Engine) []float32 {
		u := e.RandUniform(7, -1, 1, 3, 5)
		n := e.RandNormal(8, 0, 1, 3, 5)
		y := e.Add(u, n)
		defer tidy.Dispose([]*tensor.Tensor{u, n, y})
		require.NoError(t, y.Err())
		return f32s(t, y)
	}
	before := d.Stats().Dispatches
	got := sum(fused)
	assert.Equal(t, uint64(1), d.Stats().Dispatches-before, "uniform, normal and their sum are one kernel")
	assert.Equal(t, sum(apart), got)
}

func TestResultsDisposedUnreadAreNeverComputed(t *testing.T) {
	e := testgpu.Engine(t)
	d := e.Device()
	a := e.FromFloat32s(iota32(1000))
	defer a.Dispose()
	require.NoError(t, e.Flush())
	before, pool := d.Stats(), d.Pool().Stats()
	s := e.Add(a, a)
	y := e.Exp(s)
	assert.Equal(t, pool.LiveBuffers+2, d.Pool().Stats().LiveBuffers, "outputs are allocated when the ops are called")
	s.Dispose()
	y.Dispose()
	assert.Equal(t, pool.LiveBuffers, d.Pool().Stats().LiveBuffers, "every buffer went back at once")
	require.NoError(t, e.Flush())
	assert.Equal(t, before.Dispatches, d.Stats().Dispatches, "nothing was dispatched")
}

func TestFusionAcrossEnginesAndGoroutines(t *testing.T) {
	d := testgpu.Open(t)
	e1, e2 := testgpu.EngineOn(t, d), testgpu.EngineOn(t, d)
	x, _ := tidy.Run(e1, func() (*tensor.Tensor, error) {
		return e1.Add(e1.Fill(tensor.Float32, 2, 300), e1.Fill(tensor.Float32, 3, 300)), nil
	})
	y := e2.Mul(x, x) // pending in e1's group, read by e2's
	assert.Equal(t, float32(25), f32s(t, y)[299])
	// A readback from another goroutine dispatches e1's pending work while
	// e1 goes on recording.
	one := e1.Fill(tensor.Float32, 1, 300)
	z := e1.Sub(x, one)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		v, err := z.Float32s(context.Background())
		assert.NoError(t, err)
		assert.Equal(t, float32(4), v[0])
	}()
	var w *tensor.Tensor
	for i := range 50 {
		f := e1.Fill(tensor.Float32, float64(i), 300)
		nw := e1.Add(x, f)
		f.Dispose()
		w.Dispose()
		w = nw
	}
	wg.Wait()
	assert.Equal(t, float32(5+49), f32s(t, w)[7])
	tidy.Dispose([]*tensor.Tensor{x, y, z, w, one})
}

func TestInputsDisposedBeforeTheDispatch(t *testing.T) {
	e := testgpu.Engine(t)
	a := e.FromFloat32s([]float32{1, 2, 3})
	b := e.FromFloat32s([]float32{10, 20, 30})
	y := e.Add(a, b)
	a.Dispose()
	b.Dispose()
	// Their buffers are still the group's: a new tensor must not get them.
	c := e.FromFloat32s([]float32{-1, -1, -1})
	assert.Equal(t, []float32{11, 22, 33}, f32s(t, y))
	assert.Equal(t, []float32{-1, -1, -1}, f32s(t, c))
	tidy.Dispose([]*tensor.Tensor{y, c})
}

func TestPendingResultsBroadcastAndFeedOtherOps(t *testing.T) {
	e := testgpu.Engine(t)
	sc := &collect{}
	require.NoError(t, e.PushTracker(sc))
	defer func() { e.PopTracker(); tidy.Dispose(sc.xs) }()
	row := e.Mul(e.FromFloat32s([]float32{1, 2, 3}), e.Scalar(2)) // pending, [3]
	m := e.FromFloat32s(iota32(6), 2, 3)
	sum := e.Add(m, row) // broadcasts a pending result
	assert.Equal(t, []float32{2, 5, 8, 5, 8, 11}, f32s(t, sum))
	w := e.Neg(m)                           // pending
	mm := e.MatMul(w, e.Reshape(row, 3, 1)) // a matmul reads pending results
	assert.Equal(t, []float32{-(0*2 + 1*4 + 2*6), -(3*2 + 4*4 + 5*6)}, f32s(t, mm))
	red := e.Sum(e.Square(m), false)
	assert.Equal(t, []float32{0 + 1 + 4 + 9 + 16 + 25}, f32s(t, red))
}

func TestLongChainsSplitAtTheGroupLimit(t *testing.T) {
	e := testgpu.Engine(t)
	d := e.Device()
	x := e.Zeros(tensor.Float32, 64)
	y := e.Ones(tensor.Float32, 64)
	require.NoError(t, e.Flush())
	before := d.Stats().Dispatches
	for range 1000 {
		nx := e.Add(x, y)
		x.Dispose()
		x = nx
	}
	assert.Equal(t, float32(1000), f32s(t, x)[63])
	n := d.Stats().Dispatches - before
	assert.GreaterOrEqual(t, n, uint64(1000/128))
	assert.LessOrEqual(t, n, uint64(1000/128+2), "about one kernel per 128 ops")
	tidy.Dispose([]*tensor.Tensor{x, y})
}

func TestPendingResultsOnALostDevice(t *testing.T) {
	e := testgpu.Engine(t)
	d := e.Device()
	a := e.Fill(tensor.Float32, 1, 10)
	y := e.Add(a, a) // pending
	d.InjectLoss("test")
	_, err := y.Float32s(ctxT(t))
	assert.ErrorIs(t, err, wgpu.ErrDeviceLost)
	z := e.Neg(y)
	assert.ErrorIs(t, z.Err(), wgpu.ErrDeviceLost, "ops on a result whose dispatch failed carry its error")
	tidy.Dispose([]*tensor.Tensor{a, y, z})
}

func TestFusionOffDispatchesEveryOp(t *testing.T) {
	e := testgpu.Engine(t)
	require.NoError(t, e.SetFusion(false))
	d := e.Device()
	a := e.FromFloat32s([]float32{1, -2})
	before := d.Stats().Dispatches
	s := e.Add(a, a)
	y := e.Relu(s)
	assert.Equal(t, before+2, d.Stats().Dispatches)
	assert.Equal(t, []float32{2, 0}, f32s(t, y))
	tidy.Dispose([]*tensor.Tensor{a, s, y})
}
