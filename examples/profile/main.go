// Command profile trains a small MLP for a few steps and profiles one
// training step with Engine.Profile: it prints the table of kernels by
// time and writes a Chrome trace-event file that ui.perfetto.dev opens.
// It exits non-zero if the profile lacks the kernels a training step
// must run (the matmuls, with the ops after them and the bias gradients'
// sums in their kernels, and fused elementwise programs).
//
//	go run ./examples/profile [-trace profile.json] [-steps 3]
//
// WGT_BACKEND (vulkan, gl, metal, dx12) and WGT_ADAPTER (a name substring)
// choose the adapter.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wgtensor/wgtensor/grad"
	lossfn "github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

const (
	batch, inputs, hidden, outputs = 64, 32, 64, 8
	learningRate                   = 0.05
)

func main() {
	tracePath := flag.String("trace", filepath.Join(os.TempDir(), "wgtensor-profile.json"), "where to write the Chrome trace-event file")
	steps := flag.Int("steps", 3, "training steps before the profiled one")
	flag.Parse()
	if err := run(*tracePath, *steps); err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		os.Exit(1)
	}
}

// mlp is a two-layer perceptron: relu(x·w1 + b1)·w2 + b2.
type mlp struct{ W1, B1, W2, B2 *tensor.Tensor }

func (m mlp) dispose() { tidy.Dispose(m) }

func (m mlp) params() []optim.Param {
	return []optim.Param{{Name: "0.weight", T: m.W1}, {Name: "0.bias", T: m.B1}, {Name: "2.weight", T: m.W2}, {Name: "2.bias", T: m.B2}}
}

func run(tracePath string, steps int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		return err
	}
	defer d.Close()
	e := tensor.New(d)
	fmt.Println("device:", d.Info())

	x := e.RandNormal(1, 0, 1, batch, inputs)
	target := e.RandUniform(2, -1, 1, batch, outputs)
	defer x.Dispose()
	defer target.Dispose()
	m := mlp{
		W1: e.RandNormal(3, 0, 0.2, inputs, hidden), B1: e.Zeros(tensor.Float32, hidden),
		W2: e.RandNormal(4, 0, 0.2, hidden, outputs), B2: e.Zeros(tensor.Float32, outputs),
	}
	defer m.dispose()
	opt, err := optim.NewSGD(e, m.params(), optim.SGDConfig{LR: learningRate})
	if err != nil {
		return err
	}
	defer opt.Dispose()

	// Unprofiled steps first: they compile the kernels, which the profile
	// would not count anyway (it times dispatches).
	for i := range steps {
		loss, err := trainStep(ctx, e, m, opt, x, target)
		if err != nil {
			return err
		}
		fmt.Printf("step %d: loss %.4f\n", i, loss)
	}

	var loss float32
	p, err := e.Profile(ctx, func() error {
		loss, err = trainStep(ctx, e, m, opt, x, target)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Printf("profiled step: loss %.4f\n\n", loss)
	if err := p.WriteTable(os.Stdout); err != nil {
		return err
	}
	if err := writeTrace(p, tracePath); err != nil {
		return err
	}
	return check(p)
}

// trainStep runs one step of gradient descent on the mean squared error,
// updating m's parameters in place, and returns the loss before the
// update.
func trainStep(ctx context.Context, e *tensor.Engine, m mlp, opt optim.Optimizer, x, target *tensor.Tensor) (float32, error) {
	var loss float32
	err := tidy.Do(e, func() error {
		l, grads, err := grad.ValueAndGrad(e, func(p []*tensor.Tensor) (*tensor.Tensor, error) {
			h := e.Relu(e.Add(e.MatMul(x, p[0]), p[1]))
			l := lossfn.MeanSquaredError(e, e.Add(e.MatMul(h, p[2]), p[3]), target, lossfn.Mean)
			return l, l.Err()
		}, []*tensor.Tensor{m.W1, m.B1, m.W2, m.B2}, nil)
		if err != nil {
			return err
		}
		v, err := l.Float32s(ctx)
		if err != nil {
			return err
		}
		loss = v[0]
		return opt.Step(grads)
	})
	return loss, err
}

func writeTrace(p *tensor.KernelProfile, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := p.WriteTrace(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	fmt.Printf("\ntrace: %s, %d bytes, %d events (open it in ui.perfetto.dev)\n", path, st.Size(), len(p.Dispatches))
	return nil
}

// check fails unless the profile holds what a training step runs: five
// matrix products (two forward, three backward; a product's kernel is
// named "matmul", or "matmul+add+relu" where the ops after it run in it),
// the two bias gradients' sums (in the weight gradients' products, whose
// keys say /sum_a or /sum_b, or dispatched apart), and fused programs.
func check(p *tensor.KernelProfile) error {
	products, sums := 0, p.Total("sum").Calls
	for _, d := range p.Dispatches {
		if d.Kernel == "matmul" || strings.HasPrefix(d.Kernel, "matmul+") {
			products++
			if strings.Contains(d.Key, "/sum_") {
				sums++
			}
		}
	}
	if products != 5 {
		return fmt.Errorf("the profile has %d matrix products, want 5", products)
	}
	if sums < 2 {
		return fmt.Errorf("the profile has %d bias-gradient sums, want at least 2", sums)
	}
	fused := 0
	for _, k := range p.Kernels {
		if k.Fused() {
			fused += k.Calls
		}
		if k.Calls <= 0 || k.Time <= 0 {
			return fmt.Errorf("kernel %s: %d calls in %v", k.Name, k.Calls, k.Time)
		}
	}
	if fused == 0 {
		return fmt.Errorf("the profile has no fused elementwise program")
	}
	if p.NewBytes == 0 || p.PeakBytes < p.NewBytes/2 {
		return fmt.Errorf("the profile's memory is implausible: new %d B, peak %d B", p.NewBytes, p.PeakBytes)
	}
	return nil
}
