package checkpoint_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
)

// Random corruptions of a good file (bytes of its header changed, the file
// cut short, its header length replaced) never panic Load or LoadTensors,
// and every load that fails leaves the model's values and versions, the
// live tensors and the pool's bytes as they were.
func TestCorruptFilesNeverPanicNorLeave(t *testing.T) {
	e := testgpu.Engine(t)
	m := model(e, 2)
	defer dispose(m)
	good := save(t, m, checkpoint.SaveOptions{Metadata: map[string]string{"k": "v"}})
	hdrEnd := 8 + int(binary.LittleEndian.Uint64(good))
	values := bytesOf(t, m)
	r := rand.New(rand.NewPCG(14, 3))
	failed := 0
	for i := range 300 {
		file := corrupt(r, good, hdrEnd)
		versions := map[string]uint64{}
		for _, p := range m {
			versions[p.Name] = p.T.Version()
		}
		require.NoError(t, e.Device().Sync(ctxT(t)))
		before := e.Memory()
		var err error
		testgpu.NoPanic(t, "Load", func() {
			_, err = checkpoint.Load(ctxT(t), e, bytes.NewReader(file), int64(len(file)), m, checkpoint.LoadOptions{})
		})
		if err == nil {
			continue // a corruption the format allows (a name's letter, say): reported by the strict check or loaded
		}
		failed++
		assertUnchanged(t, e, before, "Load")
		for _, p := range m {
			require.Equal(t, versions[p.Name], p.T.Version(), "iteration %d: %s written by a failed load: %v", i, p.Name, err)
		}
		var got []optim.Param
		testgpu.NoPanic(t, "LoadTensors", func() {
			got, err = checkpoint.LoadTensors(ctxT(t), e, bytes.NewReader(file), int64(len(file)))
		})
		dispose(got)
		assert.Equal(t, before.Tensors, e.NumTensors(), "iteration %d", i)
	}
	assert.Greater(t, failed, 200, "most corruptions fail")
	assert.Equal(t, values, bytesOf(t, m))
}

// corrupt returns a copy of good with its header changed: 1 to 3 random
// bytes of it, the file cut short, or its length replaced.
func corrupt(r *rand.Rand, good []byte, hdrEnd int) []byte {
	f := bytes.Clone(good)
	switch r.IntN(4) {
	case 0:
		return f[:r.IntN(len(f))]
	case 1:
		binary.LittleEndian.PutUint64(f, r.Uint64()>>r.IntN(64))
		return f
	}
	for range 1 + r.IntN(3) {
		f[8+r.IntN(hdrEnd-8)] = byte(r.IntN(256))
	}
	return f
}
