package tensor_test

import (
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// axpbyWGSL computes, for int32 x and y, sum = a*x + y and diff = x - b*y,
// with a and b int32 params: two inputs, two outputs, exact (wrapping)
// arithmetic to compare with Go's.
const axpbyWGSL = `
struct Params { first: u32, end: u32, row: u32, threads: u32, a: i32, b: i32 }
@group(0) @binding(0) var<storage, read> x: array<i32>;
@group(0) @binding(1) var<storage, read> y: array<i32>;
@group(0) @binding(2) var<storage, read_write> sum: array<i32>;
@group(0) @binding(3) var<storage, read_write> diff: array<i32>;
@group(0) @binding(4) var<uniform> p: Params;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = p.first + id.x + id.y * p.row;
	if (i >= p.end) { return; }
	sum[i] = p.a * x[i] + y[i];
	diff[i] = x[i] - p.b * y[i];
}`

var axpby = tensor.Kernel{Name: "axpby", Source: axpbyWGSL, Workgroup: 64}

// runAxpby runs axpby on x and y, of one shape.
func runAxpby(e *tensor.Engine, x, y *tensor.Tensor, a, b int32) []*tensor.Tensor {
	out := tensor.Out{Shape: x.Shape(), DType: tensor.Int32}
	return e.RunKernel(axpby, tensor.Launch{
		Inputs:  []*tensor.Tensor{x, y},
		Outputs: []tensor.Out{out, out},
		Threads: x.Size(),
		Params:  []any{a, b},
	})
}

func ints(n int, f func(i int) int32) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

// A custom kernel computes what its Go reference does, over shapes of 0,
// 1, odd and several workgroups' elements, with two outputs and params.
func TestRunKernelMatchesReference(t *testing.T) {
	e := testgpu.Engine(t)
	for _, shape := range [][]int{{0}, {1}, {3}, {7, 9}, {2, 0, 3}, {1000}, {65, 64}} {
		n := size(shape)
		xs := ints(n, func(i int) int32 { return int32(i*7919) - 1000 })
		ys := ints(n, func(i int) int32 { return int32(i%13) * -3 })
		x, y := e.FromInt32s(xs, shape...), e.FromInt32s(ys, shape...)
		const a, b int32 = 3, -5
		res := runAxpby(e, x, y, a, b)
		require.Len(t, res, 2)
		for _, r := range res {
			require.NoError(t, r.Err())
			assert.Equal(t, tensor.Shape(shape), r.Shape())
			assert.Equal(t, tensor.Int32, r.DType())
		}
		wantSum, wantDiff := make([]int32, n), make([]int32, n)
		for i := range n {
			wantSum[i] = a*xs[i] + ys[i]
			wantDiff[i] = xs[i] - b*ys[i]
		}
		assert.Equal(t, wantSum, i32s(t, res[0]), "sum over %v", shape)
		assert.Equal(t, wantDiff, i32s(t, res[1]), "diff over %v", shape)
		disposeAll(append(res, x, y)...)
	}
}

// The workgroup check reads literals only: suffixed or spelled out in
// three dimensions, they agree with Workgroup; a constant is not checked.
func TestRunKernelWorkgroupSpellings(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromInt32s([]int32{1, 2, 3})
	defer x.Dispose()
	for _, spelling := range []string{
		"@compute @workgroup_size(64u)",
		"@compute @workgroup_size(64, 1, 1)",
		"@compute @workgroup_size(64i, 1)",
		"const WG = 64u;\n@compute @workgroup_size(WG)",
	} {
		k := axpby
		k.Name = "axpby_spelled"
		k.Source = strings.Replace(axpbyWGSL, "@compute @workgroup_size(64)", spelling, 1)
		res := runAxpbyWith(e, k, x)
		assert.Equal(t, []int32{2, 4, 6}, i32s(t, res[0]), spelling)
		disposeAll(res...)
	}
}

func runAxpbyWith(e *tensor.Engine, k tensor.Kernel, x *tensor.Tensor) []*tensor.Tensor {
	out := tensor.Out{Shape: x.Shape(), DType: tensor.Int32}
	return e.RunKernel(k, tensor.Launch{Inputs: []*tensor.Tensor{x, x}, Outputs: []tensor.Out{out, out}, Threads: x.Size(), Params: []any{int32(1), int32(1)}})
}

// indexWGSL writes each invocation's number, xor a param, to its element:
// a Workgroup of 1 makes one workgroup per element, so that 70,000
// elements need a two-dimensional grid.
const indexWGSL = `
struct Params { first: u32, end: u32, row: u32, threads: u32, mask: u32 }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> p: Params;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = p.first + id.x + id.y * p.row;
	if (i >= p.end) { return; }
	out[i] = i ^ p.mask;
}`

// A launch of more workgroups than a grid dimension holds runs on a
// two-dimensional grid, every invocation once.
func TestRunKernelTwoDimensionalGrid(t *testing.T) {
	e := testgpu.Engine(t)
	n := int(e.Device().Limits().MaxComputeWorkgroupsPerDimension) + 4465
	k := tensor.Kernel{Name: "index_xor", Source: indexWGSL, Workgroup: 1}
	res := e.RunKernel(k, tensor.Launch{Outputs: []tensor.Out{{Shape: tensor.Shape{n}, DType: tensor.Uint32}}, Threads: n, Params: []any{uint32(0x5a5a)}})
	require.Len(t, res, 1)
	got := u32s(t, res[0])
	for i, v := range got {
		if v != uint32(i)^0x5a5a {
			t.Fatalf("out[%d] = %#x, want %#x", i, v, uint32(i)^0x5a5a)
		}
	}
	res[0].Dispose()
}

// countWGSL counts its invocations by bucket i % 7 with atomics, into a
// zeroed output, and writes each invocation's number: an invocation run
// twice, or not at all, shows in the counts.
const countWGSL = `
struct Params { first: u32, end: u32, row: u32, threads: u32 }
@group(0) @binding(0) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> index: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = p.first + id.x + id.y * p.row;
	if (i >= p.end) { return; }
	atomicAdd(&counts[i % 7u], 1u);
	index[i] = i;
}`

// A launch whose work passes the device's budget is cut into dispatches,
// each told its range: every invocation runs exactly once. Zeroed outputs
// start at zero although the pool hands out used buffers.
func TestRunKernelSplitsByWorkBudget(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.WorkBudget = 20_000
	d := testgpu.OpenWith(t, opts)
	e := testgpu.EngineOn(t, d)
	// Leave garbage in the pool for the zeroed output to get.
	junk := e.FromUint32s(ints32u(64, func(int) uint32 { return 0xdeadbeef }))
	require.NoError(t, junk.Err())
	junk.Dispose()

	const n = 10_000 // 157 workgroups of 64, 1,024 work each: 20 per dispatch
	k := tensor.Kernel{Name: "count", Source: countWGSL, Workgroup: 64}
	before := d.Stats().Dispatches
	res := e.RunKernel(k, tensor.Launch{
		Outputs: []tensor.Out{{Shape: tensor.Shape{7}, DType: tensor.Uint32, Zeroed: true}, {Shape: tensor.Shape{n}, DType: tensor.Uint32}},
		Threads: n,
	})
	counts, index := u32s(t, res[0]), u32s(t, res[1])
	want := make([]uint32, 7)
	for i := range n {
		want[i%7]++
		if index[i] != uint32(i) {
			t.Fatalf("index[%d] = %d", i, index[i])
		}
	}
	assert.Equal(t, want, counts)
	assert.GreaterOrEqual(t, d.Stats().Dispatches-before, uint64(8), "the launch was cut into dispatches within the budget")
	assert.LessOrEqual(t, d.Stats().PeakBatchWork, d.WorkBudget())
	disposeAll(res...)
}

func ints32u(n int, f func(int) uint32) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = f(i)
	}
	return v
}

// Inputs that are pending fused results, views sharing storage, or one
// tensor given twice are read with their values, contiguous.
func TestRunKernelReadsViewsAndPendingResults(t *testing.T) {
	e := testgpu.Engine(t)
	xs := ints(12, func(i int) int32 { return int32(i) - 4 })
	x := e.FromInt32s(xs, 3, 4)
	defer x.Dispose()
	pending := e.Mul(x, x) // fused, not yet dispatched
	defer pending.Dispose()
	view := e.Reshape(pending, 4, 3) // shares pending's storage
	defer view.Dispose()
	tr := e.Transpose(x, 1, 0) // a copy, row-major in its own shape
	defer tr.Dispose()

	res := runAxpby(e, view, tr, 2, 1)
	require.NoError(t, res[0].Err())
	defer disposeAll(res...)
	want := make([]int32, 12)
	for i := range 12 {
		r, c := i/3, i%3 // tr[r][c] = x[c][r]
		want[i] = 2*xs[i]*xs[i] + xs[c*4+r]
	}
	assert.Equal(t, want, i32s(t, res[0]))

	twice := runAxpby(e, x, x, 1, 1)
	defer disposeAll(twice...)
	assert.Equal(t, ints(12, func(i int) int32 { return 2 * xs[i] }), i32s(t, twice[0]))
	assert.Equal(t, make([]int32, 12), i32s(t, twice[1]))

	// A result the kernel made feeds fused ops like any other tensor.
	sq := e.Mul(twice[0], x)
	defer sq.Dispose()
	assert.Equal(t, ints(12, func(i int) int32 { return 2 * xs[i] * xs[i] }), i32s(t, sq))
}

// Pipelines are cached by key: one compile per key and launch signature.
// A Key stands for its source, so another source under it runs the
// pipeline compiled first; without a Key a changed source compiles anew.
func TestRunKernelCachesPipelinesByKey(t *testing.T) {
	d := testgpu.Open(t)
	e := testgpu.EngineOn(t, d)
	x := e.FromInt32s([]int32{1, 2, 3})
	defer x.Dispose()
	run := func(k tensor.Kernel, params ...any) []int32 {
		t.Helper()
		res := e.RunKernel(k, tensor.Launch{Inputs: []*tensor.Tensor{x}, Outputs: []tensor.Out{{Shape: tensor.Shape{3}, DType: tensor.Int32}}, Threads: 3, Params: params})
		defer disposeAll(res...)
		return i32s(t, res[0])
	}
	src := func(expr string) string {
		return `struct Params { first: u32, end: u32, row: u32, threads: u32, k: i32 }
@group(0) @binding(0) var<storage, read> x: array<i32>;
@group(0) @binding(1) var<storage, read_write> y: array<i32>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = p.first + id.x + id.y * p.row;
	if (i < p.end) { y[i] = ` + expr + `; }
}`
	}
	compiled := func() uint64 { return d.Stats().KernelsCompiled }
	c0 := compiled()
	plus := tensor.Kernel{Name: "plus", Key: "plus-v1", Source: src("x[i] + p.k")}
	assert.Equal(t, []int32{11, 12, 13}, run(plus, int32(10)))
	assert.Equal(t, []int32{2, 3, 4}, run(plus, int32(1)))
	assert.Equal(t, c0+1, compiled(), "same key: one compile")

	other := plus
	other.Source = src("x[i] * p.k")
	assert.Equal(t, []int32{3, 4, 5}, run(other, int32(2)), "same key, other source: the pipeline compiled first")
	assert.Equal(t, c0+1, compiled())

	noKey := tensor.Kernel{Name: "op", Source: src("x[i] + p.k")}
	assert.Equal(t, []int32{3, 4, 5}, run(noKey, int32(2)))
	noKey.Source = src("x[i] * p.k")
	assert.Equal(t, []int32{2, 4, 6}, run(noKey, int32(2)), "no key: a changed source compiles anew")
	assert.Equal(t, []int32{3, 6, 9}, run(noKey, int32(3)))
	assert.Equal(t, c0+3, compiled())

	// A larger parameter block than the shader's struct: a pipeline of its
	// own (params that fit the same 16-byte words share one).
	assert.Equal(t, []int32{3, 6, 9}, run(noKey, int32(3), int32(99), int32(99), int32(99)))
	assert.Equal(t, c0+3, compiled())
	assert.Equal(t, []int32{3, 6, 9}, run(noKey, int32(3), int32(99), int32(99), int32(99), int32(99)))
	assert.Equal(t, c0+4, compiled())

	// Entry names the entry point.
	entry := tensor.Kernel{Name: "entry", Entry: "twice", Source: strings.Replace(src("2 * x[i]"), "fn main(", "fn twice(", 1)}
	assert.Equal(t, []int32{2, 4, 6}, run(entry, int32(0)))
}

// RunKernel's results are ordinary tensors: tidy disposes them, Memory
// and LiveTensors count them, and their site is the caller's line.
func TestRunKernelResultsAreOrdinaryTensors(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromInt32s([]int32{1, 2})
	defer x.Dispose()
	before := e.Memory()
	var res []*tensor.Tensor
	_, err := tidy.Run(e, func() (int, error) {
		res = runAxpbyHere(e, x)
		require.NoError(t, res[0].Err())
		assert.Equal(t, 3, e.NumTensors())
		assert.Equal(t, before.Bytes+16, e.Memory().Bytes)
		for _, r := range res {
			assert.Contains(t, r.Site().String(), "custom_test.go:", "created at the caller's line")
		}
		return 0, nil
	})
	require.NoError(t, err)
	for _, r := range res {
		assert.True(t, r.IsDisposed(), "tidy disposed the result")
	}
	assert.Equal(t, 1, e.NumTensors())
}

func runAxpbyHere(e *tensor.Engine, x *tensor.Tensor) []*tensor.Tensor {
	out := tensor.Out{Shape: x.Shape(), DType: tensor.Int32}
	return e.RunKernel(axpby, tensor.Launch{Inputs: []*tensor.Tensor{x, x}, Outputs: []tensor.Out{out, out}, Threads: x.Size(), Params: []any{int32(1), int32(1)}})
}

// Every bad launch returns tensors carrying an *OpError that names the
// kernel, and leaves nothing behind: no tensor, no buffer, no pipeline.
func TestRunKernelErrors(t *testing.T) {
	d := testgpu.Open(t)
	e := testgpu.EngineOn(t, d)
	x := e.FromInt32s([]int32{1, 2, 3})
	defer x.Dispose()
	disposed := e.FromInt32s([]int32{1})
	disposed.Dispose()
	two := e.FromInt32s([]int32{1, 2})
	failed := e.Add(x, two)
	two.Dispose()
	other := testgpu.Engine(t) // another device
	elsewhere := other.FromInt32s([]int32{1, 2, 3})
	defer elsewhere.Dispose()
	out3 := tensor.Out{Shape: tensor.Shape{3}, DType: tensor.Int32}
	lim := d.Limits()
	ok := tensor.Launch{Inputs: []*tensor.Tensor{x, x}, Outputs: []tensor.Out{out3, out3}, Threads: 3, Params: []any{int32(1), int32(2)}}
	with := func(f func(*tensor.Launch)) tensor.Launch {
		l := ok
		l.Inputs, l.Outputs, l.Params = append([]*tensor.Tensor(nil), ok.Inputs...), append([]tensor.Out(nil), ok.Outputs...), append([]any(nil), ok.Params...)
		f(&l)
		return l
	}
	kernel := func(f func(*tensor.Kernel)) tensor.Kernel {
		k := axpby
		f(&k)
		return k
	}
	manyOuts := make([]tensor.Out, lim.MaxStorageBuffersPerShaderStage)
	for i := range manyOuts {
		manyOuts[i] = out3
	}
	for _, c := range []struct {
		name    string
		k       tensor.Kernel
		l       tensor.Launch
		kind    error
		message string
	}{
		{"nil input", axpby, with(func(l *tensor.Launch) { l.Inputs[1] = nil }), tensor.ErrArgument, "input 1 is a nil"},
		{"zero input", axpby, with(func(l *tensor.Launch) { l.Inputs[0] = &tensor.Tensor{} }), tensor.ErrArgument, "input 0"},
		{"disposed input", axpby, with(func(l *tensor.Launch) { l.Inputs[1] = disposed }), tensor.ErrDisposed, "was disposed"},
		{"input carrying an error", axpby, with(func(l *tensor.Launch) { l.Inputs[0] = failed }), tensor.ErrShape, "add [3] [2]"},
		{"input on another device", axpby, with(func(l *tensor.Launch) { l.Inputs[0] = elsewhere }), tensor.ErrArgument, "another device"},
		{"no outputs", axpby, with(func(l *tensor.Launch) { l.Outputs = nil }), tensor.ErrArgument, "no outputs"},
		{"bad output dtype", axpby, with(func(l *tensor.Launch) { l.Outputs[1].DType = 9 }), tensor.ErrDType, "output 1"},
		{"negative output shape", axpby, with(func(l *tensor.Launch) { l.Outputs[0].Shape = tensor.Shape{-1} }), tensor.ErrShape, "output 0"},
		{"output past MaxElements", axpby, with(func(l *tensor.Launch) { l.Outputs[0].Shape = tensor.Shape{1 << 20, 1 << 12} }), tensor.ErrShape, "output 0"},
		{"negative threads", axpby, with(func(l *tensor.Launch) { l.Threads = -1 }), tensor.ErrArgument, "-1 threads"},
		{"param of another type", axpby, with(func(l *tensor.Launch) { l.Params[1] = 2 }), tensor.ErrArgument, "param 1 is int"},
		{"params past the uniform limit", axpby, with(func(l *tensor.Launch) { l.Params = make([]any, 5000); fillAny(l.Params) }), wgpu.ErrLimit, "parameter block"},
		{"more bindings than the device has", axpby, with(func(l *tensor.Launch) { l.Outputs = manyOuts }), wgpu.ErrLimit, "storage bindings"},
		{"no name", kernel(func(k *tensor.Kernel) { k.Name = "" }), ok, tensor.ErrArgument, "Name"},
		{"no source", kernel(func(k *tensor.Kernel) { k.Source = "" }), ok, tensor.ErrArgument, "Source"},
		{"negative workgroup", kernel(func(k *tensor.Kernel) { k.Workgroup = -64 }), ok, tensor.ErrArgument, "workgroup"},
		{"workgroup past the limit", kernel(func(k *tensor.Kernel) { k.Workgroup = 1 << 16 }), ok, wgpu.ErrLimit, "workgroup"},
		{"workgroup other than the shader's", kernel(func(k *tensor.Kernel) { k.Workgroup = 0 }), ok, tensor.ErrArgument, "@workgroup_size[64 1 1] and Workgroup is 256"},
		{"two-dimensional workgroup", kernel(func(k *tensor.Kernel) {
			k.Source = strings.Replace(axpbyWGSL, "@workgroup_size(64)", "@workgroup_size(8, 8)", 1)
		}), ok, tensor.ErrArgument, "@workgroup_size[8 8 1]"},
		{"NaN work", kernel(func(k *tensor.Kernel) { k.Work = math.NaN() }), ok, tensor.ErrArgument, "work"},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkKernelFails(t, e, c.k, c.l, c.kind, c.message)
		})
	}
}

func fillAny(ps []any) {
	for i := range ps {
		ps[i] = float32(i)
	}
}

// checkKernelFails runs k on l and checks that every result carries an
// *OpError of kind naming the kernel, and that nothing was left behind.
func checkKernelFails(t *testing.T, e *tensor.Engine, k tensor.Kernel, l tensor.Launch, kind error, message string) {
	t.Helper()
	d := e.Device()
	live, buffers, compiled := e.NumTensors(), d.Pool().Stats().LiveBuffers, d.Stats().KernelsCompiled
	var res []*tensor.Tensor
	testgpu.NoPanic(t, "RunKernel", func() { res = e.RunKernel(k, l) })
	require.Len(t, res, max(1, len(l.Outputs)), "one tensor per output")
	for _, r := range res {
		err := r.Err()
		require.Error(t, err)
		var oe *tensor.OpError
		require.ErrorAs(t, err, &oe)
		assert.ErrorIs(t, err, kind)
		if !strings.HasPrefix(message, "add ") { // an input's error comes back as it is
			assert.Contains(t, err.Error(), `kernel "`+k.Name+`"`)
		}
		assert.Contains(t, err.Error(), message)
		assert.True(t, r.IsDisposed())
	}
	assert.Equal(t, live, e.NumTensors(), "no tensor left")
	assert.Equal(t, buffers, d.Pool().Stats().LiveBuffers, "no buffer left")
	assert.Equal(t, compiled, d.Stats().KernelsCompiled, "no pipeline cached")
	t.Log(res[0].Err())
}

// inChild runs the calling test in a child process and reports whether
// the caller is that child: for cases that might abort the process inside
// wgpu-native, so that a regression fails this test, not the suite.
func inChild(t *testing.T) bool {
	t.Helper()
	const env = "WGT_TENSOR_TEST_CHILD"
	if os.Getenv(env) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("the test failed in a child process (%v):\n%s", err, out)
	}
	return false
}

// WGSL that does not compile, or whose bindings disagree with the launch,
// comes back as an error naming the kernel with the compiler's message,
// never an abort; nothing is cached, so a fixed source under the same
// name then runs. (In a child process: a regression would abort it.)
func TestRunKernelBadWGSL(t *testing.T) {
	if !inChild(t) {
		return
	}
	e := testgpu.Engine(t)
	x := e.FromInt32s([]int32{1, 2, 3})
	defer x.Dispose()
	out3 := tensor.Out{Shape: tensor.Shape{3}, DType: tensor.Int32}
	l := tensor.Launch{Inputs: []*tensor.Tensor{x, x}, Outputs: []tensor.Out{out3, out3}, Threads: 3, Params: []any{int32(1), int32(2)}}
	for _, c := range []struct {
		name, source, message string
	}{
		{"syntax", "fn main( {", "expected"},
		{"type", strings.Replace(axpbyWGSL, "p.a * x[i]", "p.a * 1.5", 1), ""},
		{"input declared read_write", strings.Replace(axpbyWGSL, "var<storage, read> y", "var<storage, read_write> y", 1), ""},
		{"a binding the launch lacks", strings.Replace(axpbyWGSL, "@binding(4)", "@binding(5)", 1), ""},
		{"a uniform block larger than bound", strings.Replace(axpbyWGSL, "a: i32, b: i32", "a: i32, b: i32, c: vec4<f32>", 1), ""},
		{"no such entry point", strings.Replace(axpbyWGSL, "fn main", "fn other", 1), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := tensor.Kernel{Name: "bad_" + strings.ReplaceAll(c.name, " ", "_"), Source: c.source, Workgroup: 64}
			checkKernelFails(t, e, k, l, wgpu.ErrCompile, c.message)
		})
	}
	// Nothing was cached: the same name with a good source runs.
	k := tensor.Kernel{Name: "bad_syntax", Key: "fixed", Source: axpbyWGSL, Workgroup: 64}
	res := e.RunKernel(k, l)
	defer disposeAll(res...)
	assert.Equal(t, []int32{2, 4, 6}, i32s(t, res[0]))
}

// An input disposed while the launch runs, after the launch checked it,
// is read with its values: the launch holds its storage until the
// dispatch is recorded.
func TestRunKernelHoldsInputsDisposedMidLaunch(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromInt32s([]int32{1, 2, 3})
	y := e.Add(x, x) // pending: the launch dispatches it first
	var once sync.Once
	tensor.OnChecked(e, func() { once.Do(func() { x.Dispose(); y.Dispose() }) })
	res := runAxpby(e, x, y, 1, 1)
	defer disposeAll(res...)
	assert.True(t, x.IsDisposed())
	assert.Equal(t, []int32{3, 6, 9}, i32s(t, res[0]))
	assert.Equal(t, []int32{-1, -2, -3}, i32s(t, res[1]))
}

// An output that does not fit the memory limit fails the launch, and the
// outputs allocated before it are given back.
func TestRunKernelOutOfMemoryLeavesNothing(t *testing.T) {
	d := testgpu.Open(t)
	e := testgpu.EngineOn(t, d)
	x := e.FromInt32s([]int32{1, 2, 3})
	defer x.Dispose()
	require.NoError(t, disposeAll(runAxpby(e, x, x, 1, 1)...), "compiled before the limit")
	d.Pool().SetMemoryLimit(d.Pool().Stats().ReservedBytes + 64<<10)
	defer d.Pool().SetMemoryLimit(0)
	l := tensor.Launch{
		Inputs:  []*tensor.Tensor{x, x},
		Outputs: []tensor.Out{{Shape: tensor.Shape{1024}, DType: tensor.Int32}, {Shape: tensor.Shape{1 << 20}, DType: tensor.Int32}},
		Threads: 3, Params: []any{int32(1), int32(1)},
	}
	checkKernelFails(t, e, axpby, l, wgpu.ErrOutOfMemory, "allocating [1048576] int32")
}
