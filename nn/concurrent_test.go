package nn_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// One model, built on one engine and put in inference mode, serves 8
// goroutines that each predict on their own engine of the same device
// under tidy: every goroutine's results equal those of a single goroutine,
// bit for bit, and nothing is left live on any engine (testgpu checks
// each at cleanup) nor on the device.
func TestSharedModelPredictsFromEightGoroutines(t *testing.T) {
	d := testgpu.Open(t)
	e := testgpu.EngineOn(t, d)
	ctx := context.Background()
	m := buildNet(t, e)
	defer m.Dispose()
	// Train a few forwards so BatchNorm's running statistics are not the
	// initial ones, then share the model read-only.
	x := e.FromFloat32s(randFloats(rngFor(t), 8*6, -1, 1), 8, 6)
	for range 3 {
		require.NoError(t, tidy.Do(e, func() error { return m.Forward(x).Err() }))
	}
	x.Dispose()
	m.SetTraining(false)

	const goroutines, batches = 8, 5
	inputs := make([][]float32, batches)
	for i := range inputs {
		inputs[i] = randFloats(rngFor(t), 4*6, -1, 1)
		inputs[i][0] = float32(i) // distinct batches
	}
	predict := func(e *tensor.Engine) ([][]float32, error) {
		var out [][]float32
		for _, in := range inputs {
			y, err := tidy.Run(e, func() ([]float32, error) {
				return m.Forward(e.FromFloat32s(in, 4, 6)).Float32s(ctx)
			})
			if err != nil {
				return nil, err
			}
			out = append(out, y)
		}
		return out, nil
	}
	want, err := predict(testgpu.EngineOn(t, d))
	require.NoError(t, err)
	deviceBase := d.Pool().Stats().LiveBytes

	engines := make([]*tensor.Engine, goroutines)
	for i := range engines {
		engines[i] = testgpu.EngineOn(t, d)
	}
	results := make([][][]float32, goroutines)
	errs := make([]error, goroutines)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[g], errs[g] = predict(engines[g])
		}()
	}
	close(start)
	wg.Wait()
	for g := range goroutines {
		require.NoError(t, errs[g], "goroutine %d", g)
		assert.Equal(t, want, results[g], fmt.Sprintf("goroutine %d", g))
		assert.Zero(t, engines[g].NumTensors(), "goroutine %d's engine", g)
	}
	assert.Equal(t, deviceBase, d.Pool().Stats().LiveBytes, "the device's live bytes")
}
