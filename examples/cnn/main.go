// Command cnn trains a small convolutional network to read digits drawn in
// Go (digits.Draw: a 5×7 font, scaled, moved, with ragged strokes on a
// noisy background), saves it as a safetensors file, reloads the file
// into a model built afresh from another seed on a new engine, and reads
// the test digits again, then once more with its weights quantized to
// int8 (nn.QuantizeInt8: a quarter of their memory). It then trains the
// network again with its activations saved in bfloat16 for the backward
// pass (grad.Options.Autocast) and compares the two runs. The network is
// wgbench's cnn_train_step: two 3×3
// convolutions (16 and 32 channels, same padding, ReLU), each followed by
// 2×2 max pooling, then a Linear layer from 7·7·32 features to the 10
// digits. It trains with Adam on 480 batches of 32 digits, each batch drawn
// afresh, and is read on 512 digits it never saw.
//
//	go run ./examples/cnn
//
// It prints the test accuracy before and after the reload, with int8
// weights and after the bfloat16 activations' run, and exits non-zero
// when an accuracy is below 95% (94% with int8 weights), when the
// reloaded model reads a single digit differently, when the bfloat16
// activations' loss over the last 80 steps is more than 0.05 + 25% off
// float32's, or when a tensor is left live at the end. The int8 model
// reads all but a few of the 512 digits as the float32 one does.
// WGT_BACKEND (vulkan, gl, metal, dx12) and WGT_ADAPTER (a name substring)
// choose the adapter.
package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/examples/internal/digits"
	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

const (
	testImages   = 512
	batch        = 32
	steps        = 480  // Adam steps, each on a batch drawn afresh
	learningRate = 3e-3 // Adam's, a quarter of it for the last quarter of the steps
	minAccuracy  = 0.95
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "cnn:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		return err
	}
	defer d.Close()
	fmt.Printf("device: %s\n", d.Info())
	test := digits.Draw(testImages, 1)
	path := filepath.Join(os.TempDir(), fmt.Sprintf("wgtensor-cnn-%d.safetensors", os.Getpid()))
	defer os.Remove(path)

	// Train, measure and save on one engine, then free everything.
	e := tensor.New(d)
	before, curve, err := trainAndSave(ctx, e, test, path, tensor.Float32)
	if err != nil {
		return err
	}
	if n := e.NumTensors(); n != 0 {
		return fmt.Errorf("%d tensors live after training", n)
	}

	// Reload into a model built from another seed, on a new engine.
	e2 := tensor.New(d)
	after, quantized, err := reload(ctx, e2, test, path)
	if err != nil {
		return err
	}
	if n := e2.NumTensors(); n != 0 {
		return fmt.Errorf("%d tensors live after the reload", n)
	}
	acc, acc8 := digits.Accuracy(before, test.Labels), digits.Accuracy(quantized, test.Labels)
	fmt.Printf("test accuracy: %.1f%% trained, %.1f%% reloaded, %.1f%% with int8 weights (%d of %d digits read otherwise)\n",
		100*acc, 100*digits.Accuracy(after, test.Labels), 100*acc8, differ(after, quantized), len(after))
	switch {
	case acc < minAccuracy:
		return fmt.Errorf("accuracy %.1f%% is below %.0f%%", 100*acc, 100*minAccuracy)
	case acc8 < minAccuracy-0.01:
		return fmt.Errorf("accuracy with int8 weights %.1f%% is below %.0f%%", 100*acc8, 100*(minAccuracy-0.01))
	case !slices.Equal(before, after):
		return errors.New("the reloaded model reads the test digits differently")
	}

	// Again with the activations saved in bfloat16.
	e3 := tensor.New(d)
	narrow, curve16, err := trainAndSave(ctx, e3, test, "", tensor.BFloat16)
	if err != nil {
		return err
	}
	if n := e3.NumTensors(); n != 0 {
		return fmt.Errorf("%d tensors live after the bfloat16 activations' run", n)
	}
	acc16, tail, tail16 := digits.Accuracy(narrow, test.Labels), lastMean(curve), lastMean(curve16)
	fmt.Printf("bfloat16 activations: test accuracy %.1f%%, loss over the last 80 steps %.4f (float32 %.4f)\n", 100*acc16, tail16, tail)
	switch {
	case acc16 < minAccuracy:
		return fmt.Errorf("accuracy with bfloat16 activations %.1f%% is below %.0f%%", 100*acc16, 100*minAccuracy)
	case math.Abs(tail16-tail) > 0.05+0.25*tail:
		return fmt.Errorf("the bfloat16 activations' loss %.4f is off float32's %.4f", tail16, tail)
	}
	return nil
}

// trainAndSave trains a new network on batches of digits drawn afresh
// for each step (so that it learns the font, not a set of images), its
// tapes saving activations in autocast, saves it at path (unless "") and
// returns its predictions on test and the loss of every step. It disposes
// everything it made.
func trainAndSave(ctx context.Context, e *tensor.Engine, test digits.Set, path string, autocast tensor.DType) ([]int32, []float32, error) {
	b := nn.NewBuilder(e, 7)
	model := digits.NewCNN(b)
	defer model.Dispose()
	if err := b.Err(); err != nil {
		return nil, nil, err
	}
	opt, err := optim.NewAdam(e, model.Params(), optim.AdamConfig{LR: learningRate, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
	if err != nil {
		return nil, nil, err
	}
	defer opt.Dispose()
	start := time.Now()
	var losses []*tensor.Tensor
	for step := range steps {
		if step == steps*3/4 {
			opt.LR = learningRate / 4 // the last quarter at a smaller step
		}
		l, err := trainStep(e, model, opt, digits.Draw(batch, uint64(2+step)), autocast)
		if err != nil {
			return nil, nil, fmt.Errorf("step %d: %w", step, err)
		}
		losses = append(losses, l)
		if step%40 == 0 || step == steps-1 {
			v, err := l.Float32s(ctx)
			if err != nil {
				return nil, nil, err
			}
			fmt.Printf("step %3d: loss %.4f\n", step, v[0])
		}
	}
	fmt.Printf("%d steps of batches of %d in %v\n", steps, batch, time.Since(start).Round(time.Millisecond))
	all := e.Stack(0, losses...)
	curve, err := all.Float32s(ctx) // one readback for all
	tidy.Dispose(append(losses, all))
	if err != nil {
		return nil, nil, err
	}
	model.SetTraining(false)
	pred, err := digits.Predict(ctx, e, model, test, batch)
	if err != nil || path == "" {
		return pred, curve, err
	}
	return pred, curve, checkpoint.SaveFile(ctx, path, nn.StateDict(model), checkpoint.SaveOptions{})
}

// lastMean is the mean of the last 80 of losses.
func lastMean(losses []float32) float64 {
	var sum float64
	tail := losses[max(0, len(losses)-80):]
	for _, l := range tail {
		sum += float64(l)
	}
	return sum / float64(len(tail))
}

// trainStep runs one Adam step on the digits of d, one batch, and returns
// the batch's loss before the step, which the caller owns.
func trainStep(e *tensor.Engine, model *nn.Sequential, opt *optim.Adam, d digits.Set, autocast tensor.DType) (*tensor.Tensor, error) {
	return tidy.Run(e, func() (*tensor.Tensor, error) {
		px, labels := d.Batch(0, batch)
		x, y := e.FromFloat32s(px, batch, digits.Side, digits.Side, 1), e.FromInt32s(labels, batch)
		l, gs, err := grad.ValueAndGrad(e, func([]*tensor.Tensor) (*tensor.Tensor, error) {
			l := loss.SoftmaxCrossEntropy(e, model.Forward(x), y, loss.Mean)
			return l, l.Err()
		}, nn.Tensors(model.Params()), &grad.Options{Autocast: autocast})
		if err != nil {
			return nil, err
		}
		return l, opt.Step(gs)
	})
}

// reload builds the network from another seed on e, loads the file at
// path into it and returns its predictions on test, then those of the
// model with its weights quantized to int8.
func reload(ctx context.Context, e *tensor.Engine, test digits.Set, path string) (float32s, int8s []int32, err error) {
	b := nn.NewBuilder(e, 99)
	model := digits.NewCNN(b)
	defer model.Dispose()
	if err := b.Err(); err != nil {
		return nil, nil, err
	}
	if _, err := checkpoint.LoadFile(ctx, e, path, nn.StateDict(model), checkpoint.LoadOptions{}); err != nil {
		return nil, nil, err
	}
	model.SetTraining(false)
	if float32s, err = digits.Predict(ctx, e, model, test, batch); err != nil {
		return nil, nil, err
	}
	if err := nn.QuantizeInt8(model); err != nil {
		return nil, nil, err
	}
	int8s, err = digits.Predict(ctx, e, model, test, batch)
	return float32s, int8s, err
}

// differ counts the digits a and b read otherwise.
func differ(a, b []int32) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}
