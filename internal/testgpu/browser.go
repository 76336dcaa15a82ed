package testgpu

import (
	"os"
	"os/exec"
	"testing"
)

// browsers are the names Chromium's executable goes by: Debian's package
// installs chromium, others chromium-browser or Chrome.
var browsers = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Browser returns the path of a Chromium executable on PATH, for the tests
// that open pages in a headless browser (the memory viewer's). Where there
// is none the test is skipped, or fails when WGT_REQUIRE_BROWSER=1, as in
// CI, whose scripts install Debian's chromium (scripts/browser.sh).
func Browser(t testing.TB) string {
	t.Helper()
	for _, name := range browsers {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("WGT_REQUIRE_BROWSER") == "1" {
		t.Fatalf("WGT_REQUIRE_BROWSER=1 and no Chromium on PATH (tried %v): apt-get install chromium", browsers)
	}
	t.Skipf("no Chromium on PATH (tried %v): apt-get install chromium to run this test", browsers)
	return ""
}
