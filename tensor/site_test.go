package tensor_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// nextLine returns "tensor/site_test.go:N" for the line after its call,
// as Site prints it.
func nextLine() string {
	_, file, line, _ := runtime.Caller(1)
	parts := strings.Split(file, "/")
	return fmt.Sprintf("%s/%s:%d", parts[len(parts)-2], parts[len(parts)-1], line+1)
}

// sites collects the lines of the leaking call and of the calls to the
// helpers that lead to it.
type sites struct{ op, inner, outer string }

// leakOuter and leakInner are a user's helpers, two levels deep, around
// the op that leaks.
func leakOuter(e *tensor.Engine, x *tensor.Tensor, s *sites) *tensor.Tensor {
	s.inner = nextLine()
	return leakInner(e, x, s)
}

func leakInner(e *tensor.Engine, x *tensor.Tensor, s *sites) *tensor.Tensor {
	s.op = nextLine()
	return e.Relu(x)
}

func TestLeakThroughHelpersNamesTheOpsLineAndTheChain(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, -2, 3}, 3)
	defer x.Dispose()
	var s sites
	s.outer = nextLine()
	y := leakOuter(e, x, &s)
	defer y.Dispose()
	_, err := y.Float32s(t.Context())
	require.NoError(t, err)

	site := y.Site()
	assert.Equal(t, s.op, site.String(), "the user's line that called the op")
	want := s.op + " (tensor_test.leakInner) ← " + s.inner + " (tensor_test.leakOuter) ← " +
		s.outer + " (tensor_test.TestLeakThroughHelpersNamesTheOpsLineAndTheChain)"
	assert.Equal(t, want, site.Chain())
	f, ok := site.Frame()
	require.True(t, ok)
	assert.True(t, strings.HasSuffix(f.Function, ".leakInner"), f.Function)

	infos := e.LiveTensors()
	require.Len(t, infos, 2)
	assert.Equal(t, site, infos[1].Site)
	by := tensor.BySite(infos)
	require.Len(t, by, 2)
	assert.Equal(t, want, by[1].Site.Chain(), "Relu's result was made at the helper's line")

	var sum strings.Builder
	require.NoError(t, e.Summary(&sum))
	assert.Contains(t, sum.String(), want)
	var js strings.Builder
	require.NoError(t, e.Snapshot().WriteJSON(&js))
	assert.Contains(t, js.String(), `"chain": "`+want+`"`)

	var lines []string
	for _, b := range e.Device().LiveBuffers() {
		lines = append(lines, b.Site)
	}
	assert.Contains(t, lines, s.op, "the pool names the same line as the tensor")
}

func TestZeroSiteIsUnknown(t *testing.T) {
	var s tensor.Site
	assert.Equal(t, "unknown", s.String())
	assert.Equal(t, "unknown", s.Chain())
	assert.Nil(t, s.Frames())
	_, ok := s.Frame()
	assert.False(t, ok)
	assert.Equal(t, s, (*tensor.Tensor)(nil).Site())
}

func TestProfileRoundTrip(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, -2, 3}, 3)
	defer x.Dispose()
	var s sites
	var made []*tensor.Tensor
	for range 2 { // one stack, so one sample
		made = append(made, leakOuter(e, x, &s))
	}
	made = append(made, e.Zeros(tensor.Int32, 2, 5))
	defer tidy.Dispose(made)

	var buf bytes.Buffer
	require.NoError(t, e.WriteProfile(&buf))
	p, err := profile.Parse(&buf)
	require.NoError(t, err)
	require.NoError(t, p.CheckValid())
	require.Len(t, p.SampleType, 2)
	assert.Equal(t, "tensors", p.SampleType[0].Type)
	assert.Equal(t, "gpu_bytes", p.SampleType[1].Type)
	assert.Equal(t, "gpu_bytes", p.DefaultSampleType)
	require.Len(t, p.Mapping, 1)
	assert.True(t, p.Mapping[0].HasFunctions, "the locations carry their symbols")

	type sample struct {
		dtype, shape string
		n, bytes     int64
		funcs        []string
	}
	var got []sample
	for _, smp := range p.Sample {
		var funcs []string
		for _, l := range smp.Location {
			for _, ln := range l.Line {
				funcs = append(funcs, ln.Function.Name[strings.LastIndexByte(ln.Function.Name, '/')+1:])
			}
		}
		label := func(k string) string { return strings.Join(smp.Label[k], ",") }
		got = append(got, sample{label("dtype"), label("shape"), smp.Value[0], smp.Value[1], funcs[:min(3, len(funcs))]})
	}
	assert.ElementsMatch(t, []sample{
		{"float32", "[3]", 1, 12, []string{"tensor_test.TestProfileRoundTrip", "testing.tRunner", "runtime.goexit"}},
		{"float32", "[3]", 2, 24, []string{"tensor_test.leakInner", "tensor_test.leakOuter", "tensor_test.TestProfileRoundTrip"}},
		{"int32", "[2 5]", 1, 40, []string{"tensor_test.TestProfileRoundTrip", "testing.tRunner", "runtime.goexit"}},
	}, got)
}

// Close's leak report names what LiveTensors names: a view outliving the
// tensor it was made from is reported at the view's line, and a disposed
// tensor that only a queued fused op still reads is listed apart, as
// waiting for that work.
func TestCloseReportsLeaksAtTheLinesLiveTensorsNames(t *testing.T) {
	d := testgpu.OpenUnchecked(t, testgpu.DefaultOptions())
	e := tensor.New(d)

	x := e.FromFloat32s([]float32{1, 2, 3, 4}, 4)
	viewLine := nextLine()
	v := e.Reshape(x, 2, 2)
	x.Dispose() // v still views x's buffer

	queuedLine := nextLine()
	q := e.FromFloat32s([]float32{5, 6, 7, 8}, 4)
	expLine := nextLine()
	y := e.Exp(q) // fused and queued: it reads q's buffer when it runs
	q.Dispose()

	var lines []string
	for _, info := range e.LiveTensors() {
		lines = append(lines, info.Site.String())
	}
	assert.ElementsMatch(t, []string{viewLine, expLine}, lines)
	var awaiting []string
	for _, b := range d.LiveBuffers() {
		if b.AwaitingWork {
			awaiting = append(awaiting, b.Site)
		}
	}
	assert.Equal(t, []string{queuedLine}, awaiting, "only q's buffer waits for queued work")

	err := d.Close()
	require.ErrorIs(t, err, wgpu.ErrLeaked)
	msg := err.Error()
	held, queued, ok := strings.Cut(msg, "; and ")
	require.True(t, ok, "the report lists the buffers queued work holds apart: %s", msg)
	assert.Contains(t, held, "live 2 buffers")
	assert.Contains(t, held, "at "+viewLine, "the view's line, not its source's")
	assert.Contains(t, held, "at "+expLine)
	assert.NotContains(t, held, queuedLine)
	assert.Contains(t, queued, "1 buffer, 256 B: 1 × 256 B at "+queuedLine)
	assert.Contains(t, queued, "held only by queued work")
	_, _ = v, y // leaked on purpose; Close destroyed their buffers
}
