package checkpoint

import (
	"context"
	"errors"
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
	// means DefaultChunkSize. It is rounded down to a multiple of 8 (at
	// least 8) and must not be negative or exceed MaxChunkSize
	// (ErrArgument); Load allocates no more than the file's largest
	// tensor needs, whatever it is. Chunks under 1 MiB upload through
	// the device's queue instead of its pooled staging buffers.
	ChunkSize int
	// Layout is the layout the file's tensors are in (see Layout). Only
	// LoadModel converts; Load and LoadFile refuse any but Native with
	// ErrArgument.
	Layout Layout
}

// Report says what a non-strict Load skipped, by name as in the file. It
// is the caller's: nothing refers to it after Load returns.
type Report struct {
	// Missing are the parameters (and, with an optimizer, the step
	// counts, as "optim.steps.<name>") the file lacks; they kept their
	// values.
	Missing []string
	// Unexpected are the file's entries that nothing took: with
	// NonStrict, also those of a dtype no parameter takes (an I64
	// entry the model has no parameter for, say).
	Unexpected []string
	// Ignored are the entries the model takes without keeping their
	// values: the "<layer>.num_batches_tracked" of each BatchNorm-like
	// layer of params (one with "<layer>.running_mean" and
	// "<layer>.running_var" but no parameter of that name), an integer
	// scalar that PyTorch saves and wgtensor's BatchNorm, whose momentum
	// is always set, does not use. A strict load accepts them.
	// LoadModel adds the metadata keys of step counts (RandomPrefix)
	// that name no Random module of the model.
	Ignored []string
	// Metadata is the file's metadata but for this package's own keys
	// (step counts under OptimizerPrefix and RandomPrefix): what
	// SaveOptions.Metadata wrote, such as a learning-rate schedule's
	// state (optim.Scheduler's MarshalText). nil when there is none.
	Metadata map[string]string
	// Converted lists the entries LoadModel converted from the file's
	// layout, each with what it did: "0.weight: Conv2d weight OIHW →
	// HWIO".
	Converted []string
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
// file is held in host memory. F16 and BF16 entries load into float16
// and bfloat16 parameters as they are, or into float32 parameters,
// converted exactly; F64 entries into float32 and I64 entries
// (PyTorch's int64) into int32 or uint32 parameters when every value
// converts exactly, else the load fails with ErrMismatch naming the
// entry, the element and its value, before anything is written.
//
// An optimizer's state tensors are streamed into temporary tensors of e,
// handed to SetState and disposed, before any parameter is written; its
// step counts, checked against MaxSteps with the rest of the file, are
// set last.
//
// Before it writes anything it also checks every state name with the
// optimizer (a SetState of a zero Tensor, which an optimizer refuses with
// tensor.ErrArgument for a name it knows and with optim.ErrArgument for
// one it does not; optimizers of package optim do), so that the file of
// another optimizer fails (or, NonStrict, is skipped) before anything
// changes, and reads every I64 and F64 entry once to check that its
// values convert exactly.
//
// Errors name the tensor: ErrArgument for bad params or options,
// safetensors' errors for a bad file, ErrMismatch for a file that does
// not fit, then r's, ctx's, the device's or the optimizer's errors while
// streaming. Such a late error says exactly what was left changed: the
// optimizer state set, the parameters written (whole, and the one part
// written), the step counts set; everything else keeps its values. Load
// runs ops on e (one Engine of params' device) and belongs to the
// goroutine that owns e.
func Load(ctx context.Context, e *tensor.Engine, r io.ReaderAt, size int64, params []optim.Param, o LoadOptions) (Report, error) {
	if err := checkParams(params); err != nil {
		return Report{}, err
	}
	if err := checkEngine(e, params); err != nil {
		return Report{}, err
	}
	if err := checkChunk(o.ChunkSize); err != nil {
		return Report{}, err
	}
	if err := nativeOnly("load", o.Layout); err != nil {
		return Report{}, err
	}
	h, err := safetensors.ReadHeader(r, size)
	if err != nil {
		return Report{}, fmt.Errorf("checkpoint: load: %w", err)
	}
	return loadWith(ctx, e, r, h, params, o)
}

// loadWith is Load from the file's header h, read already, for params
// and options that Load (or LoadModel) has checked.
func loadWith(ctx context.Context, e *tensor.Engine, r io.ReaderAt, h *safetensors.Header, params []optim.Param, o LoadOptions) (Report, error) {
	p, err := planLoad(h, params, o)
	if err != nil {
		return Report{}, err
	}
	for k, v := range h.Metadata {
		if !strings.HasPrefix(k, OptimizerPrefix) && !strings.HasPrefix(k, RandomPrefix) {
			if p.report.Metadata == nil {
				p.report.Metadata = map[string]string{}
			}
			p.report.Metadata[k] = v
		}
	}
	s, err := checkedStreamer(ctx, e, r, h.DataOffset, o.ChunkSize, slices.Concat(p.state, p.params))
	if err != nil {
		return p.report, err
	}
	var done progress
	for _, l := range p.state {
		if err := s.loadState(ctx, l, o.Optimizer); err != nil {
			return p.report, done.wrap(err, "")
		}
		done.state = append(done.state, l.info.Name)
	}
	for _, l := range p.params {
		if err := s.stream(ctx, l, true); err != nil {
			return p.report, done.wrap(err, l.info.Name)
		}
		done.params = append(done.params, l.info.Name)
	}
	for _, name := range slices.Sorted(maps.Keys(p.steps)) {
		if err := o.Optimizer.SetSteps(name, p.steps[name]); err != nil {
			return p.report, done.wrap(fmt.Errorf("checkpoint: load: %w", err), "")
		}
		done.steps = append(done.steps, StepsPrefix+name)
	}
	return p.report, e.Flush()
}

// progress is what a Load has changed so far, by name in the file.
type progress struct {
	state, params, steps []string
}

// wrap adds to err, a Load's failure while partial (if not "") was being
// written, what the load left changed.
func (d *progress) wrap(err error, partial string) error {
	if len(d.state)+len(d.params)+len(d.steps) == 0 && partial == "" {
		return fmt.Errorf("%w (nothing was changed: the model and the optimizer keep their values)", err)
	}
	var changed []string
	if len(d.state) > 0 {
		changed = append(changed, "the optimizer state "+listInOrder(d.state)+" took the file's values")
	}
	if len(d.params) > 0 {
		changed = append(changed, "the parameters "+listInOrder(d.params)+" hold the file's values")
	}
	if partial != "" {
		changed = append(changed, fmt.Sprintf("the parameter %q is part written", partial))
	}
	if len(d.steps) > 0 {
		changed = append(changed, "the step counts "+listInOrder(d.steps)+" were set")
	}
	return fmt.Errorf("%w (the load is partial, the model or optimizer part loaded: %s; every other parameter, optimizer state and step count keeps its value)", err, strings.Join(changed, ", "))
}

// listInOrder quotes names, which are the first of their kind in the
// file's data order, saying how many when quoteList leaves some out.
func listInOrder(names []string) string {
	if len(names) <= 5 {
		return quoteList(names)
	}
	return fmt.Sprintf("%s (the first %d in the file's data order)", quoteList(names), len(names))
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
			known, err := takesState(o.Optimizer, rest)
			if err != nil {
				return nil, fmt.Errorf("checkpoint: load %q: %w", info.Name, err)
			}
			if !known {
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
		if !ok && batchesTracked(info.Name, byName) {
			if !slices.Contains([]safetensors.DType{safetensors.I64, safetensors.I32}, info.DType) || len(info.Shape) != 0 {
				return nil, fmt.Errorf("%w: %q is %s %v in the file; a BatchNorm's num_batches_tracked is an I64 (or I32) scalar", ErrMismatch, info.Name, info.DType, info.Shape)
			}
			p.report.Ignored = append(p.report.Ignored, info.Name)
			continue
		}
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

// takesState reports whether opt has a state called name, by a SetState
// of a zero Tensor that every optimizer refuses without writing anything:
// with the tensor's error (tensor.ErrArgument) if it knows the name, with
// optim.ErrArgument if not. Another error (optim.ErrDisposed) is returned.
func takesState(opt optim.Optimizer, name string) (bool, error) {
	err := opt.SetState(name, new(tensor.Tensor))
	switch {
	case err == nil || errors.Is(err, tensor.ErrArgument):
		return true, nil
	case errors.Is(err, optim.ErrArgument):
		return false, nil
	}
	return false, err
}

// batchesTracked reports whether name is the "num_batches_tracked" of a
// BatchNorm-like layer of the model: one with "running_mean" and
// "running_var" under the same prefix.
func batchesTracked(name string, byName map[string]*tensor.Tensor) bool {
	prefix, ok := strings.CutSuffix(name, numBatchesTracked)
	return ok && batchNorm(prefix, func(n string) bool { return byName[n] != nil })
}

// batchNorm reports whether prefix ("" or ending in a dot) names a
// BatchNorm-like layer: has says there are "<prefix>running_mean" and
// "<prefix>running_var". Save and Load tell num_batches_tracked's layers
// by it.
func batchNorm(prefix string, has func(name string) bool) bool {
	return (prefix == "" || strings.HasSuffix(prefix, ".")) && has(prefix+"running_mean") && has(prefix+"running_var")
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

// planSteps checks every step count in the metadata (with an optimizer
// or without, taken or not), reads those of optParams' parameters, in the
// order of the keys, and lists the parameters of optParams (in order)
// with none.
func (p *plan) planSteps(md map[string]string, optParams map[string]*tensor.Tensor, order []string) error {
	for _, k := range slices.Sorted(maps.Keys(md)) {
		name, ok := strings.CutPrefix(k, StepsPrefix)
		if !ok {
			continue
		}
		n, err := parseSteps(k, md[k])
		if err != nil {
			return err
		}
		if optParams == nil {
			continue
		}
		if _, ok := optParams[name]; !ok {
			p.report.Unexpected = append(p.report.Unexpected, k)
			continue
		}
		p.steps[name] = n
	}
	if optParams == nil {
		return nil
	}
	for _, name := range order {
		if _, ok := p.steps[name]; !ok {
			p.report.Missing = append(p.report.Missing, StepsPrefix+name)
		}
	}
	return nil
}

// parseSteps returns the step count of the metadata key k, whose value is
// v: a decimal integer in [0, MaxSteps], written as Save writes it (no
// sign, no leading zero).
func parseSteps(k, v string) (int, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > MaxSteps || strconv.FormatInt(n, 10) != v || int64(int(n)) != n {
		return 0, fmt.Errorf("%w: metadata %q is %q, not a step count (a decimal integer from 0 to MaxSteps, %d)", ErrMismatch, k, v, MaxSteps)
	}
	return int(n), nil
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

// fits reports whether a file's dtype loads into a tensor of dtype d:
// its own (F16 into float16 and BF16 into bfloat16 as they are), F16, BF16
// and F64 into float32, I64 into int32 and uint32 (the values of F64 and
// I64 are checked as they load).
func fits(f safetensors.DType, d tensor.DType) bool {
	switch f {
	case safetensors.F16:
		return d == tensor.Float32 || d == tensor.Float16
	case safetensors.BF16:
		return d == tensor.Float32 || d == tensor.BFloat16
	case safetensors.F64:
		return d == tensor.Float32
	case safetensors.I64:
		return d == tensor.Int32 || d == tensor.Uint32
	}
	return fileDType(d) == f
}

// tensorDType is the dtype a file's dtype loads as: F16 and BF16 as
// float16 and bfloat16, without widening.
func tensorDType(f safetensors.DType) tensor.DType {
	switch f {
	case safetensors.F16:
		return tensor.Float16
	case safetensors.BF16:
		return tensor.BFloat16
	case safetensors.I8:
		return tensor.Int8
	case safetensors.I32, safetensors.I64:
		return tensor.Int32
	case safetensors.U32:
		return tensor.Uint32
	}
	return tensor.Float32
}

// checkedStreamer returns a streamer over the file's data (at data in r)
// whose chunk is the option chunk's (checkChunk's) but no larger than the
// largest of loads needs, its elements at 4 bytes, or 8 for an 8-byte
// dtype; it first reads every load of an 8-byte dtype, writing nothing,
// to check that its values convert exactly.
func checkedStreamer(ctx context.Context, e *tensor.Engine, r io.ReaderAt, data int64, chunk int, loads []load) (*streamer, error) {
	var need int64
	for _, l := range loads {
		need = max(need, l.info.Elements()*int64(max(4, l.info.DType.Size())))
	}
	s := newStreamer(e, r, data, chunkSize(chunk, need, 8))
	for _, l := range loads {
		if l.info.DType.Size() == 8 {
			if err := s.stream(ctx, l, false); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// LoadTensors reads every tensor of the safetensors file of size bytes
// that r reads into a new tensor of e, streaming as Load does, and returns
// them by name in the order of their data; the optimizer's entries
// (OptimizerPrefix) are left out. It moves DefaultChunkSize bytes at a
// time (less for a smaller file). F16 and BF16 become float16 and
// bfloat16 tensors as they are, F64 float32, I64 int32; an F64 or I64 value that float32 or int32 does not hold exactly
// fails with ErrMismatch. The tensors
// are the caller's, created in its current tidy scope; on failure none is
// left. It belongs to the goroutine that owns e.
func LoadTensors(ctx context.Context, e *tensor.Engine, r io.ReaderAt, size int64) ([]optim.Param, error) {
	h, err := safetensors.ReadHeader(r, size)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: load: %w", err)
	}
	var loads []load
	for _, info := range h.Tensors {
		if !strings.HasPrefix(info.Name, OptimizerPrefix) {
			loads = append(loads, load{info: info})
		}
	}
	s, err := checkedStreamer(ctx, e, r, h.DataOffset, 0, loads) // before any tensor is made
	if err != nil {
		return nil, err
	}
	var out []optim.Param
	for _, l := range loads {
		info := l.info
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
