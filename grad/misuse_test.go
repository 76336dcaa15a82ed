package grad

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Every exported method of grad's types answers on a nil receiver (and
// on a zero value) with a zero value or an error wrapping
// tensor.ErrArgument, as tensor.Tensor and tensor.Engine do: never a
// panic.
func TestNilReceiversDoNotPanic(t *testing.T) {
	e := testgpu.Engine(t)
	y := e.FromFloat32s([]float32{2}, 1)
	defer y.Dispose()
	wrt := []*tensor.Tensor{y}
	for _, c := range []struct {
		name string
		tape *Tape
	}{{"nil", nil}, {"zero", &Tape{}}, {"NewTape(nil)", NewTape(nil)}} {
		tape := c.tape
		testgpu.NoPanic(t, c.name+" Tape.Len", func() { assert.Equal(t, 0, tape.Len()) })
		testgpu.NoPanic(t, c.name+" Tape.Record", func() {
			ran := false
			err := tape.Record(func() error { ran = true; return nil })
			assert.ErrorIs(t, err, tensor.ErrArgument, c.name)
			assert.False(t, ran, "%s: Record ran fn", c.name)
		})
		testgpu.NoPanic(t, c.name+" Tape.Gradients", func() {
			gs, err := tape.Gradients(y, wrt, nil)
			assert.ErrorIs(t, err, tensor.ErrArgument, c.name)
			assert.Nil(t, gs)
		})
		testgpu.NoPanic(t, c.name+" Tape.RecordOp", func() { tape.RecordOp(nil); tape.RecordOp(&tensor.OpRecord{}) })
		testgpu.NoPanic(t, c.name+" Tape.Dispose", func() { tape.Dispose(); tape.Dispose() })
	}
	testgpu.NoPanic(t, "Tape.Record(nil)", func() {
		tape := NewTape(e)
		defer tape.Dispose()
		assert.ErrorIs(t, tape.Record(nil), tensor.ErrArgument)
	})
	testgpu.NoPanic(t, "ValueAndGrad(nil engine)", func() {
		_, _, err := ValueAndGrad(nil, func([]*tensor.Tensor) (*tensor.Tensor, error) { return y, nil }, wrt, nil)
		assert.ErrorIs(t, err, tensor.ErrArgument)
	})
	testgpu.NoPanic(t, "ValueAndGrad(nil f)", func() {
		_, _, err := ValueAndGrad(e, nil, wrt, nil)
		assert.ErrorIs(t, err, tensor.ErrArgument)
	})
	for _, c := range []struct {
		name string
		ctx  *Context
	}{{"nil", nil}, {"zero", &Context{}}} {
		ctx := c.ctx
		testgpu.NoPanic(t, c.name+" Context", func() {
			assert.False(t, ctx.NeedsGradient(0))
			assert.Nil(t, ctx.Input(0))
			assert.Nil(t, ctx.Output(0))
			assert.Equal(t, 0, ctx.NumInputs())
			assert.Nil(t, ctx.InputShape(0))
			assert.Equal(t, tensor.DType(0), ctx.InputDType(0))
			assert.Nil(t, ctx.OutputShape(0))
		})
	}
}

var contextRangeRuns atomic.Int64

// A Context answers an index out of range with a zero value, as it does
// an input its rule did not save.
func TestContextIndexOutOfRange(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2}, 2)
	defer x.Dispose()
	var seen bool
	// A kernel and rule of their own for each run: rules are registered
	// for good, and -count runs the test again.
	k := failHalfway
	k.Name = fmt.Sprintf("context_range_%d", contextRangeRuns.Add(1))
	Register(fmt.Sprintf("kernel %q", k.Name), Rule{Inputs: []int{0}, Backward: func(c *Context, dy []*tensor.Tensor) ([]*tensor.Tensor, error) {
		seen = true
		testgpu.NoPanic(t, "Context out of range", func() {
			for _, i := range []int{-1, 1, 5} {
				assert.False(t, c.NeedsGradient(i))
				assert.Nil(t, c.Input(i))
				assert.Nil(t, c.Output(i))
				assert.Nil(t, c.InputShape(i))
				assert.Nil(t, c.OutputShape(i))
			}
			assert.Equal(t, 1, c.NumInputs())
		})
		return []*tensor.Tensor{dy[0]}, nil
	}})
	require.NoError(t, tidy.Do(e, func() error {
		tape := NewTape(e)
		var y *tensor.Tensor
		require.NoError(t, tape.Record(func() error {
			y = e.RunKernel(k, tensor.Launch{
				Inputs:  []*tensor.Tensor{x},
				Outputs: []tensor.Out{{Shape: x.Shape(), DType: tensor.Float32}},
				Threads: x.Size(),
			})[0]
			return y.Err()
		}))
		_, err := tape.Gradients(y, []*tensor.Tensor{x}, &Options{Seed: e.Ones(tensor.Float32, 2), NoPath: ZeroGradient})
		return err
	}))
	assert.True(t, seen, "the rule ran")
}

// kept returns a tape that recorded y = Σ x², for a backward with Keep.
func kept(t *testing.T, e *tensor.Engine, x *tensor.Tensor) (*Tape, *tensor.Tensor) {
	t.Helper()
	tape := NewTape(e)
	var y *tensor.Tensor
	require.NoError(t, tape.Record(func() error { y = e.Sum(e.Mul(e.Exp(x), e.Square(x)), false); return y.Err() }))
	return tape, y
}

// keptGradient returns the gradient of kept's y with respect to x, from a
// tape that nothing disturbs: what the tests below must get.
func keptGradient(t *testing.T, e *tensor.Engine, x *tensor.Tensor) []float32 {
	t.Helper()
	var want []float32
	require.NoError(t, tidy.Do(e, func() error {
		tape, y := kept(t, e, x)
		defer tape.Dispose()
		gs, err := tape.Gradients(y, []*tensor.Tensor{x}, &Options{Keep: true})
		require.NoError(t, err)
		want = floats(t, gs[0])
		return nil
	}))
	return want
}

// Dispose from another goroutine while Gradients(Keep) runs waits for the
// backward to end, then frees everything: the rules never read a freed
// tensor, the gradients are right and stay the caller's, nothing leaks.
// The interleaving is fixed by hooks: Dispose starts once the backward
// holds the graph, and the backward goes on once Dispose waits.
func TestDisposeDuringGradientsWaits(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2, 3}, 3)
	defer x.Dispose()
	base := usageOf(e)
	want := keptGradient(t, e, x)
	waiting := make(chan struct{}, 1)
	disposed := make(chan struct{})
	hookDisposeWaits = func() {
		select {
		case waiting <- struct{}{}:
		default:
		}
	}
	defer func() { hookBackward, hookDisposeWaits = nil, nil }()
	require.NoError(t, tidy.Do(e, func() error {
		tape, y := kept(t, e, x)
		hookBackward = func() {
			hookBackward = nil
			go func() { tape.Dispose(); close(disposed) }()
			<-waiting // Dispose waits for this backward
		}
		gs, err := tape.Gradients(y, []*tensor.Tensor{x}, &Options{Keep: true})
		require.NoError(t, err)
		<-disposed
		assert.Equal(t, want, floats(t, gs[0]))
		assert.Equal(t, 0, tape.Len())
		_, err = tape.Gradients(y, []*tensor.Tensor{x}, &Options{Keep: true})
		assert.ErrorIs(t, err, ErrTapeUsed)
		return nil
	}))
	assert.Equal(t, base, usageOf(e))
}

// Dispose and Gradients(Keep) on two goroutines at once, many times:
// whichever wins, Gradients returns the right gradient or fails with
// ErrTapeUsed, never reads a freed tensor (ErrDisposed) or races (run
// with -race), and nothing leaks.
func TestDisposeRacingGradients(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2, 3}, 3)
	defer x.Dispose()
	base := usageOf(e)
	want := keptGradient(t, e, x)
	won := map[bool]int{}
	for i := range 40 {
		require.NoError(t, tidy.Do(e, func() error {
			tape, y := kept(t, e, x)
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); tape.Dispose() }()
			if i%2 == 1 {
				runtime.Gosched() // a chance for Dispose to go first
			}
			gs, err := tape.Gradients(y, []*tensor.Tensor{x}, &Options{Keep: true})
			wg.Wait()
			if err != nil {
				assert.ErrorIs(t, err, ErrTapeUsed, "attempt %d", i)
				won[false]++
				return nil
			}
			won[true]++
			assert.Equal(t, want, floats(t, gs[0]), "attempt %d", i)
			return nil
		}))
		require.Equal(t, base, usageOf(e), "attempt %d", i)
	}
	t.Logf("Gradients first %d times, Dispose first %d times", won[true], won[false])
}

// A result that depends on none of the tensors asked for is an error by
// default (PyTorch's "One of the differentiated Tensors appears to not
// have been used in the graph"), for Gradients and ValueAndGrad; NoPath
// allows it, with zeros or nil.
func TestUnusedTensorsAreAnErrorByDefault(t *testing.T) {
	e := testgpu.Engine(t)
	w := e.FromFloat32s([]float32{1, 2}, 2)
	c := e.FromFloat32s([]float32{3, 4}, 2)
	defer disposeAll(w, c)
	base := usageOf(e)
	f := func([]*tensor.Tensor) (*tensor.Tensor, error) { y := e.Sum(e.Square(c), false); return y, y.Err() }
	require.NoError(t, tidy.Do(e, func() error {
		_, gs, err := ValueAndGrad(e, f, []*tensor.Tensor{w}, nil)
		assert.ErrorIs(t, err, ErrNoPath)
		assert.Nil(t, gs)
		tape := NewTape(e)
		var y *tensor.Tensor
		require.NoError(t, tape.Record(func() error { y, err = f(nil); return err }))
		_, err = tape.Gradients(y, []*tensor.Tensor{w}, nil)
		assert.ErrorIs(t, err, ErrNoPath)
		assert.ErrorContains(t, err, "wrt[0]")
		gs, err = tape.Gradients(y, []*tensor.Tensor{w, c}, &Options{NoPath: ZeroGradient}) // the error left the tape as it was
		require.NoError(t, err)
		assert.Equal(t, []float32{0, 0}, floats(t, gs[0]))
		assert.Equal(t, []float32{6, 8}, floats(t, gs[1]))
		_, gs, err = ValueAndGrad(e, f, []*tensor.Tensor{w}, &Options{NoPath: NilGradient})
		require.NoError(t, err)
		assert.Equal(t, []*tensor.Tensor{nil}, gs)
		return nil
	}))
	assert.Equal(t, base, usageOf(e))
}

// A tape records only its engine's ops: a forward pass another engine of
// the device ran, even inside Record on the recording goroutine, is not on
// it, and Gradients says so (ErrNoPath, naming the other engine) instead
// of returning zeros.
func TestOpsOfAnotherEngineAreAnErrorNotZeros(t *testing.T) {
	d := testgpu.Open(t)
	e, other := testgpu.EngineOn(t, d), testgpu.EngineOn(t, d)
	w := e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
	x := other.FromFloat32s([]float32{1, 0, 0, 1}, 2, 2)
	defer disposeAll(w, x)
	for _, where := range []string{"the result", "an intermediate"} {
		require.NoError(t, tidy.Do(e, func() error {
			tape := NewTape(e)
			var h, y *tensor.Tensor
			require.NoError(t, tape.Record(func() error {
				h = other.MatMul(x, w) // not recorded: other's op
				if where == "the result" {
					y = other.Sum(h, false)
				} else {
					y = e.Sum(e.Square(h), false)
				}
				return y.Err()
			}))
			defer disposeAll(h, y) // other's: no scope of e holds them
			gs, err := tape.Gradients(y, []*tensor.Tensor{w}, nil)
			assert.ErrorIs(t, err, ErrNoPath, where)
			assert.ErrorContains(t, err, "another engine", where)
			assert.Nil(t, gs, where)
			return nil
		}))
	}
}
