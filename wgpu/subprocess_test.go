package wgpu_test

import (
	"os"
	"os/exec"
	"testing"
)

// childEnv marks a test binary started by inSubprocess.
const childEnv = "WGT_TEST_CHILD"

// inSubprocess runs the calling test in a child process and reports
// whether the caller is that child: a test whose regression would kill the
// process (a SIGSEGV or an abort inside wgpu-native) calls it first and
// returns at once when it reports false, so that the suite survives and the
// parent test fails with the child's output instead.
//
//	if !inSubprocess(t) { return }
func inSubprocess(t *testing.T) bool {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the test failed in a child process (%v):\n%s", err, out)
	}
	return false
}
