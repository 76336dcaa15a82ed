package wgpu_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// An offset whose sum with the length wraps past 2^64 is refused before
// anything reaches the driver (lavapipe died of SIGSEGV at the next Sync,
// so the case runs in a child process).
func TestWriteOffsetOverflowIsRefused(t *testing.T) {
	if !inSubprocess(t) {
		return
	}
	d := testgpu.Open(t)
	b := upload(t, d, ramp(64, 1))
	defer b.Release()
	for _, n := range []int{16, 1 << 20} { // through the queue and through an upload buffer
		data := make([]byte, n)
		for _, off := range []uint64{math.MaxUint64 - 7, math.MaxUint64 - uint64(n) + 5, 1 << 63} {
			off &^= 3
			err := d.Write(b, off, data)
			require.ErrorIs(t, err, wgpu.ErrInvalidArgument, "write %d B at %d", n, off)
			assert.Contains(t, err.Error(), "write")
		}
	}
	for _, off := range []uint64{math.MaxUint64 - 3, 1 << 63} {
		_, err := d.ReadAsync(b, off, 8).Await(ctxT(t))
		require.ErrorIs(t, err, wgpu.ErrInvalidArgument, "read at %d", off)
		_, err = d.ReadAsyncInto(b, off, make([]byte, 8)).Await(ctxT(t))
		require.ErrorIs(t, err, wgpu.ErrInvalidArgument, "read into at %d", off)
	}
	require.NoError(t, d.Sync(ctxT(t)))
	assert.Equal(t, ramp(64, 1), readF32(t, d, b))
}

// callNoPanic runs f and turns a panic into a test failure.
func callNoPanic(t *testing.T, name string, f func() error) (err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", name, r)
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// Nil and zero values as receivers and arguments return errors; none
// panics.
func TestNilAndZeroValuesReturnErrors(t *testing.T) {
	d := testgpu.Open(t)
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(4, 1))
	defer x.Release()
	ctx := ctxT(t)
	await := func(p *wgpu.Promise[[]byte]) error { _, err := p.Await(ctx); return err }
	mustFail := map[string]func() error{
		"Write(nil)":             func() error { return d.Write(nil, 0, []byte{1, 2, 3, 4}) },
		"Write(zero buffer)":     func() error { return d.Write(&wgpu.Buffer{}, 0, []byte{1, 2, 3, 4}) },
		"ReadAsync(nil)":         func() error { return await(d.ReadAsync(nil, 0, 4)) },
		"ReadAsyncInto(nil)":     func() error { return await(d.ReadAsyncInto(nil, 0, make([]byte, 4))) },
		"ReadAsync(zero buffer)": func() error { return await(d.ReadAsync(&wgpu.Buffer{}, 0, 4)) },
		"Dispatch(nil kernel)":   func() error { return d.Dispatch(nil, groupsFor(4), scaleParams(1, 4), x, x) },
		"Dispatch(zero kernel)":  func() error { return d.Dispatch(&wgpu.Kernel{}, groupsFor(4), nil) },
		"Dispatch(nil buffer)":   func() error { return d.Dispatch(k, groupsFor(4), scaleParams(1, 4), x, nil) },
		"Dispatch(zero buffer)":  func() error { return d.Dispatch(k, groupsFor(4), scaleParams(1, 4), x, &wgpu.Buffer{}) },
		"zero Buffer.Release":    (&wgpu.Buffer{}).Release,
		"nil Promise.Await":      func() error { return await(nil) },
		"zero Promise.Await":     func() error { return await(&wgpu.Promise[[]byte]{}) },
		"Chain(nil Promise)": func() error {
			_, err := wgpu.Chain((*wgpu.Promise[[]byte])(nil), func([]byte) (int, error) { return 0, nil }).Await(ctx)
			return err
		},
		"Chain(nil function)": func() error {
			_, err := wgpu.Chain[[]byte, int](wgpu.Resolved([]byte{1}), nil).Await(ctx)
			return err
		},
		"nil Promise.OnSettled": func() error {
			got := make(chan error, 1)
			(*wgpu.Promise[[]byte])(nil).OnSettled(func(_ []byte, err error) { got <- err })
			return <-got
		},
		"nil Buffer.Release": (*wgpu.Buffer)(nil).Release,
	}
	for _, dev := range []*wgpu.Device{nil, {}} {
		name := fmt.Sprintf("%T(%v)", dev, dev == nil)
		mustFail[name+".NewBuffer"] = func() error { _, err := dev.NewBuffer(4, wgpu.UsageStorage); return err }
		mustFail[name+".NewBufferAt"] = func() error { _, err := dev.NewBufferAt(4, wgpu.UsageStorage, nil); return err }
		mustFail[name+".Write"] = func() error { return dev.Write(x, 0, []byte{1, 2, 3, 4}) }
		mustFail[name+".ReadAsync"] = func() error { return await(dev.ReadAsync(x, 0, 4)) }
		mustFail[name+".ReadAsyncInto"] = func() error { return await(dev.ReadAsyncInto(x, 0, make([]byte, 4))) }
		mustFail[name+".Dispatch"] = func() error { return dev.Dispatch(k, groupsFor(4), scaleParams(1, 4), x, x) }
		mustFail[name+".Kernel"] = func() error { _, err := dev.Kernel(wgpu.KernelSpec{Name: "scale", Source: scaleWGSL}); return err }
		mustFail[name+".KernelFor"] = func() error {
			_, err := dev.KernelFor("scale", func() wgpu.KernelSpec { return wgpu.KernelSpec{Name: "scale", Source: scaleWGSL} })
			return err
		}
		mustFail[name+".Flush"] = dev.Flush
		mustFail[name+".Poll"] = func() error { return dev.Poll(false) }
		mustFail[name+".WorkDone"] = func() error { _, err := dev.WorkDone().Await(ctx); return err }
		mustFail[name+".Sync"] = func() error { return dev.Sync(ctx) }
		mustFail[name+".Close"] = dev.Close
		mustFail[name+".Pool.Trim"] = func() error { return dev.Pool().Trim() }
		mustFail[name+".PopErrorScope"] = dev.PopErrorScope
	}
	mustFail["zero Pool.Trim"] = wgpu.Pool{}.Trim
	for name, call := range mustFail {
		assert.Error(t, callNoPanic(t, name, call), name)
	}

	// These return zero values or do nothing, without panicking.
	var nilBuf *wgpu.Buffer
	var nilKernel *wgpu.Kernel
	mayWork := map[string]func(){
		"nil Buffer accessors": func() {
			_, _, _, _, _ = nilBuf.ID(), nilBuf.Size(), nilBuf.Capacity(), nilBuf.Usage(), nilBuf.BindingSize()
		},
		"nil Kernel.Name":  func() { _ = nilKernel.Name() },
		"zero Kernel.Name": func() { _ = (&wgpu.Kernel{}).Name() },
		"zero Pool":        func() { p := (wgpu.Pool{}); _ = p.Stats(); p.SetMemoryLimit(1); p.ResetPeaks() },
	}
	for _, dev := range []*wgpu.Device{nil, {}} {
		mayWork[fmt.Sprintf("%v device", dev == nil)] = func() {
			_, _, _, _ = dev.Info(), dev.Limits(), dev.Stats(), dev.LiveBuffers()
			_ = dev.UncapturedErrors()
			dev.PushErrorScope(wgpu.FilterValidation)
			dev.InjectLoss("test")
			p := dev.Pool()
			_ = p.Stats()
			p.SetMemoryLimit(1)
			p.ResetPeaks()
			if l := dev.Lost(); l != nil {
				_ = l.State()
			}
		}
	}
	for name, call := range mayWork {
		callNoPanic(t, name, func() error { call(); return nil })
	}
}

// A parameter block smaller than the kernel's uniform struct is refused
// when it is dispatched, so the batch it would have joined still runs:
// another readback in it resolves with the right bytes.
func TestShortParamsAreRefused(t *testing.T) {
	d := testgpu.Open(t)
	k := wideParamsKernel(t, d)
	x := upload(t, d, ramp(4, 1))
	defer x.Release()
	y := upload(t, d, ramp(4, 0))
	defer y.Release()
	other := upload(t, d, ramp(8, 3))
	defer other.Release()
	p := d.ReadAsync(other, 0, other.Size())
	err := d.Dispatch(k, groupsFor(4), make([]byte, 16), x, y)
	require.ErrorIs(t, err, wgpu.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "48")
	got, err := p.Await(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, ramp(8, 3), bytesF32(got))

	params := make([]byte, 48)
	copy(params, scaleParams(2, 4))
	require.NoError(t, d.Dispatch(k, groupsFor(4), params, x, y))
	assert.Equal(t, ramp(4, 2), readF32(t, d, y))
}

// wideParamsWGSL is scaleWGSL with a 48-byte uniform block.
const wideParamsWGSL = `
struct Params { k: f32, n: u32, pad: vec2<u32>, more: array<vec4<u32>, 2> }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < p.n) { y[id.x] = x[id.x] * p.k + f32(p.more[1].w); }
}
`

func wideParamsKernel(t testing.TB, d *wgpu.Device) *wgpu.Kernel {
	t.Helper()
	k, err := d.Kernel(wgpu.KernelSpec{Name: "wide", Source: wideParamsWGSL, Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: 48})
	require.NoError(t, err)
	return k
}

// An access that is neither ReadOnly nor ReadWrite is refused, and neither
// it nor a failed compile leaves anything cached that breaks later kernels.
func TestKernelSpecIsValidatedAndFailuresPoisonNothing(t *testing.T) {
	d := testgpu.Open(t)
	const rwOnly = `
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) { if (id.x < 4u) { y[id.x] = y[id.x] + 1.0; } }
`
	for _, a := range []wgpu.Access{3, -1, 2} {
		_, err := d.Kernel(wgpu.KernelSpec{Name: fmt.Sprintf("bad access %d", a), Source: rwOnly, Bindings: []wgpu.Access{a}})
		require.ErrorIs(t, err, wgpu.ErrInvalidArgument, "access %d", a)
		assert.Contains(t, err.Error(), "access")
	}
	// A compile that fails with the read-only layout of the same binding count.
	_, err := d.Kernel(wgpu.KernelSpec{Name: "wrong access", Source: rwOnly, Bindings: []wgpu.Access{wgpu.ReadOnly}})
	require.ErrorIs(t, err, wgpu.ErrCompile)

	k, err := d.Kernel(wgpu.KernelSpec{Name: "add one", Source: rwOnly, Bindings: []wgpu.Access{wgpu.ReadWrite}})
	require.NoError(t, err)
	y := upload(t, d, ramp(4, 1))
	defer y.Release()
	require.NoError(t, d.Dispatch(k, [3]uint32{1, 1, 1}, nil, y))
	assert.Equal(t, []float32{1, 2, 3, 4}, readF32(t, d, y))

	// A key already compiled with another binding signature is refused
	// rather than handed out with a layout that does not fit.
	_, err = d.Kernel(wgpu.KernelSpec{Name: "add one", Source: rwOnly, Bindings: []wgpu.Access{wgpu.ReadOnly}})
	require.ErrorIs(t, err, wgpu.ErrInvalidArgument)

	// The parameter block's declared size is required, and checked
	// against the WGSL struct when the kernel compiles.
	rw := []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}
	for _, tc := range []struct {
		spec wgpu.KernelSpec
		want error
	}{
		{wgpu.KernelSpec{Name: "undeclared", Source: wideParamsWGSL, Bindings: rw, Params: true}, wgpu.ErrInvalidArgument},
		{wgpu.KernelSpec{Name: "no params", Source: rwOnly, Bindings: []wgpu.Access{wgpu.ReadWrite}, ParamsSize: 16}, wgpu.ErrInvalidArgument},
		{wgpu.KernelSpec{Name: "too small", Source: wideParamsWGSL, Bindings: rw, Params: true, ParamsSize: 16}, wgpu.ErrCompile},
		{wgpu.KernelSpec{Name: "too large", Source: wideParamsWGSL, Bindings: rw, Params: true, ParamsSize: 1 << 20}, wgpu.ErrLimit},
	} {
		_, err := d.Kernel(tc.spec)
		assert.ErrorIs(t, err, tc.want, tc.spec.Name)
	}
	// The same key compiles once declared right, and runs.
	wide := wideParamsKernel(t, d)
	x := upload(t, d, ramp(4, 1))
	defer x.Release()
	params := make([]byte, 48)
	copy(params, scaleParams(3, 4))
	require.NoError(t, d.Dispatch(wide, groupsFor(4), params, x, y))
	assert.Equal(t, ramp(4, 3), readF32(t, d, y))
	_, err = d.KernelFor("nil builder", nil)
	assert.ErrorIs(t, err, wgpu.ErrInvalidArgument)
}

// A kernel whose storage binding needs more bytes than the smallest
// binding Dispatch makes (16, see Buffer.BindingSize) would fail its whole
// batch when dispatched over a small buffer; it is refused when it
// compiles instead.
func TestKernelNeedingLargerBindingsIsRefused(t *testing.T) {
	d := testgpu.Open(t)
	for name, src := range map[string]string{
		"32-byte elements": `
@group(0) @binding(0) var<storage, read_write> y: array<mat2x4<f32>>;
@compute @workgroup_size(1)
fn main() { y[0][0].x = 1.0; }`,
		"a header before the array": `
struct S { n: vec4<u32>, v: array<f32> }
@group(0) @binding(0) var<storage, read_write> y: S;
@compute @workgroup_size(1)
fn main() { y.v[0] = 1.0; }`,
	} {
		_, err := d.Kernel(wgpu.KernelSpec{Name: name, Source: src, Bindings: []wgpu.Access{wgpu.ReadWrite}})
		require.ErrorIs(t, err, wgpu.ErrCompile, name)
	}
	// 16-byte elements, the largest the tensor kernels use, compile.
	_, err := d.Kernel(wgpu.KernelSpec{Name: "vec4 elements", Bindings: []wgpu.Access{wgpu.ReadWrite}, Source: `
@group(0) @binding(0) var<storage, read_write> y: array<vec4<f32>>;
@compute @workgroup_size(1)
fn main() { y[0].x = 1.0; }`})
	require.NoError(t, err)
}

// A kernel keeps its own copy of the spec's bindings: changing the slice
// afterwards changes nothing Dispatch checks (a buffer bound twice where
// one binding writes would fail the whole batch).
func TestKernelKeepsItsOwnBindings(t *testing.T) {
	d := testgpu.Open(t)
	bindings := []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}
	k, err := d.Kernel(wgpu.KernelSpec{Name: "scale", Source: scaleWGSL, Bindings: bindings, Params: true, ParamsSize: 8})
	require.NoError(t, err)
	bindings[1] = wgpu.ReadOnly
	x := upload(t, d, ramp(4, 1))
	defer x.Release()
	other := upload(t, d, ramp(4, 5))
	defer other.Release()
	p := d.ReadAsync(other, 0, other.Size())
	require.ErrorIs(t, d.Dispatch(k, groupsFor(4), scaleParams(2, 4), x, x), wgpu.ErrInvalidArgument)
	got, err := p.Await(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, ramp(4, 5), bytesF32(got))
}
