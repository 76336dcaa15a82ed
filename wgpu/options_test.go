package wgpu_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// adapterOn returns the first adapter Adapters lists on backend, or skips.
func adapterOn(t *testing.T, backend wgpu.Backend) wgpu.AdapterInfo {
	t.Helper()
	for _, a := range wgpu.Adapters() {
		if a.Backend == backend {
			return a
		}
	}
	t.Skipf("no %s adapter", backend)
	return wgpu.AdapterInfo{}
}

// openExactly opens a device with opts, failing t (never skipping) if it
// cannot: the adapters these tests ask for were listed by Adapters.
func openExactly(t *testing.T, opts wgpu.Options) *wgpu.Device {
	t.Helper()
	d, err := wgpu.Open(context.Background(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { testgpu.CheckAndClose(t, d) })
	return d
}

// WGT_BACKEND and WGT_ADAPTER fill in what Options leave unset; they never
// override what a caller asked for.
func TestOptionsWinOverEnvironment(t *testing.T) {
	vk, gl := adapterOn(t, wgpu.BackendVulkan), adapterOn(t, wgpu.BackendGL)
	t.Setenv("WGT_BACKEND", "gl")
	t.Setenv("WGT_ADAPTER", "no such adapter anywhere")
	d := openExactly(t, wgpu.Options{Backend: wgpu.BackendVulkan, Adapter: vk.Name})
	assert.Equal(t, wgpu.BackendVulkan, d.Info().Backend, "WGT_BACKEND=gl overrode Options.Backend")

	t.Setenv("WGT_ADAPTER", "")
	d = openExactly(t, wgpu.Options{})
	assert.Equal(t, wgpu.BackendGL, d.Info().Backend, "WGT_BACKEND fills an unset Backend")
	assert.Equal(t, gl.Index, d.Info().Index)
}

// Options.Adapter "#N" picks the adapter at index N of Adapters, so that
// adapters with the same name on different backends can be told apart.
func TestOpenAdapterByIndex(t *testing.T) {
	for _, a := range wgpu.Adapters() {
		if a.Backend == wgpu.BackendAny {
			continue
		}
		t.Run(fmt.Sprintf("#%d", a.Index), func(t *testing.T) {
			d := openExactly(t, wgpu.Options{Backend: a.Backend, Adapter: fmt.Sprintf("#%d", a.Index)})
			got := d.Info()
			assert.Equal(t, a.Index, got.Index)
			assert.Equal(t, a.Backend, got.Backend)
			assert.Equal(t, a.Name, got.Name)
		})
	}
	_, err := wgpu.Open(context.Background(), wgpu.Options{Adapter: "#999"})
	assert.ErrorIs(t, err, wgpu.ErrNoAdapter)
	assert.Contains(t, err.Error(), "#999")
	_, err = wgpu.Open(context.Background(), wgpu.Options{Adapter: "#x1"})
	assert.ErrorIs(t, err, wgpu.ErrNoAdapter, "not a number: a name that matches nothing")
}

func TestAdapterMatches(t *testing.T) {
	a := wgpu.AdapterInfo{Index: 1, Name: "llvmpipe (LLVM 15)", Backend: wgpu.BackendGL, Driver: "Mesa 22.3"}
	for sel, want := range map[string]bool{"": true, "LLVMpipe": true, "mesa": true, "#1": true, "#01": true, "#0": false, "#": false, "radeon": false, "# 1": false} {
		assert.Equal(t, want, a.Matches(sel), "%q", sel)
	}
}
