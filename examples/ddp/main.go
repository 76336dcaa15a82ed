// Command ddp trains examples/cnn's network to read drawn digits
// data-parallel over MPI (package dist): every rank holds the network,
// trains on its share of each batch of 32 digits, and the ranks average
// their gradients before each Adam step, so that their weights stay the
// same. Each rank builds the network from its own seed; dist copies rank
// 0's weights to the others before the first step. At the end rank 0
// saves a checkpoint that every rank loads into a network built afresh.
//
//	go build -tags mpi -o /tmp/ddp ./examples/ddp
//	mpirun -np 4 /tmp/ddp      # add --oversubscribe where there are fewer cores, --allow-run-as-root as root
//	go run ./examples/ddp      # without MPI: one rank
//
// It prints each rank's test accuracy and how much of the gradient
// exchange ran while backward did, and exits non-zero when the accuracy is
// below 95%, when the ranks' weights differ in a single bit, when the
// reloaded network reads a digit otherwise, or when a tensor is left live.
// WGT_BACKEND and WGT_ADAPTER choose the adapter, as for every example.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/dist"
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
	batch        = 32  // digits a step, over all ranks
	steps        = 480 // Adam steps, each on a batch drawn afresh
	learningRate = 3e-3
	testImages   = 512
	minAccuracy  = 0.95
)

func main() {
	c, err := dist.Init(dist.Options{Timeout: 2 * time.Minute})
	if errors.Is(err, dist.ErrNoMPI) {
		fmt.Println("ddp: MPI is not built in (go build -tags mpi): training as one rank")
		c, err = dist.Local(), nil
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ddp:", err)
		os.Exit(1)
	}
	if err := run(c); err != nil {
		fmt.Fprintf(os.Stderr, "ddp: rank %d: %v\n", c.Rank(), err)
		os.Exit(1) // without Close: after a fault, finalising would wait for the rank that failed
	}
	if err := c.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "ddp:", err)
		os.Exit(1)
	}
}

func run(c *dist.Comm) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if batch%c.Size() != 0 {
		return fmt.Errorf("%d ranks do not share a batch of %d evenly", c.Size(), batch)
	}
	share := batch / c.Size()
	d, err := wgpu.Open(ctx, dist.AdapterFor(c, wgpu.Options{})) // on a machine of several GPUs, one per rank in turn
	if err != nil {
		return err
	}
	defer d.Close()
	if c.Rank() == 0 {
		fmt.Printf("%d ranks, %d digits each a step, on %s\n", c.Size(), share, d.Info())
	}
	e := tensor.New(d)
	model, err := build(e, uint64(7+c.Rank()))
	if err != nil {
		return err
	}
	defer model.Dispose()
	opt, err := optim.NewAdam(e, model.Params(), optim.AdamConfig{LR: learningRate, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
	if err != nil {
		return err
	}
	defer opt.Dispose()
	ddp, err := dist.NewDataParallel(ctx, c, e, opt, nil)
	if err != nil {
		return err
	}
	defer ddp.Close()

	start := time.Now()
	for step := range steps {
		if step == steps*3/4 {
			opt.LR = learningRate / 4
		}
		all := digits.Draw(batch, uint64(2+step)) // the same batch on every rank, which takes its share
		l, err := trainStep(ctx, e, model, ddp, all, c.Rank()*share, share)
		if err != nil {
			return fmt.Errorf("step %d: %w", step, err)
		}
		if step%40 == 0 || step == steps-1 { // the batch's loss: the mean of the ranks' shares'
			mean := []float32{l / float32(c.Size())}
			if err := c.AllReduceSum(ctx, mean); err != nil {
				return err
			}
			if c.Rank() == 0 {
				fmt.Printf("step %3d: loss %.4f\n", step, mean[0])
			}
		}
	}
	if s := ddp.Stats(); c.Size() > 1 {
		fmt.Printf("rank %d: %d steps in %v; exchanging %d B a step in %d buckets: %v a step in collectives, %.0f%% of it while the device computed backward; Step waited %v a step\n",
			c.Rank(), steps, time.Since(start).Round(time.Millisecond), s.Bytes, s.Buckets, (s.Collective / steps).Round(time.Microsecond),
			100*s.Hidden.Seconds()/max(s.Collective.Seconds(), 1e-9), (s.Waited / steps).Round(time.Microsecond))
	}

	// Every rank holds the same weights, bit for bit.
	if r, err := c.Differs(ctx, nn.Tensors(model.Params())); err != nil {
		return err
	} else if r >= 0 {
		return fmt.Errorf("rank %d's weights differ from rank 0's", r)
	}

	test := digits.Draw(testImages, 1)
	model.SetTraining(false)
	pred, err := digits.Predict(ctx, e, model, test, batch)
	if err != nil {
		return err
	}
	acc := digits.Accuracy(pred, test.Labels)
	fmt.Printf("rank %d: test accuracy %.1f%%\n", c.Rank(), 100*acc)
	if acc < minAccuracy {
		return fmt.Errorf("accuracy %.1f%% is below %.0f%%", 100*acc, 100*minAccuracy)
	}

	// Rank 0 saves; every rank loads into a network built afresh.
	path := filepath.Join(os.TempDir(), "wgtensor-ddp.safetensors") // on a filesystem every rank sees
	if c.Rank() == 0 {
		if err := checkpoint.SaveFile(ctx, path, nn.StateDict(model), checkpoint.SaveOptions{}); err != nil {
			return err
		}
		defer os.Remove(path)
	}
	if err := c.Barrier(ctx); err != nil {
		return err
	}
	again, err := reload(ctx, e, path, test)
	if err := errors.Join(err, c.Barrier(ctx)); err != nil { // rank 0 removes the file after every rank read it
		return err
	}
	if !slices.Equal(pred, again) {
		return errors.New("the reloaded network reads the test digits otherwise")
	}
	ddp.Close()
	opt.Dispose()
	model.Dispose()
	if n := e.NumTensors(); n != 0 {
		return fmt.Errorf("%d tensors live at the end", n)
	}
	return nil
}

// build returns the network built from seed on e.
func build(e *tensor.Engine, seed uint64) (*nn.Sequential, error) {
	b := nn.NewBuilder(e, seed)
	model := digits.NewCNN(b)
	if err := b.Err(); err != nil {
		model.Dispose()
		return nil, err
	}
	return model, nil
}

// trainStep trains on images [from, from+n) of all, this rank's share,
// and returns the share's loss.
func trainStep(ctx context.Context, e *tensor.Engine, model *nn.Sequential, ddp *dist.DataParallel, all digits.Set, from, n int) (float32, error) {
	return tidy.Run(e, func() (float32, error) {
		px, labels := all.Batch(from, n)
		x, y := e.FromFloat32s(px, n, digits.Side, digits.Side, 1), e.FromInt32s(labels, n)
		l, gs, err := grad.ValueAndGrad(e, func([]*tensor.Tensor) (*tensor.Tensor, error) {
			l := loss.SoftmaxCrossEntropy(e, model.Forward(x), y, loss.Mean)
			return l, l.Err()
		}, nn.Tensors(model.Params()), &grad.Options{Ready: ddp.Ready})
		if err != nil {
			return 0, err
		}
		if err := ddp.Step(ctx, gs); err != nil {
			return 0, err
		}
		v, err := l.Float32s(ctx)
		if err != nil {
			return 0, err
		}
		return v[0], nil
	})
}

// reload builds the network from another seed, loads path into it and
// returns what it reads in test.
func reload(ctx context.Context, e *tensor.Engine, path string, test digits.Set) ([]int32, error) {
	model, err := build(e, 99)
	if err != nil {
		return nil, err
	}
	defer model.Dispose()
	if _, err := checkpoint.LoadFile(ctx, e, path, nn.StateDict(model), checkpoint.LoadOptions{}); err != nil {
		return nil, err
	}
	model.SetTraining(false)
	return digits.Predict(ctx, e, model, test, batch)
}
