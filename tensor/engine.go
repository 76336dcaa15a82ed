package tensor

import (
	"os"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/wgtensor/wgtensor/internal/callsite"
	"github.com/wgtensor/wgtensor/internal/goroutine"
	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Engine creates tensors on one device and runs ops on them. Engines are
// cheap: create one per goroutine that computes.
//
// An Engine is used by one goroutine at a time, like a *sql.Tx. Two
// goroutines calling ops on one Engine at once is detected: the op that
// loses returns a tensor carrying ErrConcurrentUse. While a tracker (a
// tidy scope) is pushed, the Engine belongs to the goroutine that pushed it,
// until that goroutine pops the last one: ops from any other goroutine fail
// with ErrConcurrentUse even while the owner waits between ops, so nothing
// lands in a scope but what its own goroutine creates. Dispose, Err, Shape,
// readbacks, Flush and the reporting methods (LiveTensors, NumTensors,
// Memory) are safe from any goroutine. The Device under many Engines is
// shared and safe for concurrent use.
//
// Make Engines with New. A nil *Engine, the zero Engine and one made on a
// nil device compute nothing: their ops return tensors carrying
// ErrArgument, and their reporting methods report nothing.
type Engine struct {
	dev *wgpu.Device
	f32 wgpu.Float32Behavior // dev's, as the elementwise kernels adapt to it (kernels.Numerics)
	// numerics is the numerics library for f32 (kernels.Numerics), made once.
	numerics string
	busy     atomic.Int32 // 1 while an op runs or PushTracker sets the owner
	// owner is the goroutine (goroutine.Current) whose trackers are pushed,
	// 0 when there are none. It changes under mu, with trackers; ops read it
	// without the lock.
	owner atomic.Uintptr

	mu       sync.Mutex // protects the fields below and recorders
	live     map[*Tensor]struct{}
	trackers []tidy.Tracker
	cat      Category // what new tensors are for (WithCategory); 0: told by their op
	scope    string   // the labels around the ops (Label)

	recorderState // record.go

	fuseMu sync.Mutex // protects the fields below; taken before mu and the device's locks
	fuse   bool       // fuse elementwise ops (fusion.go)
	// cheapEpilogues: products take only cheap ops that read them as
	// their epilogues, as on CPU adapters (see epilogueTakes).
	cheapEpilogues bool
	group          *group // the elementwise ops recorded and not yet dispatched

	hooks testHooks
}

// testHooks run at fixed points of an op or a readback, so that tests can
// build a race as an explicit sequence instead of hoping goroutines
// overlap. export_test.go sets them before the engine is used; they are nil
// otherwise.
type testHooks struct {
	claimed func() // an op has claimed the engine
	checked func() // an op or a readback has checked its inputs
	rows    string // "thread", "group" or "": the row kernels' choice (see rowKernel)
}

// runHook calls h if it is set.
func runHook(h func()) {
	if h != nil {
		h()
	}
}

var nextID atomic.Uint64

// New returns an Engine computing on d. Elementwise ops are fused unless
// WGT_FUSE=0 (see SetFusion). WGT_EPILOGUE=gpu or cpu makes products take
// the epilogues of a GPU or of a CPU adapter whatever d is (see MatMul),
// for comparisons.
func New(d *wgpu.Device) *Engine {
	f32 := d.Float32()
	cpu := d.Info().Type == wgpu.AdapterCPU
	switch os.Getenv("WGT_EPILOGUE") {
	case "gpu":
		cpu = false
	case "cpu":
		cpu = true
	}
	return &Engine{dev: d, f32: f32, numerics: kernels.Numerics(f32), live: make(map[*Tensor]struct{}), fuse: os.Getenv("WGT_FUSE") != "0",
		cheapEpilogues: cpu}
}

// Device returns the device e computes on (nil for a nil or zero Engine).
func (e *Engine) Device() *wgpu.Device {
	if e == nil {
		return nil
	}
	return e.dev
}

// PushTracker makes tr see every tensor e creates until PopTracker.
// Trackers nest; only the innermost sees a new tensor. The calling goroutine
// owns e until it pops its last tracker: meanwhile ops and PushTracker from
// any other goroutine fail with ErrConcurrentUse. PushTracker fails so too,
// pushing nothing, while another goroutine's op runs on e or another
// goroutine owns e. Each successful push must be matched by a PopTracker on
// the same goroutine (tidy.Run does both). On a nil or zero Engine, which
// creates nothing, PushTracker fails with ErrArgument.
func (e *Engine) PushTracker(tr tidy.Tracker) error {
	if err := e.usable("push tracker"); err != nil {
		return err
	}
	if why := e.claim(); why != "" {
		return opErr("push tracker", nil, ErrConcurrentUse, "%s", why)
	}
	e.mu.Lock()
	e.trackers = append(e.trackers, tr)
	e.owner.Store(goroutine.Current())
	e.mu.Unlock()
	e.busy.Store(0)
	return nil
}

// PopTracker removes the tracker pushed last, if the calling goroutine owns
// e (pushed it); from any other goroutine it does nothing. Popping the last
// tracker frees e for any goroutine.
func (e *Engine) PopTracker() {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.ownedByCaller() {
		return
	}
	n := len(e.trackers)
	e.trackers[n-1] = nil
	e.trackers = e.trackers[:n-1]
	if n == 1 {
		e.owner.Store(0)
	}
}

// Retrack hands x to the innermost tracker, if the calling goroutine owns
// e: a scope that ends passes the tensors it returns to the scope around
// it, and never to a scope another goroutine opened since.
func (e *Engine) Retrack(x tidy.Disposable) {
	if e == nil {
		return
	}
	e.mu.Lock()
	var top tidy.Tracker
	if e.ownedByCaller() {
		top = e.trackers[len(e.trackers)-1]
	}
	e.mu.Unlock()
	if top != nil {
		top.Track(x)
	}
}

// ownedByCaller reports whether the calling goroutine owns e (has trackers
// pushed).
func (e *Engine) ownedByCaller() bool {
	o := e.owner.Load()
	return o != 0 && o == goroutine.Current()
}

// ownedByAnother reports whether a goroutine other than the caller owns e.
func (e *Engine) ownedByAnother() bool {
	o := e.owner.Load()
	return o != 0 && o != goroutine.Current()
}

// claim takes e for an op (or a push) of the calling goroutine, or returns
// why it cannot. The owner is checked again once e is held, since a push
// may have ended in between; a push sets the owner while it holds e.
func (e *Engine) claim() (whyNot string) {
	const owned = "another goroutine's tidy scope is open on the engine"
	if e.ownedByAnother() {
		return owned
	}
	if !e.busy.CompareAndSwap(0, 1) {
		return "another goroutine's op is running on the engine"
	}
	if e.ownedByAnother() {
		e.busy.Store(0)
		return owned
	}
	return ""
}

// NumTensors returns how many tensors are live (created and not disposed).
func (e *Engine) NumTensors() int {
	if e == nil {
		return 0
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.live)
}

// TensorInfo describes a live tensor.
type TensorInfo struct {
	ID    uint64
	Shape Shape
	DType DType
	Bytes uint64 // the bytes of its storage (shared storage is counted for each tensor)
	Site  Site   // where it was created
}

// LiveTensors lists the live tensors in creation order.
func (e *Engine) LiveTensors() []TensorInfo {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	out := make([]TensorInfo, 0, len(e.live))
	for t := range e.live {
		out = append(out, TensorInfo{ID: t.id, Shape: t.shape.clone(), DType: t.dtype, Bytes: t.bytes(), Site: Site{t.site}})
	}
	e.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// stack is where an op was called: the stack of its callers, innermost
// first, which reports search for the first frame outside wgtensor.
type stack = callsite.Stack

// callerSite returns the call stack above the public op that called
// callerSite, starting at that op's caller. It allocates nothing: the
// symbols are looked up when a report asks.
func callerSite() stack { return callsite.Capture(2) }

// op is one call of an op: its name, inputs and the site that called it.
type op struct {
	e      *Engine
	name   string
	site   stack
	inputs []*Tensor
	held   []*storage   // the inputs' storage, referenced until end
	heldIn [3]*storage  // held's first elements, saving an allocation per op
	made   []tracked    // the tensors it made, for the tracker that was innermost
	rec    *recorderBox // the recorder listening when it began, usually none
	outs   []*Tensor    // the tensors it made, while rec listens
	attrs  *Attrs       // its arguments: for rec, or the engine's scratch
	// aside dispatches the op's kernel at once, beside the fused ops the
	// engine holds back, where it reads none of their results (see
	// Engine.recordAside): a recorder's saved copy.
	aside bool
}

// tracked is a tensor an op made and the tracker to tell about it.
type tracked struct {
	tr tidy.Tracker
	t  *Tensor
}

// begin starts an op that reads its inputs' buffers: it claims the engine,
// checks the inputs and holds their storage (beginLazy), then dispatches
// the fused ops still pending that write them. A non-nil result is the
// tensor to return at once (carrying an error).
func (e *Engine) begin(name string, site stack, inputs ...*Tensor) (*op, *Tensor) {
	o, bad := e.beginLazy(name, site, inputs...)
	if bad != nil {
		return nil, bad
	}
	for i, t := range inputs {
		if t.dtype.narrow() && !takesNarrow[name].has(t.dtype) { // the elementwise ops and views read them; of the others, these
			o.end()
			return nil, e.errTensor(opErr(name, o.shapes(), ErrDType, "input %d is %s, which %s does not take: Cast it to float32 first", i, t.dtype, name))
		}
	}
	for _, t := range inputs {
		t.st.materialize()
		if err := t.st.err(); err != nil {
			o.end()
			return nil, e.errTensor(err)
		}
	}
	return o, nil
}

// narrowSet is a set of the narrow dtypes: halfWidth (float16 and
// bfloat16) and int8.
type narrowSet uint8

const (
	halfWidth narrowSet = 1 << iota
	int8s
	anyNarrow = halfWidth | int8s
)

// has reports whether s holds the narrow dtype d.
func (s narrowSet) has(d DType) bool {
	if d == Int8 {
		return s&int8s != 0
	}
	return s&halfWidth != 0
}

// takesNarrow names the ops begin lets take narrow tensors, and which:
// those that move elements of storage take every one; the reductions,
// softmax, layer norm and attention take the half-width floats; a product
// takes float16 and bfloat16 operands, and int8 weights (see MatMul), as
// a convolution does (Conv2D).
var takesNarrow = map[string]narrowSet{"write bytes": anyNarrow, "copy": anyNarrow, "transpose": anyNarrow, "slice": anyNarrow, "broadcast_to": anyNarrow,
	"concat": anyNarrow, "stack": anyNarrow, "split": anyNarrow, "pad": anyNarrow, "gather": anyNarrow, "matmul": anyNarrow, "conv2d": anyNarrow,
	"sum": halfWidth, "mean": halfWidth, "prod": halfWidth, "max": halfWidth, "min": halfWidth, "argmax": halfWidth, "argmin": halfWidth,
	"softmax": halfWidth, "log_softmax": halfWidth, "layer_norm": halfWidth, "max_pool2d": halfWidth, "avg_pool2d": halfWidth,
	"scaled_dot_product_attention": halfWidth, "scaled_dot_product_attention_packed": halfWidth}

// beginLazy is begin for ops that leave pending inputs pending: elementwise
// ops, which fuse with the ops that make their inputs, and views, which
// only share storage.
//
// It checks everything before it claims the engine, so that nothing can
// panic between the claim and the caller's deferred o.end: a panic later
// in the op runs that defer, and an Engine is never left claimed.
func (e *Engine) beginLazy(name string, site stack, inputs ...*Tensor) (*op, *Tensor) {
	o := &op{e: e, name: name, site: site, inputs: inputs}
	if err := o.check(); err != nil {
		return nil, e.errTensor(err)
	}
	if why := e.claim(); why != "" {
		return nil, e.errTensor(opErr(name, o.shapes(), ErrConcurrentUse, "%s", why))
	}
	runHook(e.hooks.claimed)
	o.rec, o.attrs = e.listening(), &e.scratch
	if o.rec != nil {
		o.attrs = &Attrs{}
	}
	if err := o.holdInputs(); err != nil {
		o.end()
		return nil, e.errTensor(err)
	}
	runHook(e.hooks.checked)
	return o, nil
}

// check returns the error the op fails with before it claims the engine:
// its engine cannot compute, or an input is not a tensor of its device.
func (o *op) check() error {
	if err := o.e.usable(o.name); err != nil {
		return err
	}
	for i, t := range o.inputs {
		switch {
		case !t.made():
			return opErr(o.name, o.shapes(), ErrArgument, "input %d is a nil or zero Tensor", i)
		case t.err != nil:
			return t.err
		case t.eng != nil && t.eng.dev != o.e.dev:
			return opErr(o.name, o.shapes(), ErrArgument, "input %d lives on another device", i)
		}
	}
	return nil
}

// usable returns the error of an op on e if e cannot compute: a nil
// Engine, a zero Engine or one made on a nil device.
func (e *Engine) usable(op string) error {
	if e == nil || e.dev == nil {
		return opErr(op, nil, ErrArgument, "nil or zero Engine: make one with tensor.New on a device")
	}
	return nil
}

// holdInputs takes a reference on the storage of each of o's inputs
// (checked already), which end gives back. An input disposed meanwhile, by any
// goroutine, so keeps its buffer until the op has recorded the work that
// reads it: the op reads its values, never those of a tensor that got the
// buffer from the pool since.
func (o *op) holdInputs() error {
	o.held = o.heldIn[:0]
	for i, t := range o.inputs {
		if !t.hold() {
			return disposedErr(o.name, o.shapes(), i, t.id)
		}
		o.held = append(o.held, t.st)
		if err := t.st.err(); err != nil {
			return err
		}
	}
	return nil
}

// end releases the engine, tells the recorder about the op while its
// inputs' storage is still held, releases that storage, then tells the
// trackers about the tensors the op made: no recorder or tracker runs
// while the engine is held.
func (o *op) end() {
	o.e.busy.Store(0)
	if o.rec != nil {
		defer o.release()
		o.recordTo(o.rec)
		return
	}
	o.release()
}

// release gives back the inputs' storage and tells the trackers.
func (o *op) release() {
	for _, st := range o.held {
		st.release()
	}
	for _, m := range o.made {
		if !m.t.IsDisposed() {
			m.tr.Track(m.t)
		}
	}
}

func (o *op) shapes() []Shape {
	s := make([]Shape, 0, len(o.inputs))
	for _, t := range o.inputs {
		if t != nil {
			s = append(s, t.shape)
		}
	}
	return s
}

// fail returns a tensor carrying an error about this op.
func (o *op) fail(kind error, format string, args ...any) *Tensor {
	return o.e.errTensor(opErr(o.name, o.shapes(), kind, format, args...))
}

// failErr returns a tensor carrying err from the device, named with the op.
func (o *op) failErr(err error) *Tensor {
	return o.e.errTensor(&OpError{Op: o.name, Shapes: o.shapes(), Err: err})
}

// alloc creates an uninitialised tensor of the given shape for this op.
func (o *op) alloc(shape Shape, dtype DType) (*Tensor, error) {
	if err := shape.check(); err != nil {
		return nil, opErr(o.name, o.shapes(), ErrShape, "result: %v", err)
	}
	n := storageBytes(shape.Size(), dtype)
	buf, err := o.e.dev.NewBufferAt(n, wgpu.UsageStorage, o.site[:])
	if err != nil {
		return nil, &OpError{Op: o.name, Shapes: o.shapes(), Detail: "allocating " + shape.String() + " " + dtype.String(), Err: err}
	}
	st := &storage{buf: buf}
	st.refs.Store(1)
	t := &Tensor{shape: shape, dtype: dtype, st: st, site: o.site}
	st.holders = []*Tensor{t}
	return o.register(t), nil
}

// register gives t its id and engine and makes it live. The innermost
// tracker hears of it when the op ends.
func (o *op) register(t *Tensor) *Tensor {
	e := o.e
	t.eng = e
	t.id = nextID.Add(1)
	e.mu.Lock()
	e.live[t] = struct{}{}
	if n := len(e.trackers); n > 0 && e.trackers[n-1] != nil {
		o.made = append(o.made, tracked{e.trackers[n-1], t})
	}
	cat, scope := e.cat, e.scope
	e.mu.Unlock()
	o.file(t, cat, scope)
	if o.rec != nil {
		o.outs = append(o.outs, t)
	}
	return t
}

// errTensor returns a tensor that carries err and holds no memory.
func (e *Engine) errTensor(err error) *Tensor {
	t := &Tensor{eng: e, id: nextID.Add(1), err: err}
	t.disposed.Store(true)
	return t
}

// record records an elementwise op computing res from in (fusion.go). It
// checks now what the dispatch, which may come much later, would refuse,
// so that the op reports it.
func (o *op) record(res *Tensor, n kernels.Node, params kernels.NodeParams, in []*Tensor) error {
	if res.shape.Size() == 0 {
		return nil
	}
	n.Storage = res.dtype.storage() // a half-width result is rounded to its width
	lim := o.e.dev.Limits()
	if _, _, err := kernels.Grid(uint64(res.shape.Size()), kernels.WorkgroupSize, lim.MaxComputeWorkgroupsPerDimension); err != nil {
		return opErr(o.name, o.shapes(), wgpu.ErrLimit, "%v", err)
	}
	for _, t := range append([]*Tensor{res}, in...) {
		if b := t.st.buf.BindingSize(); b > lim.MaxStorageBufferBindingSize {
			return opErr(o.name, o.shapes(), wgpu.ErrLimit, "a tensor of %d B, the device binds at most %d B", b, lim.MaxStorageBufferBindingSize)
		}
	}
	if o.aside {
		return o.e.recordAside(res, n, params, in)
	}
	return o.e.record(res, n, params, in)
}

// run dispatches a kernel over n threads of a one-dimensional grid (the
// copy and gather kernels), each of work each, filling p's Range: in
// several dispatches if its work passes the device's budget (see split).
func (o *op) run(key string, build func() wgpu.KernelSpec, n int, each float64, p kernels.Ranged, bufs ...*wgpu.Buffer) error {
	return o.spread(key, build, kernels.WorkgroupSize, n, each, p, bufs)
}

// spread dispatches a kernel over n items of work each: threads, or with
// wg 1 workgroups. It fills p's Range for each dispatch (see split).
func (o *op) spread(key string, build func() wgpu.KernelSpec, wg uint32, n int, each float64, p kernels.Ranged, bufs []*wgpu.Buffer) error {
	pieces, err := o.e.split(n, each, wg)
	if err != nil {
		return opErr(o.name, o.shapes(), wgpu.ErrLimit, "%v", err)
	}
	for _, pc := range pieces {
		*p.ItemRange() = kernels.Range{First: uint32(pc.first), End: uint32(pc.end), Row: pc.row}
		if err := o.dispatch(key, build, pc.groups, pc.work, p, bufs...); err != nil {
			return err
		}
	}
	return nil
}

// piece is one dispatch of a split kernel: items [first, end) over groups,
// row items per step of the grid's y.
type piece struct {
	first, end int
	groups     [3]uint32
	row        uint32
	work       wgpu.Work
}

// split cuts n items of work each, run by wg threads per workgroup
// (threads per item: 1, or wg for a workgroup per item), into pieces
// whose work stays within the device's budget, so that no submission runs
// long enough to break a CPU adapter (wgpu.Work). Each piece's grid stays
// within the device's limits.
func (e *Engine) split(n int, each float64, wg uint32) ([]piece, error) {
	lim := e.dev.Limits().MaxComputeWorkgroupsPerDimension
	step := kernels.Split(n, each, e.dev.WorkBudget(), n)
	var pieces []piece
	for first := 0; first < n; first += step {
		count := min(step, n-first)
		groups, row, err := kernels.Grid(uint64(count), wg, lim)
		if err != nil {
			return nil, err
		}
		pieces = append(pieces, piece{first: first, end: first + count, groups: groups, row: row, work: wgpu.WorkOf(float64(count) * each)})
	}
	return pieces, nil
}

// dispatch compiles (once per device) and records a kernel whose work is
// estimated at w.
func (o *op) dispatch(key string, build func() wgpu.KernelSpec, groups [3]uint32, w wgpu.Work, p kernels.Block, bufs ...*wgpu.Buffer) error {
	k, err := o.e.dev.KernelFor(key, build)
	if err != nil {
		return &OpError{Op: o.name, Shapes: o.shapes(), Err: err}
	}
	if err := o.e.dev.DispatchWork(k, groups, w, p.Bytes(), bufs...); err != nil {
		return &OpError{Op: o.name, Shapes: o.shapes(), Err: err}
	}
	return nil
}

// u32s converts ints to metadata words.
func u32s(vs ...[]int) []uint32 {
	var out []uint32
	for _, v := range vs {
		for _, x := range v {
			out = append(out, uint32(x))
		}
	}
	return out
}
