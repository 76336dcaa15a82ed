package cputime_test

import (
	"runtime"
	"testing"

	"github.com/wgtensor/wgtensor/internal/cputime"
)

// sink keeps the compiler from dropping the work.
var sink uint64

// Work done on a thread other than the caller's counts: Process is the
// process's time, not the calling thread's.
func TestProcessCountsOtherThreads(t *testing.T) {
	before, ok := cputime.Process()
	if !ok {
		t.Skip("no processor time on " + runtime.GOOS)
	}
	done := make(chan uint64)
	go func() {
		runtime.LockOSThread() // a thread other than the test's
		defer runtime.UnlockOSThread()
		var n uint64
		for i := range uint64(50_000_000) { // tens of milliseconds
			n += i ^ n>>3
		}
		done <- n
	}()
	sink = <-done
	after, _ := cputime.Process()
	if after <= before {
		t.Fatalf("50M iterations on another thread used no processor time: %v then %v", before, after)
	}
}
