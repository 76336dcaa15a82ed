package checkpoint

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/safetensors"
	"github.com/wgtensor/wgtensor/tensor"
)

// LoadOptions are Load's options; the zero value loads the parameters,
// strictly. Load only reads them, so one LoadOptions may serve many
// calls (on one goroutine at a time if it names an optimizer).
type LoadOptions struct {
	// Optimizer, if not nil, gets its state and step counts from the
	// file (SetState, SetSteps). If nil, the file's optimizer entries
	// are ignored: a training checkpoint loads for inference.
	Optimizer optim.Optimizer
	// NonStrict skips the parameters the file lacks and the entries no
	// parameter (or optimizer) takes, listing them in the Report,
	// instead of failing with ErrMismatch. A dtype or shape mismatch is
	// an error either way, as in PyTorch.
	NonStrict bool
	// ChunkSize is how many bytes are read and uploaded at a time; 0
	// means DefaultChunkSize. Chunks under 1 MiB upload through the
	// device's queue instead of its pooled staging buffers.
	ChunkSize int
}

// Report says what a non-strict Load skipped, by name as in the file. It
// is the caller's: nothing refers to it after Load returns.
type Report struct {
	// Missing are the parameters (and, with an optimizer, the step
	// counts, as "optim.steps.<name>") the file lacks; they kept their
	// values.
	Missing []string
	// Unexpected are the file's entries that nothing took.
	Unexpected []string
}

// load is one tensor to stream from the file into dst.
type load struct {
	info safetensors.TensorInfo
	dst  *tensor.Tensor
}

// plan is what a file will write: the parameters' data, the optimizer's
// state by its name, the step counts.
type plan struct {
	params []load
	state  []load // dst nil: a temporary tensor is made for SetState
	steps  map[string]int
	report Report
}

// Load reads the safetensors file of size bytes that r reads into params,
// in place, and o.Optimizer's state if it is set, and returns what a
// non-strict load skipped. It checks the whole file against params before
// it writes anything (see the package documentation), then streams each
// tensor from r a chunk at a time into the parameter's storage through
// e's pooled uploads (Engine.WriteBytes): no more than one chunk of the
// file is held in host memory. F16 and BF16 entries load into float32
// parameters, converted exactly.
//
// An optimizer's state tensors are streamed into temporary tensors of e,
// handed to SetState and disposed, before any parameter is written, so an
// optimizer that refuses a state name (the file of another optimizer)
// fails the load before the model changes; its step counts are set last.
//
// Errors name the tensor: ErrArgument for bad params, safetensors'
// errors for a bad file, ErrMismatch for a file that does not fit, then
// r's, ctx's, the device's or the optimizer's errors while streaming,
// after which the parameters may be part loaded. Load runs ops on e (one
// Engine of params' device) and belongs to the goroutine that owns e.
func Load(ctx context.Context, e *tensor.Engine, r io.ReaderAt, size int64, params []optim.Param, o LoadOptions) (Report, error) {
	if err := checkParams(params); err != nil {
		return Report{}, err
	}
	if err := checkEngine(e, params); err != nil {
		return Report{}, err
	}
	h, err := safetensors.ReadHeader(r, size)
	if err != nil {
		return Report{}, fmt.Errorf("checkpoint: load: %w", err)
	}
	p, err := planLoad(h, params, o)
	if err != nil {
		return Report{}, err
	}
	s := newStreamer(e, r, h.DataOffset, o.ChunkSize)
	for _, l := range p.state {
		if err := s.loadState(ctx, l, o.Optimizer); err != nil {
			return p.report, err
		}
	}
	for _, l := range p.params {
		if err := s.stream(ctx, l); err != nil {
			return p.report, fmt.Errorf("%w (the model is part loaded: the parameters before this one hold the file's values)", err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.steps)) {
		if err := o.Optimizer.SetSteps(name, p.steps[name]); err != nil {
			return p.report, fmt.Errorf("checkpoint: load: %w", err)
		}
	}
	return p.report, e.Flush()
}

// checkEngine returns the error of writing params with e: e must be an
// Engine of their device.
func checkEngine(e *tensor.Engine, params []optim.Param) error {
	if e.Device() == nil {
		return fmt.Errorf("%w: a nil or zero engine", ErrArgument)
	}
	for _, p := range params {
		if p.T.Engine().Device() != e.Device() {
			return fmt.Errorf("%w: %q lives on another device than the engine's", ErrArgument, p.Name)
		}
	}
	return nil
}

// planLoad matches the file's entries with params and the optimizer, and
// returns the error of the first mismatch a strict load refuses (every
// dtype or shape mismatch).
func planLoad(h *safetensors.Header, params []optim.Param, o LoadOptions) (*plan, error) {
	p := &plan{steps: map[string]int{}}
	byName := map[string]*tensor.Tensor{}
	for _, q := range params {
		byName[q.Name] = q.T
	}
	var optParams map[string]*tensor.Tensor
	var optOrder []string
	if o.Optimizer != nil {
		optParams = map[string]*tensor.Tensor{}
		for _, q := range o.Optimizer.Params() {
			optParams[q.Name] = q.T
			optOrder = append(optOrder, q.Name)
		}
	}
	found := map[string]bool{}
	for _, info := range h.Tensors {
		if rest, ok := strings.CutPrefix(info.Name, OptimizerPrefix); ok {
			if o.Optimizer == nil {
				continue
			}
			owner := stateOwner(rest, optParams)
			if owner == nil {
				p.report.Unexpected = append(p.report.Unexpected, info.Name)
				continue
			}
			if err := checkFits(info, owner); err != nil {
				return nil, err
			}
			p.state = append(p.state, load{info: info})
			continue
		}
		dst, ok := byName[info.Name]
		if !ok {
			p.report.Unexpected = append(p.report.Unexpected, info.Name)
			continue
		}
		if err := checkFits(info, dst); err != nil {
			return nil, err
		}
		found[info.Name] = true
		p.params = append(p.params, load{info: info, dst: dst})
	}
	for _, q := range params {
		if !found[q.Name] {
			p.report.Missing = append(p.report.Missing, q.Name)
		}
	}
	if err := p.planSteps(h.Metadata, optParams, optOrder); err != nil {
		return nil, err
	}
	if !o.NonStrict {
		if err := p.report.strict(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// stateOwner returns the tensor of the optimizer's parameter that the
// state called name ("0.weight.exp_avg") belongs to, or nil: the longest
// parameter name that name begins with, followed by a dot.
func stateOwner(name string, optParams map[string]*tensor.Tensor) *tensor.Tensor {
	var owner *tensor.Tensor
	best := -1
	for pn, t := range optParams {
		if strings.HasPrefix(name, pn+".") && len(pn) > best {
			owner, best = t, len(pn)
		}
	}
	return owner
}

// planSteps reads the optimizer's step counts from the metadata, in the
// order of the keys, and lists the parameters of optParams (in order)
// with none.
func (p *plan) planSteps(md map[string]string, optParams map[string]*tensor.Tensor, order []string) error {
	if optParams == nil {
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(md)) {
		name, ok := strings.CutPrefix(k, StepsPrefix)
		if !ok {
			continue
		}
		if _, ok := optParams[name]; !ok {
			p.report.Unexpected = append(p.report.Unexpected, k)
			continue
		}
		n, err := strconv.Atoi(md[k])
		if err != nil || n < 0 {
			return fmt.Errorf("%w: metadata %q is %q, not a step count", ErrMismatch, k, md[k])
		}
		p.steps[name] = n
	}
	for _, name := range order {
		if _, ok := p.steps[name]; !ok {
			p.report.Missing = append(p.report.Missing, StepsPrefix+name)
		}
	}
	return nil
}

// strict returns the error of a strict load that would skip what r lists.
func (r Report) strict() error {
	switch {
	case len(r.Missing) > 0:
		return fmt.Errorf("%w: the file has no %s (NonStrict skips it)", ErrMismatch, quoteList(r.Missing))
	case len(r.Unexpected) > 0:
		return fmt.Errorf("%w: nothing in the model takes %s (NonStrict skips it)", ErrMismatch, quoteList(r.Unexpected))
	}
	return nil
}

// quoteList quotes names, up to 5 of them and a count of the rest.
func quoteList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i == 5 {
			fmt.Fprintf(&b, " and %d more", len(names)-5)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(n))
	}
	return b.String()
}

// checkFits returns the error of loading the file's tensor info into a
// tensor of dst's dtype and shape.
func checkFits(info safetensors.TensorInfo, dst *tensor.Tensor) error {
	if !fits(info.DType, dst.DType()) {
		return fmt.Errorf("%w: %q is %s in the file, %s in the model: %w", ErrMismatch, info.Name, info.DType, dst.DType(), tensor.ErrDType)
	}
	if !slices.Equal(info.Shape, dst.Shape()) {
		return fmt.Errorf("%w: %q is %v in the file, %v in the model: %w", ErrMismatch, info.Name, info.Shape, dst.Shape(), tensor.ErrShape)
	}
	return nil
}

// fits reports whether a file's dtype loads into a tensor of dtype d.
func fits(f safetensors.DType, d tensor.DType) bool {
	if f == safetensors.F16 || f == safetensors.BF16 {
		return d == tensor.Float32
	}
	return fileDType(d) == f
}

// tensorDType is the dtype a file's dtype loads as.
func tensorDType(f safetensors.DType) tensor.DType {
	switch f {
	case safetensors.I32:
		return tensor.Int32
	case safetensors.U32:
		return tensor.Uint32
	}
	return tensor.Float32
}

// LoadTensors reads every tensor of the safetensors file of size bytes
// that r reads into a new tensor of e, streaming as Load does, and returns
// them by name in the order of their data; the optimizer's entries
// (OptimizerPrefix) are left out. It moves DefaultChunkSize bytes at a
// time. F16 and BF16 become float32. The tensors
// are the caller's, created in its current tidy scope; on failure none is
// left. It belongs to the goroutine that owns e.
func LoadTensors(ctx context.Context, e *tensor.Engine, r io.ReaderAt, size int64) ([]optim.Param, error) {
	h, err := safetensors.ReadHeader(r, size)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: load: %w", err)
	}
	s := newStreamer(e, r, h.DataOffset, 0)
	var out []optim.Param
	for _, info := range h.Tensors {
		if strings.HasPrefix(info.Name, OptimizerPrefix) {
			continue
		}
		t, err := s.newTensor(ctx, info)
		if err != nil {
			disposeAll(out)
			return nil, err
		}
		out = append(out, optim.Param{Name: info.Name, T: t})
	}
	if err := e.Flush(); err != nil {
		disposeAll(out)
		return nil, err
	}
	return out, nil
}

func disposeAll(ps []optim.Param) {
	for _, p := range ps {
		p.T.Dispose()
	}
}

// LoadFile opens the file at path and loads it as Load does (with Load's
// concurrency contract), then closes it.
func LoadFile(ctx context.Context, e *tensor.Engine, path string, params []optim.Param, o LoadOptions) (Report, error) {
	f, size, err := open(path)
	if err != nil {
		return Report{}, err
	}
	defer f.Close()
	return Load(ctx, e, f, size, params, o)
}

// LoadTensorsFile opens the file at path and loads it as LoadTensors does
// (with its concurrency contract), then closes it.
func LoadTensorsFile(ctx context.Context, e *tensor.Engine, path string) ([]optim.Param, error) {
	f, size, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return LoadTensors(ctx, e, f, size)
}

func open(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("checkpoint: load: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("checkpoint: load: %w", err)
	}
	return f, st.Size(), nil
}
