package wgpu_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

func TestOpenReportsAdapterAndGrantedLimits(t *testing.T) {
	d := testgpu.Open(t)
	info := d.Info()
	assert.NotEmpty(t, info.Name)
	assert.NotEqual(t, wgpu.BackendAny, info.Backend)
	if info.Backend != wgpu.BackendGL { // GL says nothing of the type but for llvmpipe (an NVIDIA GPU's is unknown)
		assert.NotEqual(t, wgpu.AdapterUnknown, info.Type)
	}
	lim := d.Limits()
	assert.GreaterOrEqual(t, lim.MaxStorageBufferBindingSize, uint64(128<<20), "the device must get the adapter's binding size, not a lower default")
	assert.GreaterOrEqual(t, lim.MaxBufferSize, lim.MaxStorageBufferBindingSize)
	assert.NotZero(t, lim.MaxComputeWorkgroupsPerDimension)
	if info.Backend == wgpu.BackendVulkan {
		assert.Equal(t, info.Limits.MaxBufferSize, lim.MaxBufferSize, "Vulkan grants the adapter's own limits")
	}
}

func TestAdaptersListsTheTestAdapter(t *testing.T) {
	d := testgpu.Open(t)
	var names []string
	for _, a := range wgpu.Adapters() {
		names = append(names, a.String())
		if a.Name == d.Info().Name && a.Backend == d.Info().Backend {
			return
		}
	}
	t.Fatalf("Adapters() = %v, does not list the open device %v", names, d.Info())
}

func TestChoose(t *testing.T) {
	infos := []wgpu.AdapterInfo{
		{Name: "llvmpipe", Backend: wgpu.BackendGL, Type: wgpu.AdapterCPU},
		{Name: "llvmpipe", Backend: wgpu.BackendVulkan, Type: wgpu.AdapterCPU},
		{Name: "Intel Iris", Backend: wgpu.BackendVulkan, Type: wgpu.AdapterIntegrated},
		{Name: "NVIDIA H100", Backend: wgpu.BackendVulkan, Type: wgpu.AdapterDiscrete},
	}
	for _, tc := range []struct {
		backend wgpu.Backend
		name    string
		power   wgpu.PowerPreference
		want    int
	}{
		{wgpu.BackendAny, "", wgpu.PowerDefault, 3},
		{wgpu.BackendAny, "", wgpu.PowerLow, 2},
		{wgpu.BackendAny, "llvmpipe", wgpu.PowerDefault, 1},
		{wgpu.BackendGL, "", wgpu.PowerHigh, 0},
		{wgpu.BackendVulkan, "LLVMPIPE", wgpu.PowerDefault, 1},
		{wgpu.BackendMetal, "", wgpu.PowerDefault, -1},
		{wgpu.BackendAny, "radeon", wgpu.PowerDefault, -1},
	} {
		assert.Equal(t, tc.want, wgpu.Choose(infos, tc.backend, tc.name, tc.power), "%+v", tc)
	}
}

func TestParseBackend(t *testing.T) {
	for in, want := range map[string]wgpu.Backend{"": wgpu.BackendAny, "Vulkan": wgpu.BackendVulkan, "gl": wgpu.BackendGL, "opengl": wgpu.BackendGL, "metal": wgpu.BackendMetal, "dx12": wgpu.BackendDX12} {
		got, err := wgpu.ParseBackend(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := wgpu.ParseBackend("glide")
	assert.ErrorIs(t, err, wgpu.ErrInvalidArgument)
	assert.Contains(t, err.Error(), `"glide"`)
}

func TestOpenNoAdapter(t *testing.T) {
	t.Setenv("WGT_ADAPTER", "no such adapter anywhere")
	_, err := wgpu.Open(context.Background(), testgpu.DefaultOptions())
	assert.ErrorIs(t, err, wgpu.ErrNoAdapter)
	assert.Contains(t, err.Error(), "no such adapter anywhere")
}

func TestDispatchComputesAndKernelCompilesOnce(t *testing.T) {
	d := testgpu.Open(t)
	for _, n := range []int{1, 63, 64, 65, 1000, 1 << 16} {
		x := upload(t, d, ramp(n, 0.5))
		y, err := d.NewBuffer(uint64(4*n), wgpu.UsageStorage)
		require.NoError(t, err)
		require.NoError(t, d.Dispatch(scaleKernel(t, d), groupsFor(n), scaleParams(3, n), x, y))
		got := readF32(t, d, y)
		for i, v := range got {
			if v != float32(i)*0.5*3 {
				t.Fatalf("n=%d: y[%d] = %v, want %v", n, i, v, float32(i)*1.5)
			}
		}
		require.NoError(t, x.Release())
		require.NoError(t, y.Release())
	}
	assert.EqualValues(t, 1, d.Stats().KernelsCompiled, "a kernel compiles once per device")
}

func TestInvalidWGSLNamesKernelAndCompilerMessage(t *testing.T) {
	d := testgpu.Open(t)
	_, err := d.Kernel(wgpu.KernelSpec{Name: "broken_add", Source: "fn main( {", Bindings: []wgpu.Access{wgpu.ReadWrite}})
	require.ErrorIs(t, err, wgpu.ErrCompile)
	assert.Contains(t, err.Error(), "broken_add")
	assert.Contains(t, err.Error(), "expected identifier")
	// A kernel whose bindings disagree with its WGSL fails too, at pipeline creation.
	_, err = d.Kernel(wgpu.KernelSpec{Name: "scale_wrong_layout", Source: scaleWGSL, Bindings: []wgpu.Access{wgpu.ReadWrite}})
	require.ErrorIs(t, err, wgpu.ErrCompile)
	assert.Contains(t, err.Error(), "scale_wrong_layout")
	assert.Zero(t, d.Stats().KernelsCompiled)
}

func TestDispatchRejectsBadArguments(t *testing.T) {
	d := testgpu.Open(t)
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(64, 1))
	defer x.Release()
	for name, call := range map[string]func() error{
		"too few buffers": func() error { return d.Dispatch(k, groupsFor(64), scaleParams(1, 64), x) },
		"missing params":  func() error { return d.Dispatch(k, groupsFor(64), nil, x, x) },
		"written twice":   func() error { return d.Dispatch(k, groupsFor(64), scaleParams(1, 64), x, x) },
		"too many groups": func() error { return d.Dispatch(k, [3]uint32{1 << 31, 1, 1}, scaleParams(1, 64), x, x) },
		"released buffer": func() error {
			y, _ := d.NewBuffer(256, wgpu.UsageStorage)
			y.Release()
			return d.Dispatch(k, groupsFor(64), scaleParams(1, 64), x, y)
		},
	} {
		err := call()
		assert.Error(t, err, name)
		assert.Contains(t, err.Error(), `"scale"`, name)
	}
	// Nothing bad was recorded: the device still works.
	y, err := d.NewBuffer(256, wgpu.UsageStorage)
	require.NoError(t, err)
	defer y.Release()
	require.NoError(t, d.Dispatch(k, groupsFor(64), scaleParams(2, 64), x, y))
	assert.Equal(t, ramp(64, 2), readF32(t, d, y))
}

func TestBatchedSubmission(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.BatchSize = 4
	d := testgpu.OpenWith(t, opts)
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(64, 1))
	y, err := d.NewBuffer(256, wgpu.UsageStorage)
	require.NoError(t, err)
	before := d.Stats().Submits
	for range 10 {
		require.NoError(t, d.Dispatch(k, groupsFor(64), scaleParams(2, 64), x, y))
	}
	assert.Equal(t, before+2, d.Stats().Submits, "10 dispatches at batch size 4 submit twice")
	require.NoError(t, d.Flush())
	assert.Equal(t, before+3, d.Stats().Submits, "Flush submits the rest")
	require.NoError(t, d.Flush())
	assert.Equal(t, before+3, d.Stats().Submits, "an empty Flush submits nothing")
	assert.Equal(t, ramp(64, 2), readF32(t, d, y))
	x.Release()
	y.Release()
}

// A write to a buffer that recorded work reads must not overtake that work:
// queue writes run before the next submission's commands.
func TestWriteIsOrderedAfterRecordedWork(t *testing.T) {
	d := testgpu.Open(t)
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(64, 1))
	y, err := d.NewBuffer(256, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, d.Dispatch(k, groupsFor(64), scaleParams(10, 64), x, y))
	require.NoError(t, d.Write(x, 0, f32bytes(ramp(64, -1))))
	assert.Equal(t, ramp(64, 10), readF32(t, d, y), "y is computed from x as it was when the dispatch was recorded")
	assert.Equal(t, ramp(64, -1), readF32(t, d, x))
	x.Release()
	y.Release()
}

func TestDeviceLossRejectsPendingAndFailsFast(t *testing.T) {
	d := testgpu.Open(t)
	x := upload(t, d, ramp(256, 1))
	var promises []*wgpu.Promise[[]byte]
	for range 5 {
		promises = append(promises, d.ReadAsync(x, 0, x.Size()))
	}
	require.NoError(t, d.Flush()) // some maps are in flight, none settled
	d.InjectLoss("injected by test")
	for _, p := range promises {
		_, err := p.Await(context.Background())
		assert.ErrorIs(t, err, wgpu.ErrDeviceLost)
	}
	info, err := d.Lost().Await(context.Background())
	require.NoError(t, err)
	assert.Equal(t, wgpu.LostUnknown, info.Reason)
	assert.Equal(t, "injected by test", info.Message)

	_, err = d.NewBuffer(64, wgpu.UsageStorage)
	assert.ErrorIs(t, err, wgpu.ErrDeviceLost)
	assert.ErrorIs(t, d.Write(x, 0, []byte{1, 2, 3, 4}), wgpu.ErrDeviceLost)
	_, err = d.ReadAsync(x, 0, 4).Await(context.Background())
	assert.ErrorIs(t, err, wgpu.ErrDeviceLost)
	_, err = d.Kernel(wgpu.KernelSpec{Name: "scale", Source: scaleWGSL})
	assert.ErrorIs(t, err, wgpu.ErrDeviceLost)
	assert.ErrorIs(t, d.Flush(), wgpu.ErrDeviceLost)
	assert.NoError(t, x.Release(), "releasing after loss is harmless")
}

func TestCloseRejectsPendingAndReportsLiveBuffers(t *testing.T) {
	d := testgpu.OpenUnchecked(t, testgpu.DefaultOptions())
	x, err := d.NewBuffer(4096, wgpu.UsageStorage)
	require.NoError(t, err)
	pending := d.ReadAsync(x, 0, x.Size())
	flushed := d.ReadAsync(x, 0, 16)
	require.NoError(t, d.Flush())
	unsubmitted := d.ReadAsync(x, 4, 8)
	err = d.Close()
	require.ErrorIs(t, err, wgpu.ErrLeaked, "x was never released")
	assert.Contains(t, err.Error(), "device_test.go:", "the report names the line that allocated x")
	for _, p := range []*wgpu.Promise[[]byte]{pending, flushed, unsubmitted} {
		_, err := p.Await(context.Background())
		assert.ErrorIs(t, err, wgpu.ErrClosed)
	}
	info, _ := d.Lost().Await(context.Background())
	assert.Equal(t, wgpu.LostDestroyed, info.Reason)
	assert.Equal(t, wgpu.PoolStats{}, zeroCounters(d.Pool().Stats()), "Close destroys every buffer")
	assert.NoError(t, d.Close(), "Close is idempotent")
	_, err = d.NewBuffer(4, wgpu.UsageStorage)
	assert.ErrorIs(t, err, wgpu.ErrClosed)
	assert.NoError(t, x.Release())
}

// zeroCounters keeps a PoolStats' status fields that must be zero after Close.
func zeroCounters(s wgpu.PoolStats) wgpu.PoolStats {
	return wgpu.PoolStats{LiveBuffers: s.LiveBuffers, LiveBytes: s.LiveBytes, PooledBuffers: s.PooledBuffers, PooledBytes: s.PooledBytes, ReservedBytes: s.ReservedBytes}
}

func TestErrorScopesCaptureAsyncErrors(t *testing.T) {
	d := testgpu.Open(t)
	oom := &wgpu.Error{Op: "test", Kind: wgpu.ErrOutOfMemory}
	invalid := &wgpu.Error{Op: "test", Kind: wgpu.ErrValidation}
	d.PushErrorScope(wgpu.FilterValidation)
	d.PushErrorScope(wgpu.FilterOutOfMemory)
	wgpu.ReportAsync(d, invalid)
	wgpu.ReportAsync(d, oom)
	assert.Same(t, oom, d.PopErrorScope())
	assert.Same(t, invalid, d.PopErrorScope())
	assert.ErrorIs(t, d.PopErrorScope(), wgpu.ErrInvalidArgument)
	wgpu.ReportAsync(d, invalid)
	assert.Equal(t, []error{invalid}, d.UncapturedErrors(), "what no scope captures is kept, never only logged")
	assert.Empty(t, d.UncapturedErrors())
}

func TestErrorMessagesAreClassified(t *testing.T) {
	var e *wgpu.Error
	err := error(&wgpu.Error{Op: "create buffer", Kind: wgpu.ErrOutOfMemory, Detail: "12 B"})
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "wgpu: create buffer: out of memory: 12 B", err.Error())
	assert.True(t, strings.HasPrefix(wgpu.ErrClosed.Error(), "wgpu: "))
}

// An array of vec4s bound over an empty buffer needs a binding of one
// element (16 bytes): a smaller one is refused when the pass is recorded,
// which would poison every other command of the batch.
func TestVec4BindingOverAnEmptyBuffer(t *testing.T) {
	d := testgpu.Open(t)
	k, err := d.Kernel(wgpu.KernelSpec{Name: "vec4 copy", Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Source: `
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4<f32>>;
@compute @workgroup_size(1)
fn main() { y[0] = x[0]; }
`})
	require.NoError(t, err)
	empty, err := d.NewBuffer(0, wgpu.UsageStorage)
	require.NoError(t, err)
	other := upload(t, d, ramp(6, 1)) // 24 B: not a whole number of vec4s either
	y, err := d.NewBuffer(16, wgpu.UsageStorage)
	require.NoError(t, err)
	require.NoError(t, d.Dispatch(k, [3]uint32{1, 1, 1}, nil, empty, y))
	require.NoError(t, d.Dispatch(k, [3]uint32{1, 1, 1}, nil, other, y))
	assert.Equal(t, ramp(4, 1), readF32(t, d, y), "the batch ran")
	for _, b := range []*wgpu.Buffer{empty, other, y} {
		require.NoError(t, b.Release())
	}
}
