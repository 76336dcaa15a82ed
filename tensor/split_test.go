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
