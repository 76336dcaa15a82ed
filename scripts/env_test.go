// Package scripts holds the tests of the shell scripts beside it.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// env.sh decides whether lavapipe is installed. Sourced under
// `set -o pipefail` (as every script here sources it), a pipeline whose
// reader stops early fails by SIGPIPE, and the script then reinstalls
// lavapipe. A fake ldconfig that prints the library first and then more
// than a pipe holds makes that certain instead of occasional.
func TestEnvFindsLavapipeUnderPipefail(t *testing.T) {
	icds, _ := filepath.Glob("/usr/share/vulkan/icd.d/lvp_icd*.json")
	if len(icds) == 0 {
		t.Skip("lavapipe's ICD file is not installed")
	}
	bin := t.TempDir()
	installLog := filepath.Join(t.TempDir(), "installs")
	fake := map[string]string{
		"ldconfig": "echo '\tlibvulkan.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libvulkan.so.1'\n" +
			"i=0; while [ $i -lt 20000 ]; do echo \"\tlibfake$i.so (libc6,x86-64) => /usr/lib/libfake$i.so\"; i=$((i+1)); done\n",
		"apt-get": "echo apt-get \"$@\" >>" + installLog + "\n",
		"sudo":    "\"$@\"\n",
	}
	for name, body := range fake {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", "-c", "set -euo pipefail; . ./env.sh; echo sourced")
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sourcing env.sh: %v\n%s", err, out)
	}
	if installs, err := os.ReadFile(installLog); err == nil {
		t.Fatalf("env.sh reinstalled lavapipe, which is present:\n%s\noutput:\n%s", installs, out)
	}
	if !strings.Contains(string(out), "sourced") {
		t.Fatalf("env.sh did not return to its caller:\n%s", out)
	}
}
