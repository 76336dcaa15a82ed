package shaders_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/shaders"
	"github.com/wgtensor/wgtensor/wgpu"
)

var update = flag.Bool("update", false, "rewrite testdata/*.wgsl from the kernels the package generates")

// goldenPath is where variant v's source is kept.
func goldenPath(v shaders.Variant) string { return filepath.Join("testdata", v.Name+".wgsl") }

// TestGoldenKernels compares every kernel variant the library can produce
// with its file in testdata/, so that a reviewer sees each change to a
// kernel as a diff of WGSL. go test ./shaders -update rewrites the files
// (and removes those of variants that are gone).
func TestGoldenKernels(t *testing.T) {
	vs := shaders.Variants()
	want := map[string]bool{}
	for _, v := range vs {
		path := goldenPath(v)
		if want[path] {
			t.Fatalf("two variants are named %s", v.Name)
		}
		want[path] = true
		if v.ParamsLen != int(v.Spec.ParamsSize) {
			t.Errorf("%s: the dispatch encodes a block of %d B; the kernel declares %d", v.Name, v.ParamsLen, v.Spec.ParamsSize)
		}
		if *update {
			if err := os.WriteFile(path, []byte(v.Spec.Source), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (run go test ./shaders -update)", v.Name, err)
			continue
		}
		if line, ok := firstDifference(got, []byte(v.Spec.Source)); !ok {
			t.Errorf("%s: the generated kernel differs from %s at line %d (run go test ./shaders -update and review the diff)", v.Name, path, line)
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*.wgsl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if want[f] {
			continue
		}
		if *update {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s is no variant the package produces (run go test ./shaders -update)", f)
	}
}

// firstDifference reports whether a and b are equal, and if not the first
// line where they differ.
func firstDifference(a, b []byte) (int, bool) {
	if bytes.Equal(a, b) {
		return 0, true
	}
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1, false
		}
	}
	return min(len(al), len(bl)) + 1, false
}

// TestKernelsValidateWithNaga validates every golden file with naga, the
// WGSL front end of wgpu, when it is on PATH. CI (WGT_REQUIRE_TOOLS=1) has
// it, and there its absence fails the test.
func TestKernelsValidateWithNaga(t *testing.T) {
	naga := testgpu.Tool(t, "naga")
	for _, v := range shaders.Variants() {
		cmd := exec.Command(naga, goldenPath(v))
		cmd.Env = append(os.Environ(), "NO_COLOR=1", "TERM=dumb") // plain text in the test's log
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("naga %s: %v\n%s", goldenPath(v), err, out)
		}
	}
}

// TestKernelsCompile compiles every kernel variant on the test device, with
// the parameter block size its spec declares.
func TestKernelsCompile(t *testing.T) {
	dev := testgpu.Open(t)
	for _, v := range shaders.Variants() {
		spec := v.Spec
		if _, err := dev.KernelFor(spec.Key, func() wgpu.KernelSpec { return spec }); err != nil {
			t.Errorf("%s: %v", v.Name, err)
		}
	}
}
