package tensor_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// fusedChain computes relu(a*b + a) as one fused program that writes only
// its result: the intermediate results are disposed before it is
// dispatched.
func fusedChain(e *tensor.Engine, a, b *tensor.Tensor) *tensor.Tensor {
	m := e.Mul(a, b)
	s := e.Add(m, a)
	m.Dispose()
	y := e.Relu(s)
	s.Dispose()
	return y
}

// TestProfileFusedProgram: a fused chain shows up as one kernel named by
// its ops, with exactly the bytes it binds (two 4 KiB leaves read, one
// 4 KiB result written), and the memory the function took is exact.
func TestProfileFusedProgram(t *testing.T) {
	ctx := ctxT(t)
	e := testgpu.Engine(t)
	a := e.FromFloat32s(profileRamp(1024), 1024)
	b := e.FromFloat32s(profileRamp(1024), 1024)
	defer a.Dispose()
	defer b.Dispose()
	var y *tensor.Tensor
	p, err := e.Profile(ctx, func() error {
		y = fusedChain(e, a, b)
		return y.Err()
	})
	require.NoError(t, err)
	defer y.Dispose()

	require.Len(t, p.Kernels, 1, "%+v", p.Kernels)
	k := p.Kernels[0]
	require.Equal(t, "mul+add+relu", k.Name)
	require.Equal(t, []string{"mul", "add", "relu"}, k.Ops)
	require.True(t, k.Fused())
	require.Equal(t, 1, k.Calls)
	require.Equal(t, uint64(2*4096), k.Read)
	require.Equal(t, uint64(4096), k.Written)
	require.Positive(t, k.Time)
	require.Equal(t, expectedSource(e), p.Source)
	// m, s and y are 4 KiB each; a and b (8 KiB) were live before. At most
	// a, b and two of the three are live at once.
	require.Equal(t, uint64(3*4096), p.NewBytes)
	require.Equal(t, uint64(4*4096), p.PeakBytes)

	v, err := y.Float32s(ctx)
	require.NoError(t, err)
	require.Equal(t, float32(3*3+3), v[3])
}

// TestProfileTableAndTrace: the table names every kernel with its calls,
// sorted by time; the trace is JSON with one complete event per dispatch.
func TestProfileTableAndTrace(t *testing.T) {
	ctx := ctxT(t)
	e := testgpu.Engine(t)
	x := e.FromFloat32s(profileRamp(64*32), 64, 32)
	w := e.FromFloat32s(profileRamp(32*16), 32, 16)
	defer x.Dispose()
	defer w.Dispose()
	p, err := e.Profile(ctx, func() error {
		for range 3 {
			h := e.MatMul(x, w)
			y := fusedChain(e, h, h)
			s := e.Sum(y, false)
			h.Dispose()
			y.Dispose()
			if _, err := s.Float32s(ctx); err != nil {
				return err
			}
			s.Dispose()
		}
		return nil
	})
	require.NoError(t, err)

	// The chain runs in the product's kernel, which writes h and y (the
	// sum needs y while h is still held).
	require.Equal(t, 3, p.Total("matmul+mul+add+relu").Calls)
	require.Equal(t, 2*3*64*16*4, int(p.Total("matmul+mul+add+relu").Written))
	require.Zero(t, p.Total("no such kernel").Calls)
	calls := 0
	for i, k := range p.Kernels {
		calls += k.Calls
		if i > 0 {
			require.LessOrEqual(t, k.Time, p.Kernels[i-1].Time, "sorted by time")
		}
	}
	require.Equal(t, len(p.Dispatches), calls)

	var table bytes.Buffer
	require.NoError(t, p.WriteTable(&table))
	for _, want := range []string{"kernel profile:", expectedSource(e).String(), "matmul+mul+add+relu (fused, 4 ops)", "calls"} {
		require.Contains(t, table.String(), want)
	}
	require.Len(t, strings.Split(strings.TrimSpace(table.String()), "\n"), 2+len(p.Kernels))

	var trace bytes.Buffer
	require.NoError(t, p.WriteTrace(&trace))
	var parsed struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Dur  float64        `json:"dur"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(trace.Bytes(), &parsed))
	complete := 0
	for _, ev := range parsed.TraceEvents {
		if ev.Ph != "X" {
			continue
		}
		d := p.Dispatches[complete]
		require.Equal(t, d.Kernel, ev.Name)
		require.Positive(t, ev.Dur)
		require.GreaterOrEqual(t, ev.Ts, 0.0)
		require.Equal(t, d.Key, ev.Args["key"])
		complete++
	}
	require.Equal(t, len(p.Dispatches), complete)
	t.Logf("\n%s", table.String())
}

// TestProfileKeepsFusion: a profiled function dispatches exactly the
// kernels it dispatches unprofiled.
func TestProfileKeepsFusion(t *testing.T) {
	ctx := ctxT(t)
	e := testgpu.Engine(t)
	d := e.Device()
	a := e.FromFloat32s(profileRamp(256), 256)
	defer a.Dispose()
	step := func() error {
		y := fusedChain(e, a, a)
		defer y.Dispose()
		_, err := y.Float32s(ctx)
		return err
	}
	before := d.Stats().Dispatches
	require.NoError(t, step())
	unprofiled := d.Stats().Dispatches - before
	p, err := e.Profile(ctx, step)
	require.NoError(t, err)
	require.Equal(t, unprofiled, uint64(len(p.Dispatches)))
	require.Equal(t, uint64(1), unprofiled)
}

// TestProfileOneAtATime: Profile inside a profiled function, or from
// another engine on the device meanwhile, fails clearly without running
// its function; the outer profile is unharmed, and another can start once
// it ends.
func TestProfileOneAtATime(t *testing.T) {
	ctx := ctxT(t)
	e := testgpu.Engine(t)
	other := testgpu.EngineOn(t, e.Device())
	a := e.FromFloat32s(profileRamp(16), 16)
	defer a.Dispose()
	ran := false
	p, err := e.Profile(ctx, func() error {
		for _, inner := range []*tensor.Engine{e, other} {
			_, err := inner.Profile(ctx, func() error { ran = true; return nil })
			require.ErrorIs(t, err, wgpu.ErrInvalidArgument)
			require.ErrorContains(t, err, "another timer is running")
		}
		y := e.Neg(a)
		defer y.Dispose()
		_, err := y.Float32s(ctx)
		return err
	})
	require.NoError(t, err)
	require.False(t, ran)
	require.Equal(t, 1, p.Total("neg").Calls)
	_, err = other.Profile(ctx, func() error { return nil })
	require.NoError(t, err)
}

// TestProfileErrors: fn's error is returned with the profile of what ran,
// a panic in fn stops the profile, and bad calls fail clearly. Nothing
// leaks (the leak check runs at cleanup).
func TestProfileErrors(t *testing.T) {
	ctx := ctxT(t)
	e := testgpu.Engine(t)
	a := e.FromFloat32s(profileRamp(16), 16)
	defer a.Dispose()
	boom := errors.New("boom")
	p, err := e.Profile(ctx, func() error {
		y := e.Exp(a)
		defer y.Dispose()
		if _, err := y.Float32s(ctx); err != nil {
			return err
		}
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.NotNil(t, p)
	require.Equal(t, 1, p.Total("exp").Calls)

	testgpu.NoPanic(t, "recovering", func() {
		defer func() { require.Equal(t, "fn panics", recover()) }()
		_, _ = e.Profile(ctx, func() error { panic("fn panics") })
	})
	p, err = e.Profile(ctx, func() error { return nil }) // the panic stopped its timer
	require.NoError(t, err)
	require.Empty(t, p.Kernels)

	_, err = e.Profile(ctx, nil)
	require.ErrorIs(t, err, tensor.ErrArgument)
	var zero *tensor.Engine
	_, err = zero.Profile(ctx, func() error { return nil })
	require.ErrorIs(t, err, tensor.ErrArgument)
	var nilProfile *tensor.KernelProfile
	require.ErrorIs(t, nilProfile.WriteTable(&bytes.Buffer{}), tensor.ErrArgument)
	require.ErrorIs(t, nilProfile.WriteTrace(&bytes.Buffer{}), tensor.ErrArgument)
}

// expectedSource is how a profile on e's device times its kernels.
func expectedSource(e *tensor.Engine) wgpu.TimingSource {
	if e.Device().HasTimestamps() && os.Getenv("WGT_TIMESTAMPS") != "0" {
		return wgpu.GPUTimestamps
	}
	return wgpu.WallTime
}

func profileRamp(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i % 17)
	}
	return v
}
