package optim

import (
	goflag "flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wgtensor/wgtensor/internal/golden"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

var updateGoldens = goflag.Bool("update", false, "rewrite testdata/*.wgsl from the kernels the package generates")

// goldenVariant is one kernel the package produces, with what a launch
// of it binds: its read-only and read_write storage buffers, in binding
// order, then a uniform block of the header and params words.
type goldenVariant struct {
	name          string
	kernel        tensor.Kernel
	reads, writes int
	params        int
}

// goldenStorageLimits are the MaxStorageBuffersPerShaderStage of the
// devices whose batch widths the goldens cover: llvmpipe's GL (16),
// lavapipe (32), and a device that binds maxBatch parameters of every
// update (a GPU).
var goldenStorageLimits = []uint32{16, 32, 5 * maxBatch}

// updateSpecs are the update kernels the optimizers produce, one per
// optimizer and slot set, named for the goldens. AdamW runs Adam's
// kernels (its decay is a hyperparameter).
func updateSpecs() []struct {
	label string
	spec  kernelSpec
} {
	return []struct {
		label string
		spec  kernelSpec
	}{
		{"sgd", sgdKernel(nil)},
		{"sgd_momentum", sgdKernel(sgdSlots)},
		{"adam", adamKernel(adamSlots[:2])},
		{"adam_amsgrad", adamKernel(adamSlots)},
		{"rmsprop", rmspropKernel([]string{"square_avg"})},
		{"rmsprop_centered", rmspropKernel([]string{"square_avg", "grad_avg"})},
		{"rmsprop_momentum", rmspropKernel([]string{"square_avg", "momentum_buffer"})},
		{"rmsprop_centered_momentum", rmspropKernel([]string{"square_avg", "grad_avg", "momentum_buffer"})},
	}
}

// batchWidths is every batch width base.run gives a kernel of the given
// slots on the devices of goldenStorageLimits: batches of 2 or more (a
// parameter alone runs the per-parameter kernel).
func batchWidths(slots int) []int {
	var ks []int
	for _, l := range goldenStorageLimits {
		limit := batchLimitFor(l, slots)
		for n := 2; n <= limit; n++ {
			if k := batchWidth(n, limit); !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
		}
	}
	slices.Sort(ks)
	return ks
}

// clipWidths is every number of gradients a ClipGradNorm kernel binds on
// the devices of goldenStorageLimits, for a kernel of the given other
// bindings: the norm kernel's full batch (all), or any number up to the
// scale kernel's.
func clipWidths(others int, all bool) []int {
	var ks []int
	for _, l := range goldenStorageLimits {
		limit := clipBatchFor(l, others)
		from := 1
		if all {
			from = limit
		}
		for k := from; k <= limit; k++ {
			if !slices.Contains(ks, k) {
				ks = append(ks, k)
			}
		}
	}
	slices.Sort(ks)
	return ks
}

// goldenVariants is every kernel the package produces, on the devices
// of goldenStorageLimits.
func goldenVariants() []goldenVariant {
	var vs []goldenVariant
	for _, s := range updateSpecs() {
		nslots := len(s.spec.slots)
		for _, width := range []int{1, 4} {
			vs = append(vs, goldenVariant{name: fmt.Sprintf("%s_x%d", s.label, width), kernel: s.spec.kernel(width),
				reads: 1, writes: 1 + nslots, params: 1 + len(s.spec.members)})
			for _, k := range batchWidths(nslots) {
				vs = append(vs, goldenVariant{name: fmt.Sprintf("%s_x%d_k%d", s.label, width, k), kernel: s.spec.batchKernel(width, k),
					reads: k, writes: k * (1 + nslots), params: 4 + 4*((k+3)/4) + 4*s.spec.hyperVec4s()*k})
			}
		}
	}
	for _, width := range []int{1, 4} {
		vs = append(vs, goldenVariant{name: fmt.Sprintf("accumulate_x%d", width), kernel: accumulateKernel(width), reads: 1, writes: 1, params: 2})
	}
	vs = append(vs, goldenVariant{name: "zero", kernel: zeroKernel(), writes: 1, params: 1})
	for _, k := range clipWidths(2, true) {
		vs = append(vs, goldenVariant{name: fmt.Sprintf("clip_norm_k%d", k), kernel: normKernel(k), reads: k, writes: 2, params: 1 + 2*k - 1})
	}
	vs = append(vs, goldenVariant{name: "clip_total", kernel: totalKernel, reads: 2, writes: 2, params: 3})
	for _, k := range clipWidths(1, false) {
		vs = append(vs, goldenVariant{name: fmt.Sprintf("clip_scale_k%d", k), kernel: scaleKernel(k), reads: 1, writes: k, params: 2*k - 1})
	}
	return vs
}

// stored reports whether v's source is kept in testdata/: the kernels of
// batch widths 2 and 4 stand for the others, which the same templates
// repeat parameter after parameter, and so do ClipGradNorm's scale
// kernels of 1, 2, 14 and 30 gradients. Naga validates, and the device
// compiles, every variant all the same.
func stored(v goldenVariant) bool {
	name, k, batched := strings.Cut(v.name, "_k")
	if !batched {
		return true
	}
	if strings.HasPrefix(name, "clip_scale") {
		return slices.Contains([]string{"1", "2", "14", "30"}, k)
	}
	return strings.HasPrefix(name, "clip_norm") || k == "2" || k == "4"
}

// goldenPath is where variant v's source is kept.
func goldenPath(v goldenVariant) string { return filepath.Join("testdata", v.name+".wgsl") }

// TestGoldenKernels compares the kernels the package produces that are
// stored (see stored) with their files in testdata/, so that a reviewer
// sees each change to a kernel as a diff of WGSL. go test ./optim -update
// rewrites the files (and removes those of variants that are gone). Each
// variant has a key of its own: the optimizers cache their kernels by it,
// and a device its pipelines.
func TestGoldenKernels(t *testing.T) {
	sources := map[string]string{}
	names := map[string]bool{}
	keys := map[string]string{}
	for _, v := range goldenVariants() {
		if names[v.name] {
			t.Fatalf("two variants are named %s", v.name)
		}
		names[v.name] = true
		if other, ok := keys[v.kernel.Key]; ok {
			t.Errorf("%s and %s have the key %q", other, v.name, v.kernel.Key)
		}
		keys[v.kernel.Key] = v.name
		if stored(v) {
			sources[goldenPath(v)] = v.kernel.Source
		}
	}
	golden.Check(t, "testdata", sources, *updateGoldens, "optim")
}

// TestKernelsValidateWithNaga validates every kernel the package produces,
// stored or not, with naga when it is on PATH. CI (WGT_REQUIRE_TOOLS=1)
// has it, and there its absence fails the test.
func TestKernelsValidateWithNaga(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, v := range goldenVariants() {
		path := filepath.Join(dir, v.name+".wgsl")
		if err := os.WriteFile(path, []byte(v.kernel.Source), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	golden.Naga(t, paths...)
}

// TestKernelsCompile compiles every kernel the package produces on the
// test device, with the bindings and parameter block of its launches:
// those that bind no more storage buffers than the device allows (the
// others are for devices that bind more; naga validates them).
func TestKernelsCompile(t *testing.T) {
	dev := testgpu.Open(t)
	limit := int(dev.Limits().MaxStorageBuffersPerShaderStage)
	skipped := 0
	for _, v := range goldenVariants() {
		if v.reads+v.writes > limit {
			skipped++
			continue
		}
		bindings := make([]wgpu.Access, 0, v.reads+v.writes)
		for range v.reads {
			bindings = append(bindings, wgpu.ReadOnly)
		}
		for range v.writes {
			bindings = append(bindings, wgpu.ReadWrite)
		}
		spec := wgpu.KernelSpec{Name: v.kernel.Name, Key: "golden/" + v.name, Source: v.kernel.Source, Bindings: bindings,
			Params: true, ParamsSize: uint64((tensor.KernelHeaderSize + 4*v.params + 15) &^ 15)}
		if _, err := dev.KernelFor(spec.Key, func() wgpu.KernelSpec { return spec }); err != nil {
			t.Errorf("%s: %v", v.name, err)
		}
	}
	if skipped > 0 {
		t.Logf("%d variants bind more than the device's %d storage buffers: not compiled here", skipped, limit)
	}
}
