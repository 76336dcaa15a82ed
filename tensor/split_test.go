package tensor_test

import (
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// isolated runs body in a child process (this test binary, running only
// t's test), so that a crash of the driver fails t instead of killing the
// whole suite: a submission that runs for more than about five seconds
// makes lavapipe return wrong values, then crash.
func isolated(t *testing.T, body func(t *testing.T)) {
	const env = "WGT_ISOLATED_TEST"
	if os.Getenv(env) == t.Name() {
		body(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+t.Name())
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("%s in a child process: %v\n%s", t.Name(), err, out)
	case strings.Contains(string(out), "--- SKIP: "+t.Name()):
		t.Skipf("skipped in the child process:\n%s", out)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Fatalf("%s did not run in the child process:\n%s", t.Name(), out)
	}
}

// checkBounded waits for e's device to finish its work, then fails t
// unless every submission stayed within the device's work budget. The wait
// is a blocking poll, which in wgpu-native gives up on a submission after
// five seconds: on lavapipe, a crash follows.
func checkBounded(t *testing.T, e *tensor.Engine, before wgpu.DeviceStats) {
	t.Helper()
	d := e.Device()
	require.NoError(t, d.Sync(ctxT(t)))
	st := d.Stats()
	assert.LessOrEqual(t, st.PeakBatchWork, d.WorkBudget(), "the largest batch's estimated work")
	t.Logf("%d dispatches in %d submissions, %d units of estimated work (budget %d)",
		st.Dispatches-before.Dispatches, st.Submits-before.Submits, st.Work-before.Work, d.WorkBudget())
}

// Fourteen transposes of 4096×4096 in one batch took lavapipe past five
// seconds in one submission (issue 10, item 2).
func TestManyLargeTransposesInOneBatch(t *testing.T) {
	isolated(t, func(t *testing.T) {
		e := testgpu.Engine(t)
		const n, count = 4096, 14
		xv := make([]float32, n*n)
		for i := range xv {
			xv[i] = float32(i)
		}
		want := make([]float32, n*n)
		for i := range n {
			for j := range n {
				want[j*n+i] = xv[i*n+j]
			}
		}
		before := e.Device().Stats()
		x := e.FromFloat32s(xv, n, n)
		defer x.Dispose()
		ts := make([]*tensor.Tensor, count)
		for i := range ts {
			ts[i] = e.Transpose(x)
			defer ts[i].Dispose()
		}
		checkBounded(t, e, before)
		assert.Greater(t, e.Device().Stats().Submits-before.Submits, uint64(1), "the batch was split")
		for i, tr := range ts {
			require.True(t, slices.Equal(want, f32s(t, tr)), "transpose %d", i)
		}
	})
}

// Softmax over [740000 4] gave wrong values, then crashed lavapipe.
func TestSoftmaxOverManyRows(t *testing.T) {
	isolated(t, func(t *testing.T) {
		e := testgpu.Engine(t)
		checkSoftmaxRows(t, e, []int{740000, 4}, -1, false)
	})
}

// LogSoftmax over [6 2 65537 4] ran past five seconds in one submission.
func TestLogSoftmaxOverManyRows(t *testing.T) {
	isolated(t, func(t *testing.T) {
		e := testgpu.Engine(t)
		checkSoftmaxRows(t, e, []int{6, 2, 65537, 4}, -1, true)
		checkSoftmaxRows(t, e, []int{6, 2, 65537, 4}, 2, true)
	})
}

// checkSoftmaxRows checks (log-)softmax of random values over shape along
// axis against a float64 reference.
func checkSoftmaxRows(t *testing.T, e *tensor.Engine, shape []int, axis int, log bool) {
	t.Helper()
	r := rand.New(rand.NewPCG(10, 2))
	xv := randF32(r, size(shape), -20, 20)
	before := e.Device().Stats()
	x := e.FromFloat32s(xv, shape...)
	defer x.Dispose()
	var y *tensor.Tensor
	if log {
		y = e.LogSoftmax(x, axis)
	} else {
		y = e.Softmax(x, axis)
	}
	defer y.Dispose()
	checkBounded(t, e, before)
	ax := (axis + len(shape)) % len(shape)
	st, length := strides(shape)[ax], shape[ax]
	want := make([]float64, len(xv))
	for i := range xv {
		if (i/st)%length != 0 {
			continue // not the first element of its row
		}
		mx := math.Inf(-1)
		for j := range length {
			mx = math.Max(mx, float64(xv[i+j*st]))
		}
		var sum float64
		for j := range length {
			sum += math.Exp(float64(xv[i+j*st]) - mx)
		}
		for j := range length {
			v := float64(xv[i+j*st]) - mx
			if log {
				want[i+j*st] = v - math.Log(sum)
			} else {
				want[i+j*st] = math.Exp(v) / sum
			}
		}
	}
	// Relative to the result, and for log-softmax, whose values near 0
	// come from log(sum) of sums near 1, to float32's resolution of them.
	abs := 1e-7
	if log {
		abs = 1e-6
	}
	got := f32s(t, y)
	require.Len(t, got, len(want))
	bad := 0
	for i, w := range want {
		if math.Abs(float64(got[i])-w) > 1e-6*math.Abs(w)+abs {
			if bad < 5 {
				t.Errorf("%v axis %d: element %d is %v, want %v", shape, axis, i, got[i], w)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%v axis %d: %d of %d elements wrong", shape, axis, bad, len(want))
	}
}

// Every kernel family split into many small dispatches, on a device whose
// budget is tiny, gives bit for bit what one dispatch gives.
func TestSplitDispatchesGiveIdenticalResults(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.WorkBudget = 2000
	split, whole := testgpu.EngineOn(t, testgpu.OpenWith(t, opts)), testgpu.Engine(t)
	r := rand.New(rand.NewPCG(3, 4))
	a := input{randF32(r, 37*129, -3, 3), []int{37, 129}}
	b := input{randF32(r, 37*129, -3, 3), []int{37, 129}}
	a4, b4 := input{a.v[:36*128], []int{36, 128}}, input{b.v[:36*128], []int{36, 128}} // vec4
	row := input{b.v[:129], []int{129}}
	short := input{randF32(r, 200*7, -3, 3), []int{200, 7}}
	m1, m2 := input{randF32(r, 3*130*12, -1, 1), []int{3, 130, 12}}, input{randF32(r, 12*136, -1, 1), []int{12, 136}}
	m1t := input{m1.v[:12*130], []int{12, 130}}
	m3, m4 := input{randF32(r, 20*100, -1, 1), []int{20, 100}}, input{randF32(r, 100*24, -1, 1), []int{100, 24}}
	m3t := input{m3.v, []int{100, 20}}
	small1, small2 := input{randF32(r, 300*7*5, -1, 1), []int{300, 7, 5}}, input{randF32(r, 300*7*3, -1, 1), []int{300, 7, 3}}
	small3, small4 := input{randF32(r, 40*3*100, -1, 1), []int{40, 3, 100}}, input{randF32(r, 100*2, -1, 1), []int{100, 2}}
	long := input{randF32(r, 2*70000, -3, 3), []int{2, 70000}} // rows of two segments
	type ins = []*tensor.Tensor
	for _, c := range []struct {
		name string
		in   []input
		op   func(e *tensor.Engine, x ins) *tensor.Tensor
	}{
		{"add vec4", []input{a4, b4}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.Add(x[0], x[1]) }},
		{"fused, broadcast", []input{a, row}, func(e *tensor.Engine, x ins) *tensor.Tensor {
			m := e.Mul(x[0], x[1])
			defer m.Dispose()
			s := e.Add(m, x[0])
			defer s.Dispose()
			return e.Exp(s)
		}},
		{"rand", nil, func(e *tensor.Engine, _ ins) *tensor.Tensor { return e.RandNormal(9, 0, 1, 41, 97) }},
		{"range", nil, func(e *tensor.Engine, _ ins) *tensor.Tensor { return e.Range(tensor.Float32, 0, 5001, 1) }},
		{"transpose", []input{a}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.Transpose(x[0]) }},
		{"slice", []input{a}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.Slice(x[0], []int{3, 5}, []int{30, 100}) }},
		{"concat", []input{a, b}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.Concat(1, x[0], x[1]) }},
		{"pad", []input{a}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.Pad(x[0], [][2]int{{2, 3}, {1, 4}}, 7) }},
		{"broadcast_to", []input{row}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.BroadcastTo(x[0], 37, 129) }},
		{"gather", []input{a}, func(e *tensor.Engine, x ins) *tensor.Tensor {
			idx := e.FromInt32s([]int32{5, -1, 0, 200, 128, 64}, 6)
			defer idx.Dispose()
			return e.Gather(x[0], idx, 1)
		}},
		{"sum, a workgroup per row", []input{a}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.Sum(x[0], false, 1) }},
		{"argmax, a thread per row", []input{short}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.ArgMax(x[0], 1) }},
		{"softmax, a workgroup per row", []input{a}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.Softmax(x[0], 0) }},
		{"log_softmax, a thread per row", []input{short}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.LogSoftmax(x[0], 1) }},
		{"sum, long rows", []input{long}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.Sum(x[0], false, 1) }},
		{"argmin, long rows", []input{long}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.ArgMin(x[0], 1) }},
		{"softmax, long rows", []input{long}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.Softmax(x[0], 1) }},
		{"matmul, long inner dimension", []input{m3, m4}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.MatMul(x[0], x[1]) }},
		{"matmul, long inner dimension, transposed", []input{m3t, m4}, func(e *tensor.Engine, x ins) *tensor.Tensor {
			return e.MatMulT(x[0], x[1], true, false)
		}},
		{"matmul, batched", []input{m1, m2}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.MatMul(x[0], x[1]) }},
		{"matmul, transposed", []input{m1t, m2}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.MatMulT(x[0], x[1], true, false) }},
		{"matmul, small batched", []input{small1, small2}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.MatMulT(x[0], x[1], true, false) }},
		{"matmul, small, long inner dimension", []input{small3, small4}, func(e *tensor.Engine, x ins) *tensor.Tensor { return e.MatMul(x[0], x[1]) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, splitDispatches := runOn(t, split, c.op, c.in)
			want, wholeDispatches := runOn(t, whole, c.op, c.in)
			assert.Greater(t, splitDispatches, wholeDispatches, "the small budget splits the dispatch")
			assert.True(t, slices.Equal(want, got), "split results differ from whole ones")
		})
	}
}

// input is the values and shape of a test's input tensor.
type input struct {
	v    []float32
	dims []int
}

// runOn runs op on e over tensors made from in, and returns the result's
// bits and the dispatches it took.
func runOn(t *testing.T, e *tensor.Engine, op func(*tensor.Engine, []*tensor.Tensor) *tensor.Tensor, in []input) ([]uint32, uint64) {
	t.Helper()
	ts := make([]*tensor.Tensor, len(in))
	for i, x := range in {
		ts[i] = e.FromFloat32s(x.v, x.dims...)
		defer ts[i].Dispose()
	}
	require.NoError(t, e.Flush())
	before := e.Device().Stats().Dispatches
	y := op(e, ts)
	defer y.Dispose()
	require.NoError(t, y.Err())
	require.NoError(t, e.Flush())
	dispatches := e.Device().Stats().Dispatches - before
	switch y.DType() {
	case tensor.Float32:
		v := f32s(t, y)
		bits := make([]uint32, len(v))
		for i, x := range v {
			bits[i] = math.Float32bits(x)
		}
		return bits, dispatches
	case tensor.Int32:
		v := i32s(t, y)
		bits := make([]uint32, len(v))
		for i, x := range v {
			bits[i] = uint32(x)
		}
		return bits, dispatches
	}
	return u32s(t, y), dispatches
}

// A product with more batches, or more columns of tiles, than a grid
// dimension holds (65,535) is split over several dispatches, not refused.
func TestMatMulPastTheGridLimits(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ a, b []int }{
		{[]int{70000, 1, 2}, []int{70000, 2, 1}}, // batches
		{[]int{1, 1}, []int{1, 4200001}},         // columns of 64-wide tiles
	} {
		matmulCase(t, e, r, c.a, c.b, false, false)
	}
}

// One long row was reduced by a single workgroup, which no split can cut:
// a softmax over 2²⁵ elements ran for 2.4 s in one submission on an
// unloaded machine. Long rows are now reduced in segments.
func TestLongRowsStayWithinTheBudget(t *testing.T) {
	isolated(t, func(t *testing.T) {
		e := testgpu.Engine(t)
		n := int(min(e.Device().Limits().MaxStorageBufferBindingSize/4, 1<<25)) - 3
		xv := make([]float32, n)
		for i := range xv {
			xv[i] = float32(i%1000) / 1000
		}
		xv[n-7] = 2 // the largest, late in the last segment
		before := e.Device().Stats()
		x := e.FromFloat32s(xv, n)
		defer x.Dispose()
		sum, mean, am := e.Sum(x, false), e.Mean(x, false), e.ArgMax(x, 0)
		defer sum.Dispose()
		defer mean.Dispose()
		defer am.Dispose()
		sm := e.LogSoftmax(x, 0)
		defer sm.Dispose()
		checkBounded(t, e, before)
		var want, wantExp float64
		for _, v := range xv {
			want += float64(v)
			wantExp += math.Exp(float64(v) - 2)
		}
		closeTo(t, []float32{float32(want)}, f32s(t, sum), 0, 1e-5, "sum of %d", n)
		closeTo(t, []float32{float32(want / float64(n))}, f32s(t, mean), 0, 1e-5, "mean of %d", n)
		assert.Equal(t, []int32{int32(n - 7)}, i32s(t, am))
		got := f32s(t, sm)
		for _, i := range []int{0, 1, n / 2, n - 7, n - 1} {
			closeTo(t, []float32{float32(float64(xv[i]) - 2 - math.Log(wantExp))}, got[i:i+1], 1e-5, 1e-5, "log_softmax element %d", i)
		}
	})
}

// One tile of a product with a long inner dimension was one workgroup no
// split could cut: [128 262140]·[262140 128] ran for 1.4 s in one dispatch
// on an unloaded machine. Each tile now sums ranges of k in turn.
func TestMatMulLongInnerDimension(t *testing.T) {
	isolated(t, func(t *testing.T) {
		e := testgpu.Engine(t)
		K := 262140
		if uint64(128*K*4) > e.Device().Limits().MaxStorageBufferBindingSize {
			K = int(e.Device().Limits().MaxStorageBufferBindingSize/(128*4)) &^ 15
		}
		before := e.Device().Stats()
		a, b := e.Ones(tensor.Float32, 128, K), e.Ones(tensor.Float32, K, 128)
		defer a.Dispose()
		defer b.Dispose()
		c := e.MatMul(a, b)
		defer c.Dispose()
		checkBounded(t, e, before)
		for i, v := range f32s(t, c) {
			if v != float32(K) {
				t.Fatalf("element %d is %v, want %d", i, v, K)
			}
		}
	})
}

// Every reduction of long rows of every dtype: the segments' results keep
// the accumulator's type, and the arg reductions their indices.
func TestLongRowsOfEveryReduction(t *testing.T) {
	e := testgpu.Engine(t)
	const n = 2*65536 + 5 // three segments, the last short
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Int32, tensor.Uint32} {
		x := e.Range(dt, 0, n, 1)
		ones := e.Ones(dt, n)
		want := map[string]float64{"max": n - 1, "min": 0, "argmax": n - 1, "argmin": 0, "mean": (n - 1) / 2.0, "sum": n, "prod": 1}
		for name, y := range map[string]*tensor.Tensor{
			"max": e.Max(x, false), "min": e.Min(x, false), "argmax": e.ArgMax(x, 0), "argmin": e.ArgMin(x, 0),
			"mean": e.Mean(x, false), "sum": e.Sum(ones, false), "prod": e.Prod(ones, false),
		} {
			var got float64
			switch y.DType() {
			case tensor.Float32:
				got = float64(f32s(t, y)[0])
			case tensor.Int32:
				got = float64(i32s(t, y)[0])
			default:
				got = float64(u32s(t, y)[0])
			}
			assert.InDelta(t, want[name], got, 1e-6*want[name], "%s of %s", name, dt)
			y.Dispose()
		}
		x.Dispose()
		ones.Dispose()
	}
}

// A thread per row sums the whole row in order: rows of
// kernels.MaxThreadRow, the longest it takes, come out as exact with either
// row kernel as a workgroup's, and one element longer takes a workgroup.
func TestRowKernelsAtTheLongestThreadRow(t *testing.T) {
	for _, kind := range []string{"thread", "group", ""} {
		t.Run("kernel="+kind, func(t *testing.T) {
			e := testgpu.Engine(t)
			tensor.ForceRowKernel(e, kind)
			for _, n := range []int{kernels.MaxThreadRow, kernels.MaxThreadRow + 1} {
				checkRowsOfOnes(t, e, 8, n)
			}
		})
	}
}

// checkRowsOfOnes checks every row op over rows rows of n ones, with a 2
// at the end of each row.
func checkRowsOfOnes(t *testing.T, e *tensor.Engine, rows, n int) {
	t.Helper()
	v := make([]float32, rows*n)
	for i := range v {
		v[i] = 1
		if i%n == n-1 {
			v[i] = 2
		}
	}
	x := e.FromFloat32s(v, rows, n)
	defer x.Dispose()
	sum, mx, am := e.Sum(x, false, 1), e.Max(x, false, 1), e.ArgMax(x, 1)
	sm, lsm := e.Softmax(x, 1), e.LogSoftmax(x, 1)
	defer func() {
		for _, r := range []*tensor.Tensor{sum, mx, am, sm, lsm} {
			r.Dispose()
		}
	}()
	total := float64(n-1) + math.E
	sums, mxs, ams, sms, lsms := f32s(t, sum), f32s(t, mx), i32s(t, am), f32s(t, sm), f32s(t, lsm)
	for r := range rows {
		assert.Equal(t, float32(n+1), sums[r], "sum of row %d of %d", r, n)
		assert.Equal(t, float32(2), mxs[r], "max of row %d of %d", r, n)
		assert.Equal(t, int32(n-1), ams[r], "argmax of row %d of %d", r, n)
		last := r*n + n - 1
		closeTo(t, []float32{float32(math.E / total)}, sms[last:last+1], 1e-6, 1e-5, "softmax, row %d of %d", r, n)
		closeTo(t, []float32{float32(-math.Log(total))}, lsms[r*n:r*n+1], 1e-6, 1e-5, "log_softmax, row %d of %d", r, n)
	}
}
