package tensor

import (
	"strconv"

	"github.com/wgtensor/wgtensor/wgpu"
)

// Category says what a tensor's memory is for, as memory histories file
// it (RecordMemoryHistory): the layers above tensor say it of what they
// make, and the rest is told apart by how it was made.
type Category uint8

// The categories, from the strongest: a storage viewed by tensors of
// several categories is filed under the strongest of them, so that a
// parameter's reshaped view is a parameter's memory, and an activation
// that only a tape still holds is the tape's.
const (
	// CategoryParameter: a model's trained weights (nn's parameters).
	CategoryParameter Category = iota + 1
	// CategoryBuffer: a model's state that is not trained, such as
	// BatchNorm's running statistics.
	CategoryBuffer
	// CategoryOptimizerState: what an optimizer keeps between steps (Adam's
	// moments) and makes while it steps.
	CategoryOptimizerState
	// CategoryGradient: gradients and what backward makes computing them.
	CategoryGradient
	// CategoryUser: a tensor made from the host's data or by a creation op
	// (zeros, random) outside the layers above.
	CategoryUser
	// CategoryActivation: an op's result: an activation, an intermediate.
	CategoryActivation
	// CategorySaved: held only by a gradient tape, for backward.
	CategorySaved
)

var categoryNames = [...]string{"", "parameter", "buffer", "optimizer state", "gradient", "user", "activation", "saved for backward"}

func (c Category) String() string {
	if int(c) < len(categoryNames) && c > 0 {
		return categoryNames[c]
	}
	return "Category(" + strconv.Itoa(int(c)) + ")"
}

// stronger reports whether c files memory before d: c is set and d is
// not, or c comes first.
func (c Category) stronger(d Category) bool { return c != 0 && (d == 0 || c < d) }

// SetCategory files t's memory under c from now on (see Category). Layers
// call it on what they keep: nn on its parameters and buffers. It does
// nothing to a nil, failed or disposed tensor. It is safe for concurrent
// use.
func SetCategory(t *Tensor, c Category) {
	if t == nil || t.st == nil || c == 0 || int(c) >= len(categoryNames) {
		return
	}
	s := t.st
	s.holdMu.Lock()
	t.cat = c
	changed := s.recategorizeLocked()
	s.holdMu.Unlock()
	if changed {
		s.describe(t.eng)
	}
}

// CategoryOf returns the category t's memory is filed under; 0 for a
// nil or failed tensor.
func CategoryOf(t *Tensor) Category {
	if t == nil || t.st == nil {
		return 0
	}
	t.st.holdMu.Lock()
	defer t.st.holdMu.Unlock()
	return t.st.cat
}

// WithCategory files the tensors e's ops make under c until the function
// it returns is called, which restores the category before: a layer
// wraps its work in it, as grad's backward does with CategoryGradient and
// an optimizer's step with CategoryOptimizerState. Without it, an op with
// no tensor inputs makes CategoryUser tensors and the others
// CategoryActivation ones. Like ops, it is for the goroutine that uses e.
func (e *Engine) WithCategory(c Category) (restore func()) {
	if e == nil || e.dev == nil {
		return func() {}
	}
	e.mu.Lock()
	prev := e.cat
	e.cat = c
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		e.cat = prev
		e.mu.Unlock()
	}
}

// Label names the part of a program that runs until the function it
// returns is called, for memory histories: the tensors e's ops make
// meanwhile carry the label in their scope, after the labels of the
// scopes around it ("encoder/layer 0/attention"). Labels nest:
//
//	defer e.Label("encoder")()
//
// Like ops, it is for the goroutine that uses e.
func (e *Engine) Label(name string) (end func()) {
	if e == nil || e.dev == nil {
		return func() {}
	}
	e.mu.Lock()
	prev := e.scope
	if prev == "" {
		e.scope = name
	} else {
		e.scope = prev + "/" + name
	}
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		e.scope = prev
		e.mu.Unlock()
	}
}

// file gives t, which o made, its category: cat, or where that is 0 the
// one o's inputs say (see WithCategory); and files its storage, giving a
// storage o made the scope.
func (o *op) file(t *Tensor, cat Category, scope string) {
	if cat == 0 {
		cat = CategoryActivation
		if len(o.inputs) == 0 {
			cat = CategoryUser
		}
	}
	s := t.st
	if s == nil {
		t.cat = cat
		return
	}
	s.holdMu.Lock()
	t.cat = cat
	if s.cat == 0 {
		s.scope = scope
	}
	changed := s.recategorizeLocked()
	s.holdMu.Unlock()
	if changed {
		s.describe(o.e)
	}
}

// recategorizeLocked files s under the strongest category of its
// holders and reports whether that changed it. The caller holds holdMu.
func (s *storage) recategorizeLocked() bool {
	var best Category
	for _, h := range s.holders {
		if h.cat.stronger(best) {
			best = h.cat
		}
	}
	if best == 0 || best == s.cat {
		return false
	}
	s.cat = best
	return true
}

// describe tells e's device's memory history what s holds, where it
// records.
func (s *storage) describe(e *Engine) {
	if e == nil || !e.dev.Recording() {
		return
	}
	s.holdMu.Lock()
	if len(s.holders) == 0 {
		s.holdMu.Unlock()
		return
	}
	h := s.holders[0]
	tag := wgpu.BufferTag{Category: s.cat.String(), DType: h.dtype.String(), Shape: h.shape.String(), Scope: s.scope}
	id := h.id
	s.holdMu.Unlock()
	s.buf.Describe(id, tag)
}

// RecordMemoryHistory starts recording the memory history of e's device
// (wgpu.Device.RecordHistory) and describes the storage of e's live
// tensors in it, so that memory made before it started is filed too.
// Every tensor op then describes the storage it makes (category, dtype,
// shape, scope: see Category and Label), optimizers mark their steps and
// frame.Next its frames. It is safe for concurrent use.
func (e *Engine) RecordMemoryHistory(opts wgpu.HistoryOptions) error {
	if err := e.usable("record memory history"); err != nil {
		return err
	}
	if err := e.dev.RecordHistory(opts); err != nil {
		return err
	}
	e.mu.Lock()
	seen := make(map[*storage]bool, len(e.live))
	var sts []*storage
	for t := range e.live {
		if t.st != nil && !seen[t.st] {
			seen[t.st] = true
			sts = append(sts, t.st)
		}
	}
	e.mu.Unlock()
	for _, s := range sts {
		s.describe(e)
	}
	return nil
}

// MemoryHistory returns the memory history of e's device
// (wgpu.Device.History) with e's figures (Memory) taken right after it.
// It is safe for concurrent use; the figures agree with the history's
// when no other goroutine uses the device meanwhile.
func (e *Engine) MemoryHistory() (*wgpu.History, error) {
	if err := e.usable("memory history"); err != nil {
		return nil, err
	}
	h, err := e.dev.History()
	if err != nil {
		return nil, err
	}
	m := e.Memory()
	h.Engine = &wgpu.HistoryEngine{Tensors: m.Tensors, Storages: m.Storages, Bytes: m.Bytes}
	return h, nil
}

// WriteMemoryHistory writes MemoryHistory to the file at path, in the
// format wgpu.ReadHistory reads and the memview package renders.
func (e *Engine) WriteMemoryHistory(path string) error {
	h, err := e.MemoryHistory()
	if err != nil {
		return err
	}
	return h.WriteFile(path)
}
