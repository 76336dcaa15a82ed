package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/wgtensor/wgtensor/internal/cputime"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// transformer_train_step: a GPT-style decoder trained by AdamW on one
// fixed batch of random tokens, defined precisely enough that a peer
// implements the same workload (bench/transformer_train_step.md): the data and initial values come from
// xorshift32 streams, and the loss of step 1 is checked against the
// definition's float64 value.
const (
	gptVocab, gptContext, gptBatch = 64, 64, 16
	gptN                           = gptBatch * gptContext // positions in the batch
	gptD, gptHeads, gptBlocks      = 128, 4, 2
	gptHeadDim                     = gptD / gptHeads
	gptMLP                         = 4 * gptD
	gptInitScale                   = 0.034641016151377546 // 0.02·√3: uniform with standard deviation 0.02
	gptLR, gptWeightDecay          = 3e-4, 0.01
	gptWarmup, gptSamples, gptEach = 10, 5, 4 // warm-up steps; timed samples of gptEach steps
	gptStep1Loss                   = 4.170652 // the definition's float64 loss of the initial parameters
)

// xorshift32 is the definition's random stream.
type xorshift32 uint32

func newXorshift32(seed uint32) *xorshift32 {
	s := xorshift32(seed * 2654435761)
	if s == 0 {
		s = 1
	}
	return &s
}

func (s *xorshift32) next() uint32 {
	x := uint32(*s)
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	*s = xorshift32(x)
	return x
}

// uniform returns the stream's next value in [-1, 1), as float32.
func (s *xorshift32) uniform() float32 { return float32(float64(s.next())/(1<<31) - 1) }

// gptUniform returns n values of U(seed): the stream's uniforms scaled by
// gptInitScale in float64 and rounded to float32.
func gptUniform(seed uint32, n int) []float32 {
	s := newXorshift32(seed)
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(float64(s.uniform()) * gptInitScale)
	}
	return v
}

// gptHost is the workload's data on the host: inputs and targets, [N].
type gptHost struct {
	inputs, targets []int32
}

// gptData draws the batch: B·(T+1) ids from the stream of seed 301;
// sequence b is ids[65b .. 65b+64].
var gptData = sync.OnceValue(func() gptHost {
	s := newXorshift32(301)
	ids := make([]int32, gptBatch*(gptContext+1))
	for i := range ids {
		ids[i] = int32(s.next() >> 26)
	}
	h := gptHost{inputs: make([]int32, gptN), targets: make([]int32, gptN)}
	for b := range gptBatch {
		for t := range gptContext {
			h.inputs[b*gptContext+t] = ids[b*(gptContext+1)+t]
			h.targets[b*gptContext+t] = ids[b*(gptContext+1)+t+1]
		}
	}
	return h
})

// gptBlockParams are one block's parameters.
type gptBlockParams struct {
	ln1g, ln1b, wqkv, bqkv, wo, bo, ln2g, ln2b, w1, b1, w2, b2 *tensor.Tensor
}

// gptModel is the decoder on an engine: its batch, causal mask and
// parameters.
type gptModel struct {
	inputs, targets  *tensor.Tensor
	tokEmb, posEmb   *tensor.Tensor
	blocks           []gptBlockParams
	lnfg, lnfb, wout *tensor.Tensor
}

func newGPTModel(e *tensor.Engine) *gptModel {
	h := gptData()
	m := &gptModel{
		inputs:  e.FromInt32s(h.inputs, gptN),
		targets: e.FromInt32s(h.targets, gptN),
		tokEmb:  e.FromFloat32s(gptUniform(311, gptVocab*gptD), gptVocab, gptD),
		posEmb:  e.FromFloat32s(gptUniform(312, gptContext*gptD), gptContext, gptD),
		lnfg:    e.Ones(tensor.Float32, gptD),
		lnfb:    e.Zeros(tensor.Float32, gptD),
		wout:    e.FromFloat32s(gptUniform(341, gptD*gptVocab), gptD, gptVocab),
	}
	for l := range gptBlocks {
		seed := uint32(320 + 10*l)
		m.blocks = append(m.blocks, gptBlockParams{
			ln1g: e.Ones(tensor.Float32, gptD), ln1b: e.Zeros(tensor.Float32, gptD),
			wqkv: e.FromFloat32s(gptUniform(seed, gptD*3*gptD), gptD, 3*gptD), bqkv: e.Zeros(tensor.Float32, 3*gptD),
			wo: e.FromFloat32s(gptUniform(seed+1, gptD*gptD), gptD, gptD), bo: e.Zeros(tensor.Float32, gptD),
			ln2g: e.Ones(tensor.Float32, gptD), ln2b: e.Zeros(tensor.Float32, gptD),
			w1: e.FromFloat32s(gptUniform(seed+2, gptD*gptMLP), gptD, gptMLP), b1: e.Zeros(tensor.Float32, gptMLP),
			w2: e.FromFloat32s(gptUniform(seed+3, gptMLP*gptD), gptMLP, gptD), b2: e.Zeros(tensor.Float32, gptD),
		})
	}
	return m
}

// params lists the 29 parameters, named, in the definition's order.
func (m *gptModel) params() []optim.Param {
	ps := []optim.Param{{Name: "tok_emb", T: m.tokEmb}, {Name: "pos_emb", T: m.posEmb}}
	for l, b := range m.blocks {
		p := fmt.Sprintf("blocks.%d.", l)
		ps = append(ps,
			optim.Param{Name: p + "ln1.gamma", T: b.ln1g}, optim.Param{Name: p + "ln1.beta", T: b.ln1b},
			optim.Param{Name: p + "wqkv", T: b.wqkv}, optim.Param{Name: p + "bqkv", T: b.bqkv},
			optim.Param{Name: p + "wo", T: b.wo}, optim.Param{Name: p + "bo", T: b.bo},
			optim.Param{Name: p + "ln2.gamma", T: b.ln2g}, optim.Param{Name: p + "ln2.beta", T: b.ln2b},
			optim.Param{Name: p + "w1", T: b.w1}, optim.Param{Name: p + "b1", T: b.b1},
			optim.Param{Name: p + "w2", T: b.w2}, optim.Param{Name: p + "b2", T: b.b2})
	}
	return append(ps, optim.Param{Name: "lnf.gamma", T: m.lnfg}, optim.Param{Name: "lnf.beta", T: m.lnfb},
		optim.Param{Name: "wout", T: m.wout})
}

func (m *gptModel) dispose() {
	tidy.Dispose([]*tensor.Tensor{m.inputs, m.targets})
	for _, p := range m.params() {
		p.T.Dispose()
	}
}

// loss is the forward pass to the mean next-token cross-entropy. Only the
// loss outlives it: each intermediate is freed as soon as the next op has
// used it, as nn's layers free theirs (what a tape saves it keeps), where
// a scope alone would hold them all until the pass ends.
func (m *gptModel) loss(e *tensor.Engine) (*tensor.Tensor, error) {
	return tidy.Run(e, func() (*tensor.Tensor, error) {
		tok := e.Gather(m.tokEmb, m.inputs, 0)
		tok3 := e.Reshape(tok, gptBatch, gptContext, gptD)
		x3 := then(e.Add(tok3, m.posEmb), tok3, tok)
		x := then(e.Reshape(x3, gptN, gptD), x3)
		for _, b := range m.blocks {
			x = then(b.forward(e, x), x)
		}
		h := then(e.LayerNorm(x, m.lnfg, m.lnfb, 1e-5), x)
		logits := then(e.MatMul(h, m.wout), h)
		l := then(loss.SoftmaxCrossEntropy(e, logits, m.targets, loss.Mean), logits)
		return l, l.Err()
	})
}

// then returns r after freeing used, which r was computed from.
func then(r *tensor.Tensor, used ...*tensor.Tensor) *tensor.Tensor {
	tidy.Dispose(used)
	return r
}

// forward is the block's output for x, [gptN, gptD], freeing its
// intermediates as loss does. x stays the caller's.
func (b gptBlockParams) forward(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor {
	linear := func(h, w, bias *tensor.Tensor) *tensor.Tensor {
		p := e.MatMul(h, w)
		return then(e.Add(p, bias), p)
	}
	h := e.LayerNorm(x, b.ln1g, b.ln1b, 1e-5)
	qkv := then(linear(h, b.wqkv, b.bqkv), h) // [N, 3D]: q, k and v, each with its heads side by side
	// Causal attention per sequence and head, read from the projection as
	// it is and written with the heads merged.
	qkv3 := e.Reshape(qkv, gptBatch, gptContext, 3*gptD)
	o := then(e.ScaledDotProductAttentionPacked(qkv3, tensor.AttentionOptions{Causal: true, Heads: gptHeads}), qkv3, qkv)
	o2 := e.Reshape(o, gptN, gptD)
	a := then(linear(o2, b.wo, b.bo), o2, o)
	x1 := then(e.Add(x, a), a) // attention's residual
	h = e.LayerNorm(x1, b.ln2g, b.ln2b, 1e-5)
	u := then(linear(h, b.w1, b.b1), h) // the MLP
	g := then(e.Gelu(u), u)
	f := then(linear(g, b.w2, b.b2), g)
	return then(e.Add(x1, f), x1, f)
}

// newGPTTrainer returns a trainer of AdamW on the decoder; its want is
// the definition's loss of step 1.
func newGPTTrainer(e *tensor.Engine) (*trainer, error) {
	m := newGPTModel(e)
	c := optim.AdamWDefaults()
	c.LR, c.WeightDecay = gptLR, gptWeightDecay
	opt, err := optim.NewAdamW(e, m.params(), c)
	if err != nil {
		m.dispose()
		return nil, err
	}
	return trainerOf(e, opt, gptStep1Loss, func() (*tensor.Tensor, error) { return m.loss(e) }, m.dispose), nil
}

// transformerTrainStep runs the definition's protocol: from the initial
// parameters, gptWarmup steps (the loss read after step 1 and after the
// last), then gptSamples samples of gptEach steps, each ended by one
// readback of the loss. ms/step is the median sample's time per step; the
// processor time and dispatches per step are the median sample's too;
// peak_live is the device's most live buffer bytes over the samples.
// It passes when step 1's loss is the definition's (relative 1e-4), the
// loss falls (step 30 < step 10 < step 1), and the live tensors and bytes
// after the timed steps are those before.
var transformerTrainStep = gptWorkload("transformer_train_step", tensor.Float32)

// transformer_train_step_autocast is transformer_train_step with its
// activations saved in bfloat16 for the backward pass
// (grad.Options.Autocast): the same checks, step 1's loss included (the
// forward pass is float32's).
var transformerTrainStepAutocast = gptWorkload("transformer_train_step_autocast", tensor.BFloat16)

// gptWorkload is transformer_train_step's protocol under a name, its tapes
// saving activations in autocast.
func gptWorkload(name string, autocast tensor.DType) workload {
	return workload{name: name, run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
		return gptRun(ctx, e, autocast)
	}}
}

func gptRun(ctx context.Context, e *tensor.Engine, autocast tensor.DType) (Result, error) {
	tr, err := newGPTTrainer(e)
	if err != nil {
		return Result{}, err
	}
	tr.autocast = autocast
	defer tr.dispose()
	first, err := tr.steps(ctx, 1)
	if err != nil {
		return Result{}, err
	}
	warm, err := tr.steps(ctx, gptWarmup-1)
	if err != nil {
		return Result{}, err
	}
	before := e.Memory()
	pool := e.Device().Pool()
	pool.ResetPeaks()
	type sample struct{ ms, cpu, dispatches float64 }
	var samples []sample
	var last float32
	cpuOK := true
	for range gptSamples {
		d0 := e.Device().Stats().Dispatches
		cpu0, ok := cputime.Process()
		start := time.Now()
		if last, err = tr.steps(ctx, gptEach); err != nil {
			return Result{}, err
		}
		el := time.Since(start)
		cpu1, _ := cputime.Process()
		cpuOK = cpuOK && ok
		samples = append(samples, sample{
			ms:         float64(el.Nanoseconds()) / 1e6 / gptEach,
			cpu:        float64((cpu1 - cpu0).Nanoseconds()) / 1e6 / gptEach,
			dispatches: float64(e.Device().Stats().Dispatches-d0) / gptEach,
		})
	}
	peak := pool.Stats().PeakLiveBytes
	after := e.Memory()
	slices.SortFunc(samples, func(a, b sample) int { return cmp.Compare(a.ms, b.ms) })
	med := samples[len(samples)/2]
	finite := func(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }
	ok := finite(first) && finite(warm) && finite(last) && last < warm && warm < first &&
		math.Abs(float64(first)-gptStep1Loss) <= 1e-4*gptStep1Loss &&
		before.Tensors == after.Tensors && before.Bytes == after.Bytes
	total := gptWarmup + gptSamples*gptEach
	extra := Metrics{{Name: "dispatches", Value: med.dispatches, Unit: "dispatches/step"},
		countMetric("live_tensors_before", before.Tensors), countMetric("live_tensors_after", after.Tensors), bytesMetric("peak_live", peak)}
	if cpuOK {
		extra = append(extra, Metric{Name: "cpu", Value: med.cpu, Unit: "ms/step"})
	}
	return Result{Value: med.ms, Unit: "ms/step", NsPerOp: med.ms * 1e6, Ops: gptEach, Ok: ok,
		Check: fmt.Sprintf("loss %.6f at step 1 (definition %.6f), %.4f at %d, %.4f at %d; live tensors %d → %d, bytes %d → %d",
			first, gptStep1Loss, warm, gptWarmup, last, total, before.Tensors, after.Tensors, before.Bytes, after.Bytes),
		Extra: extra}, nil
}
