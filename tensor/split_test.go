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

// checkBounded fails t unless every submission of e's device stayed within
// the device's work budget, and reports how many submissions there were.
func checkBounded(t *testing.T, e *tensor.Engine, before wgpu.DeviceStats) {
	t.Helper()
	d := e.Device()
	require.NoError(t, d.Flush())
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
	a, b := randF32(r, 37*129, -3, 3), randF32(r, 37*129, -3, 3)
	short := randF32(r, 200*7, -3, 3)
	m1, m2 := randF32(r, 3*130*12, -1, 1), randF32(r, 12*136, -1, 1)
	for _, c := range []struct {
		name string
		op   func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor
		in   [][]float32
		dims [][]int
	}{
		{"add vec4", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor { return e.Add(in[0], in[1]) },
			[][]float32{a[:36*128], b[:36*128]}, [][]int{{36, 128}, {36, 128}}},
		{"fused, broadcast", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
			m := e.Mul(in[0], in[1])
			defer m.Dispose()
			s := e.Add(m, in[0])
			defer s.Dispose()
			return e.Exp(s)
		}, [][]float32{a, b[:129]}, [][]int{{37, 129}, {129}}},
		{"rand", func(e *tensor.Engine, _ []*tensor.Tensor) *tensor.Tensor { return e.RandNormal(9, 0, 1, 41, 97) }, nil, nil},
		{"range", func(e *tensor.Engine, _ []*tensor.Tensor) *tensor.Tensor { return e.Range(tensor.Float32, 0, 5001, 1) }, nil, nil},
		{"transpose", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor { return e.Transpose(in[0]) },
			[][]float32{a}, [][]int{{37, 129}}},
		{"slice", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
			return e.Slice(in[0], []int{3, 5}, []int{30, 100})
		},
			[][]float32{a}, [][]int{{37, 129}}},
		{"concat", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor { return e.Concat(1, in[0], in[1]) },
			[][]float32{a, b}, [][]int{{37, 129}, {37, 129}}},
		{"pad", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
			return e.Pad(in[0], [][2]int{{2, 3}, {1, 4}}, 7)
		},
			[][]float32{a}, [][]int{{37, 129}}},
		{"broadcast_to", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor { return e.BroadcastTo(in[0], 37, 129) },
			[][]float32{b[:129]}, [][]int{{129}}},
		{"gather", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
			idx := e.FromInt32s([]int32{5, -1, 0, 200, 128, 64}, 6)
			defer idx.Dispose()
			return e.Gather(in[0], idx, 1)
		}, [][]float32{a}, [][]int{{37, 129}}},
		{"sum, a workgroup per row", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor { return e.Sum(in[0], false, 1) },
			[][]float32{a}, [][]int{{37, 129}}},
		{"argmax, a thread per row", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor { return e.ArgMax(in[0], 1) },
			[][]float32{short}, [][]int{{200, 7}}},
		{"softmax, a workgroup per row", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor { return e.Softmax(in[0], 0) },
			[][]float32{a}, [][]int{{37, 129}}},
		{"log_softmax, a thread per row", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor { return e.LogSoftmax(in[0], 1) },
			[][]float32{short}, [][]int{{200, 7}}},
		{"matmul, batched", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor { return e.MatMul(in[0], in[1]) },
			[][]float32{m1, m2}, [][]int{{3, 130, 12}, {12, 136}}},
		{"matmul, transposed", func(e *tensor.Engine, in []*tensor.Tensor) *tensor.Tensor {
			return e.MatMulT(in[0], in[1], true, false)
		},
			[][]float32{m1[:12*130], m2}, [][]int{{12, 130}, {12, 136}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, splitDispatches := runOn(t, split, c.op, c.in, c.dims)
			want, wholeDispatches := runOn(t, whole, c.op, c.in, c.dims)
			assert.Greater(t, splitDispatches, wholeDispatches, "the small budget splits the dispatch")
			assert.True(t, slices.Equal(want, got), "split results differ from whole ones")
		})
	}
}

// runOn runs op on e over inputs made from in and dims, and returns the
// result's bits and the dispatches it took.
func runOn(t *testing.T, e *tensor.Engine, op func(*tensor.Engine, []*tensor.Tensor) *tensor.Tensor, in [][]float32, dims [][]int) ([]uint32, uint64) {
	t.Helper()
	ts := make([]*tensor.Tensor, len(in))
	for i := range in {
		ts[i] = e.FromFloat32s(in[i], dims[i]...)
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
