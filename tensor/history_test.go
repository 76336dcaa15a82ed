package tensor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// lastTag returns the description the newest event carrying one gives.
func lastTag(t *testing.T, e *tensor.Engine) wgpu.BufferTag {
	t.Helper()
	h, err := e.Device().History()
	require.NoError(t, err)
	for i := len(h.Events) - 1; i >= 0; i-- {
		if h.Events[i].Tag >= 0 {
			return h.Tags[h.Events[i].Tag]
		}
	}
	t.Fatal("no described event")
	return wgpu.BufferTag{}
}

func TestCategoriesFollowHowTensorsAreMadeAndHeld(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
	defer x.Dispose()
	require.NoError(t, e.RecordMemoryHistory(wgpu.HistoryOptions{}))
	defer e.Device().StopHistory()
	assert.Equal(t, tensor.CategoryUser, tensor.CategoryOf(x), "made from host data")
	assert.Equal(t, "user", lastTag(t, e).Category, "described when recording began")

	y := e.Add(x, x)
	defer y.Dispose()
	require.NoError(t, y.Err())
	assert.Equal(t, tensor.CategoryActivation, tensor.CategoryOf(y))

	func() {
		defer e.Label("encoder")()
		defer e.Label("layer 0")()
		restore := e.WithCategory(tensor.CategoryOptimizerState)
		z := e.Mul(x, x)
		defer z.Dispose()
		require.NoError(t, e.Flush())
		assert.Equal(t, tensor.CategoryOptimizerState, tensor.CategoryOf(z))
		tag := lastTag(t, e)
		assert.Equal(t, wgpu.BufferTag{Category: "optimizer state", DType: "float32", Shape: "[2 2]", Scope: "encoder/layer 0"}, tag)
		restore()
		w := e.Mul(x, x)
		defer w.Dispose()
		assert.Equal(t, tensor.CategoryActivation, tensor.CategoryOf(w), "restored")
	}()

	// A view of a parameter is a parameter's memory; when the parameter
	// goes, the view files it as what it is itself.
	p := e.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	tensor.SetCategory(p, tensor.CategoryParameter)
	assert.Equal(t, "parameter", lastTag(t, e).Category)
	v := e.Reshape(p, 3, 2)
	defer v.Dispose()
	assert.Equal(t, tensor.CategoryParameter, tensor.CategoryOf(v))
	p.Dispose()
	assert.Equal(t, tensor.CategoryActivation, tensor.CategoryOf(v))
	assert.Equal(t, "activation", lastTag(t, e).Category)

	tensor.SetCategory(nil, tensor.CategoryParameter) // nothing to do
	tensor.SetCategory(v, tensor.Category(200))       // not a category: ignored
	assert.Equal(t, tensor.CategoryActivation, tensor.CategoryOf(v))
	assert.Equal(t, "Category(200)", tensor.Category(200).String())
}

func TestWriteMemoryHistoryCarriesTheEnginesFigures(t *testing.T) {
	e := testgpu.Engine(t)
	path := filepath.Join(t.TempDir(), "h.json")
	require.Error(t, e.WriteMemoryHistory(path), "nothing recorded")
	require.NoError(t, e.RecordMemoryHistory(wgpu.HistoryOptions{}))
	x := e.Zeros(tensor.Float32, 100)
	defer x.Dispose()
	require.NoError(t, e.WriteMemoryHistory(path))
	e.Device().StopHistory()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	h, err := wgpu.ReadHistory(f)
	require.NoError(t, err)
	require.NotNil(t, h.Engine)
	m := e.Memory()
	assert.Equal(t, wgpu.HistoryEngine{Tensors: m.Tensors, Storages: m.Storages, Bytes: m.Bytes}, *h.Engine)
}

// Record a program's memory, then find what it held at its end.
func ExampleEngine_RecordMemoryHistory() {
	d, err := wgpu.Open(context.Background(), wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	if err := e.RecordMemoryHistory(wgpu.HistoryOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	x := e.FromFloat32s([]float32{1, 2, 3}, 3)
	end := e.Label("model")
	y := e.Mul(x, x)
	end()
	d.MarkHistory("done")
	h, err := e.MemoryHistory() // or e.WriteMemoryHistory(path), for wgmemview
	if err != nil {
		fmt.Println(err)
		return
	}
	live, _ := h.Live(len(h.Events) - 1)
	for _, b := range live {
		if b.Tag >= 0 {
			tag := h.Tags[b.Tag]
			fmt.Printf("%s %s %s in %q\n", tag.Category, tag.DType, tag.Shape, tag.Scope)
		}
	}
	x.Dispose()
	y.Dispose()
	// Output:
	// user float32 [3] in ""
	// activation float32 [3] in "model"
}
