package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/safetensors"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// model_reload's model: a 784-1280-1280-10 ReLU MLP, weights [in, out]
// and biases as float32 in a safetensors file of 10.6 MB (2,657,290
// parameters), named as a PyTorch Sequential's state dict; predictions on
// a batch of reloadBatch.
var reloadLayers = []int{784, 1280, 1280, 10}

const (
	reloadBatch  = 1
	reloadCycles = 10 // timed cycles per sample, after one that warms up
	reloadCheck  = 1  // rows of the prediction checked against the host
)

// reloadHost is model_reload's weights and input on the host.
type reloadHost struct {
	names   []string    // "0.weight", "0.bias", "2.weight", ...
	shapes  [][]int     // by name's index
	weights [][]float32 // by name's index
	x       []float32   // the batch, [reloadBatch, 784]
}

func newReloadHost() reloadHost {
	r := rand.New(rand.NewPCG(1280, 10))
	var h reloadHost
	for l := range len(reloadLayers) - 1 {
		in, out := reloadLayers[l], reloadLayers[l+1]
		w := randF32(r, in*out)
		bound := float32(math.Sqrt(6 / float64(in))) // He-uniform
		for i := range w {
			w[i] *= bound
		}
		b := randF32(r, out)
		for i := range b {
			b[i] *= 0.1
		}
		h.names = append(h.names, fmt.Sprintf("%d.weight", 2*l), fmt.Sprintf("%d.bias", 2*l))
		h.shapes = append(h.shapes, []int{in, out}, []int{out})
		h.weights = append(h.weights, w, b)
	}
	h.x = randF32(r, reloadBatch*reloadLayers[0])
	return h
}

// write writes h's weights to a safetensors file at path, a tensor at a
// time, as float32 (F32), or as float16 (F16, rounded) with half.
func (h reloadHost) write(path string, half bool) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	infos := make([]safetensors.TensorInfo, len(h.names))
	for i, n := range h.names {
		infos[i] = safetensors.TensorInfo{Name: n, DType: safetensors.F32, Shape: h.shapes[i]}
		if half {
			infos[i].DType = safetensors.F16
		}
	}
	w, err := safetensors.NewWriter(f, infos, map[string]string{"model": "784-1280-1280-10 relu mlp"})
	if err != nil {
		return 0, err
	}
	for _, v := range h.weights {
		var data any = v
		if half {
			data = tensor.Float16Bits(v)
		}
		if err := binary.Write(w, binary.LittleEndian, data); err != nil {
			return 0, err
		}
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), f.Close()
}

// file writes h's weights (as float16 with half) to a new file in a
// temporary directory and returns its path, its size and the function
// that removes it.
func (h reloadHost) file(half bool) (path string, size int64, remove func(), err error) {
	dir, err := os.MkdirTemp("", "wgbench-reload-")
	if err != nil {
		return "", 0, nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "mlp.safetensors")
	if size, err = h.write(path, half); err != nil {
		remove()
		return "", 0, nil, err
	}
	return path, size, remove, nil
}

// predict returns the first rows of the MLP's logits, computed in float64.
func (h reloadHost) predict(rows int) []float64 {
	in := reloadLayers[0]
	var out []float64
	for n := range rows {
		act := make([]float64, in)
		for k := range in {
			act[k] = float64(h.x[n*in+k])
		}
		for l := range len(reloadLayers) - 1 {
			w, b := h.weights[2*l], h.weights[2*l+1]
			fanIn, fanOut := reloadLayers[l], reloadLayers[l+1]
			next := make([]float64, fanOut)
			for j := range fanOut {
				s := float64(b[j])
				for k := range fanIn {
					s += act[k] * float64(w[k*fanOut+j])
				}
				if l < len(reloadLayers)-2 {
					s = max(s, 0)
				}
				next[j] = s
			}
			act = next
		}
		out = append(out, act...)
	}
	return out
}

// reloadCycle loads the file into new tensors, predicts x's logits (in
// x's dtype, the file's), reads them back (widened) and disposes
// everything it made.
func reloadCycle(ctx context.Context, e *tensor.Engine, path string, x *tensor.Tensor) ([]float32, error) {
	return tidy.Run(e, func() ([]float32, error) {
		params, err := checkpoint.LoadTensorsFile(ctx, e, path)
		if err != nil {
			return nil, err
		}
		byName := map[string]*tensor.Tensor{}
		for _, p := range params {
			byName[p.Name] = p.T
		}
		act := x
		for l := range len(reloadLayers) - 1 {
			act = e.Add(e.MatMul(act, byName[fmt.Sprintf("%d.weight", 2*l)]), byName[fmt.Sprintf("%d.bias", 2*l)])
			if l < len(reloadLayers)-2 {
				act = e.Relu(act)
			}
		}
		return act.Float32s(ctx)
	})
}

// model_reload: load a 10.6 MB safetensors file of an MLP's float32
// weights into new tensors, predict one batch (the forward pass, its
// logits read back), dispose: ms per cycle, the pool's reserved bytes
// after the cycles, at their peak and after Trim, live bytes before and
// after. The pool is trimmed first, so that the figures are its own.
var modelReload = workload{name: "model_reload", run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
	h := newReloadHost()
	path, size, remove, err := h.file(false)
	if err != nil {
		return Result{}, err
	}
	defer remove()
	want := h.predict(reloadCheck)

	// Start from an empty pool, so that the figures are model_reload's own.
	d := e.Device()
	if err := d.Pool().Trim(); err != nil {
		return Result{}, err
	}
	d.Pool().ResetPeaks()
	x := e.FromFloat32s(h.x, reloadBatch, reloadLayers[0])
	before := e.Memory()
	bad := 0
	var el time.Duration
	for c := range 1 + reloadCycles { // the first cycle warms up
		start := time.Now()
		got, err := reloadCycle(ctx, e, path, x)
		if err != nil {
			x.Dispose()
			return Result{}, err
		}
		if c > 0 {
			el += time.Since(start)
		}
		for i, w := range want {
			if math.Abs(float64(got[i])-w) > 1e-3*max(1, math.Abs(w)) {
				bad++
			}
		}
	}
	after := e.Memory()
	x.Dispose()
	if err := d.Pool().Trim(); err != nil {
		return Result{}, err
	}
	trimmed := d.Pool().Stats()
	per := el / reloadCycles
	return Result{Value: float64(per.Nanoseconds()) / 1e6, Unit: "ms/cycle", NsPerOp: float64(per.Nanoseconds()), Ops: reloadCycles,
		Ok:    bad == 0 && after.Tensors == before.Tensors && after.Bytes == before.Bytes,
		Check: fmt.Sprintf("%d of %d logits off the host's; live tensors %d → %d", bad, len(want)*(1+reloadCycles), before.Tensors, after.Tensors),
		Extra: Metrics{bytesMetric("file", uint64(size)), bytesMetric("live_before", before.Bytes), bytesMetric("live_after", after.Bytes),
			bytesMetric("reserved_after", after.Pool.ReservedBytes), bytesMetric("peak_reserved", after.Pool.PeakReservedBytes),
			bytesMetric("reserved_after_trim", trimmed.ReservedBytes)}}, nil
}}

// model_reload_half: model_reload's MLP in a safetensors file of float16
// weights (5.3 MB), loaded into float16 tensors as the file holds them
// (checkpoint streams F16 in as it is), predicting in float16: ms per
// cycle; weights, the bytes of the tensors the file makes; peak_live,
// the device's most live bytes over the cycles, and its ratio to
// weights. It checks that no float32 copy is made (the most float32 bytes
// live at once are a product's row: float32_at_most) and that the
// logits stay within 2% (and 0.02) of the host's float64 ones of the
// float32 weights. The rest of the peak is the pool's size classes (a
// 3.2 MB tensor takes a 3.5 MiB buffer) and the load's upload chunks in
// flight (1 MiB each, DefaultChunkSize).
var modelReloadHalf = workload{name: "model_reload_half", run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
	h := newReloadHost()
	path, size, remove, err := h.file(true)
	if err != nil {
		return Result{}, err
	}
	defer remove()
	want := h.predict(reloadCheck)
	var weights uint64
	for _, v := range h.weights {
		weights += uint64((2*len(v) + 3) &^ 3)
	}
	d := e.Device()
	if err := d.Pool().Trim(); err != nil {
		return Result{}, err
	}
	x := e.FromFloat16Bits(tensor.Float16Bits(h.x), reloadBatch, reloadLayers[0])
	defer x.Dispose()
	// The memory history says what dtype every live buffer holds: the
	// run's own if it records one, else one for these cycles alone.
	if !d.Recording() {
		if err := d.RecordHistory(wgpu.HistoryOptions{}); err != nil {
			return Result{}, err
		}
		defer d.StopHistory()
	}
	const mark = "model_reload_half cycles"
	d.MarkHistory(mark)
	base := d.Pool().Stats().LiveBytes
	d.Pool().ResetPeaks()
	bad := 0
	var el time.Duration
	for c := range 1 + reloadCycles { // the first cycle warms up
		start := time.Now()
		got, err := reloadCycle(ctx, e, path, x)
		if err != nil {
			return Result{}, err
		}
		if c > 0 {
			el += time.Since(start)
		}
		for i, w := range want {
			if math.Abs(float64(got[i])-w) > 0.02*max(1, math.Abs(w)) {
				bad++
			}
		}
	}
	peak := d.Pool().Stats().PeakLiveBytes - base
	maxFloat32, err := mostLive(d, mark, "float32")
	if err != nil {
		return Result{}, err
	}
	per := el / reloadCycles
	ratio := float64(peak) / float64(weights)
	return Result{Value: float64(per.Nanoseconds()) / 1e6, Unit: "ms/cycle", NsPerOp: float64(per.Nanoseconds()), Ops: reloadCycles,
		Ok:    bad == 0 && maxFloat32 <= 4*reloadBatch*uint64(slices.Max(reloadLayers))+256,
		Check: fmt.Sprintf("%d of %d logits off the host's; at most %d float32 bytes live; peak %d B, %.3f × the weights' %d B", bad, len(want)*(1+reloadCycles), maxFloat32, peak, ratio, weights),
		Extra: Metrics{bytesMetric("file", uint64(size)), bytesMetric("weights", weights), bytesMetric("peak_live", peak),
			Metric{Name: "peak_over_weights", Value: ratio, Unit: "×"}, bytesMetric("float32_at_most", maxFloat32)}}, nil
}}

// mostLive returns the most bytes of storage tensors of dtype live at
// once in d's memory history since its last marker named mark.
func mostLive(d *wgpu.Device, mark, dtype string) (uint64, error) {
	h, err := d.History()
	if err != nil {
		return 0, err
	}
	marks := h.Marks(mark)
	if len(marks) == 0 {
		return 0, fmt.Errorf("the memory history has no marker %q (dropped: record more events)", mark)
	}
	var most uint64
	err = h.LiveEach(marks[len(marks)-1], func(_ int, live iter.Seq[wgpu.HistoryBuffer]) {
		var n uint64
		for b := range live {
			if b.Tag >= 0 && h.Tags[b.Tag].DType == dtype {
				n += b.Bytes
			}
		}
		most = max(most, n)
	})
	return most, err
}
