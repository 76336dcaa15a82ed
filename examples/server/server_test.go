package main

import (
	"context"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// seededModel builds the served architecture from seed, in inference mode.
func seededModel(t *testing.T, e *tensor.Engine, seed uint64) *nn.Sequential {
	t.Helper()
	b := nn.NewBuilder(e, seed)
	m := newModel(b)
	require.NoError(t, b.Err())
	m.SetTraining(false)
	return m
}

// A request that acquired the model before a swap keeps it whole until it
// releases it: its predictions after the swap are those before, while new
// requests get the new model; its release disposes the old model, and
// closing the slot the new one. A slot that disposed the old model at the
// swap fails the second prediction (tensor.ErrDisposed).
func TestSwapKeepsTheOldModelUntilItsLastRequest(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxT(t)
	in := requestBatches()[0]
	a, b := seededModel(t, e, 1), seededModel(t, e, 2)
	s := newSlot(a, "a")

	req := s.Acquire()
	require.Equal(t, "a", req.name)
	before, err := predict(ctx, e, req.model, in)
	require.NoError(t, err)

	assert.False(t, s.Swap(b, "b"), "a request still uses the old model: the swap must not dispose it")
	after, err := predict(ctx, e, req.model, in)
	require.NoError(t, err, "the request's model after the swap")
	assert.Equal(t, before, after)
	assert.NotEmpty(t, nn.StateDict(a), "the old model is live while its request runs")

	next := s.Acquire()
	require.Equal(t, "b", next.name, "new requests get the new model")
	s.Release(req)
	assert.Empty(t, nn.StateDict(a), "the last request's release disposes the old model")
	assert.NotEmpty(t, nn.StateDict(b))
	s.Release(next)
	assert.NotEmpty(t, nn.StateDict(b), "the current model stays while the slot holds it")
	assert.True(t, s.Close(), "closing with no request disposes the model at once")
	assert.Empty(t, nn.StateDict(b))
	assert.Nil(t, s.Acquire(), "a closed slot serves nothing")
	assert.Zero(t, e.NumTensors())
}

// A swap with no request in flight disposes the old model at once.
func TestSwapWithNoRequestDisposesAtOnce(t *testing.T) {
	e := testgpu.Engine(t)
	a, b := seededModel(t, e, 1), seededModel(t, e, 2)
	s := newSlot(a, "a")
	s.Release(s.Acquire())
	assert.True(t, s.Swap(b, "b"))
	assert.Empty(t, nn.StateDict(a))
	assert.True(t, s.Close())
	assert.Zero(t, e.NumTensors())
}

// A count at zero is final: the model is disposed once, no acquire revives
// it, and a release past zero panics instead of disposing a model twice.
func TestReleasedModelIsNeverAcquiredAgain(t *testing.T) {
	f := &fake{}
	m := newServed(f, "f")
	assert.True(t, m.release(), "the last reference disposes")
	assert.False(t, m.tryAcquire(), "no acquire from zero")
	assert.Zero(t, m.refs.Load())
	assert.EqualValues(t, 1, f.disposes.Load())
	assert.Panics(t, func() { m.release() })
	assert.EqualValues(t, 1, f.disposes.Load(), "disposed once")
}

// fake is a Module that records misuse: a use after its Dispose, a Dispose
// while a request uses it, and how often it was disposed.
type fake struct {
	inUse     atomic.Int64
	disposed  atomic.Bool
	disposes  atomic.Int32
	misuses   atomic.Int32
	requested atomic.Int64
}

func (f *fake) begin() {
	f.inUse.Add(1)
	f.requested.Add(1)
	if f.disposed.Load() {
		f.misuses.Add(1)
	}
}

func (f *fake) end() { f.inUse.Add(-1) }

func (f *fake) Dispose() {
	if f.inUse.Load() != 0 {
		f.misuses.Add(1)
	}
	f.disposed.Store(true)
	f.disposes.Add(1)
}

func (f *fake) Forward(x *tensor.Tensor) *tensor.Tensor { return x }
func (f *fake) Params() []optim.Param                   { return nil }
func (f *fake) Buffers() []optim.Param                  { return nil }
func (f *fake) SetTraining(bool)                        {}
func (f *fake) Training() bool                          { return false }

// Eight goroutines acquire, use and release the current model 2,000 times
// each while another swaps in 500 new ones (run with -race): no model is
// used after its Dispose or disposed while in use, each is disposed exactly
// once, and every request found a model.
func TestSlotUnderConcurrentSwaps(t *testing.T) {
	const goroutines, requests, swaps = 8, 2000, 500
	models := []*fake{{}}
	s := newSlot(models[0], "0")
	var wg sync.WaitGroup
	var missing atomic.Int32
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range requests {
				m := s.Acquire()
				if m == nil {
					missing.Add(1)
					continue
				}
				f := m.model.(*fake)
				f.begin()
				f.end()
				s.Release(m)
			}
		}()
	}
	for range swaps {
		f := &fake{}
		models = append(models, f)
		s.Swap(f, "")
	}
	wg.Wait()
	assert.True(t, s.Close(), "no request left: the last model is disposed at Close")
	assert.Zero(t, missing.Load(), "requests that found no model")
	var served int64
	for i, f := range models {
		assert.Zero(t, f.misuses.Load(), "model %d used after Dispose or disposed in use", i)
		assert.EqualValues(t, 1, f.disposes.Load(), "model %d disposed once", i)
		served += f.requested.Load()
	}
	assert.EqualValues(t, goroutines*requests, served)
}

// The server's loop on the test device, with four swaps: every request's
// result equals the serving model's prediction, both files serve, and at
// the end nothing is live and nothing reserved after Trim.
func TestServeSwapsWhileServing(t *testing.T) {
	d := testgpu.Open(t)
	ctx := ctxT(t)
	dir := t.TempDir()
	c := config{model: filepath.Join(dir, "a.safetensors"), next: filepath.Join(dir, "b.safetensors"), workers: 4, swaps: 4, perSwap: 20}
	require.NoError(t, writeSeeded(ctx, tensor.New(d), map[string]uint64{c.model: 1, c.next: 2}))
	st, err := serve(ctx, d, c)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, st.requests, (c.swaps+1)*c.perSwap)
	require.Len(t, st.byModel, 2)
	for _, m := range st.byModel {
		assert.Positive(t, m.requests, "requests served by %s", m.name)
	}
	assert.Zero(t, st.tensors)
	require.NoError(t, checkEmpty(ctx, d, st.tensors))
	t.Logf("%d requests, %d swaps, %d of them deferred the old model's Dispose to its last request", st.requests, c.swaps, st.deferred)
}
