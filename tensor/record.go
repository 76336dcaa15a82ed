package tensor

import (
	"slices"
	"sync/atomic"
)

// Recorder is told about each op an Engine completes while the Recorder
// is the innermost one pushed on it (PushRecorder): a tape that builds a
// backward pass (package grad) is one. tensor knows nothing of tapes;
// this hook is all it offers them.
//
// RecordOp runs on the goroutine that called the op, after the op has
// released the engine and holds no lock, but before the op returns: it
// may call Save, read the record and take its own locks; it must not run
// ops on the engine (they would be recorded while it records). The record
// and its slices are valid only during the call, except the tensors Save
// returns, which the Recorder owns.
type Recorder interface {
	RecordOp(r *OpRecord)
}

// OpRecord is one completed op as a Recorder sees it: its name (the name
// its errors carry: "add", "matmul", "sum", ...), its inputs and outputs,
// and its attributes.
type OpRecord struct {
	Name    string
	Inputs  []*Tensor
	Outputs []*Tensor
	Attrs   Attrs
	eng     *Engine
	site    stack
}

// Attrs are an op's arguments other than its input tensors, as a backward
// rule needs them; each op sets the fields it has and leaves the others
// zero. Axes are normalised (non-negative) where the op normalises them.
type Attrs struct {
	Axes           []int    // reductions (all axes when the op was given none), Squeeze (as given)
	KeepDims       bool     // reductions
	Axis           int      // Softmax, LogSoftmax, ExpandDims, Concat, Stack, Split, Gather, ScatterAdd, ArgMax, ArgMin (normalised)
	Perm           []int    // Transpose (as given; nil reverses)
	TransA, TransB bool     // MatMulT
	Begin, Size    []int    // Slice (as given)
	Sizes          []int    // Split (as given)
	Pads           [][2]int // Pad
	Value          float64  // Pad, Fill, MaskedFill
	Shape          Shape    // Reshape (inferred), BroadcastTo
	DType          DType    // Cast
	Lo, Hi         float32  // Clip
	Alpha          float32  // LeakyRelu

	Pool               Pool2DOptions // MaxPool2D, AvgPool2D and their gradients
	Exclusive, Reverse bool          // Cumsum (Axis is its axis)
	K                  int           // TopK
	Eps                float32       // LayerNorm

	// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter: the options
	// (the last two set Shape to the input's or the filter's shape).
	Conv Conv2DOptions

	// ScaledDotProductAttention, its packed form and their gradients: the
	// options, with Mask and KeyPadding nil; those are inputs, after q, k
	// and v (qkv for the packed form; and, for the gradients, out, lse and
	// dout), Mask first, present where AttentionMask and
	// AttentionKeyPadding say.
	Attention                          AttentionOptions
	AttentionMask, AttentionKeyPadding bool
	Diagonal                           int // Tril, Triu
}

// clone copies a's slices, so that a recorder may keep them.
func (a Attrs) clone() Attrs {
	a.Axes = slices.Clone(a.Axes)
	a.Perm = slices.Clone(a.Perm)
	a.Begin = slices.Clone(a.Begin)
	a.Size = slices.Clone(a.Size)
	a.Sizes = slices.Clone(a.Sizes)
	a.Pads = slices.Clone(a.Pads)
	a.Shape = a.Shape.clone()
	return a
}

// Save returns a tensor that shares t's storage without a copy, for a
// recorder to keep until its backward pass: it is counted like any
// tensor (Memory, LiveTensors, Summary, the profile) at the site of the
// op that saved it, and no tidy scope tracks it, so the recorder owns it
// and must Dispose it. t must be one of r's inputs or outputs (else the
// result carries ErrArgument and holds nothing); it may have been
// disposed by another goroutine since the op checked it, as the op still
// holds its storage. Save is valid only during RecordOp; on a record no
// Engine made (a nil or hand-built OpRecord) the result carries
// ErrArgument.
func (r *OpRecord) Save(t *Tensor) *Tensor {
	var none *Engine
	switch {
	case r == nil || r.eng == nil:
		return none.errTensor(opErr("save", nil, ErrArgument, "not the record of an op an Engine ran"))
	case t == nil || t.st == nil:
		return r.eng.errTensor(opErr("save", nil, ErrArgument, "nil, zero or failed tensor"))
	}
	if !slices.Contains(r.Inputs, t) && !slices.Contains(r.Outputs, t) {
		return r.eng.errTensor(opErr("save", nil, ErrArgument, "tensor %d is neither an input nor an output of %s", t.ID(), r.Name))
	}
	t.st.retain()
	s := &Tensor{eng: r.eng, id: nextID.Add(1), shape: t.shape.clone(), dtype: t.dtype, st: t.st, site: r.site, cat: CategorySaved}
	t.st.addHolder(s)
	r.eng.mu.Lock()
	r.eng.live[s] = struct{}{}
	r.eng.mu.Unlock()
	return s
}

// SaveAs is Save of a copy of t converted to dtype as Cast converts it: a
// tape's activations kept at half width. The copy is made at once, in a
// kernel of its own beside the elementwise ops the engine holds back for
// fusion (unless it reads one of their results), so that saving an
// operand of a matrix product does not end the product's epilogue. No
// recorder sees the conversion. With t's own dtype it is Save. The copy is
// counted as Save's result is, and its failure is carried by the result.
func (r *OpRecord) SaveAs(t *Tensor, dtype DType) *Tensor {
	s := r.Save(t) // checks r and t, and holds t's storage while it is copied
	if s.Err() != nil || dtype == t.dtype {
		return s
	}
	defer s.Dispose()
	return r.eng.castAside(s, dtype, r.site)
}

// recorderBox holds the innermost recorder for an atomic pointer.
type recorderBox struct{ r Recorder }

// PushRecorder makes r see every op e completes until PopRecorder;
// recorders nest and only the innermost sees an op. While none is pushed
// an op records nothing and spends one atomic load on it. PushRecorder
// fails with ErrConcurrentUse, pushing nothing, while another goroutine's
// op runs on e or another goroutine owns e (see PushTracker), and with
// ErrArgument on a nil or zero Engine. Ops see the recorders of e,
// whichever goroutine pushed them: push, compute and pop on the goroutine
// that uses e.
func (e *Engine) PushRecorder(r Recorder) error {
	if err := e.usable("push recorder"); err != nil {
		return err
	}
	if r == nil {
		return opErr("push recorder", nil, ErrArgument, "nil Recorder")
	}
	if why := e.claim(); why != "" {
		return opErr("push recorder", nil, ErrConcurrentUse, "%s", why)
	}
	e.mu.Lock()
	e.recorders = append(e.recorders, r)
	e.recorder.Store(&recorderBox{r})
	e.mu.Unlock()
	e.busy.Store(0)
	return nil
}

// PopRecorder removes the recorder pushed last, if r is it, and reports
// whether it did: popping out of order, or twice, changes nothing.
func (e *Engine) PopRecorder(r Recorder) bool {
	if e == nil {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	n := len(e.recorders)
	if n == 0 || e.recorders[n-1] != r {
		return false
	}
	e.recorders[n-1] = nil
	e.recorders = e.recorders[:n-1]
	if n == 1 {
		e.recorder.Store(nil)
	} else {
		e.recorder.Store(&recorderBox{e.recorders[n-2]})
	}
	return true
}

// listening returns the innermost recorder, nil when none listens.
func (e *Engine) listening() *recorderBox { return e.recorder.Load() }

// recordTo tells rec about o, if it made a live tensor, with its inputs
// still held.
func (o *op) recordTo(rec *recorderBox) {
	var outs []*Tensor
	for _, t := range o.outs {
		if !t.IsDisposed() {
			outs = append(outs, t)
		}
	}
	if len(outs) == 0 {
		return
	}
	rec.r.RecordOp(&OpRecord{Name: o.name, Inputs: slices.Clone(o.inputs), Outputs: outs, Attrs: o.attrs.clone(), eng: o.e, site: o.site})
}

// recorderState is the part of an Engine that recorders use.
type recorderState struct {
	recorder  atomic.Pointer[recorderBox] // the innermost of recorders, read by ops without the lock
	recorders []Recorder                  // under Engine.mu
	// scratch takes the attributes of ops no recorder listens to, so that
	// an op allocates nothing for them; only the op that holds the engine
	// writes it.
	scratch Attrs
}

// noteAxes sets a reduction's attributes, its axes normalised (all of
// them when none are given), if a recorder listens.
func (o *op) noteAxes(rank int, keepDims bool, axes []int) {
	if o.rec == nil {
		return
	}
	o.attrs.KeepDims = keepDims
	if len(axes) == 0 {
		for i := range rank {
			o.attrs.Axes = append(o.attrs.Axes, i)
		}
		return
	}
	for _, a := range axes {
		if ax, ok := normAxis(a, rank); ok {
			o.attrs.Axes = append(o.attrs.Axes, ax)
		}
	}
	o.attrs.Axis = o.attrs.Axes[0] // ArgMax's and ArgMin's
}
