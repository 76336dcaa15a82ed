package wgpu_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

func TestParseFloat32Behavior(t *testing.T) {
	for _, c := range []struct {
		in   string
		want wgpu.Float32Behavior
	}{
		{"", wgpu.Float32Behavior{}},
		{"ieee", wgpu.Float32Behavior{}},
		{"flush", wgpu.Float32Behavior{FlushesSubnormals: true}},
		{"div, SQRT", wgpu.Float32Behavior{InexactDivision: true, InexactSqrt: true}},
		{"flush,div,sqrt", wgpu.Float32Behavior{FlushesSubnormals: true, InexactDivision: true, InexactSqrt: true}},
	} {
		got, err := wgpu.ParseFloat32Behavior(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
		again, err := wgpu.ParseFloat32Behavior(got.String())
		require.NoError(t, err)
		assert.Equal(t, got, again, "String and Parse round-trip %q", got)
	}
	_, err := wgpu.ParseFloat32Behavior("flush,fast")
	assert.ErrorContains(t, err, `"flush,fast"`)
}

// The probe's verdict on outputs as lavapipe gives them (IEEE) and as an
// NVIDIA GPU through Vulkan gives them (a subnormal sum flushed, quotients
// and roots one ulp off).
func TestJudgeFloat32Probe(t *testing.T) {
	in := wgpu.Float32ProbeInputs()
	require.Equal(t, float32(math.SmallestNonzeroFloat32), in[0], "the first pair tells a flushing device")
	ieee := make([]float32, 3*len(in)/2)
	for i := range len(in) / 2 {
		a, b := in[2*i], in[2*i+1]
		ieee[3*i], ieee[3*i+1], ieee[3*i+2] = a+b, a/b, float32(math.Sqrt(float64(a)))
	}
	assert.Equal(t, wgpu.Float32Behavior{}, wgpu.JudgeFloat32Probe(in, ieee))
	off := func(i int) []float32 {
		o := append([]float32(nil), ieee...)
		o[i] = math.Float32frombits(math.Float32bits(o[i]) + 1)
		return o
	}
	flushed := append([]float32(nil), ieee...)
	flushed[0] = 0
	assert.Equal(t, wgpu.Float32Behavior{FlushesSubnormals: true}, wgpu.JudgeFloat32Probe(in, flushed))
	assert.Equal(t, wgpu.Float32Behavior{InexactDivision: true}, wgpu.JudgeFloat32Probe(in, off(3*200+1)))
	assert.Equal(t, wgpu.Float32Behavior{InexactSqrt: true}, wgpu.JudgeFloat32Probe(in, off(3*7+2)))
}

// Options.Float32 adds departures to those the device has; the probe
// leaves nothing behind in the pool.
func TestFloat32OptionAddsDepartures(t *testing.T) {
	plain := testgpu.Open(t)
	opts := testgpu.DefaultOptions()
	opts.Float32 = wgpu.Float32Behavior{FlushesSubnormals: true, InexactDivision: true}
	forced := testgpu.OpenWith(t, opts)
	want := plain.Float32().Or(opts.Float32)
	assert.Equal(t, want, forced.Float32())
	assert.Zero(t, forced.Pool().Stats().Allocs, "the probe's buffers are not the pool's")
	var nilDev *wgpu.Device
	assert.Equal(t, wgpu.Float32Behavior{}, nilDev.Float32())
}
