package tensor_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
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
