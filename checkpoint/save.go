package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/safetensors"
	"github.com/wgtensor/wgtensor/tensor"
)

// OptimizerPrefix begins the names of an optimizer's entries in a file:
// its state tensors ("optim.0.weight.exp_avg") and, in the metadata, its
// step counts (StepsPrefix). No parameter may be called so.
const OptimizerPrefix = "optim."

// StepsPrefix begins the metadata key of a parameter's step count:
// "optim.steps.0.weight", whose value is the count in decimal.
const StepsPrefix = OptimizerPrefix + "steps."

// DefaultChunkSize is the bytes Save and Load move at a time unless told
// otherwise: 1 MiB, the size from which the device uploads through pooled
// staging buffers.
const DefaultChunkSize = 1 << 20

// MaxChunkSize is the largest ChunkSize Save and Load take: 256 MiB. A
// larger (or negative) one is refused with ErrArgument; either call
// allocates no more than the largest tensor it moves needs, whatever the
// option.
const MaxChunkSize = 256 << 20

// MaxSteps is the largest step count a file may hold and Save writes:
// 2^52. A larger one, or one that is not a plain decimal integer, fails
// Load with ErrMismatch naming the metadata key and value before anything
// is written, and Save with ErrArgument. From it an optimizer can take
// 2^52 more steps with every count exact as the float64 its bias
// correction raises the betas to, and far from overflowing an int.
const MaxSteps int64 = 1 << 52

// numBatchesTracked is the name, after its layer's prefix, of PyTorch's
// BatchNorm counter of training batches, an I64 scalar.
const numBatchesTracked = "num_batches_tracked"

// Errors. Every error of this package wraps one of these, an error of
// package safetensors (safetensors.ErrInvalid for a bad file), of the
// tensors or the device, of the reader or writer, or of the optimizer.
var (
	// ErrArgument: bad parameters or options (a nil or disposed tensor,
	// two parameters of one name, a name under OptimizerPrefix, ...).
	ErrArgument = errors.New("checkpoint: invalid argument")
	// ErrMismatch: the file does not fit the model: a name missing or
	// unexpected, or a dtype or shape that differs (those also wrap
	// tensor.ErrDType or tensor.ErrShape).
	ErrMismatch = errors.New("checkpoint: the file does not match the model")
)

// SaveOptions are Save's options; the zero value saves the parameters
// alone. Save only reads them, so one SaveOptions may serve many calls.
type SaveOptions struct {
	// Optimizer, if not nil, is saved too: its state tensors under
	// OptimizerPrefix and its step counts in the metadata.
	Optimizer optim.Optimizer
	// Metadata is written into the file's "__metadata__"; its keys must
	// not begin with OptimizerPrefix.
	Metadata map[string]string
	// ChunkSize is how many bytes are read back from the device at a
	// time; 0 means DefaultChunkSize. It is rounded down to a multiple
	// of 4 (at least 4) and must not be negative or exceed MaxChunkSize
	// (ErrArgument); Save allocates no more than the largest tensor
	// needs, whatever it is.
	ChunkSize int
	// Layout is the layout to write tensors in (see Layout). Only
	// SaveModel converts; Save and SaveFile, which see names and tensors
	// but not the model, refuse any but Native with ErrArgument.
	Layout Layout
}

// Save writes params, and o.Optimizer's state if it is set, to w as a
// safetensors file. It reads each tensor back a chunk at a time and writes
// the chunk to w, so that it holds one chunk of host memory whatever the
// model's size, and creates no tensor: the live tensors and bytes after it
// are those before. It blocks until every tensor is read back or ctx ends.
//
// Params must be live float32, int32 or uint32 tensors with unique names,
// none under OptimizerPrefix; anything wrong with them (or with o: a bad
// ChunkSize, an optimizer's step count past MaxSteps) fails with
// ErrArgument before a byte is written.
//
// For each BatchNorm-like layer of params, with "<layer>.running_mean" and
// "<layer>.running_var" but no "<layer>.num_batches_tracked", Save also
// writes "<layer>.num_batches_tracked", an I64 scalar 0, as PyTorch's
// BatchNorm has one, so that the file loads into PyTorch with
// load_state_dict(strict=True). wgtensor's BatchNorm counts no batches:
// its momentum is always set, and PyTorch uses the count only with
// momentum=None. Load takes such an entry without keeping it
// (Report.Ignored). An error later (ctx's, the
// device's, w's) leaves w with part of a file: write to a temporary file,
// as SaveFile does, to keep a good one.
//
// Save must not run concurrently with ops that write params or a Step of
// o.Optimizer; it runs no op, so it needs no engine.
func Save(ctx context.Context, w io.Writer, params []optim.Param, o SaveOptions) error {
	if err := checkChunk(o.ChunkSize); err != nil {
		return err
	}
	if err := nativeOnly("save", o.Layout); err != nil {
		return err
	}
	entries, md, err := saveEntries(params, o)
	if err != nil {
		return err
	}
	infos := make([]safetensors.TensorInfo, len(entries))
	var need int64
	for i, p := range entries {
		if p.T == nil {
			infos[i] = safetensors.TensorInfo{Name: p.Name, DType: safetensors.I64, Shape: []int{}}
			continue
		}
		infos[i] = safetensors.TensorInfo{Name: p.Name, DType: fileDType(p.T.DType()), Shape: p.T.Shape()}
		need = max(need, int64(p.T.DType().Size()*p.T.Size()))
	}
	sw, err := safetensors.NewWriter(w, infos, md)
	if err != nil {
		return fmt.Errorf("checkpoint: save: %w", err)
	}
	buf := make([]byte, chunkSize(o.ChunkSize, need, 4))
	for _, p := range entries {
		if p.T == nil { // num_batches_tracked: 0
			if _, err := sw.Write(make([]byte, 8)); err != nil {
				return fmt.Errorf("checkpoint: save %q: %w", p.Name, err)
			}
			continue
		}
		if err := streamOut(ctx, sw, p, buf); err != nil {
			return err
		}
	}
	if err := sw.Close(); err != nil {
		return fmt.Errorf("checkpoint: save: %w", err)
	}
	return nil
}

// streamOut reads p's tensor back into buf a chunk at a time and writes
// each chunk to w.
func streamOut(ctx context.Context, w io.Writer, p optim.Param, buf []byte) error {
	n := p.T.DType().Size() * p.T.Size()
	for off := 0; off < n; off += len(buf) {
		chunk := buf[:min(len(buf), n-off)]
		if err := p.T.ReadBytes(ctx, off, chunk); err != nil {
			return fmt.Errorf("checkpoint: save %q: reading bytes [%d, %d): %w", p.Name, off, off+len(chunk), err)
		}
		if _, err := w.Write(chunk); err != nil {
			return fmt.Errorf("checkpoint: save %q: %w", p.Name, err)
		}
	}
	return nil
}

// saveEntries checks params and o and returns every tensor to save, the
// parameters first (each BatchNorm-like layer's num_batches_tracked, with
// a nil tensor, after its running_var), then the optimizer's state under
// OptimizerPrefix, and the metadata.
func saveEntries(params []optim.Param, o SaveOptions) ([]optim.Param, map[string]string, error) {
	if err := checkParams(params); err != nil {
		return nil, nil, err
	}
	var md map[string]string
	if o.Metadata != nil || o.Optimizer != nil {
		md = map[string]string{}
	}
	for k, v := range o.Metadata {
		if strings.HasPrefix(k, OptimizerPrefix) {
			return nil, nil, fmt.Errorf("%w: metadata key %q: keys under %q are the optimizer's", ErrArgument, k, OptimizerPrefix)
		}
		md[k] = v
	}
	names := map[string]bool{}
	for _, p := range params {
		names[p.Name] = true
	}
	var entries []optim.Param
	for _, p := range params {
		entries = append(entries, p)
		prefix, ok := strings.CutSuffix(p.Name, "running_var")
		if ok && batchNorm(prefix, func(n string) bool { return names[n] }) && !names[prefix+numBatchesTracked] {
			entries = append(entries, optim.Param{Name: prefix + numBatchesTracked})
		}
	}
	if o.Optimizer == nil {
		return entries, md, nil
	}
	for _, p := range o.Optimizer.Params() {
		n := o.Optimizer.Steps(p.Name)
		if n < 0 || int64(n) > MaxSteps {
			return nil, nil, fmt.Errorf("%w: the optimizer's step count of %q is %d, outside [0, MaxSteps = %d]", ErrArgument, p.Name, n, MaxSteps)
		}
		md[StepsPrefix+p.Name] = strconv.Itoa(n)
	}
	for _, s := range o.Optimizer.State() {
		s.Name = OptimizerPrefix + s.Name
		if err := checkTensor(s); err != nil {
			return nil, nil, err
		}
		entries = append(entries, s)
	}
	return entries, md, nil
}

// checkParams returns the error of saving or loading params: each a live
// tensor of a dtype a file holds, names unique and not the optimizer's.
func checkParams(params []optim.Param) error {
	seen := map[string]bool{}
	for _, p := range params {
		switch {
		case strings.HasPrefix(p.Name, OptimizerPrefix):
			return fmt.Errorf("%w: parameter %q: names under %q are the optimizer's", ErrArgument, p.Name, OptimizerPrefix)
		case seen[p.Name]:
			return fmt.Errorf("%w: two parameters are called %q", ErrArgument, p.Name)
		}
		seen[p.Name] = true
		if err := checkTensor(p); err != nil {
			return err
		}
	}
	return nil
}

// checkTensor returns the error of moving p's tensor to or from a file.
func checkTensor(p optim.Param) error {
	t := p.T
	switch {
	case t == nil:
		return fmt.Errorf("%w: %q is a nil tensor", ErrArgument, p.Name)
	case t.Err() != nil:
		return fmt.Errorf("%w: %q carries an error: %w", ErrArgument, p.Name, t.Err())
	case t.IsDisposed():
		return fmt.Errorf("%w: %q: %w", ErrArgument, p.Name, tensor.ErrDisposed)
	case fileDType(t.DType()) == "":
		return fmt.Errorf("%w: %q is %s: %w", ErrArgument, p.Name, t.DType(), tensor.ErrDType)
	}
	return nil
}

// fileDType is the file's dtype of a tensor of dtype d, or "" for none.
func fileDType(d tensor.DType) safetensors.DType {
	switch d {
	case tensor.Float32:
		return safetensors.F32
	case tensor.Int32:
		return safetensors.I32
	case tensor.Uint32:
		return safetensors.U32
	case tensor.Float16:
		return safetensors.F16
	case tensor.BFloat16:
		return safetensors.BF16
	case tensor.Int8:
		return safetensors.I8
	}
	return ""
}

// nativeOnly returns the error of a Layout option other than Native for
// Save or Load, which cannot convert.
func nativeOnly(op string, l Layout) error {
	if l != Native {
		return fmt.Errorf("%w: %s cannot convert to or from the %v layout without the model: use %sModel", ErrArgument, op, l, strings.ToUpper(op[:1])+op[1:])
	}
	return nil
}

// checkChunk returns the error of n as a ChunkSize option.
func checkChunk(n int) error {
	if n < 0 || n > MaxChunkSize {
		return fmt.Errorf("%w: ChunkSize %d outside [0, MaxChunkSize = %d] (0 means DefaultChunkSize)", ErrArgument, n, MaxChunkSize)
	}
	return nil
}

// chunkSize returns the chunk size for the option n (checkChunk's), a
// multiple of align (a power of two), at least align, and no larger than
// need, the bytes of the largest tensor to move, rounded up to align.
func chunkSize(n int, need int64, align int) int {
	if n == 0 {
		n = DefaultChunkSize
	}
	n = max(align, n&^(align-1))
	need = max(int64(align), (need+int64(align)-1)&^int64(align-1))
	return int(min(int64(n), need))
}

// SaveFile saves as Save does into a new file at path: it writes a
// temporary file beside it, syncs it and renames it over path, so that a
// failure or a crash part-way leaves path as it was. Its concurrency
// contract is Save's; two SaveFiles to one path at once leave one of the
// two files whole.
func SaveFile(ctx context.Context, path string, params []optim.Param, o SaveOptions) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("checkpoint: save: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := Save(ctx, f, params, o); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("checkpoint: save: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("checkpoint: save: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("checkpoint: save: %w", err)
	}
	return nil
}
