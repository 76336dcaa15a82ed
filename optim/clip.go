package optim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/wgtensor/wgtensor/tensor"
)

// ErrNonfinite is wrapped by the error of ClipGradNorm with
// ErrorIfNonfinite when the total norm is NaN or infinite.
var ErrNonfinite = errors.New("optim: the total norm of the gradients is not finite")

// ClipOptions are ClipGradNorm's options; the zero value is PyTorch's
// defaults (norm type 2, no error on a non-finite norm). A plain value:
// ClipGradNorm only reads it.
type ClipOptions struct {
	// NormType is 2 (0 means 2) or math.Inf(1), the largest absolute
	// value. Other norms are refused.
	NormType float64
	// ErrorIfNonfinite returns an error wrapping ErrNonfinite, and scales
	// nothing, when the total norm is NaN or infinite, as PyTorch's
	// error_if_nonfinite. Telling needs the norm on the host: the call
	// submits the work so far and waits for the norm's readback (one
	// float), which the default never does.
	ErrorIfNonfinite bool
	// Context bounds that wait; nil means context.Background(). Unused
	// without ErrorIfNonfinite.
	Context context.Context
}

// Kernel layout of ClipGradNorm: each workgroup of clipWorkgroup
// invocations reduces clipChunk consecutive elements of one gradient,
// each invocation clipPerThread of them, clipWorkgroup apart.
const (
	clipWorkgroup = 256
	clipPerThread = 16
	clipChunk     = clipWorkgroup * clipPerThread
	// clipMaxBatch bounds the gradients one dispatch binds (the device's
	// MaxStorageBuffersPerShaderStage bounds it too: 14 on GL, 30 on
	// lavapipe for the norm).
	clipMaxBatch = 30
)

// clipItem is a gradient ClipGradNorm reduces and scales: its size and
// its number of workgroups.
type clipItem struct {
	t      *tensor.Tensor
	n, wgs int
}

// ClipGradNorm scales the gradients in place so that their total norm is
// at most maxNorm, as torch.nn.utils.clip_grad_norm_: the total norm is
// the norm of all the gradients' elements together (2-norm, or the
// largest absolute value with NormType +Inf), each gradient is multiplied
// by min(1, maxNorm/(total + 1e-6)), and the total norm (before
// clipping) is returned as a float32 scalar tensor on the device: no
// readback is forced, the caller reads it when it wants and disposes it
// (it is created in the caller's tidy scope, like an op's result).
//
// Nil gradients are skipped (PyTorch's params without a grad); with none
// left, or only empty ones, the norm is 0 and nothing is dispatched but
// the scalar's upload. A NaN anywhere makes the norm NaN and every
// gradient NaN; an infinite element (and no NaN) makes it +Inf and the
// factor 0 (so the infinite elements become NaN and the others 0), as in
// PyTorch. The float32 sums are taken in another order than PyTorch's
// (per workgroup of 4,096 elements, then over the workgroups), so the
// norm agrees with PyTorch's to float32 rounding.
//
// The work is one reduction pass over all the gradients: one dispatch per
// batch of up to 30 gradients (14 on GL), then one dispatch that reduces
// the partial sums to the norm and the factor, then one dispatch per
// batch of up to 30 gradients (15 on GL) that scales them in place: for
// N gradients, 2⌈N/30⌉ + 1 dispatches on Vulkan (the engine may cut a
// large dispatch into several within its work budget).
// Each gradient's Version goes up by one, as with any in-place write.
//
// It refuses, before it dispatches anything, a nil or zero engine, a
// maxNorm that is negative or NaN, another NormType, and a gradient that
// is disposed, carries an error, is not float32, lives on another device,
// or shares its storage with another (it would be scaled twice): the
// error names the gradient's index and shape. Only a device failure
// part-way leaves some gradients scaled. Like every op, it belongs to the
// engine's goroutine.
func ClipGradNorm(e *tensor.Engine, grads []*tensor.Tensor, maxNorm float64, o ClipOptions) (*tensor.Tensor, error) {
	items, infNorm, err := checkClip(e, grads, maxNorm, o)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		total := e.Scalar(0)
		if err := total.Err(); err != nil {
			total.Dispose()
			return nil, clipErr("%w", err)
		}
		return total, nil
	}
	var temps []*tensor.Tensor
	defer func() {
		for _, t := range temps {
			t.Dispose()
		}
	}()
	sums, bits, err := clipReduce(e, items)
	temps = append(temps, sums, bits)
	if err != nil {
		return nil, err
	}
	total, scale, err := clipTotal(e, sums, bits, maxNorm, infNorm)
	temps = append(temps, scale)
	if err != nil {
		total.Dispose()
		return nil, err
	}
	if o.ErrorIfNonfinite {
		ctx := o.Context
		if ctx == nil {
			ctx = context.Background()
		}
		v, err := total.Float32s(ctx)
		if err == nil && (math.IsNaN(float64(v[0])) || math.IsInf(float64(v[0]), 0)) {
			err = fmt.Errorf("optim: clip grad norm: the total norm of order %v of %d gradients is %v, so it cannot clip them; nothing was scaled: %w",
				normName(infNorm), len(items), v[0], ErrNonfinite)
		}
		if err != nil {
			total.Dispose()
			if !errors.Is(err, ErrNonfinite) {
				err = clipErr("reading the total norm: %w", err)
			}
			return nil, err
		}
	}
	if err := clipScale(e, items, scale); err != nil {
		total.Dispose()
		return nil, err
	}
	return total, nil
}

func clipErr(format string, args ...any) error {
	return fmt.Errorf("optim: clip grad norm: "+format, args...)
}

func normName(inf bool) string {
	if inf {
		return "inf"
	}
	return "2"
}

// checkClip checks ClipGradNorm's arguments and returns the gradients to
// reduce (not nil, not empty) and whether the norm is the largest
// absolute value.
func checkClip(e *tensor.Engine, grads []*tensor.Tensor, maxNorm float64, o ClipOptions) ([]clipItem, bool, error) {
	if e.Device() == nil {
		return nil, false, clipErr("nil or zero engine: %w", ErrArgument)
	}
	if !(maxNorm >= 0) {
		return nil, false, clipErr("max norm %v; it must be ≥ 0: %w", maxNorm, ErrArgument)
	}
	var infNorm bool
	switch o.NormType {
	case 0, 2:
	case math.Inf(1):
		infNorm = true
	default:
		return nil, false, clipErr("norm type %v; only 2 and +Inf are supported: %w", o.NormType, ErrArgument)
	}
	var items []clipItem
	owner := map[uint64]int{}
	for i, g := range grads {
		if g == nil {
			continue
		}
		switch {
		case g.Err() != nil:
			return nil, false, clipErr("gradient %d: %w", i, g.Err())
		case g.IsDisposed():
			return nil, false, clipErr("gradient %d %v: %w", i, g.Shape(), tensor.ErrDisposed)
		case g.DType() != tensor.Float32:
			return nil, false, clipErr("gradient %d %v is %s; gradients are float32: %w", i, g.Shape(), g.DType(), tensor.ErrDType)
		case g.Engine().Device() != e.Device():
			return nil, false, clipErr("gradient %d %v lives on another device than the engine: %w", i, g.Shape(), ErrArgument)
		}
		if j, ok := owner[g.StorageID()]; ok {
			return nil, false, clipErr("gradients %d %v and %d %v share their storage; each would be scaled twice: %w", j, grads[j].Shape(), i, g.Shape(), ErrArgument)
		}
		owner[g.StorageID()] = i
		if n := g.Size(); n > 0 {
			items = append(items, clipItem{t: g, n: n, wgs: (n + clipChunk - 1) / clipChunk})
		}
	}
	return items, infNorm, nil
}

// clipBatch is the number of gradients a dispatch binds beside others
// bindings: the device's limit, at most clipMaxBatch.
func clipBatch(e *tensor.Engine, others int) int {
	return clipBatchFor(e.Device().Limits().MaxStorageBuffersPerShaderStage, others)
}

// clipBatchFor is clipBatch for a device that binds at most storage
// storage buffers per dispatch.
func clipBatchFor(storage uint32, others int) int {
	return max(1, min(clipMaxBatch, int(storage)-others))
}

// clipData fills ClipGradNorm's templates (clip_norm.wgsl,
// clip_scale.wgsl and what they share, clip.wgsl) for a kernel over k
// gradients.
type clipData struct {
	K         int
	Gradients []int // 0..k-1
	Rest      []int // 1..k-1: the gradients after the first
	Cases     []int // 0..k-2: the switches' cases before their default
	Last      int   // k-1

	Workgroup, PerThread, Chunk, Half int // clipWorkgroup, clipPerThread, clipChunk, clipWorkgroup/2
}

func newClipData(k int) clipData {
	return clipData{K: k, Gradients: seq(k), Rest: seq(k)[1:], Cases: seq(k - 1), Last: k - 1,
		Workgroup: clipWorkgroup, PerThread: clipPerThread, Chunk: clipChunk, Half: clipWorkgroup / 2}
}

// clipParams writes the header members n0..n{k-1}, s1..s{k-1} of a
// batch: sizes and first workgroups; missing entries (a batch padded to
// k) have no elements and start past every workgroup.
func clipParams(batch []clipItem, k int) []any {
	out := make([]any, 0, 2*k-1)
	for i := range k {
		n := 0
		if i < len(batch) {
			n = batch[i].n
		}
		out = append(out, uint32(n))
	}
	s := 0
	for i := range k {
		if i > 0 {
			if i < len(batch) {
				out = append(out, uint32(s))
			} else {
				out = append(out, uint32(math.MaxUint32))
			}
		}
		if i < len(batch) {
			s += batch[i].wgs
		}
	}
	return out
}

// normKernel reduces k gradients (bindings 0..k-1) to one partial sum of
// squares and one largest absolute value (as bits: the order of
// non-negative floats is their bits', NaN above +Inf, so the largest bits
// tell NaN, infinity or the largest value, whatever the device does with
// NaN in float comparisons) per workgroup, at partials base + w:
// clip_norm.wgsl.
func normKernel(k int) tensor.Kernel {
	src := fill("clip_norm.wgsl", newClipData(k))
	return tensor.Kernel{Name: "optim.clip_norm", Key: fmt.Sprintf("optim.clip_norm/%d", k), Source: src, Workgroup: clipWorkgroup,
		Work: clipPerThread * 4}
}

// clipReduce dispatches the norm kernel over every gradient, a batch at a
// time, into partial sums and bits of one element per workgroup, which
// the first batch creates and the others update.
func clipReduce(e *tensor.Engine, items []clipItem) (sums, bits *tensor.Tensor, err error) {
	total := 0
	for _, it := range items {
		total += it.wgs
	}
	k := clipBatch(e, 2)
	kernel := normKernel(k)
	base := 0
	for from := 0; from < len(items); from += k {
		batch := items[from:min(from+k, len(items))]
		inputs := make([]*tensor.Tensor, k)
		wgs := 0
		for i := range inputs {
			inputs[i] = batch[min(i, len(batch)-1)].t // padding is bound, never read
			if i < len(batch) {
				wgs += batch[i].wgs
			}
		}
		l := tensor.Launch{Inputs: inputs, Threads: wgs * clipWorkgroup, Params: append([]any{uint32(base)}, clipParams(batch, k)...)}
		if sums == nil {
			l.Outputs = []tensor.Out{{Shape: tensor.Shape{total}, DType: tensor.Float32}, {Shape: tensor.Shape{total}, DType: tensor.Uint32}}
		} else {
			l.InOut = []*tensor.Tensor{sums, bits}
		}
		res := e.RunKernel(kernel, l)
		if sums == nil {
			sums, bits = res[0], res[1] // two outputs, or two tensors carrying the error
		}
		for _, r := range res {
			if r.Err() != nil {
				return sums, bits, clipErr("norm of gradients %s: %w", shapesOf(batch), r.Err())
			}
		}
		base += wgs
	}
	return sums, bits, nil
}

// shapesOf lists the shapes of a batch, for errors.
func shapesOf(batch []clipItem) string {
	var s []string
	for _, it := range batch {
		s = append(s, it.t.Shape().String())
	}
	return strings.Join(s, " ")
}

// totalKernel reduces the partials to the total norm (a scalar) and the
// factor min(1, maxNorm/(total + 1e-6)), in one workgroup: NaN if the
// norm is, 0 if it is infinite (NaN if maxNorm is too), as PyTorch's
// float32 arithmetic gives them: clip_total.wgsl.
var totalKernel = tensor.Kernel{Name: "optim.clip_total", Key: "optim.clip_total", Workgroup: clipWorkgroup, Source: fill("clip_total.wgsl", newClipData(1))}

// clipTotal dispatches totalKernel: the total norm, returned to the
// caller, and the factor.
func clipTotal(e *tensor.Engine, sums, bits *tensor.Tensor, maxNorm float64, infNorm bool) (total, scale *tensor.Tensor, err error) {
	k := totalKernel
	k.Work = float64(sums.Size()/clipWorkgroup+1) * 8
	inf := uint32(0)
	if infNorm {
		inf = 1
	}
	res := e.RunKernel(k, tensor.Launch{Inputs: []*tensor.Tensor{sums, bits}, Threads: clipWorkgroup,
		Outputs: []tensor.Out{{Shape: tensor.Shape{}, DType: tensor.Float32}, {Shape: tensor.Shape{1}, DType: tensor.Float32}},
		Params:  []any{uint32(sums.Size()), float32(maxNorm), inf}})
	total, scale = res[0], res[1] // two outputs, or two tensors carrying the error
	for _, r := range res {
		if r.Err() != nil {
			return total, scale, clipErr("total norm: %w", r.Err())
		}
	}
	return total, scale, nil
}

// scaleKernel multiplies k gradients (bindings 1..k, in place) by the
// factor (binding 0), skipping the writes when it is 1: clip_scale.wgsl.
func scaleKernel(k int) tensor.Kernel {
	src := fill("clip_scale.wgsl", newClipData(k))
	return tensor.Kernel{Name: "optim.clip_scale", Key: fmt.Sprintf("optim.clip_scale/%d", k), Source: src, Workgroup: clipWorkgroup,
		Work: clipPerThread * 4}
}

// clipScale dispatches the scale kernel over every gradient, a batch at a
// time.
func clipScale(e *tensor.Engine, items []clipItem, scale *tensor.Tensor) error {
	k := clipBatch(e, 1)
	for from := 0; from < len(items); from += k {
		batch := items[from:min(from+k, len(items))]
		inOut := make([]*tensor.Tensor, len(batch))
		wgs := 0
		for i, it := range batch {
			inOut[i] = it.t
			wgs += it.wgs
		}
		res := e.RunKernel(scaleKernel(len(batch)), tensor.Launch{Inputs: []*tensor.Tensor{scale}, InOut: inOut, Threads: wgs * clipWorkgroup,
			Params: clipParams(batch, len(batch))})
		for _, r := range res { // none, or one tensor carrying the error
			if r.Err() != nil {
				return clipErr("scaling gradients %s: %w", shapesOf(batch), r.Err())
			}
		}
	}
	return nil
}
