package tensor

import (
	"slices"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Elementwise ops are not dispatched as they are called. An engine keeps a
// group of them, recorded over one output shape, and dispatches the group
// as a single generated kernel (kernels.Elementwise) when something needs
// its results: a readback, any other op that reads one of its tensors
// (through Tensor.buf), Engine.Flush, or the group reaching its limits. An
// op whose arguments are results of the same group reads them from
// registers, not memory, so a chain such as relu(a*b + a) reads a and b
// once and writes one result.
//
// A matrix product may head a group (deferProduct): the group's ops are
// then evaluated in the product's kernel where it stores each element
// (kernels.MatMulEpilogue), so that a projection's bias, activation and
// residual take no dispatch and no pass over memory of their own.
//
// Memory stays exact: every op allocates its output when it is called, as
// an unfused op does, so allocation failures are reported by the op and
// memory figures do not depend on fusion. A result disposed before the
// dispatch gives its buffer back at once and is not written; a group whose
// results are all disposed is dropped without a dispatch. The group holds a
// reference to every buffer it reads, so disposing an input early is safe.

const (
	// maxFusedNodes bounds the ops in one kernel, which bounds the time a
	// new program takes to compile and the size of its parameters.
	maxFusedNodes = 128
)

// group is a run of elementwise ops recorded and not yet dispatched, all
// over one output shape. It is protected by its engine's fuseMu.
type group struct {
	e      *Engine
	shape  Shape
	leaves []leaf
	nodes  []*node
	live   int // nodes whose storage a tensor still holds
	// head, if set, is the matrix product the group's ops follow: its
	// result is the first node, its operands the first two leaves, and the
	// ops are its epilogue (see deferProduct).
	head *product
	// sum, if set, is a sum over a tensor's leading dimensions waiting for
	// a product that reads the tensor to compute it on the way (see
	// deferSum); alone, its group takes no other op.
	sum *colSum
}

// colSum is the sum over the leading dimensions of a float32 tensor seen
// as a K×N matrix: its N column sums (a bias's gradient).
type colSum struct {
	n    *node    // its result, counted in the group's live nodes but not one of its nodes
	x    *storage // the tensor summed: the group's first leaf, or its product's operand
	K, N int
}

// product is a matrix product whose dispatch waits for the elementwise
// ops that follow it, to run them as its epilogue
// (kernels.MatMulEpilogue): the kernel chosen for it and its geometry.
type product struct {
	k kernels.MatMul
	g matmulGeom
}

// leaf is a buffer the group reads, retained until the group is dispatched
// or dropped.
type leaf struct {
	st      *storage
	dtype   DType
	strides []int // broadcast strides over the group's shape; nil: the same shape
	operand bool  // an operand of the group's head, read by the product alone
}

// reads reports whether l is st read through strides (nil: at the flat
// index) by the group's elementwise ops.
func (l leaf) reads(st *storage, strides []int) bool {
	return !l.operand && l.st == st && (l.strides == nil) == (strides == nil) && slices.Equal(l.strides, strides)
}

// node is one op of a group. Its storage's pending field points to it
// until the group is dispatched.
type node struct {
	g      *group
	index  int
	st     *storage
	op     kernels.Node
	params kernels.NodeParams
	dead   bool // every tensor holding st was disposed before the dispatch
}

// SetFusion turns the fusion of elementwise ops on (the default, unless
// WGT_FUSE=0) or off. Off, every op is dispatched as it is called, one
// kernel each. Results are identical either way, bit for bit (NaN payloads
// aside); the switch exists for tests and for measuring what fusion saves.
// Turning it off dispatches what is pending.
func (e *Engine) SetFusion(on bool) error {
	if err := e.usable("set fusion"); err != nil {
		return err
	}
	e.fuseMu.Lock()
	defer e.fuseMu.Unlock()
	e.fuse = on
	if !on {
		return e.flushGroupLocked()
	}
	return nil
}

// Flush dispatches the elementwise ops e holds back for fusion and submits
// all recorded work to the device. Readbacks and other ops do this
// themselves when they need it; Flush is for timing and for handing work to
// the GPU early. It is safe from any goroutine.
func (e *Engine) Flush() error {
	if err := e.usable("flush"); err != nil {
		return err
	}
	e.fuseMu.Lock()
	err := e.flushGroupLocked()
	e.fuseMu.Unlock()
	if err != nil {
		return err
	}
	return e.dev.Flush()
}

// record adds the elementwise op n, computing res from in over res's shape,
// to e's group, dispatching the group first if the op does not fit in it.
// in may be pending results of this or another engine's group. It fails
// only if an input's dispatch failed; dispatching earlier ops may fail
// too, but that error is recorded on their results, not on this op.
func (e *Engine) record(res *Tensor, n kernels.Node, params kernels.NodeParams, in []*Tensor) error {
	e.materializeForeign(in)
	e.fuseMu.Lock()
	defer e.fuseMu.Unlock()
	return e.recordLocked(res, n, params, in)
}

// recordAside is record for an op that the group e holds back does not
// need and that needs none of the group's results: a copy a recorder saves
// (OpRecord.SaveAs). It dispatches the op at once in a kernel of its own
// and leaves the group pending, so that saving a product's operand does
// not end the product's epilogue, nor make its bias's sum read the
// product from memory. Where an input is one of the group's results it
// records the op as record does.
func (e *Engine) recordAside(res *Tensor, n kernels.Node, params kernels.NodeParams, in []*Tensor) error {
	e.materializeForeign(in)
	e.fuseMu.Lock()
	defer e.fuseMu.Unlock()
	held := e.group
	if held == nil || !e.fuse || slices.ContainsFunc(in, func(t *Tensor) bool {
		p := t.st.pending.Load()
		return p != nil && p.g == held
	}) {
		return e.recordLocked(res, n, params, in)
	}
	e.group = nil
	defer func() { e.group = held }()
	if err := e.recordLocked(res, n, params, in); err != nil {
		return err
	}
	_ = e.flushGroupLocked() // a failure is recorded on res
	return nil
}

// materializeForeign dispatches the results of in pending in another
// engine's group, before e's lock is taken: two engines never wait on
// each other.
func (e *Engine) materializeForeign(in []*Tensor) {
	for _, t := range in {
		if p := t.st.pending.Load(); p != nil && p.g.e != e {
			t.st.materialize()
		}
	}
}

// recordLocked is record's body, under e.fuseMu.
func (e *Engine) recordLocked(res *Tensor, n kernels.Node, params kernels.NodeParams, in []*Tensor) error {
	if g := e.group; g != nil && (!g.shape.Equal(res.shape) || g.head != nil && !e.epilogueTakes(g, n, in) || g.head == nil && g.sum != nil) {
		_ = e.flushGroupLocked()
	}
	args, ok := e.argsLocked(res.shape, in)
	if !ok {
		// An argument is a result of the group that this op broadcasts, or
		// the op would pass the group's limits: dispatch the group and start
		// a new one, in which every argument is a leaf.
		_ = e.flushGroupLocked()
		args, _ = e.argsLocked(res.shape, in)
	}
	for _, t := range in {
		if err := t.st.err(); err != nil {
			return err
		}
	}
	g := e.group
	if g == nil {
		g = &group{e: e, shape: res.shape}
		e.group = g
	}
	n.Args = args.refs
	for _, l := range args.newLeaves {
		l.st.retain()
		l.st.readers.add(g)
		g.leaves = append(g.leaves, l)
	}
	nd := &node{g: g, index: len(g.nodes), st: res.st, op: n, params: params}
	g.nodes = append(g.nodes, nd)
	g.live++
	res.st.pending.Store(nd)
	if !e.fuse {
		_ = e.flushGroupLocked()
	}
	return nil
}

// epilogueTakes reports whether the op n on in may join g, a group with a
// product at its head, as part of the product's epilogue. On GPUs any op
// of the group's shape may. On CPU adapters (lavapipe, llvmpipe; see
// e.cheapEpilogues and WGT_EPILOGUE), where an
// epilogue is evaluated element by element at the product's scattered
// stores, only cheap ops that take a result of the group: there a bias or a
// residual added in the product's kernel saved 10-20% of a [1024, 128] ×
// [128, 512] product's time, while a GELU (or its gradient's eighteen ops)
// cost more than its own vectorised dispatch, and an op that does not
// take the product would only lengthen the epilogue.
func (e *Engine) epilogueTakes(g *group, n kernels.Node, in []*Tensor) bool {
	if n.Storage != kernels.Word || slices.ContainsFunc(in, func(t *Tensor) bool { return t.dtype.narrow() }) {
		return false // an epilogue writes one element a thread: no narrow words
	}
	if !e.cheapEpilogues {
		return true
	}
	if costlyOnCPU[n.Name] {
		return false
	}
	for _, t := range in {
		if p := t.st.pending.Load(); p != nil && p.g == g {
			return true
		}
	}
	return false
}

// costlyOnCPU names the elementwise ops that a CPU adapter's epilogue
// does not take (see epilogueTakes): those whose functions cost tens of
// operations an element.
var costlyOnCPU = map[string]bool{
	"exp": true, "log": true, "sqrt": true, "rsqrt": true, "sin": true, "cos": true, "tanh": true,
	"sigmoid": true, "gelu": true, "erf": true, "erfc": true, "gelu_erf": true, "pow": true,
}

// opArgs are the arguments of an op being recorded: where each comes from,
// and the leaves the group does not have yet.
type opArgs struct {
	refs      []kernels.Ref
	newLeaves []leaf
}

// argsLocked resolves in against e's group for an op over shape. It
// reports false if the op cannot join the group: an argument is a result
// of the group that the op broadcasts, or the group would pass its limits.
func (e *Engine) argsLocked(shape Shape, in []*Tensor) (opArgs, bool) {
	g := e.group
	var a opArgs
	leafAt := func(st *storage, strides []int) (int, bool) {
		var old []leaf
		if g != nil {
			old = g.leaves
		}
		if i := slices.IndexFunc(old, func(l leaf) bool { return l.reads(st, strides) }); i >= 0 {
			return i, true
		}
		if i := slices.IndexFunc(a.newLeaves, func(l leaf) bool { return l.reads(st, strides) }); i >= 0 {
			return len(old) + i, true
		}
		return 0, false
	}
	for _, t := range in {
		if p := t.st.pending.Load(); p != nil && g != nil && p.g == g {
			if !t.shape.Equal(shape) {
				return a, false
			}
			a.refs = append(a.refs, kernels.Ref{Index: p.index})
			continue
		}
		var strides []int
		if !t.shape.Equal(shape) {
			strides = broadcastStrides(t.shape, shape)
		}
		i, ok := leafAt(t.st, strides)
		if !ok {
			i = g.leafCount() + len(a.newLeaves)
			a.newLeaves = append(a.newLeaves, leaf{st: t.st, dtype: t.dtype, strides: strides})
		}
		a.refs = append(a.refs, kernels.Ref{Leaf: true, Index: i})
	}
	if g != nil {
		// Every live result may have to be written, each through a binding
		// of its own beside the leaves: keep within the device's limit.
		bindings := g.leafCount() + len(a.newLeaves) + g.live + 1
		if len(g.nodes) >= maxFusedNodes || bindings > int(e.dev.Limits().MaxStorageBuffersPerShaderStage) {
			return a, false
		}
	}
	return a, true
}

func (g *group) leafCount() int {
	if g == nil {
		return 0
	}
	return len(g.leaves)
}

// released is called when the last tensor holding n's storage lets go
// before the group is dispatched: n's result will not be written, and a
// group left with no live result is dropped.
func (n *node) released() {
	e := n.g.e
	e.fuseMu.Lock()
	defer e.fuseMu.Unlock()
	if n.st.pending.Load() != n {
		return // dispatched meanwhile
	}
	n.dead = true
	n.g.live--
	if n.g.live == 0 && e.group == n.g {
		e.group = nil
		n.g.drop()
	}
}

// drop forgets a group that will not be dispatched.
func (g *group) drop() {
	for _, n := range g.nodes {
		n.st.pending.CompareAndSwap(n, nil)
	}
	if g.sum != nil {
		g.sum.n.st.pending.CompareAndSwap(g.sum.n, nil)
	}
	for _, l := range g.leaves {
		l.st.readers.remove(g)
		l.st.release()
	}
}

// deferProduct makes the product out = op(a)·op(b), whose kernel k and
// geometry g the caller chose, the head of a new group instead of
// dispatching it, so that the elementwise ops that follow it on out's
// shape run in its kernel as its epilogue. It reports false, deferring
// nothing, where fusion is off or where the product sums its inner
// dimension in more than one dispatch (an epilogue needs the whole sums).
// The product is dispatched with the group: when a reader needs out or
// another of the group's results, or on Flush.
func (e *Engine) deferProduct(out, a, b *Tensor, k kernels.MatMul, g matmulGeom) bool {
	for _, pc := range e.matmulPieces(k, g.M, g.N, g.K, g.batches) {
		if pc.first[3] != 0 || pc.kEnd != g.K {
			return false
		}
	}
	e.fuseMu.Lock()
	defer e.fuseMu.Unlock()
	if !e.fuse {
		return false
	}
	sum := e.takeSumLocked(a, b, &k, g)
	_ = e.flushGroupLocked() // a failure is recorded on its results
	gr := &group{e: e, shape: out.shape, head: &product{k: k, g: g}}
	if sum != nil {
		sum.n.g, gr.sum = gr, sum
		gr.live++
	}
	for _, st := range []*storage{a.st, b.st} {
		st.retain()
		st.readers.add(gr)
		gr.leaves = append(gr.leaves, leaf{st: st, dtype: Float32, operand: true})
	}
	nd := &node{g: gr, st: out.st, op: kernels.Node{Name: "matmul", Out: kernels.F32}}
	gr.nodes = append(gr.nodes, nd)
	gr.live++
	out.st.pending.Store(nd)
	e.group = gr
	return true
}

// takeSumLocked takes e's group's pending sum for the product of a and b
// that the caller is deferring, if the product reads the summed tensor
// as its K×N operand, so that its kernel computes the sums (with k's SumB:
// the columns of B; with SumA, those of A stored transposed, the rows of
// op(A)). It leaves e without a group then; a sum it does not take stays.
func (e *Engine) takeSumLocked(a, b *Tensor, k *kernels.MatMul, g matmulGeom) *colSum {
	gr := e.group
	if gr == nil || gr.sum == nil || gr.head != nil || g.batches != 1 || k.BatchRank != 0 {
		return nil
	}
	s := gr.sum
	switch {
	case !k.TransB && b.st == s.x && g.K == s.K && g.N == s.N:
		k.SumB = true
	case k.TransA && a.st == s.x && g.K == s.K && g.M == s.N:
		k.SumA = true
	default:
		return nil
	}
	e.group = nil
	for _, l := range gr.leaves { // the product holds the summed tensor now
		l.st.readers.remove(gr)
		l.st.release()
	}
	return s
}

// deferSum makes out, the sums of x's K×N view over its K rows (Sum over
// x's leading dimensions), a pending group of its own instead of
// dispatching it, so that a product recorded next that reads x as its K×N
// operand computes them (takeSumLocked): a bias's gradient is such a sum
// of the output's gradient, and the weight's gradient the product. If
// anything else comes first, the sum is dispatched as Sum dispatches it
// (dispatchSum). It reports false, deferring nothing, where fusion is off.
func (e *Engine) deferSum(out, x *Tensor, K, N int) bool {
	x.st.materialize()
	if x.st.err() != nil {
		return false
	}
	e.fuseMu.Lock()
	defer e.fuseMu.Unlock()
	if !e.fuse {
		return false
	}
	_ = e.flushGroupLocked()
	gr := &group{e: e, shape: out.shape}
	x.st.retain()
	x.st.readers.add(gr)
	gr.leaves = []leaf{{st: x.st, dtype: Float32, operand: true}}
	n := &node{g: gr, index: -1, st: out.st}
	gr.sum = &colSum{n: n, x: x.st, K: K, N: N}
	gr.live = 1
	out.st.pending.Store(n)
	e.group = gr
	return true
}

// dispatchSum dispatches s as Sum would have (reduceSegment: deferSum
// takes no K past kernels.MatMulKRange, below ReduceSegment), writing out.
func (e *Engine) dispatchSum(s *colSum, out *wgpu.Buffer) error {
	o := &op{e: e, name: "sum"}
	return o.reduceSegment(kernels.Sum, kernels.F32, kernels.Word, s.N, s.K, s.N, s.x.buf, out)
}

// materialize dispatches the group whose op writes s, if one is pending.
func (s *storage) materialize() {
	n := s.pending.Load()
	if n == nil {
		return
	}
	e := n.g.e
	e.fuseMu.Lock()
	defer e.fuseMu.Unlock()
	if s.pending.Load() == n && e.group == n.g {
		_ = e.flushGroupLocked() // a failure is recorded on s
	}
}

// flushGroupLocked dispatches e's group as one kernel: the results some
// tensor still holds are written, and of the rest only what they need is
// computed. On failure the error is recorded on every result it should
// have written, and returned.
func (e *Engine) flushGroupLocked() error {
	g := e.group
	if g == nil {
		return nil
	}
	e.group = nil
	// Hold every result that is still alive, so that a concurrent Dispose
	// cannot give its buffer away before the dispatch names it.
	store := make([]bool, len(g.nodes))
	need := make([]bool, len(g.nodes))
	for i := len(g.nodes) - 1; i >= 0; i-- {
		n := g.nodes[i]
		if !n.dead && n.st.retainIfAlive() {
			store[i] = true
		}
		if store[i] || need[i] {
			need[i] = true
			for _, a := range n.op.Args {
				if !a.Leaf {
					need[a.Index] = true
				}
			}
		}
	}
	sumStore := g.sum != nil && !g.sum.n.dead && g.sum.n.st.retainIfAlive()
	var err error
	switch {
	case g.head != nil && (need[0] || sumStore):
		err = g.dispatchProduct(store, need, sumStore)
	case g.sum != nil && sumStore:
		err = e.dispatchSum(g.sum, g.sum.n.st.buf)
	default:
		if prog, params, meta, bufs := g.program(store, need, false); len(prog.Nodes) > 0 {
			err = e.dispatchElementwise(prog, params, meta, bufs, g.shape)
		}
	}
	if g.sum != nil {
		g.sum.n.st.pending.CompareAndSwap(g.sum.n, nil)
		if sumStore {
			if err != nil {
				g.sum.n.st.failed.Store(&err)
			}
			g.sum.n.st.release()
		}
	}
	for i, n := range g.nodes {
		n.st.pending.CompareAndSwap(n, nil)
		if store[i] {
			if err != nil {
				n.st.failed.Store(&err)
			}
			n.st.release()
		}
	}
	for _, l := range g.leaves {
		l.st.readers.remove(g)
		l.st.release()
	}
	return err
}

// program builds the kernel for the needed nodes of g, writing the stored
// ones, with each node's parameters, the metadata and the buffers to bind.
// With epilogue, it builds g's head's epilogue instead: the head's result
// is the program's Product leaf, not a node, and the buffers are those
// the program binds (see kernels.MatMulEpilogue).
func (g *group) program(store, need []bool, epilogue bool) (kernels.Elementwise, []kernels.NodeParams, []uint32, []*wgpu.Buffer) {
	prog := kernels.Elementwise{Rank: len(g.shape)}
	leafIndex := make([]int, len(g.leaves)) // -1: not read
	nodeIndex := make([]int, len(g.nodes))
	for i := range leafIndex {
		leafIndex[i] = -1
	}
	if epilogue {
		prog.Leaves = append(prog.Leaves, kernels.Leaf{Type: kernels.F32, Product: true})
	}
	var bufs, outs []*wgpu.Buffer
	var meta []uint32
	var params []kernels.NodeParams
	var stridedLeaves [][]int
	for i, n := range g.nodes {
		if !need[i] || epilogue && i == 0 {
			continue
		}
		op := n.op
		op.Store = store[i]
		op.Args = make([]kernels.Ref, len(n.op.Args))
		for j, a := range n.op.Args {
			if epilogue && !a.Leaf && a.Index == 0 {
				op.Args[j] = kernels.Ref{Leaf: true, Index: 0} // the product
				continue
			}
			if !a.Leaf {
				op.Args[j] = kernels.Ref{Index: nodeIndex[a.Index]}
				continue
			}
			if leafIndex[a.Index] < 0 {
				l := g.leaves[a.Index]
				leafIndex[a.Index] = len(prog.Leaves)
				prog.Leaves = append(prog.Leaves, kernels.Leaf{Type: l.dtype.wgsl(), Storage: l.dtype.storage(), Strided: l.strides != nil})
				bufs = append(bufs, l.st.buf)
				if l.strides != nil {
					stridedLeaves = append(stridedLeaves, l.strides)
				}
			}
			op.Args[j] = kernels.Ref{Leaf: true, Index: leafIndex[a.Index]}
		}
		nodeIndex[i] = len(prog.Nodes)
		prog.Nodes = append(prog.Nodes, op)
		params = append(params, n.params)
		if op.Store {
			outs = append(outs, n.st.buf)
		}
	}
	if len(stridedLeaves) > 0 {
		meta = u32s(g.shape)
		for _, s := range stridedLeaves {
			meta = append(meta, u32s(s)...)
		}
	}
	if epilogue {
		return prog, params, meta, append(bufs, outs...)
	}
	prog.Vec4 = vec4Reads(g.shape, stridedLeaves)
	if prog.Vec4 {
		for i := range prog.Leaves {
			prog.Leaves[i].Splat = prog.Leaves[i].Strided && stridedLeaves[stridedIndex(prog.Leaves, i)][len(g.shape)-1] == 0
		}
	}
	return prog, params, meta, append(bufs, outs...)
}

// dispatchProduct dispatches g's head with the needed nodes of g as its
// epilogue (there may be none), writing the head's result if store[0],
// the other stored nodes, and with sum g's sum. Its kernel sums the whole
// inner dimension in each dispatch, as deferProduct made sure it could.
func (g *group) dispatchProduct(store, need []bool, sum bool) error {
	e, h := g.e, g.head
	prog, params, meta, bufs := g.program(store, need, true)
	fixed := []*wgpu.Buffer{g.leaves[0].st.buf, g.leaves[1].st.buf}
	if store[0] {
		fixed = append(fixed, g.nodes[0].st.buf)
	}
	k := h.k
	if !sum {
		k.SumA, k.SumB = false, false
	} else {
		fixed = append(fixed, g.sum.n.st.buf)
	}
	bufs = append(fixed, bufs...)
	ep := kernels.MatMulEpilogue{MatMul: k, Program: prog, StoreC: store[0]}
	name, key, spec := ep.Name(), ep.Key(), ep.Spec
	var t tiler = ep
	alone := len(prog.Nodes) == 0 && store[0] // the product alone: its own kernel
	if alone {
		name, key, spec, t = "matmul", k.Key(), k.Spec, k
	}
	fail := func(err error) error { return &OpError{Op: name, Shapes: []Shape{g.shape}, Err: err} }
	kern, err := e.dev.KernelFor(key, spec)
	if err != nil {
		return fail(err)
	}
	mg := h.g
	for _, pc := range e.tilePieces(t, mg.M, mg.N, mg.K, mg.batches, mg.K) {
		p := mg.params(pc)
		block := p.Bytes()
		if !alone {
			block = ep.Params(p, params, meta)
		}
		if err := e.dev.DispatchWork(kern, pc.groups, pc.work, block, bufs...); err != nil {
			return fail(err)
		}
	}
	return nil
}

// vec4Reads reports whether a program over shape whose strided leaves
// have these strides can compute four elements per thread (see
// kernels.Elementwise.Vec4): a multiple of four elements, and each strided
// leaf either constant along the last axis, or read as whole aligned
// vec4s along it.
func vec4Reads(shape Shape, strides [][]int) bool {
	if shape.Size()%4 != 0 {
		return false
	}
	if len(strides) == 0 {
		return true
	}
	last := len(shape) - 1
	if shape[last]%4 != 0 {
		return false
	}
	for _, s := range strides {
		if s[last] == 0 {
			continue
		}
		if s[last] != 1 {
			return false
		}
		for _, d := range s[:last] {
			if d%4 != 0 {
				return false
			}
		}
	}
	return true
}

// stridedIndex is the index of leaf i among the strided leaves.
func stridedIndex(leaves []kernels.Leaf, i int) int {
	n := 0
	for _, l := range leaves[:i] {
		if l.Strided {
			n++
		}
	}
	return n
}

// dispatchElementwise compiles (once per device) and records prog over
// shape's elements.
func (e *Engine) dispatchElementwise(prog kernels.Elementwise, params []kernels.NodeParams, meta []uint32, bufs []*wgpu.Buffer, shape Shape) error {
	fail := func(err error) error { return &OpError{Op: prog.Name(), Shapes: []Shape{shape}, Err: err} }
	size, per := shape.Size(), prog.ElementsPerThread()
	n := (size + per - 1) / per // threads
	pieces, err := e.split(n, prog.ThreadWork(), kernels.WorkgroupSize)
	if err != nil {
		return opErr(prog.Name(), []Shape{shape}, wgpu.ErrLimit, "%v", err)
	}
	k, err := e.dev.KernelFor(prog.Key(), prog.Spec)
	if err != nil {
		return fail(err)
	}
	for _, pc := range pieces {
		end := uint32(pc.end)
		if per > 1 && !prog.Vec4 { // a group's kernel counts elements: the last group may end early
			end = uint32(min(per*pc.end, size))
		}
		p := prog.Params(uint32(pc.first), end, pc.row, params, meta)
		if err := e.dev.DispatchWork(k, pc.groups, pc.work, p, bufs...); err != nil {
			return fail(err)
		}
	}
	return nil
}
