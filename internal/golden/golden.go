// Package golden keeps generated kernel sources in the repository, as
// golden files that a test compares, so that a reviewer reads each change
// to a kernel as a diff of WGSL; and it validates them with naga, the WGSL
// front end of wgpu. The tests of internal/kernels (whose files are
// shaders/testdata) and of optim (optim/testdata) use it.
package golden

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
)

// Check compares sources, each keyed by its golden file's path, with the
// files, and fails the test on a missing or different one and on a
// *.wgsl file in dir that no source names. With update it rewrites the
// files instead and removes the others. pkg names the package for the
// command the failures suggest (go test ./pkg -update).
func Check(t testing.TB, dir string, sources map[string]string, update bool, pkg string) {
	t.Helper()
	for _, path := range slices.Sorted(maps.Keys(sources)) {
		src := []byte(sources[path])
		if update {
			if err := os.WriteFile(path, src, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (run go test ./%s -update)", err, pkg)
			continue
		}
		if line, ok := firstDifference(got, src); !ok {
			t.Errorf("the generated kernel differs from %s at line %d (run go test ./%s -update and review the diff)", path, line, pkg)
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.wgsl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, ok := sources[f]; ok {
			continue
		}
		if update {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s is no variant the package produces (run go test ./%s -update)", f, pkg)
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

// Naga validates each WGSL file of paths with naga when it is on PATH;
// where it is not the test is skipped, or fails under WGT_REQUIRE_TOOLS=1
// (testgpu.Tool), as in CI.
func Naga(t testing.TB, paths ...string) {
	t.Helper()
	naga := testgpu.Tool(t, "naga")
	for _, path := range paths {
		cmd := exec.Command(naga, path)
		cmd.Env = append(os.Environ(), "NO_COLOR=1", "TERM=dumb") // plain text in the test's log
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("naga %s: %v\n%s", path, err, out)
		}
	}
}
