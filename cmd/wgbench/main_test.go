package main

import (
	"context"
	"testing"

	"github.com/wgtensor/wgtensor/wgpu"
)

// wgbench -adapter all used to open GL for every adapter when WGT_BACKEND
// was gl, and label one of the two GL runs Vulkan.
func TestOpenTargetOpensThatAdapter(t *testing.T) {
	t.Setenv("WGT_BACKEND", "gl")
	t.Setenv("WGT_ADAPTER", "no such adapter anywhere")
	adapters := wgpu.Adapters()
	if len(adapters) == 0 {
		t.Skip("no adapter")
	}
	for _, a := range adapters {
		if a.Backend == wgpu.BackendAny {
			continue
		}
		d, err := openTarget(context.Background(), a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		if got := d.Info(); got.Index != a.Index || got.Backend != a.Backend || got.Name != a.Name {
			t.Errorf("asked for [%d] %s, opened [%d] %s", a.Index, a, got.Index, got)
		}
		if err := d.Close(); err != nil {
			t.Errorf("%s: close: %v", a, err)
		}
	}
}
