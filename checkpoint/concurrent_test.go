package checkpoint_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// Saves read tensors as readbacks do, so goroutines may save one model at
// once; engines on one device load their own models at once. Every file
// is the same, every model loads it whole, nothing is left live (-race).
func TestConcurrentSavesAndLoads(t *testing.T) {
	d := testgpu.Open(t)
	e := testgpu.EngineOn(t, d)
	src := model(e, 3)
	defer dispose(src)
	want := save(t, src, checkpoint.SaveOptions{ChunkSize: 16})

	const n = 4
	files := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var buf bytes.Buffer
			errs[i] = checkpoint.Save(ctxT(t), &buf, src, checkpoint.SaveOptions{ChunkSize: 16})
			files[i] = buf.Bytes()
		})
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		assert.Equal(t, want, files[i], "save %d", i)
	}

	values := bytesOf(t, src)
	engines := make([]*tensor.Engine, n)
	models := make([][]optim.Param, n)
	for i := range n {
		engines[i] = testgpu.EngineOn(t, d)
		models[i] = model(engines[i], float32(-i))
	}
	for i := range n {
		wg.Go(func() {
			_, errs[i] = checkpoint.Load(ctxT(t), engines[i], bytes.NewReader(want), int64(len(want)), models[i], checkpoint.LoadOptions{ChunkSize: 8})
		})
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		assert.Equal(t, values, bytesOf(t, models[i]), "model %d", i)
		dispose(models[i])
	}
}

// A writer that fails fails the save with its error; SaveFile then leaves
// neither the file nor its temporary beside it.
func TestSaveReportsTheWritersError(t *testing.T) {
	e := testgpu.Engine(t)
	m := model(e, 1)
	defer dispose(m)
	boom := errors.New("disk full")
	for _, after := range []int{0, 1, 3} { // the length, the header, the data
		err := checkpoint.Save(ctxT(t), &failingWriter{after: after, err: boom}, m, checkpoint.SaveOptions{ChunkSize: 8})
		assert.ErrorIs(t, err, boom, "failing after %d writes", after)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "model.safetensors")
	gone := e.Zeros(tensor.Float32, 1)
	gone.Dispose()
	err := checkpoint.SaveFile(ctxT(t), path, []optim.Param{{Name: "x", T: gone}}, checkpoint.SaveOptions{})
	assert.ErrorIs(t, err, tensor.ErrDisposed)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no file, no temporary")
	assert.Equal(t, len(m), e.NumTensors())
}

type failingWriter struct {
	after int
	err   error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.after == 0 {
		return 0, w.err
	}
	w.after--
	return len(p), nil
}
