package testgpu

import (
	"runtime"
	"strings"
	"testing"
)

// fakeTB records what Browser asks of its test. Like testing.T's, its
// Skipf and Fatalf end the goroutine that calls them.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skipf(format string, a ...any)  { f.skipped = format; runtime.Goexit() }
func (f *fakeTB) Fatalf(format string, a ...any) { f.failed = format; runtime.Goexit() }

// browser runs Browser on a fake test, in a goroutine of its own.
func browser() (path string, f *fakeTB) {
	f = &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		path = Browser(f)
	}()
	<-done
	return path, f
}

func TestBrowserSkipsOrFailsWithoutChromium(t *testing.T) {
	t.Setenv("PATH", t.TempDir())

	t.Setenv("WGT_REQUIRE_BROWSER", "")
	path, f := browser()
	if path != "" || f.skipped == "" || f.failed != "" {
		t.Fatalf("without WGT_REQUIRE_BROWSER: path %q, skipped %q, failed %q; want a skip", path, f.skipped, f.failed)
	}
	if !strings.Contains(f.skipped, "apt-get install chromium") {
		t.Errorf("the skip says nothing of how to install Chromium: %q", f.skipped)
	}

	t.Setenv("WGT_REQUIRE_BROWSER", "1")
	if _, f := browser(); f.failed == "" || f.skipped != "" {
		t.Fatalf("with WGT_REQUIRE_BROWSER=1: skipped %q, failed %q; want a failure", f.skipped, f.failed)
	}
}
