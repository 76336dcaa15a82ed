package tensor_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// axpyWGSL updates x in place to x + a*y and, when asked for one, writes
// the old x to an output: one input, one InOut, optionally one output.
const axpyWGSL = `
struct Params { first: u32, end: u32, row: u32, threads: u32, a: f32 }
@group(0) @binding(0) var<storage, read> y: array<f32>;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = p.first + id.x + id.y * p.row;
	if (i >= p.end) { return; }
	x[i] = x[i] + p.a * y[i];
}`

var axpy = tensor.Kernel{Name: "axpy", Source: axpyWGSL, Workgroup: 64}

const axpyOldWGSL = `
struct Params { first: u32, end: u32, row: u32, threads: u32, a: f32 }
@group(0) @binding(0) var<storage, read> y: array<f32>;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> old: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = p.first + id.x + id.y * p.row;
	if (i >= p.end) { return; }
	old[i] = x[i];
	x[i] = x[i] + p.a * y[i];
}`

var axpyOld = tensor.Kernel{Name: "axpy_old", Source: axpyOldWGSL, Workgroup: 64}

// A kernel updates a tensor in place: its own storage, seen through a
// view, its version one more per launch, nothing allocated; ops and
// readbacks called before the launch see the old values (a fused op still
// pending included), those after it the new ones. An output beside the
// InOut binds after it.
func TestRunKernelUpdatesInOutInPlace(t *testing.T) {
	e := testgpu.Engine(t)
	inScope(t, e, func() {
		n := 1000
		xs, ys := make([]float32, n), make([]float32, n)
		for i := range xs {
			xs[i], ys[i] = float32(i), float32(i%7)
		}
		x, y := e.FromFloat32s(xs, n), e.FromFloat32s(ys, n)
		view := e.Reshape(x, 10, 100)
		before := e.Neg(x) // pending in the fusion group
		early := x.Data()
		require.NoError(t, e.Flush())
		mem := e.Memory()
		res := e.RunKernel(axpy, tensor.Launch{Inputs: []*tensor.Tensor{y}, InOut: []*tensor.Tensor{x}, Threads: n, Params: []any{float32(2)}})
		assert.Empty(t, res, "a launch with only InOut returns no tensor")
		assert.Equal(t, mem.Bytes, e.Memory().Bytes)
		assert.EqualValues(t, 1, x.Version())
		assert.EqualValues(t, 1, view.Version())
		after := e.Neg(view)
		want := make([]float32, n)
		for i := range want {
			want[i] = xs[i] + 2*ys[i]
		}
		assert.Equal(t, want, f32s(t, view))
		b, err := early.Await(ctxT(t))
		require.NoError(t, err)
		assert.Equal(t, xs, tensor.Float32sFromBytes(b))
		assert.Equal(t, negate(xs), f32s(t, before))
		assert.Equal(t, negate(want), f32s(t, after))

		out := e.RunKernel(axpyOld, tensor.Launch{Inputs: []*tensor.Tensor{y}, InOut: []*tensor.Tensor{x}, Outputs: []tensor.Out{{Shape: tensor.Shape{n}, DType: tensor.Float32}}, Threads: n, Params: []any{float32(-2)}})
		require.Len(t, out, 1)
		require.NoError(t, out[0].Err())
		assert.Equal(t, want, f32s(t, out[0]))
		assert.Equal(t, xs, f32s(t, x))
		assert.EqualValues(t, 2, x.Version())
	})
}

func negate(v []float32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = -x
	}
	return out
}

// An InOut that shares its storage with an input or another InOut, or is
// disposed, fails the launch: an error naming the kernel, nothing written,
// no version bumped, nothing left live.
func TestRunKernelRejectsBadInOut(t *testing.T) {
	e := testgpu.Engine(t)
	inScope(t, e, func() {
		x := e.FromFloat32s([]float32{1, 2, 3}, 3)
		view := e.Reshape(x, 3, 1)
		gone := e.Zeros(tensor.Float32, 3)
		gone.Dispose()
		for _, c := range []struct {
			name  string
			in    []*tensor.Tensor
			inOut []*tensor.Tensor
			kind  error
			text  string
		}{
			{"input is InOut", []*tensor.Tensor{x}, []*tensor.Tensor{x}, tensor.ErrArgument, "InOut 0 shares its storage with input 0"},
			{"view of an input", []*tensor.Tensor{view}, []*tensor.Tensor{x}, tensor.ErrArgument, "InOut 0 shares its storage with input 0"},
			{"InOut twice", []*tensor.Tensor{e.Zeros(tensor.Float32, 3)}, []*tensor.Tensor{x, view}, tensor.ErrArgument, "InOut 1 shares its storage with InOut 0"},
			{"disposed InOut", []*tensor.Tensor{x}, []*tensor.Tensor{gone}, tensor.ErrDisposed, `kernel "axpy"`},
			{"nil InOut", []*tensor.Tensor{x}, []*tensor.Tensor{nil}, tensor.ErrArgument, `kernel "axpy"`},
		} {
			res := e.RunKernel(axpy, tensor.Launch{Inputs: c.in, InOut: c.inOut, Threads: 3, Params: []any{float32(1)}})
			require.Len(t, res, 1, c.name)
			err := res[0].Err()
			require.Error(t, err, c.name)
			assert.True(t, errors.Is(err, c.kind), "%s: %v", c.name, err)
			assert.Contains(t, err.Error(), c.text, c.name)
		}
		assert.Zero(t, x.Version())
		assert.Equal(t, []float32{1, 2, 3}, f32s(t, x))
	})
}
