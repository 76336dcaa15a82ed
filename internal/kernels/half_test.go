package kernels_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/half"
	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// convert runs call (an expression of x[i], a u32) over words on the
// device and returns the u32 results.
func convert(t *testing.T, d *wgpu.Device, call string, words []uint32) []uint32 {
	t.Helper()
	src := kernels.Half + fmt.Sprintf(`
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
	let i = id.x + id.y * n.x * 64u;
	if (i < arrayLength(&x)) { y[i] = %s; }
}
`, call)
	k, err := d.Kernel(wgpu.KernelSpec{Name: "half_test", Key: "half_test/" + call, Source: src, Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}})
	require.NoError(t, err)
	in := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(in[4*i:], w)
	}
	x, err := d.NewBuffer(uint64(len(in)), wgpu.UsageStorage)
	require.NoError(t, err)
	defer x.Release()
	y, err := d.NewBuffer(uint64(len(in)), wgpu.UsageStorage)
	require.NoError(t, err)
	defer y.Release()
	require.NoError(t, d.Write(x, 0, in))
	groups := (len(words) + 63) / 64
	require.NoError(t, d.Dispatch(k, [3]uint32{uint32(min(groups, 32768)), uint32((groups + 32767) / 32768), 1}, nil, x, y))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := d.ReadAsync(y, 0, y.Size()).Await(ctx)
	require.NoError(t, err)
	res := make([]uint32, len(words))
	for i := range res {
		res[i] = binary.LittleEndian.Uint32(out[4*i:])
	}
	return res
}

// narrowing are float32 bits probing every rounding boundary of both
// formats (as internal/half's tests do) and random patterns.
func narrowing() []uint32 {
	var out []uint32
	for h := range uint32(0x7c00) {
		lo, hi := half.Float16To32(uint16(h)), half.Float16To32(uint16(h+1))
		mid := float32((float64(lo) + float64(hi)) / 2)
		for _, f := range []float32{lo, mid, math.Nextafter32(mid, 0), math.Nextafter32(mid, 1e30)} {
			out = append(out, math.Float32bits(f), math.Float32bits(f)|0x80000000)
		}
	}
	for h := range uint32(1 << 16) {
		b := h << 16
		out = append(out, b, b|0x8000, b|0x7fff, b|0x8001, b|1)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1 << 18 {
		out = append(out, rng.Uint32())
	}
	return out
}

// The WGSL conversions give internal/half's bits: widening every pattern
// of both formats, narrowing at every rounding boundary.
func TestHalfConversionsOnTheDevice(t *testing.T) {
	d := testgpu.Open(t)
	patterns := make([]uint32, 1<<16)
	for i := range patterns {
		patterns[i] = uint32(i)
	}
	wide := convert(t, d, "bitcast<u32>(half_to_f32(x[i]))", patterns)
	for h, got := range wide {
		want := math.Float32bits(half.Float16To32(uint16(h)))
		require.Equal(t, want, got, "float16 %#04x widened", h)
	}
	wide = convert(t, d, "bitcast<u32>(bfloat16_to_f32(x[i]))", patterns)
	for h, got := range wide {
		require.Equal(t, math.Float32bits(half.BFloat16To32(uint16(h))), got, "bfloat16 %#04x widened", h)
	}
	cases := narrowing()
	narrow := convert(t, d, "f32_to_half(bitcast<f32>(x[i]))", cases)
	for i, got := range narrow {
		require.Equal(t, uint32(half.Float16From32(math.Float32frombits(cases[i]))), got, "float16 of %#08x", cases[i])
	}
	narrow = convert(t, d, "f32_to_bfloat16(bitcast<f32>(x[i]))", cases)
	for i, got := range narrow {
		require.Equal(t, uint32(half.BFloat16From32(math.Float32frombits(cases[i]))), got, "bfloat16 of %#08x", cases[i])
	}
}
