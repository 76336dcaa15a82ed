package dist

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Ranks of a machine share its GPUs in turn, discrete first, counting one
// backend; CPU adapters only where there is no GPU.
func TestPickAdapter(t *testing.T) {
	list := []wgpu.AdapterInfo{
		{Index: 0, Backend: wgpu.BackendVulkan, Type: wgpu.AdapterIntegrated},
		{Index: 1, Backend: wgpu.BackendVulkan, Type: wgpu.AdapterDiscrete},
		{Index: 2, Backend: wgpu.BackendVulkan, Type: wgpu.AdapterCPU},
		{Index: 3, Backend: wgpu.BackendVulkan, Type: wgpu.AdapterDiscrete},
		{Index: 4, Backend: wgpu.BackendGL, Type: wgpu.AdapterDiscrete},
	}
	var got []int
	for r := range 4 {
		got = append(got, pickAdapter(list, wgpu.BackendAny, r))
	}
	assert.Equal(t, []int{1, 3, 0, 1}, got, "the discrete GPUs, the integrated one, then round again")
	assert.Equal(t, 4, pickAdapter(list, wgpu.BackendGL, 1), "GL has one")
	assert.Equal(t, 2, pickAdapter(list[2:3], wgpu.BackendAny, 5), "lavapipe alone: every rank")
	assert.Equal(t, -1, pickAdapter(nil, wgpu.BackendAny, 0))
	assert.Equal(t, -1, pickAdapter(list, wgpu.BackendMetal, 0))
}

// On this machine the adapter AdapterFor picks opens; a named one stays.
func TestAdapterForOpens(t *testing.T) {
	t.Setenv("WGT_ADAPTER", "")
	opts := testgpu.DefaultOptions()
	opts.Adapter = ""
	opts = AdapterFor(Local(), opts)
	if len(wgpu.Adapters()) > 0 {
		assert.Regexp(t, `^#\d+$`, opts.Adapter)
	}
	d, err := wgpu.Open(context.Background(), opts)
	if err != nil {
		testgpu.OpenWith(t, opts) // skips, or fails under WGT_REQUIRE_GPU, as every GPU test
		return
	}
	require.NoError(t, d.Close())
	named := wgpu.Options{Adapter: "llvmpipe"}
	assert.Equal(t, named, AdapterFor(Local(), named))
}
