package wgpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"

	"github.com/wgtensor/wgtensor/wgpu/internal/native"
)

// Float32Behavior says where a device's float32 arithmetic departs from
// IEEE 754's correctly rounded results. WGSL allows each departure, and
// GPUs take them: an NVIDIA GPU through Vulkan flushes subnormals and
// divides and takes square roots to within 2.5 ulp, where lavapipe is
// exact. Open measures them (Device.Float32); code generators read them to
// keep their results exact and the same on every device (see the tensor
// package's numerics).
type Float32Behavior struct {
	// FlushesSubnormals: arithmetic reads a subnormal operand as a zero of
	// its sign and gives a zero of its sign for a result that would be
	// subnormal.
	FlushesSubnormals bool
	// InexactDivision: x / y is not always the correctly rounded quotient.
	InexactDivision bool
	// InexactSqrt: sqrt(x) is not always the correctly rounded root.
	InexactSqrt bool
}

// Or returns the departures of either b or c.
func (b Float32Behavior) Or(c Float32Behavior) Float32Behavior {
	return Float32Behavior{
		FlushesSubnormals: b.FlushesSubnormals || c.FlushesSubnormals,
		InexactDivision:   b.InexactDivision || c.InexactDivision,
		InexactSqrt:       b.InexactSqrt || c.InexactSqrt,
	}
}

// String lists the departures as ParseFloat32Behavior reads them
// ("flush,div,sqrt"), or "ieee" for none.
func (b Float32Behavior) String() string {
	var s []string
	if b.FlushesSubnormals {
		s = append(s, "flush")
	}
	if b.InexactDivision {
		s = append(s, "div")
	}
	if b.InexactSqrt {
		s = append(s, "sqrt")
	}
	if len(s) == 0 {
		return "ieee"
	}
	return strings.Join(s, ",")
}

// ParseFloat32Behavior reads a comma-separated list of departures: "flush"
// (FlushesSubnormals), "div" (InexactDivision), "sqrt" (InexactSqrt);
// "ieee" or "" names none.
func ParseFloat32Behavior(s string) (Float32Behavior, error) {
	var b Float32Behavior
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(strings.ToLower(f)) {
		case "flush":
			b.FlushesSubnormals = true
		case "div":
			b.InexactDivision = true
		case "sqrt":
			b.InexactSqrt = true
		case "", "ieee":
		default:
			return Float32Behavior{}, fmt.Errorf("wgpu: float32 behavior %q: want a list of flush, div and sqrt", s)
		}
	}
	return b, nil
}

// Float32 returns the departures of the device's float32 arithmetic from
// IEEE 754, as measured when it opened, together with those
// Options.Float32 asked to assume; the zero value for a nil or zero Device.
func (d *Device) Float32() Float32Behavior {
	if d.opened("float32") != nil {
		return Float32Behavior{}
	}
	return d.float32
}

// float32Probes holds what probeFloat32 measured, per adapter, so that a
// process that opens many devices on one adapter measures it once.
var float32Probes sync.Map // adapter key -> Float32Behavior

// probeFloat32 measures dev's float32 behavior with one small kernel, or
// returns what an earlier device on the same adapter measured. It uses
// native buffers of its own, destroyed before it returns, so the pool and
// the device's statistics never see it. The caller holds glMu.
func probeFloat32(dev *native.Device, info AdapterInfo) (Float32Behavior, error) {
	key := fmt.Sprintf("%s|%s|%s|%x|%x", info.Backend, info.Name, info.Driver, info.VendorID, info.DeviceID)
	if b, ok := float32Probes.Load(key); ok {
		return b.(Float32Behavior), nil
	}
	in := float32ProbeInputs()
	out, err := runProbe(dev, float32ProbeSource, in, 3*len(in)/2)
	if err != nil {
		return Float32Behavior{}, fmt.Errorf("measuring float32 arithmetic: %w", err)
	}
	b := judgeFloat32Probe(in, out)
	float32Probes.Store(key, b)
	return b, nil
}

// float32ProbeSource computes, for each pair (a, b) of x, a + b, a / b and
// sqrt(a) into y.
const float32ProbeSource = `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = id.x;
	if (i >= arrayLength(&x) / 2u) { return; }
	let a = x[2u * i];
	let b = x[2u * i + 1u];
	y[3u * i] = a + b;
	y[3u * i + 1u] = a / b;
	y[3u * i + 2u] = sqrt(a);
}`

// float32ProbePairs is how many pairs the probe tries. An NVIDIA GPU
// through Vulkan rounds about a quarter of random quotients and roots
// differently from IEEE, so a few hundred find both with certainty.
const float32ProbePairs = 512

// float32ProbeInputs returns the probe's pairs: first the smallest
// subnormal and zero, whose sum is zero only where subnormals flush; then
// the quotient of two values near the largest float, which a reciprocal
// flushed to zero ruins; then random positive normal pairs whose
// quotients and roots are normal.
func float32ProbeInputs() []float32 {
	in := []float32{math.SmallestNonzeroFloat32, 0, 1e38, 3e38}
	r := rand.New(rand.NewPCG(1, 2))
	for len(in) < 2*float32ProbePairs {
		a := float32(math.Ldexp(1+r.Float64(), r.IntN(120)-60))
		b := float32(math.Ldexp(1+r.Float64(), r.IntN(120)-60))
		in = append(in, a, b)
	}
	return in
}

// judgeFloat32Probe compares the probe's results with IEEE 754's.
func judgeFloat32Probe(in, out []float32) Float32Behavior {
	var b Float32Behavior
	b.FlushesSubnormals = math.Float32bits(out[0]) != math.Float32bits(in[0]+in[1])
	for i := 1; i < len(in)/2; i++ {
		x, y := in[2*i], in[2*i+1]
		if math.Float32bits(out[3*i+1]) != math.Float32bits(x/y) {
			b.InexactDivision = true
		}
		if math.Float32bits(out[3*i+2]) != math.Float32bits(float32(math.Sqrt(float64(x)))) {
			b.InexactSqrt = true
		}
	}
	return b
}

// runProbe runs source's main over in (binding 0) into outLen float32s
// (binding 1), one thread per pair of inputs, and returns them.
func runProbe(dev *native.Device, source string, in []float32, outLen int) (_ []float32, err error) {
	layout, err := dev.CreateBindGroupLayout("probe", []native.LayoutEntry{{Type: native.ReadOnlyStorage}, {Type: native.Storage}})
	if err != nil {
		return nil, err
	}
	defer layout.Release()
	pipe, err := dev.CreatePipeline("probe", source, "main", layout)
	if err != nil {
		return nil, err
	}
	defer pipe.Release()
	inSize, outSize := uint64(4*len(in)), uint64(4*outLen)
	var bufs []*native.Buffer
	defer func() {
		for _, b := range bufs {
			b.Destroy()
			b.Release()
		}
	}()
	buffer := func(size uint64, u native.Usage) *native.Buffer {
		if err != nil {
			return nil
		}
		var b *native.Buffer
		if b, err = dev.CreateBuffer(size, u); err == nil {
			bufs = append(bufs, b)
		}
		return b
	}
	src, dst, rb := buffer(inSize, native.UsageStorage), buffer(outSize, native.UsageStorage), buffer(outSize, native.UsageReadback)
	if err != nil {
		return nil, err
	}
	data := make([]byte, inSize)
	for i, v := range in {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	if err := dev.WriteBuffer(src, 0, data); err != nil {
		return nil, err
	}
	bg, err := dev.CreateBindGroup("probe", layout, []native.BufferBinding{{Buffer: src, Size: inSize}, {Buffer: dst, Size: outSize}})
	if err != nil {
		return nil, err
	}
	defer bg.Release()
	enc, err := dev.NewEncoder("probe")
	if err != nil {
		return nil, err
	}
	enc.Dispatch(pipe, bg, [3]uint32{uint32(len(in)/2+63) / 64, 1, 1})
	if err := enc.Copy(dst, 0, rb, 0, outSize); err != nil {
		enc.Discard()
		return nil, err
	}
	cmd, err := enc.Finish()
	if err != nil {
		return nil, err
	}
	dev.Submit(cmd)
	status, done := native.MapStatus(0), false
	if err := dev.MapRead(rb, outSize, func(s native.MapStatus) { status, done = s, true }); err != nil {
		return nil, err
	}
	for !done {
		dev.Poll(true)
	}
	if status != native.MapSuccess {
		return nil, fmt.Errorf("reading the results back: %v", status)
	}
	out := make([]float32, outLen)
	raw := rb.Mapped(outSize)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out, rb.Unmap()
}

// float32FromEnvironment reads WGT_FLOAT32, the departures to assume on
// every device (see Options.Float32).
func float32FromEnvironment() (Float32Behavior, error) {
	return ParseFloat32Behavior(os.Getenv("WGT_FLOAT32"))
}
