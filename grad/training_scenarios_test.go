package grad_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/internal/bytesize"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// The training scenarios of the README's Memory table: what tfjs, TF and
// Burn users were hurt by, asserted here with figures.

// scenarioSteps is how many steps the long scenarios run: 10,000, or
// WGT_SCENARIO_STEPS where CI's time asks for fewer (never below 100).
func scenarioSteps(t *testing.T) int {
	s := os.Getenv("WGT_SCENARIO_STEPS")
	if s == "" {
		return 10_000
	}
	n, err := strconv.Atoi(s)
	require.NoError(t, err, "WGT_SCENARIO_STEPS")
	require.GreaterOrEqual(t, n, 100, "WGT_SCENARIO_STEPS")
	return n
}

// readEvery is how often the long scenarios read a result back, which
// waits for the work recorded before it: often enough that the device
// never runs far behind, rarely enough that waiting costs little.
const readEvery = 100

// tiny is a 4→8→4 perceptron and one batch of 8 points with their class
// labels: a model whose step costs little, so that 10,000 steps stay
// cheap. Its widths are multiples of four, which the fastest matmul kernel
// on CPU adapters needs.
type tiny struct {
	x, labels *tensor.Tensor
	params    []optim.Param
}

func newTiny(e *tensor.Engine, seed uint64) tiny {
	labels := make([]int32, 8)
	for i := range labels {
		labels[i] = int32(i % 4)
	}
	return tiny{
		x:      e.RandNormal(seed, 0, 1, 8, 4),
		labels: e.FromInt32s(labels, 8),
		params: []optim.Param{
			{Name: "0.weight", T: e.RandNormal(seed+1, 0, 0.7, 4, 8)},
			{Name: "0.bias", T: e.Zeros(tensor.Float32, 8)},
			{Name: "2.weight", T: e.RandNormal(seed+2, 0, 0.5, 8, 4)},
			{Name: "2.bias", T: e.Zeros(tensor.Float32, 4)},
		},
	}
}

func (m tiny) weights() []*tensor.Tensor {
	ws := make([]*tensor.Tensor, len(m.params))
	for i, p := range m.params {
		ws[i] = p.T
	}
	return ws
}

func (m tiny) dispose() { tidy.Dispose(append(m.weights(), m.x, m.labels)) }

// forward is the logits relu(x·W0 + b0)·W2 + b2.
func (m tiny) forward(e *tensor.Engine) *tensor.Tensor {
	w := m.weights()
	return e.Add(e.MatMul(e.Relu(e.Add(e.MatMul(m.x, w[0]), w[1])), w[2]), w[3])
}

// step runs one training step in a scope of its own: the loss recorded on
// a tape, its gradients, and opt's in-place update. It returns the loss
// before the update when read asks for it (a readback), else NaN.
func (m tiny) step(ctx context.Context, e *tensor.Engine, opt optim.Optimizer, read bool) (float32, error) {
	return tidy.Run(e, func() (float32, error) {
		tape := grad.NewTape(e) // disposed by the scope
		var l *tensor.Tensor
		err := tape.Record(func() error {
			l = loss.SoftmaxCrossEntropy(e, m.forward(e), m.labels, loss.Mean)
			return l.Err()
		})
		if err != nil {
			return 0, err
		}
		gs, err := tape.Gradients(l, m.weights(), nil)
		if err != nil {
			return 0, err
		}
		if err := opt.Step(gs); err != nil {
			return 0, err
		}
		if !read {
			return float32(math.NaN()), nil
		}
		v, err := l.Float32s(ctx)
		if err != nil {
			return 0, err
		}
		return v[0], nil
	})
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// flat is what must not change from one step to the next: the tensors,
// the buffers they use and their bytes, and, compared only after a
// readback (when the device has submitted its open batch, whose parameter
// buffers are the device's), the pool's live buffers and bytes. Reserved
// is kept for the scenarios that assert it.
type flat struct {
	Tensors, Storages, LiveBuffers int
	Bytes, LiveBytes, Reserved     uint64
}

// flatOf is m's flat figures; synced says whether the device's batch was
// just submitted, else only the tensors' figures count.
func flatOf(m tensor.Memory, synced bool) flat {
	f := flat{Tensors: m.Tensors, Storages: m.Storages, Bytes: m.Bytes}
	if synced {
		f.LiveBuffers, f.LiveBytes = m.Pool.LiveBuffers, m.Pool.LiveBytes
	}
	return f
}

// tfjs optimizer.minimize grew every step (#584) and a variableGrads loop
// leaked inside tidy (#5980); Burn's training memory climbed per epoch
// (#5212, #4792). Here: 10,000 steps of a tape and Adam. Every step ends
// with step 1's tensors, buffers and bytes, and every readback with step
// 1's live pool buffers and bytes; reserved bytes and their peak stop
// moving at the first readback after step 1, and the peak reserved stays
// within twice the working set.
func TestScenarioTrainingStepsAreFlat(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxFor(t)
	steps := scenarioSteps(t)
	m := newTiny(e, 1)
	defer m.dispose()
	opt, err := optim.NewAdam(e, m.params, optim.AdamConfig{LR: 0.01, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
	require.NoError(t, err)
	defer opt.Dispose()

	start := time.Now()
	first, err := m.step(ctx, e, opt, true)
	require.NoError(t, err)
	after1 := e.Memory()
	// Step 1 runs alone; from step 2 on, steps run readEvery at a time
	// between readbacks, and the device's open batch holds the parameter
	// buffers of several: the pool reserves a little more, once.
	var warm wgpu.PoolStats // the pool at the first readback after step 1
	var last float32
	for i := 2; i <= steps; i++ {
		read := i%readEvery == 0 || i == steps
		l, err := m.step(ctx, e, opt, read)
		require.NoError(t, err, "step %d", i)
		now := e.Memory()
		if got, want := flatOf(now, read), flatOf(after1, read); got != want {
			t.Fatalf("after step %d: %+v, after step 1: %+v", i, got, want)
		}
		if !read {
			continue
		}
		last = l
		if warm.ReservedBytes == 0 {
			warm = now.Pool
		}
		if now.Pool.ReservedBytes != warm.ReservedBytes || now.Pool.PeakReservedBytes != warm.PeakReservedBytes {
			t.Fatalf("after step %d: reserved %d B, peak %d B; after step %d: %d B, peak %d B",
				i, now.Pool.ReservedBytes, now.Pool.PeakReservedBytes, readEvery, warm.ReservedBytes, warm.PeakReservedBytes)
		}
	}
	elapsed := time.Since(start)
	end := e.Memory()
	assert.Less(t, last, first/10, "the loss fell from %v to %v: the model trained", first, last)

	// The working set is what a step needs live at once: the data, the
	// parameters, Adam's state, the step's intermediates, saved tensors
	// and gradients, and the device's parameter and staging buffers, as
	// the pool's peak of live bytes measures it. The pool reserves that
	// and the released buffers it keeps for reuse by size; every step
	// asks for the sizes the one before it released, in the same order,
	// so what is kept beside the live buffers at the peak is at most one
	// step's released buffers: never more than the working set.
	working := end.Pool.PeakLiveBytes
	assert.LessOrEqual(t, end.Pool.PeakReservedBytes, 2*working, "peak reserved %s within 2× the working set %s",
		bytesize.Format(end.Pool.PeakReservedBytes), bytesize.Format(working))
	f := flatOf(after1, true)
	t.Logf("%d steps in %v; loss %.4f → %.6f; after step 1 and every step: %d tensors in %d buffers, %d B; after every readback: pool %d buffers, %d B live; reserved %d B after step 1, %d B from step %d on; peak live %d B, peak reserved %d B",
		steps, elapsed.Round(time.Millisecond), first, last, f.Tensors, f.Storages, f.Bytes, f.LiveBuffers, f.LiveBytes,
		after1.Pool.ReservedBytes, warm.ReservedBytes, readEvery, end.Pool.PeakLiveBytes, end.Pool.PeakReservedBytes)
}

// Burn's autodiff backend kept the graph of forward passes never
// differentiated (#4339). Here a forward pass outside any tape saves
// nothing: 10,000 of them, each in a scope, and after the first no
// figure moves: tensors, bytes, the pool's live and reserved bytes and
// its peak.
func TestScenarioForwardPassesOutsideATapeAreFlat(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := ctxFor(t)
	steps := scenarioSteps(t)
	m := newTiny(e, 2)
	defer m.dispose()
	pass := func(read bool) error {
		return tidy.Do(e, func() error {
			y := m.forward(e)
			if read {
				_, err := y.Float32s(ctx)
				return err
			}
			return nil
		})
	}
	start := time.Now()
	before := e.Memory()
	require.NoError(t, pass(true))
	after1 := e.Memory()
	assert.Equal(t, flatOf(before, false), flatOf(after1, false), "a pass leaves no tensor and no byte")
	for i := 2; i <= steps; i++ {
		read := i%readEvery == 0
		require.NoError(t, pass(read), "pass %d", i)
		now := e.Memory()
		if got, want := flatOf(now, read), flatOf(after1, read); got != want {
			t.Fatalf("after pass %d: %+v, after pass 1: %+v", i, got, want)
		}
		if read && now.Pool.ReservedBytes != after1.Pool.ReservedBytes {
			t.Fatalf("after pass %d: reserved %d B, after pass 1: %d B", i, now.Pool.ReservedBytes, after1.Pool.ReservedBytes)
		}
	}
	end := e.Memory()
	assert.Equal(t, after1.Pool.PeakReservedBytes, end.Pool.PeakReservedBytes, "peak reserved set by pass 1")
	f := flatOf(after1, true)
	t.Logf("%d passes in %v; after every pass: %d tensors in %d buffers, %d B (the model's); after every readback: pool %d buffers, %d B live, %d B reserved; peak reserved %d B",
		steps, time.Since(start).Round(time.Millisecond), f.Tensors, f.Storages, f.Bytes, f.LiveBuffers, f.LiveBytes,
		after1.Pool.ReservedBytes, end.Pool.PeakReservedBytes)
}

// Eight engines on one device, each training its own model with its own
// tape and optimizer on its own goroutine (run with -race): every model
// converges and no engine keeps a tensor.
func TestScenarioEightEnginesTrainOnOneDevice(t *testing.T) {
	d := testgpu.Open(t)
	ctx := ctxFor(t)
	const engines, steps = 8, 50
	var wg sync.WaitGroup
	errs := make([]error, engines)
	for i := range engines {
		e := testgpu.EngineOn(t, d)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = trainToConvergence(ctx, e, uint64(10*i+1), steps)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "engine %d", i)
	}
}

// trainToConvergence trains a tiny model with Adam for steps steps and
// fails unless the loss fell tenfold and nothing is left live after.
func trainToConvergence(ctx context.Context, e *tensor.Engine, seed uint64, steps int) error {
	m := newTiny(e, seed)
	opt, err := optim.NewAdam(e, m.params, optim.AdamConfig{LR: 0.05, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
	if err != nil {
		m.dispose()
		return err
	}
	var first, last float32
	for i := 1; i <= steps && err == nil; i++ {
		var l float32
		l, err = m.step(ctx, e, opt, i == 1 || i == steps)
		switch i {
		case 1:
			first = l
		case steps:
			last = l
		}
	}
	opt.Dispose()
	m.dispose()
	switch {
	case err != nil:
		return err
	case !(last < first/10):
		return fmt.Errorf("loss %v after %d steps, from %v: not converging", last, steps, first)
	case e.NumTensors() != 0:
		return fmt.Errorf("%d tensors live after training", e.NumTensors())
	}
	return nil
}
