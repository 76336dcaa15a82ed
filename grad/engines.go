package grad

import (
	"sync"
	"sync/atomic"

	"github.com/wgtensor/wgtensor/internal/goroutine"
	"github.com/wgtensor/wgtensor/tensor"
)

// The tapes each goroutine records, innermost last: what EngineFor reads.
// A tape records only its own engine's ops (tensor's hook is per engine),
// so code that chooses an engine by its input (package nn's layers) asks
// EngineFor which engine a recording goroutine computes on.
var (
	recordingTapes atomic.Int64 // how many Records run, in all goroutines: EngineFor's fast path
	recordingMu    sync.Mutex
	recordingBy    = map[uintptr][]*Tape{} // by goroutine.Current
)

// startRecording notes that the calling goroutine records t, until the
// function it returns is called (on the same goroutine).
func startRecording(t *Tape) func() {
	g := goroutine.Current()
	recordingMu.Lock()
	recordingBy[g] = append(recordingBy[g], t)
	recordingMu.Unlock()
	recordingTapes.Add(1)
	return func() {
		recordingMu.Lock()
		ts := recordingBy[g]
		for i := len(ts) - 1; i >= 0; i-- {
			if ts[i] == t {
				ts = append(ts[:i], ts[i+1:]...)
				break
			}
		}
		if len(ts) == 0 {
			delete(recordingBy, g)
		} else {
			recordingBy[g] = ts
		}
		recordingMu.Unlock()
		recordingTapes.Add(-1)
	}
}

// EngineFor returns the engine to compute on for an input x so that the
// tapes the calling goroutine records see the ops: x's engine, unless the
// calling goroutine records a tape (Tape.Record runs on it) on x's device
// and none of its recording tapes is on x's engine; then the engine of
// the innermost such tape. A tape records only its own engine's ops: a
// batch made on a producer goroutine's engine, given to a layer that
// computed on x.Engine(), would be computed where no tape listens, and
// the loss would not depend on the parameters (ErrNoPath).
//
// Package nn's layers compute on EngineFor(x). Outside a Record it costs
// one atomic load and returns x.Engine(). It is safe for concurrent use; a
// nil x gives nil.
func EngineFor(x *tensor.Tensor) *tensor.Engine {
	if x == nil {
		return nil
	}
	xe := x.Engine()
	if recordingTapes.Load() == 0 || xe == nil {
		return xe
	}
	g := goroutine.Current()
	recordingMu.Lock()
	defer recordingMu.Unlock()
	ts := recordingBy[g]
	var inner *tensor.Engine
	for _, t := range ts {
		switch {
		case t.e == xe:
			return xe
		case t.e.Device() == xe.Device():
			inner = t.e
		}
	}
	if inner == nil {
		return xe
	}
	return inner
}
