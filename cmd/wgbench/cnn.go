package main

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// The CNN of cnn_train_step: on NHWC images of 28×28×1, Conv2D 1→16 3×3
// same, ReLU, MaxPool2D 2×2; Conv2D 16→32 3×3 same, ReLU, MaxPool2D 2×2;
// Flatten; Linear 1568→10. A batch of 64, softmax cross-entropy with
// integer labels, SGD at cnnLR.
const (
	cnnBatch, cnnSide, cnnClasses = 64, 28, 10
	cnnC1, cnnC2                  = 16, 32                                // the convolutions' output channels
	cnnFlat                       = (cnnSide / 4) * (cnnSide / 4) * cnnC2 // 1568, Linear's input
	cnnLR                         = 0.05                                  // SGD's learning rate
	cnnSeed                       = 28                                    // the Builder's root seed
	cnnSteps                      = 10                                    // timed steps in each sample
)

// cnnHost is the CNN's batch on the host, from a fixed seed: pixels
// uniform in [-1, 1), labels uniform in [0, 10).
type cnnHost struct {
	x      []float32 // [64, 28, 28, 1]
	labels []int32
}

// cnnData is the CNN's batch, made once.
var cnnData = sync.OnceValue(func() cnnHost {
	r := rand.New(rand.NewPCG(28, 28))
	h := cnnHost{x: randF32(r, cnnBatch*cnnSide*cnnSide), labels: make([]int32, cnnBatch)}
	for i := range h.labels {
		h.labels[i] = int32(r.IntN(cnnClasses))
	}
	return h
})

// newCNN builds the CNN with b: He-uniform weights, zero biases. Its
// parameters are "0.weight", "0.bias" (the first convolution), "3.*" (the
// second) and "7.*" (the linear layer).
func newCNN(b *nn.Builder) *nn.Sequential {
	conv := func(in, out int) *nn.Conv2D {
		return b.Conv2D(in, out, [2]int{3, 3}, nn.Pad(tensor.Same()), nn.WeightInit(nn.HeUniform))
	}
	pool := func() *nn.Pool2D { return nn.MaxPool2D(tensor.Pool2DOptions{Window: [2]int{2, 2}}) }
	return nn.NewSequential(
		conv(1, cnnC1), nn.ReLU(), pool(),
		conv(cnnC1, cnnC2), nn.ReLU(), pool(),
		nn.NewFlatten(), b.Linear(cnnFlat, cnnClasses, nn.WeightInit(nn.HeUniform)))
}

// newCNNTrainer builds the CNN on e and puts its batch there; the loss of
// its initial parameters is computed on the host from their values read
// back.
func newCNNTrainer(ctx context.Context, e *tensor.Engine) (*trainer, error) {
	h := cnnData()
	b := nn.NewBuilder(e, cnnSeed)
	model := newCNN(b)
	x, labels := e.FromFloat32s(h.x, cnnBatch, cnnSide, cnnSide, 1), e.FromInt32s(h.labels, cnnBatch)
	free := func() {
		model.Dispose()
		tidy.Dispose([]*tensor.Tensor{x, labels})
	}
	if err := b.Err(); err != nil {
		free()
		return nil, err
	}
	want, err := h.loss(ctx, model.Params())
	if err != nil {
		free()
		return nil, err
	}
	return newTrainer(e, model.Params(), cnnLR, want, func() (*tensor.Tensor, error) {
		return tidy.Run(e, func() (*tensor.Tensor, error) {
			l := loss.SoftmaxCrossEntropy(e, model.Forward(x), labels, loss.Mean)
			return l, l.Err()
		})
	}, free)
}

// loss returns the mean softmax cross-entropy of the CNN with the
// parameters params (as newCNN names them, read back), in float64.
func (h cnnHost) loss(ctx context.Context, params []optim.Param) (float64, error) {
	p := map[string][]float32{}
	for _, q := range params {
		v, err := q.T.Float32s(ctx)
		if err != nil {
			return 0, err
		}
		p[q.Name] = v
	}
	x := make([]float64, len(h.x))
	for i, v := range h.x {
		x[i] = float64(v)
	}
	a := maxPool2(convReLU(x, cnnSide, 1, p["0.weight"], p["0.bias"]), cnnSide, cnnC1)
	a = maxPool2(convReLU(a, cnnSide/2, cnnC1, p["3.weight"], p["3.bias"]), cnnSide/2, cnnC2)
	w, bias := p["7.weight"], p["7.bias"] // w is [out, in]
	var total float64
	logits := make([]float64, cnnClasses)
	for n := range cnnBatch {
		flat := a[n*cnnFlat : (n+1)*cnnFlat]
		for o := range cnnClasses {
			s := float64(bias[o])
			for k, v := range flat {
				s += float64(w[o*cnnFlat+k]) * v
			}
			logits[o] = s
		}
		total += crossEntropy(logits, int(h.labels[n]))
	}
	return total / cnnBatch, nil
}

// crossEntropy is the softmax cross-entropy of logits with the label.
func crossEntropy(logits []float64, label int) float64 {
	m := math.Inf(-1)
	for _, l := range logits {
		m = max(m, l)
	}
	var z float64
	for _, l := range logits {
		z += math.Exp(l - m)
	}
	return m + math.Log(z) - logits[label]
}

// convReLU is relu(conv(x, f) + bias) over a batch of cnnBatch NHWC
// images of side×side×in, f a 3×3 HWIO filter, same padding.
func convReLU(x []float64, side, in int, f, bias []float32) []float64 {
	out := len(bias)
	y := make([]float64, cnnBatch*side*side*out)
	for n := range cnnBatch {
		for oy := range side {
			for ox := range side {
				for o := range out {
					s := conv3x3SameAt(x, f, side, in, out, n, oy, ox, o) + float64(bias[o])
					y[((n*side+oy)*side+ox)*out+o] = max(s, 0)
				}
			}
		}
	}
	return y
}

// maxPool2 is the 2×2 max pooling, stride 2, of a batch of cnnBatch NHWC
// images of side×side×c.
func maxPool2(x []float64, side, c int) []float64 {
	half := side / 2
	y := make([]float64, cnnBatch*half*half*c)
	for n := range cnnBatch {
		for oy := range half {
			for ox := range half {
				for ch := range c {
					m := math.Inf(-1)
					for d := range 4 {
						m = max(m, x[((n*side+2*oy+d/2)*side+2*ox+d%2)*c+ch])
					}
					y[((n*half+oy)*half+ox)*c+ch] = m
				}
			}
		}
	}
	return y
}

// cnn_train_step, defined so that other libraries can run the same:
//
//   - Input: one batch of 64 NHWC images [64, 28, 28, 1], float32 uniform
//     in [-1, 1), and int32 labels uniform in [0, 10), from a fixed seed.
//   - Model: Conv2D 1→16, 3×3, stride 1, same padding, bias; ReLU;
//     MaxPool2D 2×2, stride 2 (→ 14×14×16); Conv2D 16→32, the same; ReLU;
//     MaxPool2D 2×2, stride 2 (→ 7×7×32); Flatten (→ 1568, NHWC order);
//     Linear 1568→10, the logits. Filters HWIO.
//   - Loss: mean softmax cross-entropy from the logits with the labels.
//   - Optimizer: SGD, learning rate 0.05, no momentum, no weight decay.
//   - Initialisation: He-uniform weights (bound √(6/fan-in), fan-in 9·in
//     for a convolution), zero biases, any seed.
//   - Timing: from the initial parameters, 20 warm-up steps, then 10
//     steps ended by a readback of the loss; ms per step, the median over
//     the samples, each a fresh model.
//
// Checks (trainWorkload): the first loss equals a float64 forward pass on
// the host of the parameters read back, the 20th is below the first (the
// loss peaks at step 3, then falls: 2.53, 6.59 at step 3, 0.94 at 20),
// and the live tensors and bytes before and after the timed steps are
// equal. Extras: the processor time per step (cpu) and the live tensors.
// The smoke suite has no variant: the warm-up alone takes 5–15 s on
// lavapipe.
var cnnTrainStep = trainWorkload("cnn_train_step", cnnSteps, newCNNTrainer)

// cnn_train_step_autocast is cnn_train_step with its activations saved in
// bfloat16 for the backward pass (grad.Options.Autocast): peak_live
// against cnn_train_step's is what autocast saves, ms/step what it costs.
var cnnTrainStepAutocast = trainWorkload("cnn_train_step_autocast", cnnSteps, autocast(newCNNTrainer))
