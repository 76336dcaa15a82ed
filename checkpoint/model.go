package checkpoint

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/safetensors"
	"github.com/wgtensor/wgtensor/tensor"
)

// Layout says how a file lays out the tensors whose layout PyTorch and
// wgtensor disagree on. Only SaveModel and LoadModel, which know the
// model's structure, convert; Save and Load refuse any Layout but Native.
type Layout int

const (
	// Native is wgtensor's layout: Conv2D weights HWIO [kh, kw, in, out],
	// and images channels last, so that a Linear after a Flatten reads
	// its features in (h, w, c) order.
	Native Layout = iota
	// PyTorch is PyTorch's: Conv2d weights OIHW [out, in, kh, kw], and
	// images channels first, so that the Linear after an nn.Flatten reads
	// its features in (c, h, w) order. Linear and Embedding weights,
	// biases and norms are the same in both.
	PyTorch
)

func (l Layout) String() string {
	switch l {
	case Native:
		return "Native"
	case PyTorch:
		return "PyTorch"
	}
	return "Layout(" + strconv.Itoa(int(l)) + ")"
}

// RandomPrefix begins the metadata key of a Random module's step count
// (nn.Random, such as Dropout), which SaveModel writes and LoadModel
// restores: "rng.steps.blocks.0.drop" holds "120".
const RandomPrefix = "rng.steps."

// SaveModel saves m's state dict (nn.StateDict: its parameters, then its
// buffers), as Save does, with the step count of every nn.Random module of
// m (Dropout's) in the metadata under RandomPrefix, so that LoadModel
// resumes a run that draws what an uninterrupted one would.
//
// With o.Layout PyTorch, each tensor whose layout differs is written in
// PyTorch's, and so is o.Optimizer's state of it: every Conv2D weight as
// OIHW, and the weight of the Linear that follows a Flatten in a
// Sequential (after any parameterless layers) with its columns in
// (c, h, w) order, the channel count taken from the layers before the
// Flatten (a Conv2D's out, a BatchNorm's channels). The file then loads
// into the same model in PyTorch with load_state_dict(strict=True). A
// conversion that cannot apply (a Flatten whose channel count no layer
// before it gives, a Linear whose in is not a multiple of it) fails with
// ErrArgument before a byte is written.
//
// Converting runs a transpose on each converted tensor's engine and frees
// the copy before SaveModel returns; SaveModel then belongs to the
// goroutine that owns that engine. Otherwise its contract is Save's.
func SaveModel(ctx context.Context, w io.Writer, m nn.Module, o SaveOptions) error {
	params, o, l, err := modelEntries(m, o)
	if err != nil {
		return err
	}
	defer l.free()
	return Save(ctx, w, params, o)
}

// SaveModelFile saves as SaveModel does into a new file at path, as
// SaveFile does: through a temporary file renamed over path.
func SaveModelFile(ctx context.Context, path string, m nn.Module, o SaveOptions) error {
	params, o, l, err := modelEntries(m, o)
	if err != nil {
		return err
	}
	defer l.free()
	return SaveFile(ctx, path, params, o)
}

// modelEntries returns what SaveModel saves: m's state dict in o.Layout,
// and the options that write it, with the Random modules' step counts in
// the metadata and the optimizer's state in o.Layout. The caller frees
// the converted copies with l.free.
func modelEntries(m nn.Module, o SaveOptions) (params []optim.Param, _ SaveOptions, l *layouts, err error) {
	l = &layouts{}
	if m == nil {
		return nil, o, l, fmt.Errorf("%w: a nil model", ErrArgument)
	}
	md := maps.Clone(o.Metadata)
	if md == nil {
		md = map[string]string{}
	}
	for k := range md {
		if strings.HasPrefix(k, RandomPrefix) {
			return nil, o, l, fmt.Errorf("%w: metadata key %q: keys under %q are SaveModel's", ErrArgument, k, RandomPrefix)
		}
	}
	for _, c := range nn.Modules(m) {
		if r, ok := c.Module.(nn.Random); ok {
			md[RandomPrefix+c.Name] = strconv.FormatUint(r.Steps(), 10)
		}
	}
	params = nn.StateDict(m)
	if err := checkParams(params); err != nil {
		return nil, o, l, err
	}
	if l.convs, err = conversions(m, o.Layout); err != nil {
		return nil, o, l, err
	}
	for _, p := range params {
		if c, ok := l.convs[p.Name]; ok {
			if err := c.check(p.T.Shape()); err != nil {
				return nil, o, l, err
			}
		}
	}
	params = l.toFile(params)
	if len(l.convs) > 0 && o.Optimizer != nil {
		o.Optimizer = savingOptimizer{o.Optimizer, l}
	}
	o.Layout, o.Metadata = Native, md
	return params, o, l, nil
}

// layouts converts a model's tensors, and an optimizer's state of them,
// between wgtensor's layout and a file's.
type layouts struct {
	convs  map[string]conversion // by state-dict name
	copies []*tensor.Tensor      // converted copies, freed by free
}

// free disposes the converted copies.
func (l *layouts) free() {
	for _, t := range l.copies {
		t.Dispose()
	}
	l.copies = nil
}

// toFile returns ps with each tensor to convert replaced by a copy in the
// file's layout (one carrying the error, if converting failed: Save then
// refuses it).
func (l *layouts) toFile(ps []optim.Param) []optim.Param {
	out := slices.Clone(ps)
	for i, p := range out {
		c, ok := l.convs[p.Name]
		if !ok {
			continue
		}
		t := c.toFile(p.T.Engine(), p.T)
		l.copies = append(l.copies, t)
		out[i].T = t
	}
	return out
}

// ofState returns the conversion of the optimizer state called name
// ("0.weight.exp_avg"), that of its parameter among params.
func (l *layouts) ofState(name string, params []optim.Param) (conversion, bool) {
	for _, p := range params {
		if rest, ok := strings.CutPrefix(name, p.Name+"."); ok && !strings.Contains(rest, ".") {
			c, ok := l.convs[p.Name]
			return c, ok
		}
	}
	return conversion{}, false
}

// savingOptimizer is an optimizer whose State is in a file's layout.
type savingOptimizer struct {
	optim.Optimizer
	l *layouts
}

func (s savingOptimizer) State() []optim.Param {
	params := s.Optimizer.Params()
	st := slices.Clone(s.Optimizer.State())
	for i, p := range st {
		if c, ok := s.l.ofState(p.Name, params); ok {
			t := c.toFile(p.T.Engine(), p.T)
			s.l.copies = append(s.l.copies, t)
			st[i].T = t
		}
	}
	return st
}

// loadingOptimizer is an optimizer that takes state in a file's layout:
// Params gives the converted parameters' file shapes (temporaries of
// LoadModel's), and SetState converts what it is given.
type loadingOptimizer struct {
	optim.Optimizer
	e     *tensor.Engine
	l     *layouts
	temps map[string]*tensor.Tensor // by parameter name: a tensor of the file's shape
}

func (o loadingOptimizer) Params() []optim.Param {
	ps := slices.Clone(o.Optimizer.Params())
	for i, p := range ps {
		if t, ok := o.temps[p.Name]; ok {
			ps[i].T = t
		}
	}
	return ps
}

func (o loadingOptimizer) SetState(name string, src *tensor.Tensor) error {
	c, ok := o.l.ofState(name, o.Optimizer.Params())
	if !ok || src.Engine() == nil {
		return o.Optimizer.SetState(name, src) // unconverted, or LoadModel's check of the name
	}
	t := c.toModel(o.e, src)
	defer t.Dispose()
	return o.Optimizer.SetState(name, t)
}

// LoadModel loads a file saved by SaveModel (or by Save of m's state dict,
// or from PyTorch) into m's state dict in place, as Load does, and
// restores the step count of every nn.Random module the metadata names
// (RandomPrefix); a module the file gives no count keeps its own, and a
// count for no module is listed in Report.Ignored.
//
// With o.Layout PyTorch, the tensors whose layout differs (see SaveModel),
// and o.Optimizer's state of them, are read in PyTorch's layout and
// converted to wgtensor's: Conv2D weights from OIHW, the Linear after a
// Flatten from (c, h, w) column order. Each conversion of a parameter is
// listed in Report.Converted. A shape mismatch names the shape the file
// should have in its layout; a conversion that cannot apply fails with
// ErrArgument. Everything is checked before anything is written, as in
// Load; the converted parameters are read into temporary tensors first
// and written into the model once every entry has loaded.
//
// Its contract is otherwise Load's: it runs ops on e and belongs to the
// goroutine that owns e.
func LoadModel(ctx context.Context, e *tensor.Engine, r io.ReaderAt, size int64, m nn.Module, o LoadOptions) (Report, error) {
	if m == nil {
		return Report{}, fmt.Errorf("%w: a nil model", ErrArgument)
	}
	params := nn.StateDict(m)
	if err := checkParams(params); err != nil {
		return Report{}, err
	}
	if err := checkEngine(e, params); err != nil {
		return Report{}, err
	}
	if err := checkChunk(o.ChunkSize); err != nil {
		return Report{}, err
	}
	l := &layouts{}
	var err error
	if l.convs, err = conversions(m, o.Layout); err != nil {
		return Report{}, err
	}
	h, err := safetensors.ReadHeader(r, size)
	if err != nil {
		return Report{}, fmt.Errorf("checkpoint: load: %w", err)
	}
	steps, ignored, err := randomSteps(h.Metadata, m)
	if err != nil {
		return Report{}, err
	}

	// The converted entries load into temporaries of the file's shape.
	temps := map[string]*tensor.Tensor{}
	defer func() {
		for _, t := range temps {
			t.Dispose()
		}
	}()
	loadParams := slices.Clone(params)
	var converted []optim.Param // the model's tensors to convert into, in order
	for i, p := range params {
		c, ok := l.convs[p.Name]
		if !ok {
			continue
		}
		if err := c.check(p.T.Shape()); err != nil {
			return Report{}, err
		}
		tmp := e.Zeros(p.T.DType(), c.fileShape(p.T.Shape())...)
		if err := tmp.Err(); err != nil {
			return Report{}, fmt.Errorf("checkpoint: load %q: %w", p.Name, err)
		}
		temps[p.Name] = tmp
		loadParams[i].T = tmp
		converted = append(converted, p)
	}
	if len(l.convs) > 0 && o.Optimizer != nil {
		o.Optimizer = loadingOptimizer{Optimizer: o.Optimizer, e: e, l: l, temps: temps}
	}
	o.Layout = Native
	rep, err := loadWith(ctx, e, r, h, loadParams, o) // the header is read once
	if err != nil {
		return rep, err
	}
	for i, p := range converted {
		if slices.Contains(rep.Missing, p.Name) {
			continue
		}
		c := l.convs[p.Name]
		t := c.toModel(e, temps[p.Name])
		err := e.Assign(p.T, t)
		t.Dispose()
		if err != nil {
			var written []string
			for _, q := range converted[:i] {
				written = append(written, q.Name)
			}
			return rep, fmt.Errorf("checkpoint: load %q: converting from %v layout: %w (every entry loaded but the converted parameters after %s)", p.Name, PyTorch, err, quoteList(written))
		}
		rep.Converted = append(rep.Converted, p.Name+": "+c.what)
	}
	for _, c := range nn.Modules(m) {
		if n, ok := steps[c.Name]; ok {
			c.Module.(nn.Random).SetSteps(n)
		}
	}
	rep.Ignored = append(rep.Ignored, ignored...)
	return rep, e.Flush()
}

// LoadModelFile loads the file at path as LoadModel does.
func LoadModelFile(ctx context.Context, e *tensor.Engine, path string, m nn.Module, o LoadOptions) (Report, error) {
	f, size, err := open(path)
	if err != nil {
		return Report{}, err
	}
	defer f.Close()
	return LoadModel(ctx, e, f, size, m, o)
}

// randomSteps reads the step counts of m's Random modules from a file's
// metadata, by module path, and lists the keys that name no Random module.
func randomSteps(md map[string]string, m nn.Module) (map[string]uint64, []string, error) {
	random := map[string]bool{}
	for _, c := range nn.Modules(m) {
		if _, ok := c.Module.(nn.Random); ok {
			random[c.Name] = true
		}
	}
	steps := map[string]uint64{}
	var ignored []string
	for _, k := range slices.Sorted(maps.Keys(md)) {
		path, ok := strings.CutPrefix(k, RandomPrefix)
		if !ok {
			continue
		}
		if !random[path] {
			ignored = append(ignored, k)
			continue
		}
		n, err := strconv.ParseUint(md[k], 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: metadata %q = %q is not a step count", ErrMismatch, k, md[k])
		}
		steps[path] = n
	}
	return steps, ignored, nil
}

// conversion converts one tensor between wgtensor's layout and a file's.
type conversion struct {
	name string
	what string // for Report.Converted: "OIHW → HWIO"
	// check returns the error of converting a tensor of the model's shape.
	check func(model []int) error
	// fileShape is the file's shape of a tensor of the model's shape.
	fileShape func(model []int) []int
	// toModel and toFile return the converted copy, the caller's.
	toModel, toFile func(e *tensor.Engine, t *tensor.Tensor) *tensor.Tensor
}

// conversions lists, by state-dict name, the tensors of m whose layout in
// a file of layout l differs from wgtensor's.
func conversions(m nn.Module, l Layout) (map[string]conversion, error) {
	switch l {
	case Native:
		return nil, nil
	case PyTorch:
	default:
		return nil, fmt.Errorf("%w: unknown %v", ErrArgument, l)
	}
	convs := map[string]conversion{}
	for _, c := range nn.Modules(m) {
		if _, ok := c.Module.(*nn.Conv2D); ok {
			name := joinName(c.Name, "weight")
			convs[name] = convOIHW(name)
		}
		if s, ok := c.Module.(*nn.Sequential); ok {
			if err := flattenedLinears(c.Name, s, convs); err != nil {
				return nil, err
			}
		}
	}
	return convs, nil
}

// convOIHW converts a Conv2D weight between HWIO and PyTorch's OIHW.
func convOIHW(name string) conversion {
	return conversion{
		name:      name,
		what:      "Conv2d weight OIHW → HWIO",
		check:     func([]int) error { return nil },
		fileShape: func(s []int) []int { return []int{s[3], s[2], s[0], s[1]} },
		toModel:   func(e *tensor.Engine, t *tensor.Tensor) *tensor.Tensor { return e.Transpose(t, 2, 3, 1, 0) },
		toFile:    func(e *tensor.Engine, t *tensor.Tensor) *tensor.Tensor { return e.Transpose(t, 3, 2, 0, 1) },
	}
}

// flattenedLinears adds the conversion of each Linear of s that follows a
// Flatten: the features it reads were flattened from channels-last images
// here and channels-first ones in PyTorch. Only a Sequential runs its
// children in the order it lists them, so only its Linears are found.
func flattenedLinears(prefix string, s *nn.Sequential, convs map[string]conversion) error {
	channels := 0 // of the images at this point; 0 if unknown
	flattenedAt := ""
	for _, c := range s.Children() {
		path := joinName(prefix, c.Name)
		byName := map[string]*tensor.Tensor{}
		for _, q := range c.Module.Params() {
			byName[q.Name] = q.T
		}
		switch mod := c.Module.(type) {
		case *nn.Conv2D:
			channels = byName["weight"].Shape()[3]
		case *nn.BatchNorm:
			if w := firstOf(mod.Buffers(), "running_mean"); w != nil {
				channels = w.Shape()[0]
			}
		case *nn.Flatten:
			flattenedAt = path
			if channels == 0 {
				flattenedAt += " (unknown channels)"
			}
		case *nn.Linear:
			if flattenedAt == "" {
				continue
			}
			at := flattenedAt
			flattenedAt = ""
			name := joinName(path, "weight")
			if channels == 0 {
				return fmt.Errorf("%w: cannot reorder %q from PyTorch's (c, h, w) feature order: no layer before the Flatten at %s gives the channel count (a Conv2D or a BatchNorm)", ErrArgument, name, strings.TrimSuffix(at, " (unknown channels)"))
			}
			if w := byName["weight"]; w.Shape()[1] != channels {
				convs[name] = flattenedColumns(name, channels)
			}
		case *nn.Activation, *nn.Dropout, *nn.Pool2D:
			// keep the channels and a pending Flatten
		default:
			if len(c.Module.Params()) > 0 || flattenedAt != "" {
				channels, flattenedAt = 0, ""
			}
		}
	}
	return nil
}

// flattenedColumns reorders the columns of a Linear weight [out, in] that
// reads features flattened from images of c channels: (h, w, c) order
// here, (c, h, w) in PyTorch.
func flattenedColumns(name string, c int) conversion {
	return conversion{
		name: name,
		what: fmt.Sprintf("Linear after Flatten: columns (c, h, w) → (h, w, c), %d channels", c),
		check: func(s []int) error {
			if s[1]%c != 0 {
				return fmt.Errorf("%w: cannot reorder %q: its %d input features are not a multiple of the %d channels before the Flatten", ErrArgument, name, s[1], c)
			}
			return nil
		},
		fileShape: slices.Clone[[]int],
		toModel:   func(e *tensor.Engine, t *tensor.Tensor) *tensor.Tensor { return swapColumns(e, t, c, t.Shape()[1]/c) },
		toFile:    func(e *tensor.Engine, t *tensor.Tensor) *tensor.Tensor { return swapColumns(e, t, t.Shape()[1]/c, c) },
	}
}

// swapColumns returns a copy of the matrix t [out, a·b] whose columns,
// read as an [a, b] grid in row-major order, are rearranged into the
// transposed [b, a] grid.
func swapColumns(e *tensor.Engine, t *tensor.Tensor, a, b int) *tensor.Tensor {
	out := t.Shape()[0]
	grid := e.Reshape(t, out, a, b)
	defer grid.Dispose()
	swapped := e.Transpose(grid, 0, 2, 1)
	defer swapped.Dispose()
	return e.Reshape(swapped, out, a*b)
}

// firstOf returns the tensor of params called name, or nil.
func firstOf(params []optim.Param, name string) *tensor.Tensor {
	for _, p := range params {
		if p.Name == name {
			return p.T
		}
	}
	return nil
}

// joinName joins a module path and a name with a dot; the root's path is "".
func joinName(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
