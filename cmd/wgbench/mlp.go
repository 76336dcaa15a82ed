package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/internal/cputime"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// The MLP of mlp_train_step and mlp_forward, as the peers define it: a
// 784-256-10 ReLU network on a batch of 128, softmax cross-entropy with
// integer labels.
const (
	mlpBatch, mlpIn, mlpHidden, mlpClasses = 128, 784, 256, 10
	mlpLR                                  = 0.1   // SGD's learning rate
	mlpSteps                               = 100   // timed steps in each sample of mlp_train_step
	mlpSmokeSteps                          = 5     // timed steps of the smoke suite's mlp_train_smoke_5
	mlpForwardBlocks, mlpBlockPasses       = 10, 5 // mlp_forward's timed blocks of each kind, and passes in a block
)

// trainWarmup is how many steps every training workload takes before the
// timed ones.
const trainWarmup = 20

// mlpHost is the MLP's data on the host, from a fixed seed: one batch of
// inputs and labels, and the initial parameters (He-uniform weights, zero
// biases).
type mlpHost struct {
	x, w1, b1, w2, b2 []float32
	labels            []int32
}

// mlpData is the MLP's data, made once.
var mlpData = sync.OnceValue(newMLPHost)

// mlpWantLoss is the loss of mlpData's initial parameters.
var mlpWantLoss = sync.OnceValue(func() float64 { return mlpData().loss() })

func newMLPHost() mlpHost {
	r := rand.New(rand.NewPCG(784, 10))
	heUniform := func(fanIn, n int) []float32 {
		v := randF32(r, n)
		bound := float32(math.Sqrt(6 / float64(fanIn)))
		for i := range v {
			v[i] *= bound
		}
		return v
	}
	h := mlpHost{
		x:  randF32(r, mlpBatch*mlpIn),
		w1: heUniform(mlpIn, mlpIn*mlpHidden), b1: make([]float32, mlpHidden),
		w2: heUniform(mlpHidden, mlpHidden*mlpClasses), b2: make([]float32, mlpClasses),
		labels: make([]int32, mlpBatch),
	}
	for i := range h.labels {
		h.labels[i] = int32(r.IntN(mlpClasses))
	}
	return h
}

// loss returns the mean softmax cross-entropy of the MLP's logits, in
// float64.
func (h mlpHost) loss() float64 {
	hidden := make([]float64, mlpHidden)
	logits := make([]float64, mlpClasses)
	var total float64
	for n := range mlpBatch {
		for j := range mlpHidden {
			s := float64(h.b1[j])
			for k := range mlpIn {
				s += float64(h.x[n*mlpIn+k]) * float64(h.w1[k*mlpHidden+j])
			}
			hidden[j] = max(s, 0)
		}
		m := math.Inf(-1)
		for c := range mlpClasses {
			s := float64(h.b2[c])
			for j := range mlpHidden {
				s += hidden[j] * float64(h.w2[j*mlpClasses+c])
			}
			logits[c] = s
			m = max(m, s)
		}
		var z float64
		for _, l := range logits {
			z += math.Exp(l - m)
		}
		total += m + math.Log(z) - logits[h.labels[n]]
	}
	return total / mlpBatch
}

// mlp is the MLP on an engine: its batch and its parameters.
type mlp struct {
	x, labels      *tensor.Tensor
	w1, b1, w2, b2 *tensor.Tensor
}

func newMLP(e *tensor.Engine, h mlpHost) mlp {
	return mlp{
		x: e.FromFloat32s(h.x, mlpBatch, mlpIn), labels: e.FromInt32s(h.labels, mlpBatch),
		w1: e.FromFloat32s(h.w1, mlpIn, mlpHidden), b1: e.FromFloat32s(h.b1, mlpHidden),
		w2: e.FromFloat32s(h.w2, mlpHidden, mlpClasses), b2: e.FromFloat32s(h.b2, mlpClasses),
	}
}

func (m mlp) dispose() { tidy.Dispose([]*tensor.Tensor{m.x, m.labels, m.w1, m.b1, m.w2, m.b2}) }

func (m mlp) params() []*tensor.Tensor { return []*tensor.Tensor{m.w1, m.b1, m.w2, m.b2} }

// loss is the forward pass: the mean cross-entropy of
// relu(x·w1 + b1)·w2 + b2 against the labels. Only the loss outlives it.
func (m mlp) loss(e *tensor.Engine) (*tensor.Tensor, error) {
	return tidy.Run(e, func() (*tensor.Tensor, error) {
		h := e.Relu(e.Add(e.MatMul(m.x, m.w1), m.b1))
		l := loss.SoftmaxCrossEntropy(e, e.Add(e.MatMul(h, m.w2), m.b2), m.labels, loss.Mean)
		return l, l.Err()
	})
}

// trainer is one optimizer step after another on a model (SGD, or the
// transformer's AdamW): the training workloads' loop.
type trainer struct {
	e      *tensor.Engine
	loss   func() (*tensor.Tensor, error) // the forward pass to the loss, which the caller owns
	params []*tensor.Tensor               // what the steps update
	opt    optim.Optimizer
	want   float64 // the loss of the initial parameters, computed on the host
	free   func()  // frees the model and its data
	// autocast is the dtype the steps' tapes save activations in
	// (grad.Options.Autocast): float32, or bfloat16 for the _autocast
	// workloads.
	autocast tensor.DType
}

// newTrainer returns a trainer of SGD at the learning rate lr on params,
// the loss of whose initial values is want. free frees the model and its
// data; the trainer's dispose calls it, and newTrainer does if it fails.
func newTrainer(e *tensor.Engine, params []optim.Param, lr, want float64, loss func() (*tensor.Tensor, error), free func()) (*trainer, error) {
	opt, err := optim.NewSGD(e, params, optim.SGDConfig{LR: lr})
	if err != nil {
		free()
		return nil, err
	}
	return trainerOf(e, opt, want, loss, free), nil
}

// trainerOf returns a trainer of opt on its parameters; want, loss and
// free are as newTrainer takes them.
func trainerOf(e *tensor.Engine, opt optim.Optimizer, want float64, loss func() (*tensor.Tensor, error), free func()) *trainer {
	ps := opt.Params()
	ts := make([]*tensor.Tensor, len(ps))
	for i, p := range ps {
		ts[i] = p.T
	}
	return &trainer{e: e, loss: loss, params: ts, opt: opt, want: want, free: free}
}

func newMLPTrainer(_ context.Context, e *tensor.Engine) (*trainer, error) {
	m := newMLP(e, mlpData())
	ps := m.params()
	params := make([]optim.Param, len(ps))
	for i, name := range []string{"w1", "b1", "w2", "b2"} {
		params[i] = optim.Param{Name: name, T: ps[i]}
	}
	return newTrainer(e, params, mlpLR, mlpWantLoss(), func() (*tensor.Tensor, error) { return m.loss(e) }, m.dispose)
}

// step computes the loss and its gradients, updates the parameters in
// place and returns the loss (before the update), which the caller owns.
func (t *trainer) step() (*tensor.Tensor, error) {
	return tidy.Run(t.e, func() (*tensor.Tensor, error) {
		l, gs, err := grad.ValueAndGrad(t.e, func([]*tensor.Tensor) (*tensor.Tensor, error) { return t.loss() }, t.params, &grad.Options{Autocast: t.autocast})
		if err != nil {
			return nil, err
		}
		return l, t.opt.Step(gs)
	})
}

// steps runs n steps and reads back the last one's loss, so that the
// work is done when it returns.
func (t *trainer) steps(ctx context.Context, n int) (float32, error) {
	var l *tensor.Tensor
	defer func() { l.Dispose() }()
	for range n {
		l.Dispose()
		var err error
		if l, err = t.step(); err != nil {
			return 0, err
		}
	}
	v, err := l.Float32s(ctx)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

func (t *trainer) dispose() {
	t.opt.Dispose()
	t.free()
}

// trainWorkload is a training workload: from the initial parameters of
// the model start makes, trainWarmup warm-up steps of SGD (the first
// loss read, and the last: it must have decreased, and the first must be
// the host's), then steps steps ended by a readback of the loss; ms per
// step, the processor time per step (cpuMetric), and the live tensors
// before and after the timed steps, which must be equal, as must the live
// bytes.
func trainWorkload(name string, steps int, start func(context.Context, *tensor.Engine) (*trainer, error)) workload {
	return workload{name: name, run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
		tr, err := start(ctx, e)
		if err != nil {
			return Result{}, err
		}
		defer tr.dispose()
		return tr.time(ctx, trainWarmup, steps)
	}}
}

// time takes warmup steps (at least 2) and times steps more: see
// trainWorkload, whose warm-up is trainWarmup steps. peak_live is the
// device's most live buffer bytes during the timed steps (the model, its
// optimizer's state, and each step's activations, gradients and staging).
func (t *trainer) time(ctx context.Context, warmup, steps int) (Result, error) {
	first, err := t.steps(ctx, 1)
	if err != nil {
		return Result{}, err
	}
	warm, err := t.steps(ctx, warmup-1)
	if err != nil {
		return Result{}, err
	}
	before := t.e.Memory()
	pool := t.e.Device().Pool()
	pool.ResetPeaks()
	cpu0, cpuOK := cputime.Process()
	start := time.Now()
	last, err := t.steps(ctx, steps)
	el := time.Since(start)
	cpu1, _ := cputime.Process()
	if err != nil {
		return Result{}, err
	}
	peak := pool.Stats().PeakLiveBytes
	after := t.e.Memory()
	finite := func(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }
	ok := finite(first) && finite(warm) && finite(last) && warm < first &&
		math.Abs(float64(first)-t.want) <= 1e-4*max(1, math.Abs(t.want)) &&
		before.Tensors == after.Tensors && before.Bytes == after.Bytes
	per := el / time.Duration(steps)
	return Result{Value: float64(per.Nanoseconds()) / 1e6, Unit: "ms/step", NsPerOp: float64(per.Nanoseconds()), Ops: steps, Ok: ok,
		Check: fmt.Sprintf("loss %.4f at step 1 (host %.4f), %.4f at %d, %.4f at %d; live tensors %d → %d, bytes %d → %d",
			first, t.want, warm, warmup, last, warmup+steps, before.Tensors, after.Tensors, before.Bytes, after.Bytes),
		Extra: append(Metrics{countMetric("live_tensors_before", before.Tensors), countMetric("live_tensors_after", after.Tensors),
			bytesMetric("peak_live", peak)}, cpuMetric(cpu1-cpu0, steps, cpuOK)...)}, nil
}

// mlp_train_step: the MLP trained by SGD at mlpLR (trainWorkload), 100
// timed steps. mlp_train_smoke_N, for the smoke suite, times N steps
// instead.
func mlpTrainStep(steps int) workload {
	name := "mlp_train_step"
	if steps != mlpSteps {
		name = fmt.Sprintf("mlp_train_smoke_%d", steps)
	}
	return trainWorkload(name, steps, newMLPTrainer)
}

// cpuMetric returns the processor time the process used per step, named
// cpu, or nothing where the platform does not report it. On a software
// driver the kernels run on the process's threads, so this is the step's
// work, which other processes' load does not stretch as it does the time
// per step: it compares backends fairly on a shared machine.
func cpuMetric(used time.Duration, steps int, ok bool) Metrics {
	if !ok {
		return nil
	}
	return Metrics{{Name: "cpu", Value: float64(used.Nanoseconds()) / 1e6 / float64(steps), Unit: "ms/step"}}
}

// countMetric returns a metric of n tensors.
func countMetric(name string, n int) Metric {
	return Metric{Name: name, Value: float64(n), Unit: "tensors"}
}

// mlp_forward: forward passes of the MLP to its loss, without a tape and
// each recorded on a tape of its own (disposed after it), in alternating
// blocks of 5 passes each flushed and then one readback, in the order
// ABBA ABBA..., so that a change of the machine's load falls on both
// alike; every loss read is checked against a float64 forward pass on
// the host. ms per pass without a tape, with the tape's ms per pass and
// its overhead in percent as extras. One block of each warms up first.
var mlpForward = workload{name: "mlp_forward", run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
	m := newMLP(e, mlpData())
	defer m.dispose()
	want := mlpWantLoss()
	el := map[bool]time.Duration{} // by recording: without a tape, with one
	bad := 0
	for b := range 1 + mlpForwardBlocks { // the first pair of blocks warms up
		for _, recording := range []bool{b%2 == 0, b%2 != 0} {
			start := time.Now()
			got, err := forwardBlock(ctx, e, m, recording)
			if err != nil {
				return Result{}, err
			}
			if b > 0 {
				el[recording] += time.Since(start)
			}
			if math.Abs(float64(got)-want) > 1e-4*max(1, math.Abs(want)) {
				bad++
			}
		}
	}
	const passes = mlpForwardBlocks * mlpBlockPasses
	plain, taped := el[false]/passes, el[true]/passes
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	return Result{Value: ms(plain), Unit: "ms/pass", NsPerOp: float64(plain.Nanoseconds()), Ops: passes,
		Ok: bad == 0, Check: fmt.Sprintf("%d of %d losses off the host's %.6f", bad, 2*(1+mlpForwardBlocks), want),
		Extra: Metrics{{Name: "with_tape", Value: ms(taped), Unit: "ms/pass"},
			{Name: "tape_overhead", Value: 100 * (float64(taped)/float64(plain) - 1), Unit: "%"}}}, nil
}}

// forwardBlock runs mlpBlockPasses forward passes of m, each flushed and
// recorded on a tape of its own if recording, and reads back the last
// loss.
func forwardBlock(ctx context.Context, e *tensor.Engine, m mlp, recording bool) (float32, error) {
	pass := func() (*tensor.Tensor, error) {
		if !recording {
			return m.loss(e)
		}
		return tidy.Run(e, func() (*tensor.Tensor, error) {
			tape := grad.NewTape(e) // disposed with the scope
			var l *tensor.Tensor
			err := tape.Record(func() (err error) { l, err = m.loss(e); return err })
			return l, err
		})
	}
	return passBlock(ctx, e, pass)
}

// passBlock runs mlpBlockPasses passes of pass, which returns a scalar
// loss, each flushed, and reads back the last loss.
func passBlock(ctx context.Context, e *tensor.Engine, pass func() (*tensor.Tensor, error)) (float32, error) {
	var l *tensor.Tensor
	defer func() { l.Dispose() }()
	for range mlpBlockPasses {
		l.Dispose()
		var err error
		if l, err = pass(); err == nil {
			err = e.Flush()
		}
		if err != nil {
			return 0, err
		}
	}
	v, err := l.Float32s(ctx)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// autocast returns start with the trainer's tapes saving activations in
// bfloat16 (grad.Tape.SetAutocast): a training workload's _autocast form.
func autocast(start func(context.Context, *tensor.Engine) (*trainer, error)) func(context.Context, *tensor.Engine) (*trainer, error) {
	return func(ctx context.Context, e *tensor.Engine) (*trainer, error) {
		t, err := start(ctx, e)
		if err == nil {
			t.autocast = tensor.BFloat16
		}
		return t, err
	}
}
