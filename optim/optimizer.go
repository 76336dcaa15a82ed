package optim

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Param is a named parameter: a float32 tensor that an optimizer updates
// in place and a checkpoint saves under Name. Names follow PyTorch's
// state-dict style ("0.weight", "layers.2.bias"); an optimizer's state for
// a parameter is named after it ("0.weight.exp_avg"). The caller owns T:
// an optimizer never disposes it.
type Param struct {
	Name string
	T    *tensor.Tensor
}

// Optimizer is what SGD, Adam, AdamW and RMSProp have in common.
type Optimizer interface {
	// Step updates every parameter whose gradient is not nil, in place,
	// several parameters per dispatch (see SGD.Step).
	Step(grads []*tensor.Tensor) error
	// Params lists the parameters, in the order Step takes their
	// gradients.
	Params() []Param
	// State lists the state tensors created so far, by name.
	State() []Param
	// SetState writes src into the state tensor called name.
	SetState(name string, src *tensor.Tensor) error
	// Steps is the step count of the parameter called name; SetSteps
	// sets it (a checkpoint's load).
	Steps(name string) int
	SetSteps(name string, n int) error
	// Dispose frees every state tensor.
	Dispose()
}

// Errors. Every error an optimizer returns wraps one of these, or the
// error of a tensor it was given (tensor.ErrShape, tensor.ErrDType,
// tensor.ErrDisposed and the like).
var (
	// ErrArgument: a bad hyperparameter, parameter list, gradient list or
	// state name.
	ErrArgument = errors.New("optim: invalid argument")
	// ErrDisposed: the optimizer was disposed.
	ErrDisposed = errors.New("optim: optimizer was disposed")
)

// slotState is the state of one parameter: its step count and its state
// tensors by slot ("exp_avg"), created at the first step that needs them.
type slotState struct {
	steps int
	slots map[string]*tensor.Tensor
}

// base holds what every optimizer keeps: the engine, the parameters and
// their state, the parameter groups (as index ranges of params), and the
// kernels compiled for the configurations seen.
type base struct {
	e        *tensor.Engine
	kind     string
	params   []Param
	state    []slotState
	starts   []int // starts[g] is the index in params of group g's first parameter
	kernels  map[string]tensor.Kernel
	disposed bool
	steps    int // steps taken, for the memory history's markers
	// cpu: the device is a CPU adapter (lavapipe, llvmpipe), which runs
	// masked lanes at the cost of real ones: it decides how parameters
	// share launches (see batches and run).
	cpu bool
}

// newBase checks params as one group (see newGroups).
func newBase(e *tensor.Engine, kind string, params []Param) (base, error) {
	return newGroups(e, kind, [][]Param{params})
}

// newGroups checks groups: at least one, none empty unless it is the only
// one (a single group of no parameters is an optimizer that does
// nothing, as before groups), each parameter named, names unique within
// and across groups, each a live float32 tensor of e's device, no two the
// same tensor or sharing their storage (a view of another: both would be
// updated, the second over the first). With several groups, errors name
// the group.
func newGroups(e *tensor.Engine, kind string, groups [][]Param) (base, error) {
	b := base{e: e, kind: kind, kernels: map[string]tensor.Kernel{}}
	for _, g := range groups {
		b.starts = append(b.starts, len(b.params))
		b.params = append(b.params, g...)
	}
	b.state = make([]slotState, len(b.params))
	if e.Device() == nil {
		return b, b.errorf(ErrArgument, "nil or zero engine")
	}
	b.cpu = e.Device().Info().Type == wgpu.AdapterCPU
	if len(groups) == 0 {
		return b, b.errorf(ErrArgument, "no parameter groups")
	}
	seen := map[string]int{}
	tensors := map[*tensor.Tensor]string{}
	for g, ps := range groups {
		where := b.where(g)
		if len(ps) == 0 && len(groups) > 1 {
			return b, b.errorf(ErrArgument, "group %d has no parameters", g)
		}
		for i, p := range ps {
			if p.Name == "" {
				return b, b.errorf(ErrArgument, "%sparameter %d has no name", where, i)
			}
			if other, ok := seen[p.Name]; ok {
				switch {
				case len(groups) == 1:
					return b, b.errorf(ErrArgument, "two parameters are named %q", p.Name)
				case other == g:
					return b, b.errorf(ErrArgument, "group %d names parameter %q twice", g, p.Name)
				default:
					return b, b.errorf(ErrArgument, "group %d: parameter %q is in group %d too; a parameter belongs to one group", g, p.Name, other)
				}
			}
			seen[p.Name] = g
			if err := b.checkParam(p, where); err != nil {
				return b, err
			}
			if other, ok := tensors[p.T]; ok {
				return b, b.errorf(ErrArgument, "%sparameters %s and %q are the same tensor", where, other, p.Name)
			}
			tensors[p.T] = b.paramName(b.index(p.Name))
		}
	}
	writes := make([]use, len(b.params))
	for i, p := range b.params {
		writes[i] = use{t: p.T, what: "parameter " + b.paramName(i)}
	}
	if err := b.checkAliasing(nil, writes); err != nil {
		return b, err
	}
	for _, p := range b.params { // what an optimizer trains is a parameter
		tensor.SetCategory(p.T, tensor.CategoryParameter)
	}
	return b, nil
}

// where is the prefix of an error about group g: "group 1: " with
// several groups, empty with one.
func (b *base) where(g int) string {
	if len(b.starts) < 2 {
		return ""
	}
	return fmt.Sprintf("group %d: ", g)
}

// paramName quotes the name of parameter i, followed by its group's
// number where there are several groups: `"0.bias" (group 1)`.
func (b *base) paramName(i int) string {
	if len(b.starts) < 2 {
		return fmt.Sprintf("%q", b.params[i].Name)
	}
	return fmt.Sprintf("%q (group %d)", b.params[i].Name, b.groupOf(i))
}

// groupOf is the group of parameter i.
func (b *base) groupOf(i int) int {
	g, found := slices.BinarySearch(b.starts, i) // several groups: none empty, starts increase
	if !found {
		g--
	}
	return g
}

// groupRange is the range of params that group g holds.
func (b *base) groupRange(g int) (from, to int) {
	from, to = b.starts[g], len(b.params)
	if g+1 < len(b.starts) {
		to = b.starts[g+1]
	}
	return from, to
}

// checkGroup returns the error of naming group g, for op (what the caller
// was doing: "set lr").
func (b *base) checkGroup(op string, g int) error {
	if g < 0 || g >= len(b.starts) {
		return b.errorf(ErrArgument, "%s: group %d of %d", op, g, len(b.starts))
	}
	return nil
}

// NumGroups returns the number of parameter groups: 1 for an optimizer
// made without groups.
func (b *base) NumGroups() int { return len(b.starts) }

// GroupParams returns the parameters of group g, in the order Step takes
// their gradients (Params lists every group's, group after group), or
// nil if there is no group g.
func (b *base) GroupParams(g int) []Param {
	if g < 0 || g >= len(b.starts) {
		return nil
	}
	from, to := b.groupRange(g)
	return slices.Clone(b.params[from:to])
}

func (b *base) errorf(kind error, format string, args ...any) error {
	return fmt.Errorf("optim: %s: %s: %w", b.kind, fmt.Sprintf(format, args...), kind)
}

// checkParam returns the error updating p would fail with now; where
// (see base.where) names its group in the constructor's errors.
func (b *base) checkParam(p Param, where string) error {
	t := p.T
	switch {
	case t == nil:
		return b.errorf(ErrArgument, "%sparameter %q is nil", where, p.Name)
	case t.Err() != nil:
		return fmt.Errorf("optim: %s: %sparameter %q: %w", b.kind, where, p.Name, t.Err())
	case t.IsDisposed():
		return fmt.Errorf("optim: %s: %sparameter %q: %w", b.kind, where, p.Name, tensor.ErrDisposed)
	case t.DType() == tensor.Int8:
		return fmt.Errorf("optim: %s: %sparameter %q is int8 %v, a quantized weight, which cannot be trained (dequantize the model first: nn.DequantizeInt8): %w", b.kind, where, p.Name, t.Shape(), tensor.ErrDType)
	case t.DType() != tensor.Float32:
		return fmt.Errorf("optim: %s: %sparameter %q is %s %v; optimizers update float32: %w", b.kind, where, p.Name, t.DType(), t.Shape(), tensor.ErrDType)
	case t.Engine().Device() != b.e.Device():
		return b.errorf(ErrArgument, "%sparameter %q lives on another device than the optimizer's engine", where, p.Name)
	}
	return nil
}

// checkLike returns the error of using g, described by what (the
// gradient of p, a state of p), for p: g must be a live tensor of p's
// shape and dtype.
func (b *base) checkLike(what string, p Param, g *tensor.Tensor) error {
	switch {
	case g == nil:
		return fmt.Errorf("optim: %s: %s is nil: %w", b.kind, what, ErrArgument)
	case g.Err() != nil:
		return fmt.Errorf("optim: %s: %s: %w", b.kind, what, g.Err())
	case g.IsDisposed():
		return fmt.Errorf("optim: %s: %s: %w", b.kind, what, tensor.ErrDisposed)
	case g.DType() != p.T.DType():
		return fmt.Errorf("optim: %s: %s is %s, the parameter %s: %w", b.kind, what, g.DType(), p.T.DType(), tensor.ErrDType)
	case !g.Shape().Equal(p.T.Shape()):
		return fmt.Errorf("optim: %s: %s is %v, the parameter %v: %w", b.kind, what, g.Shape(), p.T.Shape(), tensor.ErrShape)
	case g.Engine().Device() != b.e.Device():
		return fmt.Errorf("optim: %s: %s lives on another device than the parameter: %w", b.kind, what, ErrArgument)
	}
	return nil
}

// update is one optimizer's rule for a step: the state slots it needs
// under the current hyperparameters, in binding order, the kernel for
// those slots, and the kernel's hyperparameters (spec.members) for a
// parameter at its step (counted from 1) whose state was just created
// (fresh) or not.
type update struct {
	slots  []string
	spec   kernelSpec
	params func(step int, fresh bool) []float32
}

// item is a parameter a step updates: its index, its gradient, its
// update, the number of elements of its kernel's width, and whether its
// state was created by this step.
type item struct {
	i     int
	g     *tensor.Tensor
	u     update
	n     int
	fresh bool
}

// batch is parameters updated by one kernel launch: their update's slots
// and element width are the same (their groups and hyperparameters may
// differ).
type batch struct {
	items []item
	width int
}

// step checks every parameter and gradient first, so that a bad one
// updates nothing, then creates the state that does not exist yet (a
// failure there updates nothing and forgets the state it created), then
// updates every parameter whose gradient is not nil (as PyTorch skips a
// parameter whose grad is None) with its group's update (us[g] for group
// g), several parameters per kernel launch (see batches), whatever their
// groups. The engine may cut a launch into several dispatches within its
// work budget. A launch that fails updates none of its parameters; the
// step forgets the state it created for them and for the parameters of
// the launches after it, and returns.
func (b *base) step(grads []*tensor.Tensor, us []update) error {
	if b.disposed {
		return b.errorf(ErrDisposed, "step")
	}
	if len(grads) != len(b.params) {
		return b.errorf(ErrArgument, "%d gradients for %d parameters", len(grads), len(b.params))
	}
	var reads, writes []use
	for i, g := range grads {
		if g == nil {
			continue
		}
		p := b.params[i]
		if err := b.checkParam(p, ""); err != nil {
			return err
		}
		what := fmt.Sprintf("gradient of %q", p.Name)
		if err := b.checkLike(what, p, g); err != nil {
			return err
		}
		reads = append(reads, use{t: g, what: what})
		writes = append(writes, use{t: p.T, what: fmt.Sprintf("parameter %q", p.Name)})
		for _, s := range us[b.groupOf(i)].slots {
			if st := b.state[i].slots[s]; st != nil {
				writes = append(writes, use{t: st, what: fmt.Sprintf("state %q", p.Name+"."+s)})
			}
		}
	}
	if len(reads) == 0 {
		return nil
	}
	if err := b.checkAliasing(reads, writes); err != nil {
		return err
	}
	items := make([]item, 0, len(reads))
	created := map[int][]string{}
	forget := func(items []item) {
		for _, it := range items {
			b.forget(it.i, created[it.i])
		}
	}
	for i, g := range grads {
		if g == nil {
			continue
		}
		u := us[b.groupOf(i)]
		c, err := b.ensure(i, u.slots)
		created[i] = c
		items = append(items, item{i: i, g: g, u: u, n: g.Size() / widthFor(g.Size()), fresh: len(c) > 0})
		if err != nil {
			forget(items) // nothing was updated: the state is as the step found it
			return err
		}
	}
	batches := b.batches(items)
	for k, bt := range batches {
		if err := b.run(bt); err != nil {
			for _, later := range batches[k:] {
				forget(later.items) // the next step creates them afresh
			}
			return err
		}
		for _, it := range bt.items {
			b.state[it.i].steps++
		}
	}
	b.steps++
	if d := b.e.Device(); d.Recording() {
		d.MarkHistory(fmt.Sprintf("%s step %d", b.kind, b.steps))
	}
	return nil
}

// batches cuts items into launches of items of the same slots and width,
// taken from the largest to the smallest (of equal sizes, in their
// order), at most batchLimit of them per launch. On a GPU a launch takes
// as many as it binds. On a CPU adapter, which walks every parameter of a
// launch, and every unused slot of its kernel (see batchWidth), up to the
// largest's size, masked, at about the cost of real updates (see
// kernelSpec.batchKernel), a launch takes the most items whose masked
// work stays within cpuWaste floats per item beside the first: parameters
// of equal sizes and small ones share launches, a large one beside much
// smaller ones keeps its own. The launches are in the order of their
// kinds' first items, largest first.
func (b *base) batches(items []item) []*batch {
	var kinds []string
	byKind := map[string][]item{}
	for _, it := range items {
		key := fmt.Sprintf("%s/x%d", strings.Join(it.u.slots, ","), widthFor(it.g.Size()))
		if _, ok := byKind[key]; !ok {
			kinds = append(kinds, key)
		}
		byKind[key] = append(byKind[key], it)
	}
	var out []*batch
	for _, key := range kinds {
		its := byKind[key]
		slices.SortStableFunc(its, func(x, y item) int { return y.n - x.n })
		width := widthFor(its[0].g.Size())
		limit := batchLimit(b.e, len(its[0].u.slots))
		for len(its) > 0 {
			n := min(limit, len(its))
			if b.cpu {
				threads := threadsFor(its[0].n)
				idle, size, best := masked(its[0].n, threads), its[0].n, 1
				for m := 2; m <= n; m++ {
					idle += masked(its[m-1].n, threads) // trips of the first m run masked
					size += its[m-1].n
					waste := (idle+(batchWidth(m, limit)-m)*threads)*width + size*width/cpuLoopCost
					if waste <= (m-1)*cpuWaste {
						best = m
					}
				}
				n = best
			}
			out = append(out, &batch{items: its[:n:n], width: width})
			its = its[n:]
		}
	}
	return out
}

// kernel returns spec's kernel for k parameters of elements of width
// floats, generating it once per optimizer.
func (b *base) kernel(spec kernelSpec, width, k int) tensor.Kernel {
	key := fmt.Sprintf("%s/%s/x%d/k%d", spec.name, strings.Join(spec.slots, ","), width, k)
	kern, ok := b.kernels[key]
	if !ok {
		kern = spec.batchKernel(width, k)
		b.kernels[key] = kern
	}
	return kern
}

// run launches bt's kernel (see kernelSpec.batchKernel), or with one
// parameter the per-parameter kernel (see runOne), binding each
// parameter's gradient, the parameter and its state, with each one's size
// and hyperparameters in the uniform block, over a thread per
// elemsPerThread elements of the largest parameter on a CPU adapter (as
// the per-parameter kernel), a thread per element on a GPU (more
// parallelism; each invocation then takes one element of each
// parameter). A batch smaller than its kernel is padded: the missing
// gradients are the first one again (bound read-only twice), the missing
// parameters and slots placeholder outputs of 4 floats that the kernel
// never touches (their sizes are 0), disposed at once (their buffers go
// back to the pool).
func (b *base) run(bt *batch) error {
	if len(bt.items) == 1 {
		return b.runOne(bt.items[0])
	}
	spec := bt.items[0].u.spec
	per := 1 + len(spec.slots)
	k := batchWidth(len(bt.items), batchLimit(b.e, len(spec.slots)))
	h4 := spec.hyperVec4s()
	inputs := make([]*tensor.Tensor, k)
	inOut := make([]*tensor.Tensor, 0, len(bt.items)*per)
	outputs := make([]tensor.Out, (k-len(bt.items))*per)
	for j := range outputs {
		outputs[j] = tensor.Out{Shape: tensor.Shape{4}, DType: tensor.Float32}
	}
	threads, trips := bt.items[0].n, 1 // the largest (see batches): an element each on a GPU
	if b.cpu {
		threads, trips = threadsFor(threads), elemsPerThread // as the per-parameter kernel
	}
	info := make([]any, 4+4*((k+3)/4))
	hyper := make([]any, 4*h4*k)
	for q := range info {
		info[q] = uint32(0)
	}
	info[0] = uint32(trips) // then 3 words of padding: info starts at a vec4
	for q := range hyper {
		hyper[q] = float32(0)
	}
	for j := range k {
		if j >= len(bt.items) {
			inputs[j] = bt.items[0].g
			continue
		}
		it := bt.items[j]
		inputs[j] = it.g
		inOut = append(inOut, b.params[it.i].T)
		for _, s := range spec.slots {
			inOut = append(inOut, b.state[it.i].slots[s])
		}
		info[4+j] = uint32(it.n)
		for q, v := range it.u.params(b.state[it.i].steps+1, it.fresh) {
			hyper[4*h4*j+q] = v
		}
	}
	kern := b.kernel(spec, bt.width, k)
	kern.Work = float64(trips*k*bt.width) * tensor.DefaultInvocationWork
	res := b.e.RunKernel(kern, tensor.Launch{Inputs: inputs, InOut: inOut, Outputs: outputs,
		Threads: threads, Params: append(info, hyper...)})
	return b.launched(bt.items, res)
}

// runOne launches the per-parameter kernel (kernelSpec.kernel) on it
// alone: the kernel Step ran on every parameter before it batched them,
// whose loop a CPU adapter runs unrolled, somewhat faster than a batched
// kernel's (see kernelSpec.batchKernel).
func (b *base) runOne(it item) error {
	spec := it.u.spec
	width := widthFor(it.g.Size())
	key := fmt.Sprintf("%s/%s/x%d", spec.name, strings.Join(spec.slots, ","), width)
	kern, ok := b.kernels[key]
	if !ok {
		kern = spec.kernel(width)
		b.kernels[key] = kern
	}
	inOut := []*tensor.Tensor{b.params[it.i].T}
	for _, s := range spec.slots {
		inOut = append(inOut, b.state[it.i].slots[s])
	}
	params := []any{uint32(it.n)}
	for _, v := range it.u.params(b.state[it.i].steps+1, it.fresh) {
		params = append(params, v)
	}
	res := b.e.RunKernel(kern, tensor.Launch{Inputs: []*tensor.Tensor{it.g}, InOut: inOut, Threads: threadsFor(it.n), Params: params})
	return b.launched([]item{it}, res)
}

// launched disposes what a launch for items returned (padding, or tensors
// carrying its error) and returns its error, naming the parameters.
func (b *base) launched(items []item, res []*tensor.Tensor) error {
	var err error
	for _, r := range res {
		if err == nil && r.Err() != nil {
			err = r.Err()
		}
		r.Dispose()
	}
	if err != nil {
		names := make([]string, len(items))
		for j, it := range items {
			names[j] = fmt.Sprintf("%q", b.params[it.i].Name)
		}
		return fmt.Errorf("optim: %s: update of %s: %w", b.kind, strings.Join(names, ", "), err)
	}
	return nil
}

// ensure creates the state slots of parameter i that do not exist yet,
// zeroed, and returns the names of those it created.
func (b *base) ensure(i int, slots []string) (created []string, err error) {
	p, st := b.params[i], &b.state[i]
	for _, s := range slots {
		if st.slots[s] != nil {
			continue
		}
		z := b.e.Zeros(tensor.Float32, p.T.Shape()...)
		tensor.SetCategory(z, tensor.CategoryOptimizerState)
		if err := z.Err(); err != nil {
			return created, fmt.Errorf("optim: %s: state %s.%s: %w", b.kind, p.Name, s, err)
		}
		z.Keep() // state outlives the caller's scopes: Dispose frees it
		if st.slots == nil {
			st.slots = map[string]*tensor.Tensor{}
		}
		st.slots[s] = z
		created = append(created, s)
	}
	return created, nil
}

// forget disposes the state slots of parameter i that a failed step
// created, so that a failure leaves the state as it found it.
func (b *base) forget(i int, created []string) {
	for _, s := range created {
		b.state[i].slots[s].Dispose()
		delete(b.state[i].slots, s)
	}
}

// Params returns the parameters, in the order Step takes their gradients.
func (b *base) Params() []Param { return slices.Clone(b.params) }

// State returns the state tensors created so far, named
// "<parameter>.<slot>" ("0.weight.exp_avg"), in the order of the
// parameters and then of the slots' names: the optimizer's part of a
// checkpoint. The tensors are the optimizer's own, not copies: read them,
// do not dispose them (Dispose does). State is empty before the first
// step and after Dispose.
func (b *base) State() []Param {
	var out []Param
	for i, st := range b.state {
		names := make([]string, 0, len(st.slots))
		for s := range st.slots {
			names = append(names, s)
		}
		slices.Sort(names)
		for _, s := range names {
			out = append(out, Param{Name: b.params[i].Name + "." + s, T: st.slots[s]})
		}
	}
	return out
}

// Steps returns how many steps updated the parameter called name (the
// count Adam's bias correction uses), or -1 if no parameter is called so.
func (b *base) Steps(name string) int {
	i := b.index(name)
	if i < 0 {
		return -1
	}
	return b.state[i].steps
}

// SetSteps sets the step count of the parameter called name, as a
// checkpoint being loaded does.
func (b *base) SetSteps(name string, n int) error {
	i := b.index(name)
	switch {
	case b.disposed:
		return b.errorf(ErrDisposed, "set steps")
	case i < 0:
		return b.errorf(ErrArgument, "no parameter is called %q", name)
	case n < 0:
		return b.errorf(ErrArgument, "%d steps", n)
	}
	b.state[i].steps = n
	return nil
}

// setState writes src's values into the state tensor called name
// ("<parameter>.<slot>"), creating it if no step has yet, as a checkpoint
// being loaded does. src must have the parameter's shape and be float32;
// the caller keeps owning it. slots are every state name the optimizer
// knows.
func (b *base) setState(name string, src *tensor.Tensor, slots []string) error {
	if b.disposed {
		return b.errorf(ErrDisposed, "set state %q", name)
	}
	for i, p := range b.params {
		slot, ok := strings.CutPrefix(name, p.Name+".")
		if !ok || !slices.Contains(slots, slot) {
			continue
		}
		if err := b.checkLike(fmt.Sprintf("state %q", name), p, src); err != nil {
			return err
		}
		created, err := b.ensure(i, []string{slot})
		if err != nil {
			return err
		}
		if err := b.e.Assign(b.state[i].slots[slot], src); err != nil {
			b.forget(i, created)
			return fmt.Errorf("optim: %s: state %q: %w", b.kind, name, err)
		}
		return nil
	}
	return b.errorf(ErrArgument, "no state is called %q (slots %v)", name, slots)
}

func (b *base) index(name string) int {
	return slices.IndexFunc(b.params, func(p Param) bool { return p.Name == name })
}

// Dispose frees every state tensor the optimizer created; the parameters
// are the caller's and stay. Later steps fail with ErrDisposed. Disposing
// twice is harmless.
func (b *base) Dispose() {
	for i := range b.state {
		for _, t := range b.state[i].slots {
			t.Dispose()
		}
		b.state[i] = slotState{}
	}
	b.disposed = true
}
