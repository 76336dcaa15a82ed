package kernels_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/wgtensor/wgtensor/internal/golden"
	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

var update = flag.Bool("update", false, "rewrite shaders/testdata/*.wgsl from the kernels the package generates")

// goldenDir holds the golden files: shaders/testdata, beside the templates
// (the test runs in internal/kernels).
var goldenDir = filepath.Join("..", "..", "shaders", "testdata")

// goldenPath is where variant v's source is kept.
func goldenPath(v kernels.Variant) string { return filepath.Join(goldenDir, v.Name+".wgsl") }

// TestGoldenKernels compares every kernel variant the library can produce
// with its file in shaders/testdata/, so that a reviewer sees each change
// to a kernel as a diff of WGSL. go test ./internal/kernels -update
// rewrites the files (and removes those of variants that are gone).
func TestGoldenKernels(t *testing.T) {
	sources := map[string]string{}
	for _, v := range kernels.Variants() {
		path := goldenPath(v)
		if _, dup := sources[path]; dup {
			t.Fatalf("two variants are named %s", v.Name)
		}
		sources[path] = v.Spec.Source
		if v.ParamsLen != int(v.Spec.ParamsSize) {
			t.Errorf("%s: the dispatch encodes a block of %d B; the kernel declares %d", v.Name, v.ParamsLen, v.Spec.ParamsSize)
		}
	}
	for name, src := range numericsLibraries() {
		sources[filepath.Join(goldenDir, name+".wgsl")] = src
	}
	golden.Check(t, goldenDir, sources, *update, "internal/kernels")
}

// numericsLibraries is the numerics library for each float32 behaviour,
// by golden name: numerics, then _ftz where subnormals flush, _div and
// _sqrt where division and square roots are corrected.
func numericsLibraries() map[string]string {
	libs := map[string]string{}
	for i := range 8 {
		f := wgpu.Float32Behavior{FlushesSubnormals: i&1 != 0, InexactDivision: i&2 != 0, InexactSqrt: i&4 != 0}
		name := "numerics"
		for _, part := range []struct {
			on   bool
			name string
		}{{f.FlushesSubnormals, "_ftz"}, {f.InexactDivision, "_div"}, {f.InexactSqrt, "_sqrt"}} {
			if part.on {
				name += part.name
			}
		}
		libs[name] = kernels.Numerics(f)
	}
	return libs
}

// TestKernelsValidateWithNaga validates every golden file with naga, the
// WGSL front end of wgpu, when it is on PATH. CI (WGT_REQUIRE_TOOLS=1) has
// it, and there its absence fails the test.
func TestKernelsValidateWithNaga(t *testing.T) {
	var paths []string
	for _, v := range kernels.Variants() {
		paths = append(paths, goldenPath(v))
	}
	// A library reads the uniform word values are XORed with (p.zero), as
	// the elementwise kernels that include it declare it.
	dir := t.TempDir()
	for name, src := range numericsLibraries() {
		path := filepath.Join(dir, name+".wgsl")
		host := "struct Params { zero: u32 }\n@group(0) @binding(0) var<uniform> p: Params;\n" + src
		if err := os.WriteFile(path, []byte(host), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	golden.Naga(t, paths...)
}

// TestKernelsCompile compiles every kernel variant on the test device, with
// the parameter block size its spec declares.
func TestKernelsCompile(t *testing.T) {
	dev := testgpu.Open(t)
	for _, v := range kernels.Variants() {
		spec := v.Spec
		if _, err := dev.KernelFor(spec.Key, func() wgpu.KernelSpec { return spec }); err != nil {
			t.Errorf("%s: %v", v.Name, err)
		}
	}
}
