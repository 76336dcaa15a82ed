package nn

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// Model makes a Go struct of layers a Module, as subclassing nn.Module
// does in PyTorch: it finds the struct's submodules and tensors by
// reflection over its exported fields, so that a custom model gets its
// parameters, buffers, names, mode and Dispose without listing them.
//
// The struct's fields are read as PyTorch reads a module's attributes:
//
//   - a field holding a Module (a layer, a Sequential, another Model, a
//     ModuleList, ...) is a submodule named after the field;
//   - a *tensor.Tensor field is a parameter (nn.Parameter), or a buffer
//     with the tag `nn:",buffer"`;
//   - a struct, or a pointer to one, that is not a Module (a block written
//     as a plain Go struct) is walked in turn, its fields named under its
//     own ("blocks.0.attn.out_proj.weight"); an embedded one adds no name;
//   - slices and arrays name their elements by index ("blocks.0"), as
//     ModuleList does, and maps with string keys by key, in sorted order;
//   - nil fields are skipped, as PyTorch skips a None submodule;
//   - other fields (ints, configs, engines) are ignored.
//
// A field's name is its Go name in snake case ("OutProj" → "out_proj",
// "LN1" → "ln1") unless its tag names it: `nn:"c_attn"`. The tag `nn:"-"`
// skips a field. An unexported field whose type can hold a module or a
// tensor is an error (NewModel's): reflection cannot see it, so a module
// kept there would silently train nothing; export it or tag it `nn:"-"`.
//
// A module or tensor reached twice (tied weights, a shared block) counts
// once, under the first name that reaches it, as PyTorch's
// named_parameters does. The walk runs on every call, so a model may
// grow (append to a slice of blocks) between calls.
//
// Forward calls the struct's own Forward(*tensor.Tensor) *tensor.Tensor
// if it has one; a model whose Forward takes other arguments is called
// directly, and its Model serves for the rest (Params, Dispose, a
// checkpoint).
//
// Concurrency: as Module's. Params, Buffers and Children read the struct's
// fields and must not race with code that changes them.
type Model struct {
	v        reflect.Value // the pointer NewModel took
	training atomic.Bool
	disposed atomic.Bool
	what     string // "nn: Model(*main.GPT)", for errors
}

// NewModel returns the Model of v, a non-nil pointer to a struct, in
// training mode (each of its modules is set to training mode too). It
// fails, naming the field, where the struct cannot be walked as Model
// says: an unexported field that can hold a module or a tensor, two
// fields that give one name, a map keyed by other than strings.
func NewModel(v any) (*Model, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("nn: NewModel(%T): want a non-nil pointer to a struct: %w", v, tensor.ErrArgument)
	}
	m := &Model{v: rv, what: fmt.Sprintf("nn: Model(%T)", v)}
	parts, err := m.walk()
	if err != nil {
		return nil, err
	}
	for _, p := range parts { // the submodules' are filed as they are made
		switch {
		case p.module != nil:
		case p.buffer:
			tensor.SetCategory(p.tensor, tensor.CategoryBuffer)
		default:
			tensor.SetCategory(p.tensor, tensor.CategoryParameter)
		}
	}
	m.SetTraining(true)
	return m, nil
}

// Value returns the pointer NewModel took.
func (m *Model) Value() any { return m.v.Interface() }

// Forward calls the struct's Forward(x) if it has one with that
// signature; otherwise it returns a tensor carrying tensor.ErrArgument.
// See Module.
func (m *Model) Forward(x *tensor.Tensor) *tensor.Tensor {
	f, ok := m.v.Interface().(interface {
		Forward(*tensor.Tensor) *tensor.Tensor
	})
	if !ok {
		return refuse(x, m.what, tensor.ErrArgument, "the struct has no method Forward(*tensor.Tensor) *tensor.Tensor: call its own")
	}
	if m.disposed.Load() {
		return refuse(x, m.what, tensor.ErrDisposed, "disposed")
	}
	return f.Forward(x)
}

// Params lists the parameters of every submodule and *tensor.Tensor field,
// in field order, named by their paths. See Module.
func (m *Model) Params() []optim.Param {
	return m.collect(Module.Params, false)
}

// Buffers lists the buffers of every submodule and the tensor fields
// tagged `nn:",buffer"`, in field order, named by their paths. See Module.
func (m *Model) Buffers() []optim.Param {
	return m.collect(Module.Buffers, true)
}

// collect lists the submodules' tensors that list gives, and the tensor
// fields that are buffers (or parameters), each tensor once.
func (m *Model) collect(list func(Module) []optim.Param, buffers bool) []optim.Param {
	if m.disposed.Load() {
		return nil
	}
	parts, err := m.walk()
	if err != nil {
		return nil // NewModel checked the struct; a later change that breaks it lists nothing
	}
	var out []optim.Param
	seen := map[*tensor.Tensor]bool{}
	add := func(p optim.Param) {
		if !seen[p.T] {
			seen[p.T] = true
			out = append(out, p)
		}
	}
	for _, p := range parts {
		switch {
		case p.module != nil:
			for _, q := range Prefixed(p.name, list(p.module)) {
				add(q)
			}
		case p.buffer == buffers:
			add(optim.Param{Name: p.name, T: p.tensor})
		}
	}
	return out
}

// Children lists the submodules, named by their paths, in field order.
func (m *Model) Children() []Child {
	if m.disposed.Load() {
		return nil
	}
	parts, err := m.walk()
	if err != nil {
		return nil
	}
	var out []Child
	for _, p := range parts {
		if p.module != nil {
			out = append(out, Child{Name: p.name, Module: p.module})
		}
	}
	return out
}

// SetTraining sets the mode of m and of each submodule. See Module.
func (m *Model) SetTraining(on bool) {
	m.training.Store(on)
	for _, c := range m.Children() {
		c.Module.SetTraining(on)
	}
}

// Training reports the mode SetTraining set last.
func (m *Model) Training() bool { return m.training.Load() }

// Dispose disposes every submodule and tensor field, each once; later
// calls list nothing. See Module.
func (m *Model) Dispose() {
	parts, err := m.walk()
	if m.disposed.Swap(true) || err != nil {
		return
	}
	for _, p := range parts {
		if p.module != nil {
			p.module.Dispose()
		} else {
			p.tensor.Dispose()
		}
	}
}

// part is a submodule or a tensor field that the walk found.
type part struct {
	name   string
	module Module         // a submodule, or nil for a tensor
	tensor *tensor.Tensor // a tensor field
	buffer bool           // the tensor is a buffer
	// set replaces the tensor where the walk found it (ToDtype); nil
	// where it cannot.
	set func(*tensor.Tensor)
}

var (
	moduleType = reflect.TypeFor[Module]()
	tensorType = reflect.TypeFor[*tensor.Tensor]()
)

// walker finds a struct's parts.
type walker struct {
	what  string
	parts []part
	names map[string]string // name → the Go path that gave it, to refuse duplicates
	seen  map[any]bool      // modules and tensors found already
	on    map[uintptr]bool  // pointers to plain structs being walked, to stop cycles
	err   error
}

// walk lists m's parts, or the first reason it cannot.
func (m *Model) walk() ([]part, error) {
	w := &walker{what: m.what, names: map[string]string{}, seen: map[any]bool{}, on: map[uintptr]bool{}}
	w.structFields(m.v.Elem(), "", m.v.Type().Elem().Name())
	return w.parts, w.err
}

func (w *walker) fail(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("%s: %s: %w", w.what, fmt.Sprintf(format, args...), tensor.ErrArgument)
	}
}

// structFields walks the fields of the struct v, naming them under prefix;
// goPath names v in errors ("GPT.Blocks[0]").
func (w *walker) structFields(v reflect.Value, prefix, goPath string) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("nn")
		if tag == "-" {
			continue
		}
		field := goPath + "." + f.Name
		if !f.IsExported() {
			if holdsModules(f.Type, map[reflect.Type]bool{}) {
				w.fail("unexported field %s (%s) can hold a module or a tensor that no list would see: export it or tag it `nn:\"-\"`", field, f.Type)
			}
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		buffer := false
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "":
			case "buffer":
				buffer = true
			default:
				w.fail("field %s: unknown tag option %q", field, o)
			}
		}
		if buffer && f.Type != tensorType {
			w.fail("field %s: only a *tensor.Tensor field can be a buffer", field)
		}
		switch {
		case hasTag && name != "":
		case f.Anonymous && !f.Type.Implements(moduleType) && !reflect.PointerTo(f.Type).Implements(moduleType):
			name = "" // an embedded plain struct adds no name
		default:
			name = snakeCase(f.Name)
		}
		w.value(v.Field(i), join(prefix, name), field, buffer)
	}
}

// value walks one value found under name.
func (w *walker) value(v reflect.Value, name, goPath string, buffer bool) {
	if w.err != nil {
		return
	}
	if v.Kind() == reflect.Map && v.Type().Key().Kind() != reflect.String && holdsModules(v.Type().Elem(), map[reflect.Type]bool{}) {
		w.fail("field %s: a map of modules must be keyed by strings", goPath)
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		if v.IsNil() {
			return
		}
	}
	if v.Type() == tensorType {
		t := v.Interface().(*tensor.Tensor)
		if w.claim(t, name, goPath) {
			p := part{name: name, tensor: t, buffer: buffer}
			if v.CanSet() {
				p.set = func(n *tensor.Tensor) { v.Set(reflect.ValueOf(n)) }
			}
			w.parts = append(w.parts, p)
		}
		return
	}
	if v.CanInterface() && v.Type().Implements(moduleType) {
		mod := v.Interface().(Module)
		if w.claim(mod, name, goPath) {
			w.parts = append(w.parts, part{name: name, module: mod})
		}
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		w.value(v.Elem(), name, goPath, buffer)
	case reflect.Pointer:
		if v.Elem().Kind() != reflect.Struct {
			return
		}
		if p := v.Pointer(); !w.on[p] && !w.seen[v.Interface()] {
			w.seen[v.Interface()] = true
			w.on[p] = true
			w.structFields(v.Elem(), name, goPath)
			delete(w.on, p)
		}
	case reflect.Struct:
		if v.CanAddr() && v.Addr().Type().Implements(moduleType) {
			w.value(v.Addr(), name, goPath, buffer)
			return
		}
		w.structFields(v, name, goPath)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			w.value(v.Index(i), join(name, strconv.Itoa(i)), fmt.Sprintf("%s[%d]", goPath, i), buffer)
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			n := len(w.parts)
			w.value(v.MapIndex(k), join(name, k.String()), fmt.Sprintf("%s[%q]", goPath, k.String()), buffer)
			if len(w.parts) == n+1 && w.parts[n].tensor != nil && v.MapIndex(k).Type() == tensorType {
				m := v
				w.parts[n].set = func(t *tensor.Tensor) { m.SetMapIndex(k, reflect.ValueOf(t)) }
			}
		}
	}
}

// claim reserves name for x, found at goPath, and reports whether x is new:
// x found a second time is skipped; a name given twice is an error.
func (w *walker) claim(x any, name, goPath string) bool {
	if w.seen[x] {
		return false
	}
	w.seen[x] = true
	if name == "" {
		w.fail("field %s has no name: tag it `nn:\"name\"`", goPath)
		return false
	}
	if first, dup := w.names[name]; dup {
		w.fail("fields %s and %s are both named %q", first, goPath, name)
		return false
	}
	w.names[name] = goPath
	return true
}

// holdsModules reports whether a value of type t can hold a Module or a
// *tensor.Tensor where the walk would look: directly, or inside the
// exported fields of structs, pointers, slices, arrays, maps or
// interfaces (an empty one can hold anything). What a struct keeps in
// unexported fields (an Engine's list of its tensors) is its own.
func holdsModules(t reflect.Type, on map[reflect.Type]bool) bool {
	if t == tensorType || t.Implements(moduleType) || (t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(moduleType)) {
		return true
	}
	if on[t] {
		return false
	}
	on[t] = true
	switch t.Kind() {
	case reflect.Interface:
		return t.NumMethod() == 0 || moduleType.Implements(t)
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsModules(t.Elem(), on)
	case reflect.Map:
		return holdsModules(t.Elem(), on)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.IsExported() && f.Tag.Get("nn") != "-" && holdsModules(f.Type, on) {
				return true
			}
		}
	}
	return false
}

// join joins two parts of a name with a dot, either of which may be empty.
func join(prefix, name string) string {
	switch {
	case prefix == "":
		return name
	case name == "":
		return prefix
	}
	return prefix + "." + name
}

// snakeCase turns a Go field name into the name PyTorch code would give
// the attribute: "OutProj" → "out_proj", "LN1" → "ln1", "HTTPHead" →
// "http_head", "Wqkv" → "wqkv".
func snakeCase(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Parameter makes a tensor of shape initialised by init, for a custom
// model's own parameter (PyTorch's nn.Parameter): a learned position
// embedding, a scale. It is kept (tidy scopes leave it alone) and the
// caller owns it: a Model field holding it lists and disposes it. On
// failure, or after an earlier failure of b, it returns a tensor carrying
// the error, which b.Err also reports.
func (b *Builder) Parameter(name string, shape []int, init Init) *tensor.Tensor {
	fan := 1
	if len(shape) > 0 {
		fan = shape[len(shape)-1]
	}
	params, _, err := b.make("nn: Parameter "+name, []paramSpec{{name: name, shape: shape, init: init, fanIn: fan, fanOut: fan}})
	if err != nil {
		return b.e.Failed(err)
	}
	return params[0].T
}
