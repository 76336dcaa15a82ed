package grad

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/wgtensor/wgtensor/tensor"
)

// Errors a tape returns, wrapped with the details.
var (
	// ErrNoPath: the result does not depend on a tensor whose gradient was
	// asked for, and Options.NoPath asked for an error.
	ErrNoPath = errors.New("grad: no path")
	// ErrNoGradient: the path goes through an op with no gradient (an
	// integer result, a comparison, an op with no rule), or the result or
	// a tensor asked for is not float32.
	ErrNoGradient = errors.New("grad: no gradient")
	// ErrSeed: a non-scalar result without a seed gradient, or a seed of
	// another shape or dtype.
	ErrSeed = errors.New("grad: seed")
	// ErrTapeUsed: a second backward over a tape that was not kept, or a
	// tape used after Dispose or while it records.
	ErrTapeUsed = errors.New("grad: tape used")
	// ErrModified: a tensor the tape saved was assigned in place since.
	ErrModified = errors.New("grad: saved tensor modified in place")
)

// Tape records the ops an Engine runs while it records (Record) and
// computes gradients over them (Gradients). It saves only what the rules
// of the ops need, sharing storage with the forward tensors (no copy):
// those saved tensors are counted like any others, at the line of the op
// that saved them, and belong to the tape. Backward frees each as soon as
// it is consumed, unless Options.Keep asks to keep them for another
// backward; Dispose frees everything, backward or not.
//
// A Tape is created in the caller's tidy scope, which disposes it when it
// ends. Record and Gradients belong to the goroutine that uses the
// Engine, as ops do; Dispose is safe from any goroutine.
//
// Every method is safe on a nil *Tape: Record and Gradients fail with an
// error wrapping tensor.ErrArgument, Len is 0, Dispose and RecordOp do
// nothing. So is a zero Tape (one not made by NewTape).
type Tape struct {
	e *tensor.Engine

	mu        sync.Mutex // protects the fields below
	nodes     []*node
	recording bool
	used      bool // a backward ran without Keep: the saved tensors are gone
	disposed  bool
	// backwards counts the Gradients calls that hold t's graph: Dispose
	// waits (idle) until it is 0 before it frees the saved tensors, which
	// a backward with Keep reads.
	backwards int
	idle      *sync.Cond // on mu; made on first use

	// saveAs is the dtype the tape saves activations in (SetAutocast):
	// Float32 (the zero value) keeps them as they are. narrowing is set
	// while the tape views such a copy for a second op that saves it, so
	// that it does not record its own reshape.
	saveAs    tensor.DType
	narrowing atomic.Bool
	copies    map[copyKey]*tensor.Tensor // narrow copies made, by source (under mu)
}

// errNilTape is the error of Record and Gradients on a nil or zero Tape.
func errNilTape(what string) error {
	return fmt.Errorf("grad: %s on a nil or zero Tape (make one with NewTape on an engine): %w", what, tensor.ErrArgument)
}

// Test hooks (tests of this package set them; nil otherwise).
var (
	// hookBackward runs in Gradients once it holds the graph, before the
	// rules run.
	hookBackward func()
	// hookDisposeWaits runs in Dispose when it starts waiting for a
	// backward to end.
	hookDisposeWaits func()
)

// ref is what a node knows of a tensor without keeping it.
type ref struct {
	id      uint64
	shape   tensor.Shape
	dtype   tensor.DType
	foreign bool // made by another engine than the tape's (inputs only)
}

// node is one recorded op.
type node struct {
	op       string
	attrs    tensor.Attrs
	rule     *Rule
	in, out  []ref
	savedIn  []*tensor.Tensor // by input index; nil where not saved
	savedOut []*tensor.Tensor
	versions []savedVersion
}

// NewTape returns a tape for ops on e, tracked by the innermost tidy scope
// of the calling goroutine, if any.
//
// A nil or zero e gives a tape whose Record and Gradients fail with
// tensor.ErrArgument.
func NewTape(e *tensor.Engine) *Tape {
	t := &Tape{e: e}
	e.Retrack(t)
	return t
}

// Record runs fn with t recording the ops of t's engine, and returns fn's
// error. Records may follow each other on one tape, adding to its graph;
// while fn runs, ops on the engine are t's (an inner tape pushed by fn
// sees them instead, until its Record returns). Ops of other engines are
// not recorded (see the package doc, Engines); code that asks EngineFor
// computes on t's engine meanwhile. It fails with ErrTapeUsed on a
// disposed or used tape, or while t records already or a backward over
// it runs, with the engine's error if the engine refuses the recorder,
// and with tensor.ErrArgument on a nil or zero tape or a nil fn.
func (t *Tape) Record(fn func() error) error {
	if t == nil || t.e == nil || t.e.Device() == nil {
		return errNilTape("record")
	}
	if fn == nil {
		return fmt.Errorf("grad: record: nil function: %w", tensor.ErrArgument)
	}
	t.mu.Lock()
	if err := t.usableLocked("record"); err != nil {
		t.mu.Unlock()
		return err
	}
	t.recording = true
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.recording = false
		t.mu.Unlock()
	}()
	if err := t.e.PushRecorder(t); err != nil {
		return fmt.Errorf("grad: record: %w", err)
	}
	defer t.e.PopRecorder(t)
	defer startRecording(t)()
	return fn()
}

// usableLocked returns why t cannot record or differentiate now.
func (t *Tape) usableLocked(what string) error {
	switch {
	case t.disposed:
		return fmt.Errorf("%w: %s on a disposed tape", ErrTapeUsed, what)
	case t.used:
		return fmt.Errorf("%w: %s after a backward that did not keep the tape (Options.Keep)", ErrTapeUsed, what)
	case t.recording:
		return fmt.Errorf("%w: %s while the tape records", ErrTapeUsed, what)
	case t.backwards > 0:
		return fmt.Errorf("%w: %s while a backward over the tape runs", ErrTapeUsed, what)
	}
	return nil
}

// RecordOp is the tensor.Recorder hook: t adds the op to its graph and
// saves what its rule needs. Ops with no input or no float32 output are
// left out: no gradient flows through them.
func (t *Tape) RecordOp(r *tensor.OpRecord) {
	if t == nil || t.e == nil || r == nil || len(r.Inputs) == 0 || !anyFloat(r.Outputs) || t.narrowing.Load() {
		return
	}
	n := &node{op: r.Name, attrs: r.Attrs, rule: ruleFor(r.Name), in: refs(r.Inputs, t.e), out: refs(r.Outputs, nil)}
	if n.rule != nil && n.rule.NoGrad == "" {
		n.savedIn = n.save(t, r, r.Inputs, n.rule.Inputs)
		if n.rule.Recompute && narrowedAny(n.savedIn, r.Inputs) {
			n.savedOut = make([]*tensor.Tensor, len(r.Outputs)) // the rule recomputes them
		} else {
			n.savedOut = n.save(t, r, r.Outputs, n.rule.Outputs)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.disposed {
		n.free()
		return
	}
	t.nodes = append(t.nodes, n)
}

// save saves ts[i] for each listed i that exists, noting its version: a
// narrow copy where t's autocast takes it (narrowed), else ts[i]'s own
// storage.
func (n *node) save(t *Tape, r *tensor.OpRecord, ts []*tensor.Tensor, which []int) []*tensor.Tensor {
	saved := make([]*tensor.Tensor, len(ts))
	for _, i := range which {
		if i >= 0 && i < len(ts) && saved[i] == nil {
			if saved[i] = t.narrowed(r, ts[i]); saved[i] == nil {
				saved[i] = r.Save(ts[i])
			}
			n.versions = append(n.versions, savedVersion{saved[i], versionOf(saved[i])})
		}
	}
	return saved
}

// narrowedAny reports whether a tensor saved of ts is a narrow copy.
func narrowedAny(saved, ts []*tensor.Tensor) bool {
	for i, s := range saved {
		if s != nil && s.DType() != ts[i].DType() {
			return true
		}
	}
	return false
}

// free disposes n's saved tensors.
func (n *node) free() {
	for _, s := range [][]*tensor.Tensor{n.savedIn, n.savedOut} {
		for i, x := range s {
			x.Dispose()
			s[i] = nil
		}
	}
}

// Dispose frees every tensor t saved, whether or not a backward ran, and
// ends t: Record and Gradients fail afterwards. Disposing twice is
// harmless. It is safe from any goroutine; while t records, the ops still
// to come are dropped as they arrive. While another goroutine's Gradients
// runs over t, Dispose waits for it to end (its gradients are the
// caller's and stay), so that no rule reads a tensor Dispose freed.
func (t *Tape) Dispose() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.disposed = true // no backward starts from now on
	for t.backwards > 0 {
		if t.idle == nil {
			t.idle = sync.NewCond(&t.mu)
		}
		if h := hookDisposeWaits; h != nil {
			h()
		}
		t.idle.Wait()
	}
	nodes := t.nodes
	t.nodes, t.copies = nil, nil
	t.mu.Unlock()
	for _, n := range nodes {
		n.free()
	}
}

// Len returns how many ops t recorded (those through which a gradient may
// flow).
func (t *Tape) Len() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.nodes)
}

// refs returns what a node knows of ts; with e, it notes the tensors made
// by another engine.
func refs(ts []*tensor.Tensor, e *tensor.Engine) []ref {
	out := make([]ref, len(ts))
	for i, x := range ts {
		out[i] = ref{id: x.ID(), shape: x.Shape(), dtype: x.DType(), foreign: e != nil && x.Engine() != e}
	}
	return out
}

func anyFloat(ts []*tensor.Tensor) bool {
	for _, x := range ts {
		if x.DType() == tensor.Float32 {
			return true
		}
	}
	return false
}
