package checkpoint_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/safetensors"
	"github.com/wgtensor/wgtensor/tensor"
)

// countingReader records the largest ReadAt and the bytes read.
type countingReader struct {
	r       io.ReaderAt
	mu      sync.Mutex
	largest int
	total   int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.mu.Lock()
	c.largest = max(c.largest, len(p))
	c.total += int64(len(p))
	c.mu.Unlock()
	return c.r.ReadAt(p, off)
}

// countingWriter discards what it is given and records the largest Write.
type countingWriter struct {
	largest int
	total   int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.largest = max(c.largest, len(p))
	c.total += int64(len(p))
	return len(p), nil
}

// allocated returns the bytes the process has allocated on the heap in
// all, which only grows: the difference over a call bounds what the call
// held, whenever the collector ran.
func allocated() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// bigFile writes a 16 MiB file: a 12 MiB float32 tensor, a 2 MiB F16 one
// (1 Mi elements, 4 MiB once loaded), and a small one.
func bigFile(t *testing.T) ([]byte, []safetensors.TensorInfo) {
	infos := []safetensors.TensorInfo{
		{Name: "big", DType: safetensors.F32, Shape: []int{3 << 18, 4}},
		{Name: "half", DType: safetensors.F16, Shape: []int{1 << 20}},
		{Name: "small", DType: safetensors.F32, Shape: []int{100}},
	}
	var buf bytes.Buffer
	w, err := safetensors.NewWriter(&buf, infos, nil)
	require.NoError(t, err)
	chunk := make([]byte, 4096)
	for _, ti := range w.Tensors() {
		for i := int64(0); i < ti.Bytes(); i += int64(len(chunk)) {
			n := min(int64(len(chunk)), ti.Bytes()-i)
			for j := int64(0); j < n; j += 2 {
				e := (i + j) / 2 // the 2-byte word's index
				if ti.DType == safetensors.F16 {
					binary.LittleEndian.PutUint16(chunk[j:], uint16(0x3c00+e%512)) // 1 + k/1024
				} else {
					binary.LittleEndian.PutUint16(chunk[j:], uint16(e%65521))
				}
			}
			_, err := w.Write(chunk[:n])
			require.NoError(t, err)
		}
	}
	require.NoError(t, w.Close())
	return buf.Bytes(), infos
}

// A 16 MiB file loads through a chunk of host memory: no ReadAt asks for
// more than the chunk (1 MiB), and the load allocates a few chunks' worth
// on the heap in all, nowhere near the file's size; saving it back does
// the same. Values are checked at both ends of every chunk boundary.
func TestLoadAndSaveHoldAChunkNotTheFile(t *testing.T) {
	e := testgpu.Engine(t)
	file, infos := bigFile(t)
	params := make([]optim.Param, len(infos))
	for i, ti := range infos {
		params[i] = optim.Param{Name: ti.Name, T: e.Zeros(tensor.Float32, ti.Shape...)}
	}
	defer dispose(params)
	require.NoError(t, e.Device().Sync(ctxT(t)))

	r := &countingReader{r: bytes.NewReader(file)}
	runtime.GC()
	start := allocated()
	_, err := checkpoint.Load(ctxT(t), e, r, int64(len(file)), params, checkpoint.LoadOptions{})
	require.NoError(t, err)
	held := allocated() - start
	assert.LessOrEqual(t, r.largest, checkpoint.DefaultChunkSize, "largest ReadAt")
	assert.EqualValues(t, len(file), r.total, "every byte read once")
	assert.Less(t, held, uint64(4<<20), "heap allocated by a load of %d B", len(file))

	big := f32s(t, params[0].T)
	for _, i := range []int{0, 1, 1<<18 - 1, 1 << 18, 3<<18*4 - 1} {
		lo := uint32(2*i) % 65521
		hi := uint32(2*i+1) % 65521
		assert.Equal(t, hi<<16|lo, math.Float32bits(big[i]), "big[%d]", i)
	}
	half := f32s(t, params[1].T)
	for _, i := range []int{0, 1, 1<<18 - 1, 1 << 18, 1<<20 - 1} {
		assert.Equal(t, 1+float32(i%512)/1024, half[i], "half[%d]", i)
	}

	w := &countingWriter{}
	runtime.GC()
	start = allocated()
	require.NoError(t, checkpoint.Save(ctxT(t), w, params, checkpoint.SaveOptions{}))
	held = allocated() - start
	assert.LessOrEqual(t, w.largest, checkpoint.DefaultChunkSize, "largest Write")
	assert.EqualValues(t, len(file)+2<<20, w.total, "the F16 tensor is saved as F32")
	assert.Less(t, held, uint64(4<<20), "heap allocated by a save of %d B", w.total)
}

// Saving a checkpoint creates nothing that outlives the call: 100 saves of
// a model and Adam's state (tfjs #8238 leaked a tensor per save) leave the
// live tensors and bytes as they were, and the pool's reserved bytes as
// the first save left them.
func TestSavingCreatesNothingThatOutlivesTheCall(t *testing.T) {
	e := testgpu.Engine(t)
	params := []optim.Param{
		{Name: "0.weight", T: e.FromFloat32s(ramp(12, 1), 3, 4)},
		{Name: "0.bias", T: e.FromFloat32s(ramp(4, 1), 4)},
	}
	defer dispose(params)
	opt, err := optim.NewAdam(e, params, optim.AdamDefaults())
	require.NoError(t, err)
	defer opt.Dispose()
	grads := []*tensor.Tensor{e.Ones(tensor.Float32, 3, 4), e.Ones(tensor.Float32, 4)}
	require.NoError(t, opt.Step(grads))
	for _, g := range grads {
		g.Dispose()
	}
	w := &countingWriter{}
	require.NoError(t, checkpoint.Save(ctxT(t), w, params, checkpoint.SaveOptions{Optimizer: opt}))
	first := e.Memory()
	for range 100 {
		require.NoError(t, checkpoint.Save(ctxT(t), w, params, checkpoint.SaveOptions{Optimizer: opt}))
	}
	after := e.Memory()
	assert.Equal(t, first.Tensors, after.Tensors)
	assert.Equal(t, first.Bytes, after.Bytes)
	assert.Equal(t, first.Pool.LiveBytes, after.Pool.LiveBytes)
	assert.Equal(t, first.Pool.ReservedBytes, after.Pool.ReservedBytes)
	assert.Equal(t, 2+4, after.Tensors, "the parameters and Adam's two slots for each")
}
