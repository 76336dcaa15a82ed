package nn_test

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// rngFor returns a random source seeded by the test's name, so that each
// test draws the same inputs on every run.
func rngFor(t testing.TB) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	return rand.New(rand.NewPCG(h.Sum64(), 14))
}

// randFloats returns n values uniform in [lo, hi).
func randFloats(rng *rand.Rand, n int, lo, hi float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(lo + (hi-lo)*rng.Float64())
	}
	return v
}

// read returns t's values; t stays the caller's.
func read(t testing.TB, x *tensor.Tensor) []float32 {
	t.Helper()
	v, err := x.Float32s(context.Background())
	require.NoError(t, err)
	return v
}

// forward returns m's result on x, read back, freeing every tensor it made.
func forward(t testing.TB, e *tensor.Engine, m nn.Module, x *tensor.Tensor) []float32 {
	t.Helper()
	v, err := tidy.Run(e, func() ([]float32, error) {
		return m.Forward(x).Float32s(context.Background())
	})
	require.NoError(t, err)
	return v
}

// names lists the names of params.
func names(params []optim.Param) []string {
	out := make([]string, len(params))
	for i, p := range params {
		out[i] = p.Name
	}
	return out
}

// byName returns the tensor of the parameter called name.
func byName(t testing.TB, params []optim.Param, name string) *tensor.Tensor {
	t.Helper()
	for _, p := range params {
		if p.Name == name {
			return p.T
		}
	}
	t.Fatalf("no parameter %q in %v", name, names(params))
	return nil
}

// matVecT returns x·Wᵀ + b for x [n, in], w [out, in], b [out] (nil: none).
func matVecT(x []float32, n, in int, w []float32, out int, b []float32) []float64 {
	y := make([]float64, n*out)
	for i := range n {
		for o := range out {
			s := 0.0
			if b != nil {
				s = float64(b[o])
			}
			for k := range in {
				s += float64(x[i*in+k]) * float64(w[o*in+k])
			}
			y[i*out+o] = s
		}
	}
	return y
}

// requireClose fails t unless got and want agree within tol per element.
func requireClose(t testing.TB, want []float64, got []float32, tol float64, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for i := range want {
		if d := want[i] - float64(got[i]); d > tol || d < -tol {
			t.Fatalf("%s: element %d is %g, want %g (tolerance %g)", what, i, got[i], want[i], tol)
		}
	}
}

// liveFigures are the figures of an engine that must come back to the
// byte: live tensors, their storages and bytes, and the device's live
// buffers and bytes.
type liveFigures struct {
	Tensors, Storages, Buffers int
	Bytes, BufferBytes         uint64
}

// live returns e's live figures once the device has settled: its recorded
// work submitted and done, so that no staging buffer of an upload or a
// readback in flight counts.
func live(t testing.TB, e *tensor.Engine) liveFigures {
	t.Helper()
	require.NoError(t, e.Flush())
	require.NoError(t, testgpu.Settle(e.Device(), testgpu.Timeout))
	m := e.Memory()
	return liveFigures{m.Tensors, m.Storages, m.Pool.LiveBuffers, m.Bytes, m.Pool.LiveBytes}
}
