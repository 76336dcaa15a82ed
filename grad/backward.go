package grad

import (
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// NoPath says what Gradients gives a tensor the result does not depend on:
// one the recorded ops did not use on the way to the result, as
// PyTorch's torch.autograd.grad's allow_unused.
type NoPath int

const (
	// NoPathError, the default, makes Gradients fail with ErrNoPath,
	// naming the tensor (PyTorch: "One of the differentiated Tensors
	// appears to not have been used in the graph"). A gradient of zeros
	// where the result was meant to depend on a tensor is how a forward
	// pass the tape did not see (another engine's ops) would go unnoticed.
	NoPathError NoPath = iota
	// ZeroGradient allows unused tensors (PyTorch's allow_unused=True,
	// materialized): each gets a gradient of zeros of its shape, a tensor
	// of the caller's like the others.
	ZeroGradient
	// NilGradient allows unused tensors and gives each a nil gradient
	// (PyTorch's allow_unused=True: None), allocating nothing for it.
	NilGradient
)

// Options tune Gradients. The zero Options (or nil) differentiate a scalar
// result, fail with ErrNoPath where there is no path to a tensor asked
// for, and free the tape's saved tensors as backward consumes them.
type Options struct {
	// Seed is the gradient of the result: its shape and dtype. Required
	// when the result has more than one element; a one otherwise (uploaded,
	// not computed: no dispatch). It stays the caller's.
	Seed *tensor.Tensor
	// NoPath chooses an error (the default), zeros or nil for a tensor
	// the result does not depend on.
	NoPath NoPath
	// Keep keeps the saved tensors for another backward over the tape;
	// without it a second backward fails with ErrTapeUsed.
	Keep bool
	// Autocast, for ValueAndGrad, is the dtype its tape saves activations
	// in (Tape.SetAutocast): tensor.BFloat16, or Float32 (the zero value)
	// to save them as they are. Gradients ignores it.
	Autocast tensor.DType
	// Ready, when set, is called during the backward pass as soon as the
	// gradient of wrt[i] is final, before the rest of the pass runs, with
	// i and the gradient: data-parallel training starts exchanging a
	// bucket of gradients while backward computes the next (package
	// dist). It runs on the goroutine that called Gradients, which holds
	// no lock, and may run ops on the engine and read g back; g is valid
	// during the call only (Gradients returns a view of it) and must not
	// be disposed or written. It is not called for a tensor no gradient
	// reaches through the recorded ops (see NoPath), nor after an error.
	Ready func(i int, g *tensor.Tensor)
}

// Gradients returns the gradient of y with respect to each of wrt, by a
// backward pass over the ops t recorded. The gradients are ordinary
// tensors of the caller, created in its current tidy scope. Everything
// else backward creates is freed before it returns, and unless
// opts.Keep each saved tensor is freed as soon as its op's rule has run
// (the rest when backward ends): after an error too, so that an error
// part-way through leaves nothing live but what the caller had.
//
// y and wrt must be float32: integer results and comparisons have no
// gradient (ErrNoGradient). A y with more than one element needs
// opts.Seed (ErrSeed). A tensor of wrt that y does not depend on through
// the ops t recorded fails with ErrNoPath, before any work, unless
// opts.NoPath allows it (ZeroGradient, NilGradient): as PyTorch, an
// unused tensor is an error by default, since zeros would hide a forward
// pass the tape did not see. Those errors leave the tape as it was; any
// later one uses it up unless opts.Keep. A path through an op with no rule, or through a
// tensor assigned in place since the tape saved it, fails (ErrNoGradient,
// ErrModified).
func (t *Tape) Gradients(y *tensor.Tensor, wrt []*tensor.Tensor, opts *Options) ([]*tensor.Tensor, error) {
	if t == nil || t.e == nil || t.e.Device() == nil {
		return nil, errNilTape("gradients")
	}
	if opts == nil {
		opts = &Options{}
	}
	if err := checkArgs(y, wrt, opts.Seed); err != nil {
		return nil, err // the tape is left as it was
	}
	nodes, err := t.take()
	if err != nil {
		return nil, err
	}
	defer t.done()
	b := &backward{e: t.e, nodes: nodes, keep: opts.Keep, grads: map[uint64]*tensor.Tensor{}}
	if err := b.plan(y, wrt, opts.NoPath); err != nil {
		return nil, err // the tape is left as it was
	}
	if !opts.Keep {
		t.useUp()
		defer freeAll(nodes)
	}
	if h := hookBackward; h != nil {
		h()
	}
	defer t.e.WithCategory(tensor.CategoryGradient)()
	gs, err := tidy.Run(t.e, func() ([]*tensor.Tensor, error) {
		gs, err := b.run(y, wrt, opts)
		if err != nil {
			return nil, err // disposed with the rest by the scope
		}
		return gs, nil
	})
	if err != nil {
		return nil, err
	}
	return callersViews(t.e, gs), nil
}

// callersViews replaces each gradient by a view of it created here, which
// shares its storage (nothing is copied), so that memory reports name the
// line that asked for the gradients: the rules that computed them run
// deeper in backward than a tensor's recorded stack reaches.
func callersViews(e *tensor.Engine, gs []*tensor.Tensor) []*tensor.Tensor {
	for i, g := range gs {
		if g != nil {
			gs[i] = e.Clone(g)
			g.Dispose()
		}
	}
	return gs
}

// take returns t's graph for a backward, which done ends. Until done,
// Dispose waits and the saved tensors stay.
func (t *Tape) take() ([]*node, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.usableLocked("gradients"); err != nil {
		return nil, err
	}
	t.backwards++
	return t.nodes, nil
}

// useUp hands t's graph to a backward without Keep, which frees it: t
// is used up.
func (t *Tape) useUp() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nodes, t.used = nil, true
}

// done ends a backward that take began, waking a Dispose that waits.
func (t *Tape) done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.backwards--
	if t.backwards == 0 && t.idle != nil {
		t.idle.Broadcast()
	}
}

func freeAll(nodes []*node) {
	for _, n := range nodes {
		n.free()
	}
}

// checkArgs checks what Gradients can tell before it computes.
func checkArgs(y *tensor.Tensor, wrt []*tensor.Tensor, seed *tensor.Tensor) error {
	if err := y.Err(); err != nil {
		return fmt.Errorf("grad: the result carries an error: %w", err)
	}
	if y.DType() != tensor.Float32 {
		return fmt.Errorf("%w: the result is %s: integer results and comparisons have no gradient", ErrNoGradient, y.DType())
	}
	for i, w := range wrt {
		if err := w.Err(); err != nil {
			return fmt.Errorf("grad: wrt[%d] carries an error: %w", i, err)
		}
		if w.DType() != tensor.Float32 {
			return fmt.Errorf("%w: wrt[%d] is %s: integer tensors have no gradient", ErrNoGradient, i, w.DType())
		}
	}
	switch {
	case seed == nil && y.Size() != 1:
		return fmt.Errorf("%w: the result has shape %v: a non-scalar result needs Options.Seed", ErrSeed, y.Shape())
	case seed == nil:
		return nil
	case seed.Err() != nil:
		return fmt.Errorf("%w: %w", ErrSeed, seed.Err())
	case !seed.Shape().Equal(y.Shape()) || seed.DType() != tensor.Float32:
		return fmt.Errorf("%w: seed is %s %v, the result float32 %v", ErrSeed, seed.DType(), seed.Shape(), y.Shape())
	}
	return nil
}

// backward is one backward pass over nodes.
type backward struct {
	e      *tensor.Engine
	nodes  []*node
	keep   bool
	active []bool                    // by node: on a path from wrt to y (plan)
	grads  map[uint64]*tensor.Tensor // the gradient reaching each tensor so far
	want   map[uint64]bool           // the tensors whose gradients are returned
	from   map[uint64]bool           // the float32 tensors that depend on one of them, and they
}

// plan finds the nodes on the paths from wrt to y, and fails with
// ErrNoPath, before any work, if one of wrt has none and noPath asks.
func (b *backward) plan(y *tensor.Tensor, wrt []*tensor.Tensor, noPath NoPath) error {
	active, reached := b.paths(y.ID(), wrt)
	b.active = active
	if noPath == NoPathError {
		for i, w := range wrt {
			if !reached[w.ID()] {
				return b.noPath(y, wrt, i, reached)
			}
		}
	}
	return nil
}

// run runs the backward pass that plan planned.
func (b *backward) run(y *tensor.Tensor, wrt []*tensor.Tensor, opts *Options) ([]*tensor.Tensor, error) {
	active := b.active
	b.want = map[uint64]bool{}
	for _, w := range wrt {
		b.want[w.ID()] = true
	}
	seed := opts.Seed
	if seed == nil {
		// y has one element (checkArgs): uploading the one costs no
		// dispatch, and a rule that broadcasts it fuses it as a leaf
		// where a lazy Ones would be a dispatch of its own.
		seed = b.e.FromFloat32s([]float32{1}, y.Shape()...)
	} else {
		seed = b.e.Clone(seed)
	}
	if err := seed.Err(); err != nil {
		return nil, err
	}
	b.grads[y.ID()] = seed
	var final map[int][]int
	if opts.Ready != nil {
		final = b.finalAfter(wrt)
	}
	for i := len(b.nodes) - 1; i >= 0; i-- {
		if !active[i] {
			continue
		}
		if err := b.step(b.nodes[i]); err != nil {
			return nil, err
		}
		for _, w := range final[i] {
			if g := b.grads[wrt[w].ID()]; g != nil {
				opts.Ready(w, g)
			}
		}
	}
	return b.results(wrt, opts.NoPath)
}

// finalAfter returns, by node index, the indices of wrt whose gradients
// are final once that node's rule has run: the last active node, in the
// backward's order, that reads the tensor.
func (b *backward) finalAfter(wrt []*tensor.Tensor) map[int][]int {
	last := map[uint64]int{}
	for j, n := range b.nodes {
		if !b.active[j] {
			continue
		}
		for _, in := range n.in {
			if _, seen := last[in.id]; !seen {
				last[in.id] = j
			}
		}
	}
	final := map[int][]int{}
	for i, w := range wrt {
		if j, ok := last[w.ID()]; ok {
			final[j] = append(final[j], i)
		}
	}
	return final
}

// paths marks the nodes on a path from a tensor of wrt to y. Gradients flow through float32
// tensors only.
// reached holds y and the tensors of wrt (and the others between) that y
// depends on through the recorded ops.
func (b *backward) paths(y uint64, wrt []*tensor.Tensor) (active []bool, reached map[uint64]bool) {
	from := map[uint64]bool{}
	for _, w := range wrt {
		from[w.ID()] = true
	}
	for _, n := range b.nodes {
		if n.anyIn(from) {
			for _, o := range n.out {
				if o.dtype == tensor.Float32 {
					from[o.id] = true
				}
			}
		}
	}
	b.from = from
	reached = map[uint64]bool{y: true}
	active = make([]bool, len(b.nodes))
	for i := len(b.nodes) - 1; i >= 0; i-- {
		n := b.nodes[i]
		if !n.anyOut(reached) || !n.anyIn(from) {
			continue
		}
		active[i] = true
		for _, in := range n.in {
			if from[in.id] && in.dtype == tensor.Float32 {
				reached[in.id] = true
			}
		}
	}
	return active, reached
}

// noPath returns the error for wrt[i], which y does not depend on through
// the ops the tape recorded, saying why where it can tell: y, or a tensor
// y was computed from, was made by another engine, whose ops no tape of
// this engine records.
func (b *backward) noPath(y *tensor.Tensor, wrt []*tensor.Tensor, i int, reached map[uint64]bool) error {
	w := wrt[i]
	used := 0
	for _, x := range wrt {
		if reached[x.ID()] {
			used++
		}
	}
	msg := fmt.Sprintf("the result (tensor %d, %v) does not depend on wrt[%d] (tensor %d, %v) through the %d ops the tape recorded", y.ID(), y.Shape(), i, w.ID(), w.Shape(), len(b.nodes))
	if used == 0 {
		msg += fmt.Sprintf(", nor on any of the %d tensors asked for", len(wrt))
	}
	var hint string
	switch {
	case y.Engine() != b.e:
		hint = "the result was computed by another engine than the tape's, and a tape records only its own engine's ops"
	default:
		// The tensors y was computed from that another engine made.
		up := map[uint64]bool{y.ID(): true}
		var foreign []uint64
		seen := map[uint64]bool{}
		for j := len(b.nodes) - 1; j >= 0; j-- {
			n := b.nodes[j]
			if !n.anyOut(up) {
				continue
			}
			for _, in := range n.in {
				up[in.id] = true
				if in.foreign && in.dtype == tensor.Float32 && !seen[in.id] {
					seen[in.id] = true
					foreign = append(foreign, in.id)
				}
			}
		}
		if len(foreign) > 0 {
			if len(foreign) > 4 {
				foreign = foreign[:4]
			}
			hint = fmt.Sprintf("the result was computed from tensors another engine made (%v): a tape records only its own engine's ops, so ops another engine ran on the way are not on the tape", foreign)
		}
	}
	if hint != "" {
		msg += "; " + hint + " (see the package doc, Engines)"
	}
	msg += "; Options.NoPath allows unused tensors (ZeroGradient, NilGradient)"
	return fmt.Errorf("%w: %s", ErrNoPath, msg)
}

func (n *node) anyIn(set map[uint64]bool) bool {
	for _, r := range n.in {
		if set[r.id] {
			return true
		}
	}
	return false
}

func (n *node) anyOut(set map[uint64]bool) bool {
	for _, r := range n.out {
		if set[r.id] {
			return true
		}
	}
	return false
}

// step runs n's rule on the gradients of its outputs and adds what it
// returns to the gradients of its inputs.
func (b *backward) step(n *node) error {
	if n.rule == nil {
		return fmt.Errorf("%w: no gradient rule for op %q (register one: see the package doc)", ErrNoGradient, n.op)
	}
	if n.rule.NoGrad != "" {
		return fmt.Errorf("%w: op %q: %s", ErrNoGradient, n.op, n.rule.NoGrad)
	}
	if err := n.checkVersions(); err != nil {
		return err
	}
	dy := make([]*tensor.Tensor, len(n.out))
	for i, o := range n.out {
		dy[i] = b.grads[o.id]
	}
	c := &Context{E: b.e, Op: n.op, Attrs: n.attrs, n: n, needs: make([]bool, len(n.in))}
	for i, in := range n.in {
		c.needs[i] = b.from[in.id] && in.dtype == tensor.Float32
	}
	mark := tensor.LastID() // the rule's own tensors have ids above it
	dx, err := tidy.Run(b.e, func() ([]*tensor.Tensor, error) {
		dx, err := n.rule.Backward(c, dy)
		if err == nil && len(dx) != len(n.in) {
			err = fmt.Errorf("grad: the rule for %q returned %d gradients for %d inputs", n.op, len(dx), len(n.in))
		}
		if err != nil {
			return nil, err
		}
		return dx, nil
	})
	if err != nil {
		return fmt.Errorf("grad: backward of %q: %w", n.op, err)
	}
	err = b.accumulate(n, c.needs, dx, mark)
	b.consumed(n, dy)
	return err
}

// accumulate adds dx[i] to the gradient of n's input i, for each input
// whose gradient is needed; the others' are dropped.
//
// A gradient becomes the input's own (kept, or added into its gradient
// and freed) only where the rule made it (its id is above mark) and
// returned it for that input alone. Anything else is still referred to:
// dy (the gradients of n's outputs, which consumed frees, or which the
// caller asked for), a tensor n saved, a tensor the rule returned for
// several inputs (Add's dy, for both), or one it did not make. Each input
// gets a view of such a tensor (Clone: no copy), all of them made before
// any gradient is added or freed, so that no input's accumulation frees
// what another's still reads. Accumulation never writes into a tensor
// (see add).
func (b *backward) accumulate(n *node, needs []bool, dx []*tensor.Tensor, mark uint64) error {
	uses := map[*tensor.Tensor]int{}
	for i, g := range dx {
		if g == nil || !needs[i] {
			continue
		}
		if err := g.Err(); err != nil {
			return fmt.Errorf("grad: backward of %q, input %d: %w", n.op, i, err)
		}
		if in := n.in[i]; !g.Shape().Equal(in.shape) {
			return fmt.Errorf("grad: the rule for %q returned a gradient of shape %v for input %d of shape %v", n.op, g.Shape(), i, in.shape)
		}
		uses[g]++
	}
	own := make([]*tensor.Tensor, len(dx))
	for i, g := range dx {
		switch {
		case g == nil || !needs[i]:
		case g.ID() > mark && uses[g] == 1:
			own[i] = g
		default:
			own[i] = b.e.Clone(g)
		}
	}
	// The rule's tensors that no input owns are freed now rather than
	// with backward's scope: those returned for several inputs (each
	// has its view) or for inputs whose gradient no one needs.
	for _, g := range dx {
		if g != nil && g.ID() > mark && uses[g] != 1 {
			g.Dispose()
		}
	}
	for i, g := range own {
		if g == nil {
			continue
		}
		if err := b.add(n.in[i].id, g); err != nil {
			return err
		}
	}
	return nil
}

// consumed frees what n's backward has used: its saved tensors, unless
// the tape is kept, and the gradients of its outputs, unless returned to
// the caller. accumulate gave each input that took one a view of its own.
func (b *backward) consumed(n *node, dy []*tensor.Tensor) {
	if !b.keep {
		n.free()
	}
	for i, o := range n.out {
		if dy[i] == nil || b.want[o.id] {
			continue
		}
		delete(b.grads, o.id)
		dy[i].Dispose()
	}
}

// add adds g, which backward owns, to the gradient of tensor id: the
// first gradient to arrive becomes it; a later one is added into a new
// tensor and both addends are freed (nothing is summed in place, so a
// view of either stays valid).
func (b *backward) add(id uint64, g *tensor.Tensor) error {
	old := b.grads[id]
	if old == nil {
		b.grads[id] = g
		return g.Err()
	}
	sum := b.e.Add(old, g)
	old.Dispose()
	g.Dispose()
	b.grads[id] = sum
	return sum.Err()
}

// results returns the gradient of each tensor of wrt.
func (b *backward) results(wrt []*tensor.Tensor, noPath NoPath) ([]*tensor.Tensor, error) {
	out := make([]*tensor.Tensor, len(wrt))
	given := map[uint64]bool{}
	for i, w := range wrt {
		g := b.grads[w.ID()]
		switch {
		case g == nil && noPath == NoPathError:
			return nil, fmt.Errorf("%w: no gradient reached wrt[%d] (tensor %d, %v): the ops on its path gave it none; Options.NoPath allows that (ZeroGradient, NilGradient)", ErrNoPath, i, w.ID(), w.Shape())
		case g == nil && noPath == NilGradient:
			continue
		case g == nil:
			g = b.e.Zeros(tensor.Float32, w.Shape()...)
		case given[w.ID()]:
			g = b.e.Clone(g) // wrt names one tensor twice
		}
		given[w.ID()] = true
		if err := g.Err(); err != nil {
			return nil, err
		}
		out[i] = g
	}
	return out, nil
}
