package wgpu_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/wgpu"
)

// scaleWGSL computes y[i] = x[i] * k for i < n.
const scaleWGSL = `
struct Params { k: f32, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < p.n) { y[id.x] = x[id.x] * p.k; }
}
`

func scaleKernel(t testing.TB, d *wgpu.Device) *wgpu.Kernel {
	t.Helper()
	k, err := d.Kernel(wgpu.KernelSpec{Name: "scale", Source: scaleWGSL, Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: 8})
	require.NoError(t, err)
	return k
}

func scaleParams(k float32, n int) []byte {
	p := make([]byte, 8)
	binary.LittleEndian.PutUint32(p[0:], math.Float32bits(k))
	binary.LittleEndian.PutUint32(p[4:], uint32(n))
	return p
}

func groupsFor(n int) [3]uint32 { return [3]uint32{uint32((n + 63) / 64), 1, 1} }

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesF32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// upload creates a storage buffer holding v.
func upload(t testing.TB, d *wgpu.Device, v []float32) *wgpu.Buffer {
	t.Helper()
	b, err := d.NewBuffer(uint64(4*len(v)), wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, d.Write(b, 0, f32bytes(v)))
	return b
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func readF32(t testing.TB, d *wgpu.Device, b *wgpu.Buffer) []float32 {
	t.Helper()
	data, err := d.ReadAsync(b, 0, b.Size()).Await(ctxT(t))
	require.NoError(t, err)
	return bytesF32(data)
}

func ramp(n int, scale float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i) * scale
	}
	return v
}
