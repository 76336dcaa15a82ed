package tensor

import (
	"encoding/json"

	"github.com/wgtensor/wgtensor/internal/kernels"

	"github.com/wgtensor/wgtensor/wgpu"
)

// SetMinTuneWork sets the least work of a product that is tuned, so that
// tests can tune small products, and returns a function restoring it.
// Tests that call it do not run in parallel.
func SetMinTuneWork(w float64) (restore func()) {
	old := minTuneWork
	minTuneWork = w
	return func() { minTuneWork = old }
}

// AutotuneCacheKey returns d's adapter as the autotuner's cache file
// spells it (JSON), and the kernel version the file's sections carry.
func AutotuneCacheKey(d *wgpu.Device) (json.RawMessage, string) {
	b, err := json.Marshal(adapterKeyOf(d.Info()))
	if err != nil {
		panic(err)
	}
	return b, kernelVersion()
}

// AutotuneClass returns the class of a product, as the cache file and
// AutotuneChoice name it.
func AutotuneClass(M, K, N, batches int, transA, transB bool) string {
	return classOf(matmulGeom{M: M, K: K, N: N, batches: batches, base: kernels.MatMul{TransA: transA, TransB: transB}}).String()
}
