package frame_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/frame"
	"github.com/wgtensor/wgtensor/internal/bytesize"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// thisLine returns file:line of its caller, as tensor.Site prints it.
func thisLine() string {
	_, file, line, _ := runtime.Caller(1)
	parts := strings.Split(file, "/")
	return fmt.Sprintf("%s/%s:%d", parts[len(parts)-2], parts[len(parts)-1], line+1)
}

// Seed scenario 1: an inference loop that forgets to dispose. The watchdog
// names the line that allocated the leaking tensors.
func TestScenarioForgottenDisposeIsReported(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	x := e.RandUniform(1, -1, 1, 64)
	defer x.Dispose()
	var leaked []*tensor.Tensor
	var reports []*frame.Leak
	var site string
	_, err := frame.Loop(ctx, e, func(int) error {
		site = thisLine()
		y := e.Relu(x) // the leak: y is never disposed
		leaked = append(leaked, y)
		_, err := y.Float32s(ctx)
		return err
	}, frame.Options{Frames: 40, LeakFrames: 10, OnLeak: func(l *frame.Leak) { reports = append(reports, l) }, StopOnLeak: true})
	defer tidy.Dispose(leaked)
	var leak *frame.Leak
	require.ErrorAs(t, err, &leak, "the loop stops with the report")
	require.NotEmpty(t, reports)
	assert.LessOrEqual(t, leak.ToFrame, 11, "reported within N+1 frames")
	require.NotEmpty(t, leak.Sites)
	assert.Equal(t, site, leak.Sites[0].Site.String(), "the report names the leaking line")
	assert.Equal(t, 10, leak.Sites[0].Tensors)
	assert.Contains(t, leak.Error(), site)
	assert.Contains(t, leak.Error(), "(frame_test.TestScenarioForgottenDisposeIsReported)", "the chain reaches the test through Loop")
}

// reluVia and reluIn are a user's helpers, two levels deep, around the op
// whose results leak; reluIn records its line.
func reluVia(e *tensor.Engine, x *tensor.Tensor, line *string) *tensor.Tensor {
	return reluIn(e, x, line)
}

func reluIn(e *tensor.Engine, x *tensor.Tensor, line *string) *tensor.Tensor {
	*line = thisLine()
	return e.Relu(x)
}

// A leak made through helpers is reported at the line of the user's code
// that called the op, and the report's chain shows the helpers and the
// loop that called them.
func TestLeakThroughHelpersReportsTheChain(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	x := e.RandUniform(1, -1, 1, 64)
	defer x.Dispose()
	var leaked []*tensor.Tensor
	var site string
	_, err := frame.Loop(ctx, e, func(int) error {
		y := reluVia(e, x, &site)
		leaked = append(leaked, y)
		_, err := y.Float32s(ctx)
		return err
	}, frame.Options{Frames: 40, LeakFrames: 10, StopOnLeak: true})
	defer tidy.Dispose(leaked)
	var leak *frame.Leak
	require.ErrorAs(t, err, &leak)
	require.NotEmpty(t, leak.Sites)
	assert.Equal(t, site, leak.Sites[0].Site.String(), "the op's line in the helper")
	msg := leak.Error()
	assert.Contains(t, msg, site+" (frame_test.reluIn) ← frame/scenarios_test.go:")
	assert.Contains(t, msg, "(frame_test.reluVia) ← frame/scenarios_test.go:")
	assert.Contains(t, msg, "(frame_test.TestLeakThroughHelpersReportsTheChain.func1)")
}

// Seed scenario 2: the same loop with Dispose, and with tidy around code
// that awaits: flat over 1,000 iterations.
func TestScenarioDisposedLoopIsFlat(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	x := e.RandUniform(1, -1, 1, 1024)
	defer x.Dispose()
	for _, variant := range []struct {
		name   string
		scoped bool
		body   func() error
	}{
		{"dispose", false, func() error {
			y := e.Relu(x)
			defer y.Dispose()
			_, err := y.Float32s(ctx)
			return err
		}},
		{"tidy with await", true, func() error {
			y := e.Sigmoid(e.Relu(x))
			_, err := y.Float32s(ctx)
			return err
		}},
	} {
		base := e.Memory()
		c, err := frame.Loop(ctx, e, func(int) error { return variant.body() },
			frame.Options{Frames: 1000, Scoped: variant.scoped, LeakFrames: 10, StopOnLeak: true})
		require.NoError(t, err, variant.name)
		for _, s := range c.Samples() {
			assert.Equal(t, base.Tensors, s.LiveTensors, "%s: frame %d", variant.name, s.Frame)
			assert.Equal(t, base.Bytes, s.LiveBytes, "%s: frame %d", variant.name, s.Frame)
		}
		assert.Equal(t, 1000, c.Frame())
	}
}

// Seed scenario 3: Dispose right after starting a readback, before
// awaiting it: every promise resolves with the right values.
func TestScenarioDisposeDuringReadback(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	x := e.Range(tensor.Float32, 0, 16384, 1)
	defer x.Dispose()
	base := e.Memory()
	correct := 0
	for i := range 1000 {
		inc := e.Fill(tensor.Float32, float64(i), 1)
		t1 := e.Add(x, inc)
		p := t1.Data()
		t1.Dispose() // before the await
		inc.Dispose()
		b, err := p.Await(ctx)
		require.NoError(t, err)
		v := tensor.Float32sFromBytes(b)
		if v[0] == float32(i) && v[16383] == float32(16383+i) {
			correct++
		}
	}
	assert.Equal(t, 1000, correct)
	after := e.Memory()
	assert.Equal(t, base.Tensors, after.Tensors)
	assert.Equal(t, base.Bytes, after.Bytes)
	assert.Zero(t, after.PendingReadbacks)
}

// Seed scenario 4: a model created, used and disposed 100 times: live bytes
// return to the baseline each time; after Trim nothing is reserved, and on
// GL the driver's own buffer count returns to its baseline.
func TestScenarioModelLifecycle(t *testing.T) {
	for _, backend := range []wgpu.Backend{wgpu.BackendVulkan, wgpu.BackendGL} {
		t.Run(backend.String(), func(t *testing.T) {
			opts := testgpu.DefaultOptions()
			opts.Backend = backend
			d := testgpu.OpenWith(t, opts)
			e := testgpu.EngineOn(t, d)
			ctx := ctxT(t)
			require.NoError(t, d.Sync(ctx)) // let buffers destroyed at open leave the registry
			driverBase, haveDriver := d.Stats().DriverBuffers, d.Stats().HasDriverBuffers
			base := e.Memory()
			for i := range 100 {
				w1 := e.RandNormal(uint64(i), 0, 0.1, 64, 32)
				w2 := e.RandNormal(uint64(i)+1000, 0, 0.1, 32, 10)
				in := e.RandUniform(uint64(i), 0, 1, 8, 64)
				out, err := tidy.Run(e, func() (*tensor.Tensor, error) {
					return e.Softmax(e.MatMul(e.Relu(e.MatMul(in, w1)), w2), -1), nil
				})
				require.NoError(t, err)
				_, err = out.Float32s(ctx)
				require.NoError(t, err)
				tidy.Dispose([]*tensor.Tensor{w1, w2, in, out})
				m := e.Memory()
				require.Equal(t, base.Bytes, m.Bytes, "iteration %d", i)
				require.Equal(t, base.Tensors, m.Tensors)
			}
			require.NoError(t, d.Sync(ctx))
			require.NoError(t, d.Pool().Trim())
			assert.Zero(t, d.Pool().Stats().ReservedBytes, "Trim gives everything back")
			if haveDriver {
				require.NoError(t, d.Sync(ctx))
				n := d.Stats().DriverBuffers
				assert.Equal(t, driverBase, n, "the driver holds as many buffers as before")
			}
		})
	}
}

// Seed scenario 5: a training-style loop (matmul, add, relu, reductions,
// weights replaced each batch): live bytes flat over 1,000 batches, and
// peak reserved within 4× the working set.
func TestScenarioTrainingLoop(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	w := e.RandNormal(1, 0, 0.1, 64, 64)
	b := e.Zeros(tensor.Float32, 64)
	x := e.RandUniform(2, -1, 1, 32, 64)
	defer func() { tidy.Dispose([]*tensor.Tensor{w, b, x}) }()
	lr := e.Fill(tensor.Float32, 0.001)
	defer lr.Dispose()
	base := e.Memory()
	c, err := frame.Loop(ctx, e, func(f int) error {
		type step struct{ W, B, Loss *tensor.Tensor }
		s, err := tidy.Run(e, func() (step, error) {
			h := e.Relu(e.Add(e.MatMul(x, w), b))
			loss := e.Mean(e.Square(h), false)
			// A stand-in for gradients: shrink the weights by the mean activation.
			g := e.Mul(e.Mean(h, false), lr)
			return step{W: e.Sub(w, g), B: e.Sub(b, g), Loss: loss}, nil
		})
		if err != nil {
			return err
		}
		w.Dispose()
		b.Dispose()
		w, b = s.W, s.B
		defer s.Loss.Dispose()
		if f%100 == 0 {
			_, err = s.Loss.Float32s(ctx)
		}
		return err
	}, frame.Options{Frames: 1000, LeakFrames: 10, StopOnLeak: true})
	require.NoError(t, err)
	for _, s := range c.Samples() {
		assert.Equal(t, base.Bytes, s.LiveBytes, "frame %d", s.Frame)
	}
	st := e.Memory().Pool
	working := base.Bytes + 4*64*64*3 // the weights, the inputs, and one batch's intermediates
	assert.LessOrEqual(t, st.PeakReservedBytes, 4*working+64<<10,
		"peak reserved %s within 4× the working set %s (+64 KiB of parameter and staging buffers)",
		bytesize.Format(st.PeakReservedBytes), bytesize.Format(working))
	t.Logf("working set %s, %s", bytesize.Format(working), st)
}

func TestSnapshotAndSummary(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	c := frame.NewClock(e, 10)
	old := e.Zeros(tensor.Float32, 4)
	defer old.Dispose()
	for range 3 {
		_, err := c.Next(ctx)
		require.NoError(t, err)
	}
	young := e.Zeros(tensor.Float32, 256)
	defer young.Dispose()
	_, err := c.Next(ctx)
	require.NoError(t, err)
	snap := c.Snapshot()
	require.Len(t, snap.Tensors, 2)
	assert.Equal(t, 4, snap.Tensors[0].AgeFrames)
	assert.Equal(t, 1, snap.Tensors[1].AgeFrames)
	assert.Equal(t, uint64(1024), snap.Tensors[1].Bytes)
	var js strings.Builder
	require.NoError(t, snap.WriteJSON(&js))
	assert.Contains(t, js.String(), `"site": "frame/scenarios_test.go:`)
	var sum strings.Builder
	require.NoError(t, e.Summary(&sum))
	assert.Contains(t, sum.String(), "tensors                   2 in 2 buffers, 1.02 KiB")
	assert.Contains(t, sum.String(), "scenarios_test.go:")
	assert.True(t, errors.Is(nil, nil))
}

func TestProfileOpensInPprof(t *testing.T) {
	e := testgpu.Engine(t)
	a := e.Zeros(tensor.Float32, 1024)
	b := e.Zeros(tensor.Float32, 1024)
	c := e.Ones(tensor.Float32, 10)
	defer tidy.Dispose([]*tensor.Tensor{a, b, c})
	path := t.TempDir() + "/gpu.pb.gz"
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, e.WriteProfile(f))
	require.NoError(t, f.Close())
	out, err := exec.Command(testgpu.Tool(t, "go"), "tool", "pprof", "-top", "-sample_index=gpu_bytes", path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "8.04kB", "two 4 KiB tensors and one of 40 B")
	assert.Contains(t, string(out), "TestProfileOpensInPprof")
}

// leakyStep leaks the loss of each step, one scalar, as a training loop
// that forgets to dispose it does (leaked only lets the test clean up).
func leakyStep(e *tensor.Engine, x *tensor.Tensor, leaked *[]*tensor.Tensor) {
	*leaked = append(*leaked, loss.Mean(e, x))
}

// Issue 19, item 19: a leak of one scalar per step beside 4 MiB of live
// tensors was dropped from pprof's top ("Dropped 8 nodes"), shown under
// loss.Mean, and the user's function only with -cum. With README's
// command the user's function is the leaf that holds the leak.
func TestProfileFindsASmallLeakAtTheUsersFunction(t *testing.T) {
	e := testgpu.Engine(t)
	big := e.Zeros(tensor.Float32, 1<<20)
	x := e.Ones(tensor.Float32, 8)
	defer tidy.Dispose([]*tensor.Tensor{big, x})
	var leaked []*tensor.Tensor
	for range 10 {
		leakyStep(e, x, &leaked)
	}
	defer tidy.Dispose(leaked)
	path := t.TempDir() + "/gpu.pb.gz"
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, e.WriteProfile(f))
	require.NoError(t, f.Close())
	out, err := exec.Command(testgpu.Tool(t, "go"), "tool", "pprof", "-top", "-nodefraction=0", "-sample_index=gpu_bytes", path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	var leak string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "leakyStep") {
			leak = l
		}
	}
	assert.Regexp(t, `^\s*0\.04kB\s`, leak, "ten 4-byte losses, flat in the user's function:\n%s", out)
	assert.NotContains(t, string(out), "loss.Mean", "the helper is a label, not the leaf")
}
