// Command server is an inference server's loop: it loads a model from a
// safetensors file, serves prediction requests from several goroutines,
// each computing on its own engine with the one shared model, and swaps in
// a model loaded from another file while they serve, without stopping them.
// A swapped-out model is disposed when its last request is done (see slot).
// Every result is checked against the prediction of the model that served
// it, and at the end the program disposes everything, trims the pool and
// prints the live tensors, live bytes and reserved bytes (and on GL the
// driver's count of buffers): it exits non-zero if a result was wrong or
// anything is left.
//
//	go run ./examples/server [-model a.safetensors] [-next b.safetensors] [-workers 4] [-swaps 8] [-per-swap 50]
//
// With no -model it writes two seeded models into a temporary directory
// and swaps between them; with -model and no -next it reloads the one file
// at each swap, as a server picking up a retrained model does. A file must
// hold the state dict of the model newModel builds.
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
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// The model's sizes and a request's batch.
const (
	features, hidden, classes = 16, 64, 4
	rows                      = 8  // rows per request
	batches                   = 16 // distinct request batches, cycled
)

// config is what the flags set.
type config struct {
	model, next             string // model files; empty: write seeded ones
	workers, swaps, perSwap int
}

func main() {
	var c config
	flag.StringVar(&c.model, "model", "", "safetensors file of the first model (default: a seeded one, written to a temporary directory)")
	flag.StringVar(&c.next, "next", "", "safetensors file swapped in at every other swap (default: -model, or a second seeded one)")
	flag.IntVar(&c.workers, "workers", 4, "goroutines serving requests, each with its own engine")
	flag.IntVar(&c.swaps, "swaps", 8, "models swapped in while serving")
	flag.IntVar(&c.perSwap, "per-swap", 50, "requests served between swaps")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	if c.workers < 1 || c.swaps < 0 || c.perSwap < 1 {
		return fmt.Errorf("-workers %d, -swaps %d, -per-swap %d: want at least 1, 0 and 1", c.workers, c.swaps, c.perSwap)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		return err
	}
	fmt.Printf("device: %s\n", d.Info())
	if c.model == "" {
		dir, err := os.MkdirTemp("", "wgtensor-server-")
		if err != nil {
			return errors.Join(err, d.Close())
		}
		defer os.RemoveAll(dir)
		c.model, c.next = filepath.Join(dir, "a.safetensors"), filepath.Join(dir, "b.safetensors")
		if err := writeSeeded(ctx, tensor.New(d), map[string]uint64{c.model: 1, c.next: 2}); err != nil {
			return errors.Join(err, d.Close())
		}
	}
	if c.next == "" {
		c.next = c.model
	}
	st, err := serve(ctx, d, c)
	if err != nil {
		return errors.Join(err, d.Close())
	}
	fmt.Printf("served %d requests from %d goroutines with %d models (%d swaps; %d old models outlived their swap until their last request ended)\n",
		st.requests, c.workers, c.swaps+1, c.swaps, st.deferred)
	for _, m := range st.byModel {
		fmt.Printf("  %s: %d requests\n", filepath.Base(m.name), m.requests)
	}
	return errors.Join(checkEmpty(ctx, d, st.tensors), d.Close())
}

// checkEmpty trims d's pool once its work is done, prints what is live and
// reserved, and fails if anything is: tensors (the engines' count, given),
// live bytes, reserved bytes after the trim, or, on GL, whose driver counts
// its buffers, a buffer the driver still holds.
func checkEmpty(ctx context.Context, d *wgpu.Device, tensors int) error {
	if err := d.Sync(ctx); err != nil {
		return err
	}
	if err := d.Pool().Trim(); err != nil {
		return err
	}
	if err := d.Sync(ctx); err != nil { // destroyed buffers leave the driver's registry
		return err
	}
	s, ds := d.Pool().Stats(), d.Stats()
	driver := "no count off GL"
	if ds.HasDriverBuffers {
		driver = fmt.Sprint(ds.DriverBuffers)
	}
	fmt.Printf("at the end: %d live tensors, %d live buffers, %d B live, %d B reserved after Trim (peak reserved %d B); the driver's buffers: %s\n",
		tensors, s.LiveBuffers, s.LiveBytes, s.ReservedBytes, s.PeakReservedBytes, driver)
	if tensors != 0 || s.LiveBuffers != 0 || s.LiveBytes != 0 || s.ReservedBytes != 0 || ds.DriverBuffers != 0 {
		return fmt.Errorf("leak: %d tensors, %d buffers, %d B live, %d B reserved after Trim, %d buffers held by the driver",
			tensors, s.LiveBuffers, s.LiveBytes, s.ReservedBytes, ds.DriverBuffers)
	}
	return nil
}

// newModel builds the served model's architecture on b: an MLP with the
// layers whose state a file holds (Linear, BatchNorm's statistics,
// LayerNorm) and a Dropout that inference mode turns off.
func newModel(b *nn.Builder) *nn.Sequential {
	return nn.NewSequential(
		b.Linear(features, hidden), b.BatchNorm(hidden), nn.ReLU(), b.Dropout(0.1),
		b.Linear(hidden, hidden), b.LayerNorm(hidden), nn.GELU(),
		b.Linear(hidden, classes),
	)
}

// writeSeeded writes, for each path, a model built from its seed, and
// disposes the models.
func writeSeeded(ctx context.Context, e *tensor.Engine, seeds map[string]uint64) error {
	for path, seed := range seeds {
		b := nn.NewBuilder(e, seed)
		m := newModel(b)
		err := b.Err()
		if err == nil {
			err = checkpoint.SaveFile(ctx, path, nn.StateDict(m), checkpoint.SaveOptions{})
		}
		m.Dispose()
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return nil
}

// loadModel builds a fresh model on e and loads path into it, strictly, in
// inference mode. On failure it leaves nothing.
func loadModel(ctx context.Context, e *tensor.Engine, path string) (*nn.Sequential, error) {
	b := nn.NewBuilder(e, 0)
	m := newModel(b)
	err := b.Err()
	if err == nil {
		_, err = checkpoint.LoadFile(ctx, e, path, nn.StateDict(m), checkpoint.LoadOptions{})
	}
	if err != nil {
		m.Dispose()
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	m.SetTraining(false)
	return m, nil
}

// requestBatches are the inputs requests cycle through, the same on every
// run.
func requestBatches() [][]float32 {
	rng := rand.New(rand.NewPCG(7, 7))
	in := make([][]float32, batches)
	for i := range in {
		in[i] = make([]float32, rows*features)
		for j := range in[i] {
			in[i][j] = float32(rng.NormFloat64())
		}
	}
	return in
}

// predict runs m on one batch on e under tidy and reads the result back.
func predict(ctx context.Context, e *tensor.Engine, m nn.Module, in []float32) ([]float32, error) {
	return tidy.Run(e, func() ([]float32, error) {
		return m.Forward(e.FromFloat32s(in, rows, features)).Float32s(ctx)
	})
}

// expected returns each file's predictions of every batch, computed on e
// by one goroutine: what every request served by that file's model must
// return, bit for bit.
func expected(ctx context.Context, e *tensor.Engine, paths []string, in [][]float32) (map[string][][]float32, error) {
	want := map[string][][]float32{}
	for _, path := range paths {
		if want[path] != nil {
			continue
		}
		m, err := loadModel(ctx, e, path)
		if err != nil {
			return nil, err
		}
		for _, x := range in {
			y, err := predict(ctx, e, m, x)
			if err != nil {
				m.Dispose()
				return nil, err
			}
			want[path] = append(want[path], y)
		}
		m.Dispose()
	}
	return want, nil
}

// stats are what a serve reports.
type stats struct {
	requests int
	deferred int // swaps after which a request still used the old model
	byModel  []modelCount
	tensors  int // tensors live on the engines at the end
}

type modelCount struct {
	name     string
	requests int
}

// serve runs the server's loop on d: c.workers goroutines serve requests,
// and after every c.perSwap requests the calling goroutine loads the next
// model (alternating c.model and c.next) and swaps it in, c.swaps times;
// c.perSwap requests after the last swap the workers stop and the slot is
// closed. Every result must equal the serving model's expected prediction.
// serve disposes every tensor it made, also on failure.
func serve(ctx context.Context, d *wgpu.Device, c config) (st stats, err error) {
	loader := tensor.New(d) // the models' parameters live here
	engines := make([]*tensor.Engine, c.workers)
	for i := range engines {
		engines[i] = tensor.New(d)
	}
	defer func() {
		st.tensors = loader.NumTensors()
		for _, e := range engines {
			st.tensors += e.NumTensors()
		}
	}()
	in := requestBatches()
	files := []string{c.model, c.next}
	want, err := expected(ctx, loader, files, in)
	if err != nil {
		return st, err
	}
	first, err := loadModel(ctx, loader, files[0])
	if err != nil {
		return st, err
	}
	s := newSlot(first, files[0])
	defer s.Close()

	done := make(chan struct{}, c.workers*c.perSwap) // one per request served
	stop := make(chan struct{})
	counts := make([]map[string]int, c.workers)
	errs := make([]error, c.workers)
	var wg sync.WaitGroup
	for w := range c.workers {
		counts[w] = map[string]int{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = work(ctx, engines[w], s, in, want, w, c.workers, counts[w], done, stop)
		}()
	}
	finished := make(chan struct{}) // closed when every worker has returned
	go func() { wg.Wait(); close(finished) }()
	waitServed := func(n int) error {
		for range n {
			select {
			case <-done:
			case <-finished: // every worker failed: errs says why
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	err = waitServed(c.perSwap)
	for k := 1; k <= c.swaps && err == nil; k++ {
		path := files[k%2]
		var m *nn.Sequential
		if m, err = loadModel(ctx, loader, path); err != nil {
			break
		}
		if !s.Swap(m, path) {
			st.deferred++
		}
		err = waitServed(c.perSwap)
	}
	close(stop)
	<-finished
	if err = errors.Join(append(errs, err)...); err != nil {
		return st, err
	}
	for i, path := range files {
		if i == 0 || path != files[0] {
			st.byModel = append(st.byModel, modelCount{name: path})
		}
	}
	for i := range st.byModel {
		for _, cw := range counts {
			st.byModel[i].requests += cw[st.byModel[i].name]
		}
		st.requests += st.byModel[i].requests
	}
	return st, nil
}

// work serves requests on e until stop closes: worker w of n takes batches
// w, w+n, w+2n, ... (cycling), runs each on the slot's current model,
// checks the result against that model's expected prediction, counts it
// by model in counts, and sends on done.
func work(ctx context.Context, e *tensor.Engine, s *slot, in [][]float32, want map[string][][]float32,
	w, n int, counts map[string]int, done chan<- struct{}, stop <-chan struct{}) error {
	for i := w; ; i += n {
		select {
		case <-stop:
			return nil
		default:
		}
		b := i % len(in)
		m := s.Acquire()
		if m == nil {
			return errors.New("the slot closed while serving")
		}
		y, err := predict(ctx, e, m.model, in[b])
		s.Release(m)
		if err != nil {
			return fmt.Errorf("worker %d, request %d on %s: %w", w, i, m.name, err)
		}
		if !equal(y, want[m.name][b]) {
			return fmt.Errorf("worker %d, request %d on %s: predicted %v, want %v", w, i, m.name, y, want[m.name][b])
		}
		counts[m.name]++
		select {
		case done <- struct{}{}:
		case <-stop:
			return nil
		}
	}
}

// equal reports whether a and b hold the same values.
func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
