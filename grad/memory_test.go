package grad

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// model is a small two-layer network's parameters and input.
type model struct{ x, w1, b1, w2 *tensor.Tensor }

func newModel(e *tensor.Engine) model {
	return model{
		x:  e.RandNormal(1, 0, 1, 8, 16),
		w1: e.RandNormal(2, 0, 0.3, 16, 32),
		b1: e.RandNormal(3, 0, 0.1, 32),
		w2: e.RandNormal(4, 0, 0.3, 32, 4),
	}
}

func (m model) params() []*tensor.Tensor { return []*tensor.Tensor{m.w1, m.b1, m.w2} }

func (m model) Dispose() { disposeAll(m.x, m.w1, m.b1, m.w2) }

// forward is tanh(relu(x·w1 + b1)·w2): 5 ops, 8x4. Only the result
// outlives it.
func (m model) forward(e *tensor.Engine) *tensor.Tensor {
	y, _ := tidy.Run(e, func() (*tensor.Tensor, error) {
		y := e.Tanh(e.MatMul(e.Relu(e.Add(e.MatMul(m.x, m.w1), m.b1)), m.w2))
		return y, y.Err() // y carries its error, if any
	})
	return y
}

// usage is what an engine holds: tensors and the bytes of their storage.
type usage struct {
	tensors int
	bytes   uint64
}

func usageOf(e *tensor.Engine) usage {
	m := e.Memory()
	return usage{m.Tensors, m.Bytes}
}

// A forward pass outside any tape leaves exactly what it leaves without
// the grad package: no saved tensor, no byte more, nothing recorded by a
// tape that has stopped recording.
func TestNoRecordingOutsideATape(t *testing.T) {
	e := testgpu.Engine(t)
	m := newModel(e)
	defer m.Dispose()
	base := usageOf(e)
	y := m.forward(e)
	plain := usageOf(e)
	y.Dispose()

	tape := NewTape(e)
	defer tape.Dispose()
	require.NoError(t, tape.Record(func() error { return nil }))
	y = m.forward(e)
	assert.Equal(t, plain, usageOf(e), "a forward pass after a tape recorded")
	assert.Equal(t, 0, tape.Len(), "ops recorded outside Record")
	y.Dispose()
	assert.Equal(t, base, usageOf(e))
}

// What a tape saves is counted at the forward op's line and shares the
// forward tensors' storage; the scope of the forward pass does not free
// it, and Dispose does.
func TestSavedTensorsAreCountedAtTheForwardSite(t *testing.T) {
	e := testgpu.Engine(t)
	m := newModel(e)
	defer m.Dispose()
	base := e.Memory()
	tape := NewTape(e)
	require.NoError(t, tape.Record(func() error {
		return tidy.Do(e, func() error {
			return e.Mul(m.w1, m.w1).Err() // saves w1 twice; the product goes with the scope
		})
	}))
	saved := e.Memory()
	assert.Equal(t, base.Tensors+2, saved.Tensors)
	assert.Equal(t, base.Storages, saved.Storages, "saving copies nothing")
	for _, ti := range e.LiveTensors() {
		if ti.ID > m.w2.ID() {
			assert.True(t, strings.HasPrefix(ti.Site.String(), "grad/memory_test.go:"), "saved at %s", ti.Site.Chain())
		}
	}
	tape.Dispose()
	assert.Equal(t, base.Tensors, e.NumTensors())
}

// A tape that never runs backward, disposed by the scope that holds it,
// 1,000 times: tensors and bytes flat after the first.
func TestTapeWithoutBackwardDisposedByItsScope(t *testing.T) {
	e := testgpu.Engine(t)
	m := newModel(e)
	defer m.Dispose()
	base := usageOf(e)
	for i := range 1000 {
		err := tidy.Do(e, func() error {
			tape := NewTape(e)
			return tape.Record(func() error { return m.forward(e).Err() })
		})
		require.NoError(t, err)
		if got := usageOf(e); got != base {
			t.Fatalf("after %d scopes: %+v, before %+v", i+1, got, base)
		}
	}
}

// failHalfway is a kernel with a rule that creates tensors and then fails:
// an error injected in the middle of a backward pass.
var failHalfway = tensor.Kernel{
	Name:      "fail_halfway",
	Workgroup: 64,
	Source: `
struct Params { first: u32, end: u32, row: u32, threads: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = p.first + id.x + id.y * p.row;
	if (i >= p.end) { return; }
	y[i] = x[i];
}`,
}

var errInjected = errors.New("injected")

func init() {
	Register(`kernel "fail_halfway"`, Rule{Inputs: []int{0}, Backward: func(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
		c.E.Mul(dy[0], c.Input(0)) // made, then left to the scope
		return nil, errInjected
	}})
}

// identity copies x through failHalfway.
func identity(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor {
	return e.RunKernel(failHalfway, tensor.Launch{
		Inputs:  []*tensor.Tensor{x},
		Outputs: []tensor.Out{{Shape: x.Shape(), DType: tensor.Float32}},
		Threads: x.Size(),
	})[0]
}

// An error half-way through backward (after the rules above it have made
// gradients) leaves nothing live that backward made; without Keep the
// saved tensors are gone too, with Keep the tape's Dispose frees them.
func TestErrorHalfwayThroughBackwardLeavesNothing(t *testing.T) {
	e := testgpu.Engine(t)
	m := newModel(e)
	defer m.Dispose()
	base := usageOf(e)
	for _, keep := range []bool{false, true} {
		require.NoError(t, tidy.Do(e, func() error {
			tape := NewTape(e)
			var y *tensor.Tensor
			require.NoError(t, tape.Record(func() error {
				h := e.Relu(e.MatMul(m.x, m.w1))
				y = e.MatMul(identity(e, h), m.w2)
				return y.Err()
			}))
			seed := e.Ones(tensor.Float32, y.Shape()...)
			mark := tensor.LastID()
			_, err := tape.Gradients(y, m.params(), &Options{Seed: seed, Keep: keep, NoPath: ZeroGradient})
			assert.ErrorIs(t, err, errInjected, "keep %v", keep)
			for _, ti := range e.LiveTensors() {
				if ti.ID > mark {
					t.Errorf("keep %v: tensor %d %v made by backward is live, at %s", keep, ti.ID, ti.Shape, ti.Site.Chain())
				}
			}
			before := usageOf(e)
			tape.Dispose()
			if after := usageOf(e); keep {
				assert.Less(t, after.tensors, before.tensors, "Dispose frees what the kept tape saved")
			} else {
				assert.Equal(t, before, after, "without Keep the error freed the saved tensors")
			}
			return nil
		}))
		assert.Equal(t, base, usageOf(e), "keep %v", keep)
	}
}

// A second backward needs Keep on the first; it gives the same gradients.
func TestSecondBackwardOnlyWhenKept(t *testing.T) {
	e := testgpu.Engine(t)
	m := newModel(e)
	defer m.Dispose()
	require.NoError(t, tidy.Do(e, func() error {
		tape := NewTape(e)
		var y *tensor.Tensor
		require.NoError(t, tape.Record(func() error { y = m.forward(e); return y.Err() }))
		opts := &Options{Seed: e.Ones(tensor.Float32, y.Shape()...), Keep: true}
		first, err := tape.Gradients(y, m.params(), opts)
		require.NoError(t, err)
		opts.Keep = false
		second, err := tape.Gradients(y, m.params(), opts)
		require.NoError(t, err)
		for i := range first {
			assert.Equal(t, floats(t, first[i]), floats(t, second[i]))
		}
		_, err = tape.Gradients(y, m.params(), opts)
		assert.ErrorIs(t, err, ErrTapeUsed)
		return nil
	}))
}

// A non-scalar result needs a seed of its shape; a tensor the result does
// not depend on fails with ErrNoPath by default, and gets zeros or nil
// where Options.NoPath allows it.
func TestSeedsAndNoPath(t *testing.T) {
	e := testgpu.Engine(t)
	require.NoError(t, tidy.Do(e, func() error {
		x := e.FromFloat32s([]float32{1, 2, 3}, 3)
		unused := e.FromFloat32s([]float32{4, 5}, 2)
		tape := NewTape(e)
		var y *tensor.Tensor
		require.NoError(t, tape.Record(func() error { y = e.Square(x); return y.Err() }))
		keep := &Options{Keep: true}
		_, err := tape.Gradients(y, []*tensor.Tensor{x}, keep)
		assert.ErrorIs(t, err, ErrSeed)
		_, err = tape.Gradients(y, []*tensor.Tensor{x}, &Options{Seed: e.Ones(tensor.Float32, 1, 3), Keep: true})
		assert.ErrorIs(t, err, ErrSeed)
		seed := e.FromFloat32s([]float32{1, 1, 2}, 3)
		mark := tensor.LastID()
		_, err = tape.Gradients(y, []*tensor.Tensor{x, unused}, &Options{Seed: seed}) // leaves the tape as it was
		assert.ErrorIs(t, err, ErrNoPath)
		assert.ErrorContains(t, err, "wrt[1]")
		for _, ti := range e.LiveTensors() {
			assert.LessOrEqual(t, ti.ID, mark, "the failed backward left tensor %d %v", ti.ID, ti.Shape)
		}
		_, err = tape.Gradients(y, []*tensor.Tensor{unused}, &Options{Seed: seed, Keep: true})
		assert.ErrorIs(t, err, ErrNoPath)
		assert.ErrorContains(t, err, "nor on any")
		gs, err := tape.Gradients(y, []*tensor.Tensor{x, unused}, &Options{Seed: seed, Keep: true, NoPath: ZeroGradient})
		require.NoError(t, err)
		assert.Equal(t, []float32{2, 4, 12}, floats(t, gs[0]))
		assert.Equal(t, []float32{0, 0}, floats(t, gs[1]))
		gs, err = tape.Gradients(y, []*tensor.Tensor{unused, x}, &Options{Seed: seed, NoPath: NilGradient})
		require.NoError(t, err)
		assert.Nil(t, gs[0])
		assert.Equal(t, []float32{2, 4, 12}, floats(t, gs[1]))
		return nil
	}))
}

// Several engines on one device, each recording its own tape and
// differentiating it, at once (run with -race).
func TestEnginesRecordTheirOwnTapes(t *testing.T) {
	d := testgpu.Open(t)
	const engines, steps = 4, 10
	var wg sync.WaitGroup
	errs := make([]error, engines)
	for i := range engines {
		e := testgpu.EngineOn(t, d)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = recordAndCheck(e, float32(i+1), steps)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "engine %d", i)
	}
}

// recordAndCheck differentiates y = c·x² steps times and checks dy/dx.
func recordAndCheck(e *tensor.Engine, c float32, steps int) error {
	for range steps {
		err := tidy.Do(e, func() error {
			x := e.FromFloat32s([]float32{1, 2, 3}, 3)
			tape := NewTape(e)
			var y *tensor.Tensor
			if err := tape.Record(func() error { y = e.Mul(e.Scalar(c), e.Square(x)); return y.Err() }); err != nil {
				return err
			}
			gs, err := tape.Gradients(y, []*tensor.Tensor{x}, &Options{Seed: e.Ones(tensor.Float32, 3)})
			if err != nil {
				return err
			}
			v, err := gs[0].Float32s(context.Background())
			if want := []float32{2 * c, 4 * c, 6 * c}; err == nil && !slices.Equal(v, want) {
				err = fmt.Errorf("gradient %v, want %v", v, want)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// here returns the line of its caller.
func here() int {
	_, _, line, _ := runtime.Caller(1)
	return line
}

// liveAt counts e's live tensors created at line of memory_test.go.
func liveAt(e *tensor.Engine, line int) int {
	n := 0
	for _, ti := range e.LiveTensors() {
		if ti.Site.String() == fmt.Sprintf("grad/memory_test.go:%d", line) {
			n++
		}
	}
	return n
}

var observed = make(chan [2]int, 1) // what the "observe" rule counted

func init() {
	Register(`kernel "observe"`, Rule{Backward: func(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
		observed <- [2]int{liveAt(c.E, observeLines[0]), liveAt(c.E, observeLines[1])}
		return dy, nil
	}})
}

var observeLines [2]int // the lines of the forward ops observed: exp, mul

// Backward frees each saved tensor once its op's rule has run: when the
// rule of the first op runs (last), the tensors saved by the ops after it
// are gone, unless the tape is kept.
func TestBackwardFreesSavedTensorsAsItGoes(t *testing.T) {
	e := testgpu.Engine(t)
	for _, keep := range []bool{false, true} {
		require.NoError(t, tidy.Do(e, func() error {
			x := e.FromFloat32s([]float32{1, 2}, 2)
			w := e.FromFloat32s([]float32{3, 4}, 2)
			tape := NewTape(e)
			var y *tensor.Tensor
			require.NoError(t, tape.Record(func() error {
				a := e.RunKernel(tensor.Kernel{Name: "observe", Workgroup: 64, Source: failHalfway.Source}, tensor.Launch{
					Inputs: []*tensor.Tensor{x}, Outputs: []tensor.Out{{Shape: x.Shape(), DType: tensor.Float32}}, Threads: 2,
				})[0]
				var m *tensor.Tensor
				m, observeLines[1] = e.Mul(a, w), here()
				y, observeLines[0] = e.Exp(m), here()
				return y.Err()
			}))
			// Before: exp's result and its saved copy; mul's result and its two saved inputs.
			assert.Equal(t, [2]int{2, 3}, [2]int{liveAt(e, observeLines[0]), liveAt(e, observeLines[1])})
			_, err := tape.Gradients(y, []*tensor.Tensor{x, w}, &Options{Seed: x, Keep: keep})
			require.NoError(t, err)
			want := [2]int{1, 1}
			if keep {
				want = [2]int{2, 3}
			}
			assert.Equal(t, want, <-observed, "keep %v: live at the exp and mul lines while the first rule runs", keep)
			return nil
		}))
	}
}

// Gradients are the caller's tensors: reports name the line that asked for
// them, however deep in the rules they were made.
func TestGradientsAreReportedAtTheCallersLine(t *testing.T) {
	e := testgpu.Engine(t)
	m := newModel(e)
	defer m.Dispose()
	tape := NewTape(e)
	defer tape.Dispose()
	var y *tensor.Tensor
	require.NoError(t, tape.Record(func() error {
		f := m.forward(e)
		defer f.Dispose()
		y = e.Sum(f, false)
		return y.Err()
	}))
	defer y.Dispose()
	_, _, line, _ := runtime.Caller(0)
	gs, err := tape.Gradients(y, m.params(), &Options{Keep: true})
	require.NoError(t, err)
	defer disposeAll(gs...)
	v, vgs, err := ValueAndGrad(e, func([]*tensor.Tensor) (*tensor.Tensor, error) {
		f := m.forward(e)
		defer f.Dispose()
		y := e.Sum(f, false)
		return y, y.Err()
	}, m.params(), nil)
	require.NoError(t, err)
	defer disposeAll(append(vgs, v)...)
	for _, g := range gs {
		assert.Equal(t, fmt.Sprintf("grad/memory_test.go:%d", line+1), g.Site().String(), "made at %s", g.Site().Chain())
	}
	for _, g := range vgs {
		assert.True(t, strings.HasPrefix(g.Site().String(), "grad/memory_test.go:"), "made at %s", g.Site().Chain())
	}
}
