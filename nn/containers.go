package nn

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// Child is a submodule and its name inside its parent.
type Child struct {
	Name   string
	Module Module
}

// Parent is a Module made of other modules: Sequential, Model, ModuleList
// and ModuleDict are. Children lists its direct submodules in order, each
// named as it prefixes their tensors' names. A module that holds others
// should implement it, so that Modules, checkpoints and conversions that
// look for a kind of layer (Dropout's generator, the Linear after a
// Flatten) find them.
type Parent interface {
	Module
	Children() []Child
}

// Modules lists m and every module below it, depth first in order, each
// named by its path from m ("" for m itself, "blocks.0.attn"), as
// PyTorch's named_modules does. A module reached twice is listed once.
// It reads m as its Params does.
func Modules(m Module) []Child {
	var out []Child
	seen := map[Module]bool{}
	var walk func(name string, m Module)
	walk = func(name string, m Module) {
		if m == nil || seen[m] {
			return
		}
		seen[m] = true
		out = append(out, Child{Name: name, Module: m})
		if p, ok := m.(Parent); ok {
			for _, c := range p.Children() {
				walk(join(name, c.Name), c.Module)
			}
		}
	}
	walk("", m)
	return out
}

// Random is a module that draws random numbers, as Dropout does: its
// draws are a function of its seed and its step count alone, so saving
// Steps and restoring it with SetSteps makes a resumed run draw what an
// uninterrupted one would. Checkpoints of a model (checkpoint.SaveModel)
// save the step count of every Random module in it.
type Random interface {
	Module
	Steps() uint64
	SetSteps(n uint64)
}

// errNoForward is ModuleList's and ModuleDict's Forward error.
var errNoForward = errors.New("has no Forward: call its modules")

// ModuleList holds modules in order, as PyTorch's nn.ModuleList: their
// tensors are named by index ("0.weight", and "blocks.0.weight" as a
// field of a Model). It owns its modules. It has no Forward of its own:
// call its modules. A plain Go slice of modules (or of structs of them)
// in a Model's field names its elements the same way; ModuleList is for
// a list that must be a Module itself.
//
// Concurrency: as Module's; Append must not race with other calls.
type ModuleList struct {
	mods     []Module
	training atomic.Bool
}

// NewModuleList returns a ModuleList of mods, in training mode.
func NewModuleList(mods ...Module) *ModuleList {
	l := &ModuleList{mods: slices.Clone(mods)}
	l.training.Store(true)
	return l
}

// Append adds mods at the end.
func (l *ModuleList) Append(mods ...Module) { l.mods = append(l.mods, mods...) }

// Len returns the number of modules.
func (l *ModuleList) Len() int { return len(l.mods) }

// At returns module i, which l still owns; i must be in [0, Len()).
func (l *ModuleList) At(i int) Module { return l.mods[i] }

// Forward returns a tensor carrying tensor.ErrArgument: a ModuleList only
// holds modules, as PyTorch's does. See Module.
func (l *ModuleList) Forward(x *tensor.Tensor) *tensor.Tensor {
	return refuse(x, "nn: ModuleList", tensor.ErrArgument, "%v", errNoForward)
}

// Children lists the modules, named by index.
func (l *ModuleList) Children() []Child {
	out := make([]Child, 0, len(l.mods))
	for i, m := range l.mods {
		if m != nil {
			out = append(out, Child{Name: strconv.Itoa(i), Module: m})
		}
	}
	return out
}

// Params lists the modules' parameters, named "<index>.<name>".
func (l *ModuleList) Params() []optim.Param { return collectChildren(l.Children(), Module.Params) }

// Buffers lists the modules' buffers, named "<index>.<name>".
func (l *ModuleList) Buffers() []optim.Param { return collectChildren(l.Children(), Module.Buffers) }

// SetTraining sets the mode of l and of each module.
func (l *ModuleList) SetTraining(on bool) { l.training.Store(on); setTraining(l.Children(), on) }

// Training reports the mode SetTraining set last.
func (l *ModuleList) Training() bool { return l.training.Load() }

// Dispose disposes every module.
func (l *ModuleList) Dispose() { disposeChildren(l.Children()) }

// ModuleDict holds modules by name in the order they were set, as
// PyTorch's nn.ModuleDict: their tensors are named "<key>.<name>". It
// owns its modules. It has no Forward of its own: call its modules.
//
// Concurrency: as Module's; Set must not race with other calls.
type ModuleDict struct {
	mu       sync.Mutex
	keys     []string
	mods     map[string]Module
	training atomic.Bool
}

// NewModuleDict returns an empty ModuleDict in training mode.
func NewModuleDict() *ModuleDict {
	d := &ModuleDict{mods: map[string]Module{}}
	d.training.Store(true)
	return d
}

// Set adds m under key, or replaces the module key held (which the
// caller then owns). A key must be non-empty and hold no dot.
func (d *ModuleDict) Set(key string, m Module) error {
	if key == "" || slices.Contains([]byte(key), '.') {
		return fmt.Errorf("nn: ModuleDict.Set(%q): a key must be non-empty and hold no dot: %w", key, tensor.ErrArgument)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.mods[key]; !ok {
		d.keys = append(d.keys, key)
	}
	d.mods[key] = m
	return nil
}

// Get returns the module under key, and whether there is one.
func (d *ModuleDict) Get(key string) (Module, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.mods[key]
	return m, ok
}

// Keys lists the keys in the order they were first set.
func (d *ModuleDict) Keys() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.keys)
}

// Forward returns a tensor carrying tensor.ErrArgument: a ModuleDict only
// holds modules, as PyTorch's does. See Module.
func (d *ModuleDict) Forward(x *tensor.Tensor) *tensor.Tensor {
	return refuse(x, "nn: ModuleDict", tensor.ErrArgument, "%v", errNoForward)
}

// Children lists the modules by key, in order.
func (d *ModuleDict) Children() []Child {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Child, 0, len(d.keys))
	for _, k := range d.keys {
		if m := d.mods[k]; m != nil {
			out = append(out, Child{Name: k, Module: m})
		}
	}
	return out
}

// Params lists the modules' parameters, named "<key>.<name>".
func (d *ModuleDict) Params() []optim.Param { return collectChildren(d.Children(), Module.Params) }

// Buffers lists the modules' buffers, named "<key>.<name>".
func (d *ModuleDict) Buffers() []optim.Param { return collectChildren(d.Children(), Module.Buffers) }

// SetTraining sets the mode of d and of each module.
func (d *ModuleDict) SetTraining(on bool) { d.training.Store(on); setTraining(d.Children(), on) }

// Training reports the mode SetTraining set last.
func (d *ModuleDict) Training() bool { return d.training.Load() }

// Dispose disposes every module.
func (d *ModuleDict) Dispose() { disposeChildren(d.Children()) }

// collectChildren lists what list gives for each child, prefixed by its
// name, each tensor once.
func collectChildren(cs []Child, list func(Module) []optim.Param) []optim.Param {
	var out []optim.Param
	seen := map[*tensor.Tensor]bool{}
	for _, c := range cs {
		for _, p := range Prefixed(c.Name, list(c.Module)) {
			if !seen[p.T] {
				seen[p.T] = true
				out = append(out, p)
			}
		}
	}
	return out
}

func setTraining(cs []Child, on bool) {
	for _, c := range cs {
		c.Module.SetTraining(on)
	}
}

func disposeChildren(cs []Child) {
	seen := map[Module]bool{}
	for _, c := range cs {
		if !seen[c.Module] {
			seen[c.Module] = true
			c.Module.Dispose()
		}
	}
}
