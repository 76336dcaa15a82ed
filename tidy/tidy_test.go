package tidy_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestRunDisposesAllButTheResult(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, -2, 3})
	defer x.Dispose()
	var inner *tensor.Tensor
	y, err := tidy.Run(e, func() (*tensor.Tensor, error) {
		inner = e.Neg(x)
		return e.Relu(inner), nil
	})
	require.NoError(t, err)
	defer y.Dispose()
	assert.True(t, inner.IsDisposed(), "intermediates are disposed")
	assert.False(t, x.IsDisposed(), "inputs from outside are not")
	assert.Equal(t, 2, e.NumTensors(), "x and y are live")
	v, err := y.Float32s(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, []float32{0, 2, 0}, v)
}

func TestScopesNestAndResultsMoveOut(t *testing.T) {
	e := testgpu.Engine(t)
	var fromInner *tensor.Tensor
	out, err := tidy.Run(e, func() (*tensor.Tensor, error) {
		a := e.Ones(tensor.Float32, 4)
		var err error
		fromInner, err = tidy.Run(e, func() (*tensor.Tensor, error) {
			return e.Add(a, a), nil
		})
		require.NoError(t, err)
		assert.False(t, fromInner.IsDisposed(), "the inner result survives the inner scope")
		return e.Mul(fromInner, a), nil
	})
	require.NoError(t, err)
	defer out.Dispose()
	assert.True(t, fromInner.IsDisposed(), "and the outer scope disposes it when it is not returned")
	assert.Equal(t, 1, e.NumTensors())
}

func TestErrorAndPanicStillDispose(t *testing.T) {
	e := testgpu.Engine(t)
	boom := errors.New("boom")
	res, err := tidy.Run(e, func() ([]*tensor.Tensor, error) {
		e.Zeros(tensor.Float32, 8)
		return []*tensor.Tensor{e.Ones(tensor.Float32, 2)}, boom
	})
	require.ErrorIs(t, err, boom)
	require.Len(t, res, 1)
	assert.Equal(t, 1, e.NumTensors(), "on error the results are returned; the rest is disposed")
	tidy.Dispose(res)

	assert.PanicsWithValue(t, "bad", func() {
		_ = tidy.Do(e, func() error {
			e.Zeros(tensor.Float32, 8)
			panic("bad")
		})
	})
	assert.Zero(t, e.NumTensors(), "a panic disposes everything and is re-raised")
}

func TestScopeSpansAwaits(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	for i := range 50 {
		sum, err := tidy.Run(e, func() (float32, error) {
			x := e.Fill(tensor.Float32, float64(i), 1024)
			v, err := x.Float32s(ctx) // an await inside the scope
			if err != nil {
				return 0, err
			}
			y := e.Sum(e.Add(x, x), false)
			w, err := y.Float32s(ctx)
			return v[0] + w[0], err
		})
		require.NoError(t, err)
		assert.Equal(t, float32(i)+float32(2048*i), sum)
		assert.Zero(t, e.NumTensors(), "iteration %d left nothing", i)
	}
}

func TestDisposeWhileReadbackPending(t *testing.T) {
	e := testgpu.Engine(t)
	p, err := tidy.Run(e, func() (interface {
		Await(context.Context) ([]byte, error)
	}, error) {
		x := e.Range(tensor.Float32, 0, 256, 1)
		return x.Data(), nil // x is disposed when the scope ends, before the await
	})
	require.NoError(t, err)
	assert.Zero(t, e.NumTensors())
	b, err := p.Await(ctxT(t))
	require.NoError(t, err)
	require.Len(t, b, 1024)
	assert.Equal(t, byte(0), b[0])
	assert.Equal(t, []byte{0, 0, 0x7f, 0x43}, b[1020:], "element 255 is 255.0")
}

func TestKeepAndDisposeContainers(t *testing.T) {
	e := testgpu.Engine(t)
	type model struct {
		W      []*tensor.Tensor
		Biases map[string]*tensor.Tensor
		Extra  *tensor.Tensor
		note   string
	}
	var kept *tensor.Tensor
	m, err := tidy.Run(e, func() (*model, error) {
		kept = tidy.Keep(e.Ones(tensor.Float32, 3))
		e.Zeros(tensor.Float32, 3) // disposed
		return &model{
			W:      []*tensor.Tensor{e.Ones(tensor.Float32, 2, 2), e.Ones(tensor.Float32, 2)},
			Biases: map[string]*tensor.Tensor{"b": e.Zeros(tensor.Float32, 2)},
			note:   "unexported fields are skipped",
		}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 4, e.NumTensors(), "three in the model and the kept one")
	tidy.Dispose(m)
	assert.Equal(t, 1, e.NumTensors())
	assert.False(t, kept.IsDisposed())
	kept.Dispose()
}

// Eight engines on eight goroutines share one device for 10,000 ops each.
func TestEightEnginesShareOneDevice(t *testing.T) {
	d := testgpu.Open(t)
	ctx := ctxT(t)
	const goroutines, ops = 8, 10000
	engines := make([]*tensor.Engine, goroutines)
	for i := range engines {
		engines[i] = testgpu.EngineOn(t, d)
	}
	errs := make(chan error, goroutines)
	for g, e := range engines {
		go func() {
			errs <- tidy.Do(e, func() error {
				x := e.Fill(tensor.Float32, float64(g), 256)
				one := e.Ones(tensor.Float32, 256)
				for i := 0; i < ops-2; i += 100 {
					next, err := tidy.Run(e, func() (*tensor.Tensor, error) {
						y := x
						for range min(100, ops-2-i) {
							y = e.Add(y, one)
						}
						return y, y.Err()
					})
					if err != nil {
						return err
					}
					x.Dispose()
					x = next
				}
				v, err := x.Float32s(ctx)
				if err == nil && v[255] != float32(g+ops-2) {
					err = errors.New("wrong sum")
				}
				return err
			})
		}()
	}
	for range goroutines {
		require.NoError(t, <-errs)
	}
	for _, e := range engines {
		assert.Zero(t, e.NumTensors())
	}
	s := d.Pool().Stats()
	assert.Zero(t, s.LiveBuffers)
	assert.Equal(t, s.ReservedBytes, s.LiveBytes+s.PooledBytes)
	assert.Equal(t, s.Allocs, s.Frees+uint64(s.LiveBuffers+s.PooledBuffers), "every buffer created is live, pooled or freed")
	t.Logf("pool after %d ops: %s", goroutines*ops, s)
}

// While a scope is open, its Engine belongs to the goroutine inside it:
// another goroutine's op fails with ErrConcurrentUse instead of landing in
// the scope (and being disposed by it), and another goroutine's scope does
// not open. Once the scope ends, the Engine is free for any goroutine.
func TestAnOpenScopeClaimsItsEngine(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2, 3})
	defer x.Dispose()
	inside, leave := make(chan struct{}), make(chan struct{})
	type result struct {
		y   *tensor.Tensor
		err error
	}
	owner := make(chan result)
	go func() {
		y, err := tidy.Run(e, func() (*tensor.Tensor, error) {
			h := e.Add(x, x)
			close(inside)
			<-leave // as if awaiting a readback
			return e.Mul(h, x), nil
		})
		owner <- result{y, err}
	}()
	<-inside

	other := e.Neg(x)
	require.ErrorIs(t, other.Err(), tensor.ErrConcurrentUse, "an op of another goroutine")
	ran := false
	_, err := tidy.Run(e, func() (int, error) { ran = true; return 0, nil })
	require.ErrorIs(t, err, tensor.ErrConcurrentUse, "a scope of another goroutine")
	assert.False(t, ran)
	v, err := x.Float32s(ctxT(t))
	require.NoError(t, err, "readbacks are not ops: any goroutine may read")
	assert.Equal(t, []float32{1, 2, 3}, v)

	close(leave)
	r := <-owner
	require.NoError(t, r.err)
	defer r.y.Dispose()
	v, err = r.y.Float32s(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, []float32{2, 8, 18}, v)

	z := e.Neg(x)
	require.NoError(t, z.Err(), "the scope ended: the engine is free again")
	z.Dispose()
	assert.Equal(t, 2, e.NumTensors(), "x and the owner's result")
}
