// Command leak trains a small classifier with a leak planted in its
// training loop, records the memory history while it runs, and finds the
// leak the way its viewer's diff view does: how much more the loop holds
// at its last step than at step 3, by the line of code that asked for
// it. It writes the history and the viewer (one HTML file, to
// open in a browser) to a directory, prints what the diff found, and
// exits non-zero unless the diff's first line is the planted leak and
// nothing is live once the leak is cleaned up.
//
//	go run ./examples/leak [-o DIR]
//
// WGT_BACKEND (vulkan, gl, metal, dx12) and WGT_ADAPTER (a name substring)
// choose the adapter.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/memview"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

const (
	batch, features, classes = 64, 16, 4
	steps                    = 12
)

func main() {
	out := flag.String("o", filepath.Join(os.TempDir(), "wgtensor-leak"), "the directory for history.json and history.html")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "leak:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		return err
	}
	defer d.Close()
	e := tensor.New(d)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}

	// Record from the start: model, optimizer state, every step.
	if err := e.RecordMemoryHistory(wgpu.HistoryOptions{}); err != nil {
		return err
	}
	b := nn.NewBuilder(e, 1)
	model := nn.NewSequential(b.Linear(features, 64), nn.ReLU(), b.Linear(64, classes))
	if err := b.Err(); err != nil {
		return err
	}
	defer model.Dispose()
	opt, err := optim.NewAdam(e, model.Params(), optim.AdamDefaults())
	if err != nil {
		return err
	}
	defer opt.Dispose()
	x, labels := data(e)
	defer tidy.Dispose([]*tensor.Tensor{x, labels})

	var kept []*tensor.Tensor // what the planted leak holds
	for range steps {
		if err := trainStep(e, model, opt, x, labels); err != nil {
			return err
		}
		kept = append(kept, predict(e, model, x))
	}
	h, err := e.MemoryHistory()
	if err != nil {
		return err
	}
	tidy.Dispose(kept) // the fix, once the viewer has shown the leak

	jsonPath, htmlPath := filepath.Join(dir, "history.json"), filepath.Join(dir, "history.html")
	if err := h.WriteFile(jsonPath); err != nil {
		return err
	}
	if err := memview.WriteFile(htmlPath, h); err != nil {
		return err
	}
	abs, err := filepath.Abs(htmlPath)
	if err != nil {
		return err
	}
	link := (&url.URL{Scheme: "file", Path: abs, Fragment: fmt.Sprintf("diff=adam step 3..adam step %d", steps)}).String()
	fmt.Printf("memory history: %s (%d events)\nviewer, open at the diff of steps 3 and %d: %s\n", jsonPath, len(h.Events), steps, link)

	// The diff view: how much more the last step holds than step 3.
	marks := h.Marks("adam step 3")
	last := h.Marks(fmt.Sprintf("adam step %d", steps))
	if len(marks) != 1 || len(last) != 1 {
		return fmt.Errorf("the history has %d markers of step 3 and %d of step %d, want one each", len(marks), len(last), steps)
	}
	growth, err := h.Growth(marks[0], last[0])
	if err != nil {
		return err
	}
	fmt.Printf("live at step %d more than at step 3, by the line that made it:\n", steps)
	for _, g := range growth {
		fmt.Printf("  %8.1f KiB in %3d buffers from %s\n", float64(g.Bytes)/1024, g.Buffers, g.Site)
	}
	if len(growth) == 0 || !strings.Contains(growth[0].Site, "leak/main.go:") || !strings.Contains(growth[0].Site, "main.predict") {
		return errors.New("the diff does not name the planted leak in main.predict first")
	}
	if n := e.NumTensors(); n != 2+4+8 {
		return fmt.Errorf("%d tensors live after the fix, want the data's 2, the model's 4 and Adam's 8", n)
	}
	return nil
}

// trainStep takes one step of Adam on the loss of model over (x, labels),
// inside a scope: nothing it makes outlives it.
func trainStep(e *tensor.Engine, model nn.Module, opt optim.Optimizer, x, labels *tensor.Tensor) error {
	_, err := tidy.Run(e, func() (*tensor.Tensor, error) {
		tape := grad.NewTape(e)
		defer tape.Dispose()
		var l *tensor.Tensor
		if err := tape.Record(func() error {
			l = loss.SoftmaxCrossEntropy(e, model.Forward(x), labels, loss.Mean)
			return l.Err()
		}); err != nil {
			return nil, err
		}
		gs, err := tape.Gradients(l, nn.Tensors(model.Params()), nil)
		if err != nil {
			return nil, err
		}
		return nil, opt.Step(gs)
	})
	return err
}

// predict returns the model's class probabilities for x; its scope frees
// the logits. The caller keeping every step's result "for a report at
// the end" is the planted leak.
func predict(e *tensor.Engine, model nn.Module, x *tensor.Tensor) *tensor.Tensor {
	p, _ := tidy.Run(e, func() (*tensor.Tensor, error) {
		p := e.Softmax(model.Forward(x), -1)
		return p, p.Err()
	})
	return p
}

// data is a random batch: features and class labels.
func data(e *tensor.Engine) (x, labels *tensor.Tensor) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float32, batch*features)
	for i := range xs {
		xs[i] = float32(rng.NormFloat64())
	}
	ls := make([]int32, batch)
	for i := range ls {
		ls[i] = int32(rng.IntN(classes))
	}
	return e.FromFloat32s(xs, batch, features), e.FromInt32s(ls, batch)
}
