// Command spirals trains a two-layer perceptron to tell apart the arms of
// three generated spirals, three times: with a tape (grad.Tape), with the
// functional API (grad.ValueAndGrad), and with a tape that saves the
// activations in bfloat16 (grad.Tape.SetAutocast), each step inside
// frame.Loop with Adam updating the parameters in place. It prints each
// run's accuracy, and the accuracy of the trained model with its weights
// quantized to int8 (tensor.Engine.QuantizeInt8, products that read the
// int8 weights as they are), and exits non-zero when one is below 95%
// (94% with int8 weights) or the run left a tensor live.
//
//	go run ./examples/spirals
//
// WGT_BACKEND (vulkan, gl, metal, dx12) and WGT_ADAPTER (a name substring)
// choose the adapter.
package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/wgtensor/wgtensor/frame"
	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

const (
	arms, perArm = 3, 100 // the data set: 300 points, 3 classes
	hidden       = 64     // the hidden layer's width
	steps        = 200    // full-batch training steps
	learningRate = 0.05   // Adam's
	minAccuracy  = 0.95   // what a run must reach
)

// api is one way of computing gradients.
type api struct {
	name  string
	train func(ctx context.Context, e *tensor.Engine, m mlp, d dataset) error
}

var apis = []api{{"tape", trainWithTape(tensor.Float32)}, {"ValueAndGrad", trainWithValueAndGrad},
	{"tape, bfloat16 activations", trainWithTape(tensor.BFloat16)}}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "spirals:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		return err
	}
	e := tensor.New(d)
	var first score
	for i, a := range apis {
		s, err := trainAndScore(ctx, e, a)
		if err != nil {
			return errors.Join(err, d.Close())
		}
		if i == 0 {
			first = s
		}
		fmt.Printf("%s: loss %.6f, accuracy %.1f%% after %d steps, %.1f%% with int8 weights\n", a.name, s.loss, 100*s.acc, steps, 100*s.acc8)
		if err := s.check(first); err != nil {
			return errors.Join(fmt.Errorf("%s: %w", a.name, err), d.Close())
		}
	}
	if n := e.NumTensors(); n != 0 {
		return errors.Join(fmt.Errorf("%d tensors live at the end, want 0", n), d.Close())
	}
	return d.Close() // fails if a buffer is still live
}

// score is a trained model's loss and accuracy on the data set, and its
// accuracy with int8 weights.
type score struct{ loss, acc, acc8 float64 }

// check returns why s fails: an accuracy below minAccuracy (1% less with
// int8 weights), or a loss more than 0.01 + 10% off first's, the float32
// tape's (the bfloat16 activations' run ends within it).
func (s score) check(first score) error {
	switch {
	case s.acc < minAccuracy || s.acc8 < minAccuracy-0.01:
		return fmt.Errorf("accuracy %.3f (int8 %.3f) below %.2f", s.acc, s.acc8, minAccuracy)
	case math.Abs(s.loss-first.loss) > 0.01+0.1*first.loss:
		return fmt.Errorf("loss %.4f is off the float32 tape's %.4f", s.loss, first.loss)
	}
	return nil
}

// trainAndScore makes the data set and a model, trains the model with a,
// checks that every step wrote into each parameter's own storage (its
// Version counts the writes), and returns the model's score on the data
// set. It leaves nothing live.
func trainAndScore(ctx context.Context, e *tensor.Engine, a api) (s score, err error) {
	d := spirals(e, 1)
	defer d.dispose()
	m := newMLP(e, 2)
	defer m.dispose()
	if err := a.train(ctx, e, m, d); err != nil {
		return s, fmt.Errorf("%s: %w", a.name, err)
	}
	for _, p := range m.params {
		if v := p.T.Version(); v != steps {
			return s, fmt.Errorf("%s: %s at version %d after %d steps: not updated in place once per step", a.name, p.Name, v, steps)
		}
	}
	if s.acc, err = accuracy(ctx, e, logits, m.tensors(), d); err != nil {
		return s, err
	}
	err = tidy.Do(e, func() error {
		l, err := meanLoss(e, m.tensors(), d).Float32s(ctx)
		if err != nil {
			return err
		}
		s.loss = float64(l[0])
		p := m.tensors()
		q0, s0 := e.QuantizeInt8(p[0], 1) // [in, out]: a column a channel
		q2, s2 := e.QuantizeInt8(p[2], 1)
		s.acc8, err = accuracy(ctx, e, logitsInt8, []*tensor.Tensor{q0, s0, p[1], q2, s2, p[3]}, d)
		return err
	})
	return s, err
}

// dataset is points of the plane and the arm of the spiral each lies on.
type dataset struct {
	x      *tensor.Tensor // [arms·perArm 2] float32
	labels *tensor.Tensor // [arms·perArm] int32
	host   []int32        // labels, on the host
}

// spirals generates arms interleaved spiral arms of perArm points each, as
// in Stanford's CS231n notes: arm k's point at radius r ∈ [0, 1] has angle
// 4k + 4r plus Gaussian noise of deviation 0.2. The seed fixes the noise.
func spirals(e *tensor.Engine, seed uint64) dataset {
	rng := rand.New(rand.NewPCG(seed, seed))
	x := make([]float32, 0, 2*arms*perArm)
	labels := make([]int32, 0, arms*perArm)
	for k := range arms {
		for i := range perArm {
			r := float64(i) / (perArm - 1)
			theta := 4*float64(k) + 4*r + 0.2*rng.NormFloat64()
			x = append(x, float32(r*math.Sin(theta)), float32(r*math.Cos(theta)))
			labels = append(labels, int32(k))
		}
	}
	return dataset{x: e.FromFloat32s(x, arms*perArm, 2), labels: e.FromInt32s(labels, arms*perArm), host: labels}
}

func (d dataset) dispose() { tidy.Dispose([]*tensor.Tensor{d.x, d.labels}) }

// mlp is relu(x·W0 + b0)·W2 + b2, its parameters named as PyTorch names
// those of nn.Sequential(Linear, ReLU, Linear).
type mlp struct{ params []optim.Param }

// newMLP initialises the weights as PyTorch's kaiming_normal_ does for a
// ReLU (deviation √(2/fan_in)), the biases to zero.
func newMLP(e *tensor.Engine, seed uint64) mlp {
	return mlp{params: []optim.Param{
		{Name: "0.weight", T: e.RandNormal(seed, 0, float32(math.Sqrt(2.0/2)), 2, hidden)},
		{Name: "0.bias", T: e.Zeros(tensor.Float32, hidden)},
		{Name: "2.weight", T: e.RandNormal(seed+1, 0, float32(math.Sqrt(2.0/hidden)), hidden, arms)},
		{Name: "2.bias", T: e.Zeros(tensor.Float32, arms)},
	}}
}

// tensors lists the parameters' tensors, in the order of params.
func (m mlp) tensors() []*tensor.Tensor {
	ts := make([]*tensor.Tensor, len(m.params))
	for i, p := range m.params {
		ts[i] = p.T
	}
	return ts
}

func (m mlp) dispose() { tidy.Dispose(m.tensors()) }

// logits computes the model on x with the parameters p (in the order of
// params).
func logits(e *tensor.Engine, p []*tensor.Tensor, x *tensor.Tensor) *tensor.Tensor {
	h := e.Relu(e.Add(e.MatMul(x, p[0]), p[1]))
	return e.Add(e.MatMul(h, p[2]), p[3])
}

// logitsInt8 is logits with int8 weights and their scales: p is W0, its
// scales, b0, W2, its scales, b2.
func logitsInt8(e *tensor.Engine, p []*tensor.Tensor, x *tensor.Tensor) *tensor.Tensor {
	h := e.Relu(e.Add(e.Mul(e.MatMul(x, p[0]), p[1]), p[2]))
	return e.Add(e.Mul(e.MatMul(h, p[3]), p[4]), p[5])
}

// meanLoss is the mean softmax cross-entropy of the model on d.
func meanLoss(e *tensor.Engine, p []*tensor.Tensor, d dataset) *tensor.Tensor {
	return loss.SoftmaxCrossEntropy(e, logits(e, p, d.x), d.labels, loss.Mean)
}

// newAdam makes the optimizer both runs use.
func newAdam(e *tensor.Engine, m mlp) (*optim.Adam, error) {
	c := optim.AdamDefaults()
	c.LR = learningRate
	return optim.NewAdam(e, m.params, c)
}

// loopOptions runs steps frames, each in a scope that disposes what the
// step made, and stops at once if live tensors or bytes grow for 30
// frames in a row.
var loopOptions = frame.Options{Frames: steps, Scoped: true, StopOnLeak: true}

// trainWithTape returns a trainer of m on d: each step records the loss on
// a tape that saves activations in autocast (float32: as they are), asks
// it for the gradients, and lets Adam write the update into m's tensors.
func trainWithTape(autocast tensor.DType) func(ctx context.Context, e *tensor.Engine, m mlp, d dataset) error {
	return func(ctx context.Context, e *tensor.Engine, m mlp, d dataset) error {
		return trainTape(ctx, e, m, d, autocast)
	}
}

func trainTape(ctx context.Context, e *tensor.Engine, m mlp, d dataset, autocast tensor.DType) error {
	opt, err := newAdam(e, m)
	if err != nil {
		return err
	}
	defer opt.Dispose()
	_, err = frame.Loop(ctx, e, func(int) error {
		tape := grad.NewTape(e) // disposed, with everything it saved, by the frame's scope
		if err := tape.SetAutocast(autocast); err != nil {
			return err
		}
		var l *tensor.Tensor
		if err := tape.Record(func() error { l = meanLoss(e, m.tensors(), d); return l.Err() }); err != nil {
			return err
		}
		gs, err := tape.Gradients(l, m.tensors(), nil)
		if err != nil {
			return err
		}
		return opt.Step(gs)
	}, loopOptions)
	return err
}

// trainWithValueAndGrad trains m on d as trainWithTape does, with
// grad.ValueAndGrad computing the loss and its gradients.
func trainWithValueAndGrad(ctx context.Context, e *tensor.Engine, m mlp, d dataset) error {
	opt, err := newAdam(e, m)
	if err != nil {
		return err
	}
	defer opt.Dispose()
	f := func(p []*tensor.Tensor) (*tensor.Tensor, error) {
		l := meanLoss(e, p, d)
		return l, l.Err()
	}
	_, err = frame.Loop(ctx, e, func(int) error {
		_, gs, err := grad.ValueAndGrad(e, f, m.tensors(), nil)
		if err != nil {
			return err
		}
		return opt.Step(gs)
	}, loopOptions)
	return err
}

// accuracy is the fraction of d's points whose arm the model f with the
// parameters p predicts.
func accuracy(ctx context.Context, e *tensor.Engine, f func(*tensor.Engine, []*tensor.Tensor, *tensor.Tensor) *tensor.Tensor, p []*tensor.Tensor, d dataset) (float64, error) {
	predicted, err := tidy.Run(e, func() ([]int32, error) {
		return e.ArgMax(f(e, p, d.x), 1).Int32s(ctx)
	})
	if err != nil {
		return 0, err
	}
	right := 0
	for i, p := range predicted {
		if p == d.host[i] {
			right++
		}
	}
	return float64(right) / float64(len(d.host)), nil
}
