package goroutine

import (
	"testing"
)

// grow recurses deep enough for the runtime to move the goroutine's stack
// to a larger one, and returns Current from the bottom.
func grow(n int) uintptr {
	var pad [256]byte
	if n == 0 {
		return Current() + uintptr(pad[0])
	}
	return grow(n-1) + uintptr(pad[n%len(pad)])
}

func TestCurrentIsStableForAGoroutine(t *testing.T) {
	id := Current()
	if id == 0 {
		t.Fatal("Current is 0")
	}
	if got := grow(2000); got != id {
		t.Fatalf("Current changed from %#x to %#x after the stack grew", id, got)
	}
	if got := Current(); got != id {
		t.Fatalf("Current changed from %#x to %#x", id, got)
	}
}

// Goroutines that all run at once (each waits until every one has
// reported) have distinct numbers, none the test goroutine's.
func TestCurrentDiffersBetweenRunningGoroutines(t *testing.T) {
	const n = 100
	ids := make(chan uintptr)
	done := make(chan struct{})
	for range n {
		go func() {
			ids <- Current()
			<-done
		}()
	}
	seen := map[uintptr]bool{Current(): true}
	for range n {
		id := <-ids
		if id == 0 || seen[id] {
			t.Errorf("goroutine number %#x is 0 or taken", id)
		}
		seen[id] = true
	}
	close(done)
}

// fromStack is the portable way; it agrees with itself across goroutines
// wherever Current uses the fast one.
func TestFromStack(t *testing.T) {
	id := fromStack()
	other := make(chan uintptr)
	go func() { other <- fromStack() }()
	if o := <-other; o == id || o == 0 || id == 0 {
		t.Fatalf("fromStack: %d here, %d on another goroutine", id, o)
	}
	if fromStack() != id {
		t.Fatal("fromStack changed")
	}
}

func BenchmarkCurrent(b *testing.B) {
	for range b.N {
		Current()
	}
}
