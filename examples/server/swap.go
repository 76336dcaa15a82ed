package main

import (
	"sync/atomic"

	"github.com/wgtensor/wgtensor/nn"
)

// served is a model as the server hands it to requests: the model, a name
// for the logs, and a count of references to it. The server's slot holds
// one reference while the model is current; each request holds one while
// it uses the model. The reference that brings the count to zero disposes
// the model, and a count at zero never rises again.
type served struct {
	model nn.Module
	name  string
	refs  atomic.Int64
}

// newServed wraps m with the one reference a slot's Swap takes over.
func newServed(m nn.Module, name string) *served {
	s := &served{model: m, name: name}
	s.refs.Store(1)
	return s
}

// tryAcquire adds a reference unless the count has reached zero (the model
// is disposed or being disposed), and reports whether it did. The
// compare-and-swap is what makes zero final: an increment from zero never
// happens, so no request gets a model that its last release disposes.
func (s *served) tryAcquire() bool {
	for {
		n := s.refs.Load()
		if n <= 0 {
			return false
		}
		if s.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release drops a reference, disposes the model when it was the last, and
// reports whether it did. It panics on a release without a reference,
// which would otherwise free a model still in use.
func (s *served) release() bool {
	switch n := s.refs.Add(-1); {
	case n == 0:
		s.model.Dispose()
		return true
	case n < 0:
		panic("server: model " + s.name + " released more than acquired")
	}
	return false
}

// slot holds the current model. Requests Acquire it and Release it when
// done; Swap puts a new one in while they run. There is no lock: the
// current model is an atomic pointer and each model counts its references.
//
// Why a request never uses a disposed model: a model is disposed only by
// the release that takes its count to zero, and tryAcquire never raises a
// count from zero, so from its acquire to its release a request holds a
// count of at least one. Why Acquire always ends: Swap stores the new model
// before it drops the slot's reference to the old one, so an Acquire that
// finds the old one at zero loads the pointer again and finds the new one,
// whose count the slot's own reference keeps at one or more until the next
// Swap. And no user code runs under a lock, since there is none; Dispose
// runs on the goroutine of the last release, which is the swapping
// goroutine's or a request's (a module's Dispose is safe from any
// goroutine).
//
// A slot is safe for concurrent use by any number of goroutines.
type slot struct {
	cur atomic.Pointer[served]
}

// newSlot returns a slot serving m.
func newSlot(m nn.Module, name string) *slot {
	var s slot
	s.cur.Store(newServed(m, name))
	return &s
}

// Acquire returns the current model with a reference the caller must give
// back with Release, or nil once the slot is closed.
func (s *slot) Acquire() *served {
	for {
		m := s.cur.Load()
		if m == nil || m.tryAcquire() {
			return m
		}
		// m was swapped out and its count reached zero between the
		// load and the acquire: the pointer already names its successor.
	}
}

// Release gives back a reference Acquire returned; the model is disposed
// if it was swapped out and this was its last user.
func (s *slot) Release(m *served) { m.release() }

// Swap makes m the current model and drops the slot's reference to the
// previous one, which is disposed now if no request uses it, else by the
// last request's Release. It reports whether the previous model (if any)
// was disposed now.
func (s *slot) Swap(m nn.Module, name string) bool {
	return s.put(newServed(m, name))
}

// Close empties the slot, so that Acquire returns nil, and drops its
// reference to the current model as Swap does.
func (s *slot) Close() bool { return s.put(nil) }

func (s *slot) put(m *served) bool {
	old := s.cur.Swap(m)
	return old == nil || old.release()
}
