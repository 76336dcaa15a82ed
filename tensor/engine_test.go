package tensor_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// holdFirstClaim makes the next op on e stop once it has claimed e: it
// returns a channel closed when that op holds e, and a function that lets
// it go on. Later ops pass the hook.
func holdFirstClaim(e *tensor.Engine) (held <-chan struct{}, resume func()) {
	h, r := make(chan struct{}), make(chan struct{})
	var once sync.Once
	tensor.OnClaim(e, func() { once.Do(func() { close(h); <-r }) })
	return h, sync.OnceFunc(func() { close(r) })
}

// An op on an engine that another goroutine's op holds fails with
// ErrConcurrentUse, whatever kind of op it is, and leaves nothing behind.
// The overlap is built, not hoped for: the first op is held inside its
// claim until the others have failed.
func TestConcurrentMisuseIsDetected(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s(iota32(16), 4, 4)
	defer x.Dispose()
	held, resume := holdFirstClaim(e)
	defer resume()
	first := make(chan *tensor.Tensor)
	go func() { first <- e.Add(x, x) }()
	<-held

	live := e.NumTensors()
	for _, c := range []struct {
		name string
		op   func() *tensor.Tensor
	}{
		{"add", func() *tensor.Tensor { return e.Add(x, x) }},
		{"sum", func() *tensor.Tensor { return e.Sum(x, false) }},
		{"matmul", func() *tensor.Tensor { return e.MatMul(x, x) }},
		{"reshape", func() *tensor.Tensor { return e.Reshape(x, 16) }},
		{"zeros", func() *tensor.Tensor { return e.Zeros(tensor.Float32, 4) }},
		{"from float32s", func() *tensor.Tensor { return e.FromFloat32s([]float32{1}) }},
	} {
		err := c.op().Err()
		require.ErrorIs(t, err, tensor.ErrConcurrentUse, c.name)
		assert.Contains(t, err.Error(), c.name)
	}
	assert.Equal(t, live, e.NumTensors(), "the ops that lost made nothing")
	assert.Equal(t, iota32(16), f32s(t, x), "readbacks are not ops: they work meanwhile")

	resume()
	y := <-first
	require.NoError(t, y.Err(), "the op that held the engine is unharmed")
	z := e.Add(y, x)
	require.NoError(t, z.Err(), "the engine is free once that op ended")
	assert.Equal(t, float32(3*15), f32s(t, z)[15])
	y.Dispose()
	z.Dispose()
}

// A tidy scope cannot open while another goroutine's op holds the engine:
// that op's result would land in the scope and be disposed by it.
func TestAScopeCannotOpenOverAnotherGoroutinesOp(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Ones(tensor.Float32, 4)
	defer x.Dispose()
	held, resume := holdFirstClaim(e)
	defer resume()
	theirs := make(chan *tensor.Tensor)
	go func() { theirs <- e.Neg(x) }()
	<-held

	ran := false
	_, err := tidy.Run(e, func() (int, error) { ran = true; return 0, nil })
	require.ErrorIs(t, err, tensor.ErrConcurrentUse)
	assert.False(t, ran, "the scope's function does not run")

	resume()
	y := <-theirs
	require.NoError(t, y.Err())
	assert.False(t, y.IsDisposed(), "the other goroutine's result is its own")
	y.Dispose()
	_, err = tidy.Run(e, func() (int, error) { return 0, nil })
	assert.NoError(t, err, "once that op ended, a scope opens")
}

// Only the goroutine that pushed a tracker pops it.
func TestOnlyTheScopesGoroutinePopsIt(t *testing.T) {
	e := testgpu.Engine(t)
	sc := &collect{}
	require.NoError(t, e.PushTracker(sc))
	popped := make(chan struct{})
	go func() {
		e.PopTracker()
		close(popped)
	}()
	<-popped
	x := e.Ones(tensor.Float32, 4)
	e.PopTracker()
	assert.Len(t, sc.xs, 1, "the scope still sees what its goroutine creates")
	x.Dispose()
}

// Retrack, which a scope that ends uses to hand its results to the scope
// around it, never hands them to a scope another goroutine opened since.
func TestRetrackNeverReachesAnotherGoroutinesScope(t *testing.T) {
	e := testgpu.Engine(t)
	mine := &collect{}
	require.NoError(t, e.PushTracker(mine))
	x := e.Ones(tensor.Float32, 4)
	e.PopTracker()

	theirs := &collect{}
	opened, leave, left := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		assert.NoError(t, e.PushTracker(theirs))
		close(opened)
		<-leave
		e.PopTracker()
		close(left)
	}()
	<-opened
	e.Retrack(x)
	close(leave)
	<-left
	assert.Empty(t, theirs.xs, "x was not created in the other goroutine's scope")
	x.Dispose()
}

// A nil tracker sees nothing, and its goroutine still owns the engine.
func TestANilTrackerIsHarmless(t *testing.T) {
	e := testgpu.Engine(t)
	require.NoError(t, e.PushTracker(nil))
	var x *tensor.Tensor
	assert.NotPanics(t, func() { x = e.Ones(tensor.Float32, 4) })
	e.PopTracker()
	if assert.NotNil(t, x) {
		assert.NoError(t, x.Err())
		x.Dispose()
	}
}
