package optim

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wgtensor/wgtensor/tensor"
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
	// each with one kernel.
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
// those slots, and the kernel's params for a parameter at its step
// (counted from 1) whose state was just created (fresh) or not.
type update struct {
	slots  []string
	kernel func(width int) tensor.Kernel
	params func(step int, fresh bool) []any
}

// step checks every parameter and gradient first, so that a bad one
// updates nothing, then runs the kernel of its group's update (us[g] for
// group g) once per parameter whose gradient is not nil (as PyTorch skips
// a parameter whose grad is None).
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
	for i, g := range grads {
		if g == nil {
			continue
		}
		u := us[b.groupOf(i)]
		if err := b.update(i, g, b.kernel(u, widthFor(g.Size())), u); err != nil {
			return err
		}
	}
	return nil
}

// kernel returns u's kernel over elements of width floats, generating it
// once per optimizer.
func (b *base) kernel(u update, width int) tensor.Kernel {
	key := fmt.Sprintf("%s/x%d", strings.Join(u.slots, ","), width)
	k, ok := b.kernels[key]
	if !ok {
		k = u.kernel(width)
		b.kernels[key] = k
	}
	return k
}

// update runs k on parameter i with gradient g and its state.
func (b *base) update(i int, g *tensor.Tensor, k tensor.Kernel, u update) error {
	p, st := b.params[i], &b.state[i]
	created, err := b.ensure(i, u.slots)
	if err != nil {
		b.forget(i, created)
		return err
	}
	inOut := make([]*tensor.Tensor, 0, 1+len(u.slots))
	inOut = append(inOut, p.T)
	for _, s := range u.slots {
		inOut = append(inOut, st.slots[s])
	}
	n := p.T.Size() / widthFor(p.T.Size()) // elements of the kernel's width
	params := append([]any{uint32(n)}, u.params(st.steps+1, len(created) > 0)...)
	res := b.e.RunKernel(k, tensor.Launch{Inputs: []*tensor.Tensor{g}, InOut: inOut, Threads: threadsFor(n), Params: params})
	for _, r := range res {
		if err := r.Err(); err != nil {
			b.forget(i, created) // the next step creates them afresh
			return fmt.Errorf("optim: %s: update of %q: %w", b.kind, p.Name, err)
		}
	}
	st.steps++
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
