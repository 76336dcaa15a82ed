// Command readme runs the Go snippets of the project's README.md, so that
// they run as written: each snippet there is a region of this file between
// "readme:begin" and "readme:end" comments, and readme_test.go fails when
// the two differ. It exits non-zero when a snippet does not do what the
// README says.
//
//	go run ./examples/readme
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/dist"
	"github.com/wgtensor/wgtensor/frame"
	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, snippet := range []struct {
		name string
		run  func(context.Context) error
	}{
		{"tensors", tensors},
		{"training", training},
		{"checkpoints", checkpoints},
		{"past one machine", pastOneMachine},
		{"memory", memory},
		{"memory history", memoryHistory},
		{"runtime", usingTheRuntime},
	} {
		if err := snippet.run(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "readme: the %s snippet: %v\n", snippet.name, err)
			os.Exit(1)
		}
	}
}

// withDevice opens a device for fn and closes it when fn returns: Close
// fails if fn left a buffer live.
func withDevice(ctx context.Context, fn func(d *wgpu.Device) error) error {
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		return err
	}
	return errors.Join(fn(d), d.Close())
}

// tensors is README's "Tensors" snippet.
func tensors(ctx context.Context) error {
	return withDevice(ctx, func(d *wgpu.Device) error {
		// readme:begin
		e := tensor.New(d) // one Engine per goroutine; many share a Device
		x := e.FromFloat32s([]float32{1, -2, 3, -4}, 2, 2)
		w := e.RandNormal(42, 0, 1, 2, 3) // Philox: same seed, same numbers everywhere
		y, err := tidy.Run(e, func() (*tensor.Tensor, error) {
			return e.Softmax(e.Relu(e.MatMul(x, w)), -1), nil // recorded and batched
		}) // the matmul's and the relu's results are disposed here; y is kept
		v, err := y.Float32s(ctx)               // submits, waits, reads back
		text, err := y.Text(ctx)                // NumPy-style: "tensor([[...]], shape=[2 3], dtype=float32)"
		tidy.Dispose([]*tensor.Tensor{x, w, y}) // storage back to the pool at once
		fmt.Println(e.LiveTensors())            // what is still live, with file:line: nothing
		// readme:end
		if err != nil {
			return err
		}
		if len(v) != 6 || math.Abs(float64(v[0]+v[1]+v[2])-1) > 1e-6 {
			return fmt.Errorf("softmax rows = %v, want 2 rows of 3 summing to 1", v)
		}
		if !strings.HasPrefix(text, "tensor([[") || !strings.HasSuffix(text, "shape=[2 3], dtype=float32)") {
			return fmt.Errorf("y.Text = %q, want a 2×3 float32 tensor", text)
		}
		if n := e.NumTensors(); n != 0 {
			return fmt.Errorf("%d tensors live at the end, want 0", n)
		}
		return nil
	})
}

// training is README's "Training" snippet: a linear classifier of 8
// points into 4 classes, trained for 100 frames.
func training(ctx context.Context) error {
	return withDevice(ctx, func(d *wgpu.Device) error {
		e := tensor.New(d)
		x := e.RandNormal(1, 0, 1, 8, 4)
		labels := e.FromInt32s([]int32{0, 1, 2, 3, 0, 1, 2, 3}, 8)
		w, b := e.RandNormal(2, 0, 0.5, 4, 4), e.Zeros(tensor.Float32, 4)
		defer tidy.Dispose([]*tensor.Tensor{x, labels, w, b})
		// readme:begin
		params := []optim.Param{{Name: "0.weight", T: w}, {Name: "0.bias", T: b}}
		opt, err := optim.NewAdam(e, params, optim.AdamDefaults()) // state made at the first step
		_, err = frame.Loop(ctx, e, func(int) error {
			tape := grad.NewTape(e) // disposed, with all it saved, by the frame's scope
			var l *tensor.Tensor
			err := tape.Record(func() error { // only ops run in here are recorded
				l = loss.SoftmaxCrossEntropy(e, e.Add(e.MatMul(x, w), b), labels, loss.Mean)
				return l.Err()
			})
			if err != nil {
				return err
			}
			gs, err := tape.Gradients(l, []*tensor.Tensor{w, b}, nil) // ordinary tensors, in the scope
			if err != nil {
				return err
			}
			return opt.Step(gs) // one fused kernel per parameter, written into w and b
		}, frame.Options{Frames: 100, Scoped: true, StopOnLeak: true})
		opt.Dispose() // frees Adam's state, to the byte
		// readme:end
		if err != nil {
			return err
		}
		if w.Version() != 100 || b.Version() != 100 {
			return fmt.Errorf("w and b at versions %d and %d, want 100: updated in place each frame", w.Version(), b.Version())
		}
		if n := e.NumTensors(); n != 4 {
			return fmt.Errorf("%d tensors live after training, want the 4 made before it", n)
		}
		return nil
	})
}

// checkpoints is README's "Weights on disk" snippet: a model and Adam's
// state saved, loaded back in place, and loaded into new tensors.
func checkpoints(ctx context.Context) error {
	return withDevice(ctx, func(d *wgpu.Device) error {
		dir, err := os.MkdirTemp("", "wgtensor-readme-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "model.safetensors")
		e := tensor.New(d)
		w, b := e.RandNormal(2, 0, 0.5, 4, 4), e.Zeros(tensor.Float32, 4)
		defer tidy.Dispose([]*tensor.Tensor{w, b})
		params := []optim.Param{{Name: "0.weight", T: w}, {Name: "0.bias", T: b}}
		opt, aerr := optim.NewAdam(e, params, optim.AdamDefaults())
		if aerr != nil {
			return aerr
		}
		defer opt.Dispose()
		g := []*tensor.Tensor{e.Ones(tensor.Float32, 4, 4), e.Ones(tensor.Float32, 4)}
		aerr = opt.Step(g)
		tidy.Dispose(g)
		if aerr != nil {
			return aerr
		}
		return func() error {
			// readme:begin
			err := checkpoint.SaveFile(ctx, path, params, checkpoint.SaveOptions{Optimizer: opt})         // Adam's state too
			rep, err := checkpoint.LoadFile(ctx, e, path, params, checkpoint.LoadOptions{Optimizer: opt}) // in place, strict
			fresh, err := checkpoint.LoadTensorsFile(ctx, e, path)                                        // new tensors, by name
			// readme:end
			if err != nil {
				return err
			}
			defer func() {
				for _, p := range fresh {
					p.T.Dispose()
				}
			}()
			if len(rep.Missing)+len(rep.Unexpected) != 0 || len(fresh) != 2 || opt.Steps("0.weight") != 1 {
				return fmt.Errorf("loaded %d tensors, skipped %v, Adam at step %d; want 2, nothing, 1", len(fresh), rep, opt.Steps("0.weight"))
			}
			if w.Version() != 2 {
				return fmt.Errorf("w at version %d, want 2: a step, then a load in place", w.Version())
			}
			return nil
		}()
	})
}

// pastOneMachine is README's "Past one machine" snippet, on one rank (this
// program is built without MPI).
func pastOneMachine(ctx context.Context) error {
	return withDevice(ctx, func(d *wgpu.Device) error {
		e := tensor.New(d)
		w := e.FromFloat32s([]float32{1, 2}, 2)
		defer w.Dispose()
		params := []*tensor.Tensor{w}
		opt, err := optim.NewSGD(e, []optim.Param{{Name: "w", T: w}}, optim.SGDConfig{LR: 0.5})
		if err != nil {
			return err
		}
		defer opt.Dispose()
		forward := func(p []*tensor.Tensor) (*tensor.Tensor, error) { // Σ w², whose gradient is 2w
			l := e.Sum(e.Square(p[0]), false)
			return l, l.Err()
		}
		// readme:begin
		c, err := dist.Init(dist.Options{Timeout: time.Minute})
		if errors.Is(err, dist.ErrNoMPI) {
			c = dist.Local() // built without -tags mpi: the same code on one rank
		}
		ddp, err := dist.NewDataParallel(ctx, c, e, opt, nil) // checks the ranks' models agree, copies rank 0's weights
		loss, grads, err := grad.ValueAndGrad(e, forward, params, &grad.Options{Ready: ddp.Ready})
		err = ddp.Step(ctx, grads) // the ranks' mean gradient, then opt.Step
		// readme:end
		tidy.Dispose(append(grads, loss))
		ddp.Close()
		if err != nil {
			return err
		}
		if err := c.Close(); err != nil {
			return err
		}
		v, err := w.Float32s(ctx)
		if err != nil {
			return err
		}
		if v[0] != 0 || v[1] != 0 {
			return fmt.Errorf("w = %v after a step of 0.5·2w, want 0", v)
		}
		return nil
	})
}

// memory is README's "Memory" snippet.
func memory(ctx context.Context) error {
	return withDevice(ctx, func(d *wgpu.Device) error {
		e := tensor.New(d)
		step := func(frame int) error { // disposes what it creates, also when profiled outside Loop
			return tidy.Do(e, func() error {
				_, err := e.Sum(e.Square(e.Range(tensor.Float32, 0, 100, 1)), false).Float32s(ctx)
				return err
			})
		}
		f, err := os.CreateTemp("", "wgtensor-*.pprof")
		if err != nil {
			return err
		}
		defer os.Remove(f.Name())
		defer f.Close()
		trace := new(bytes.Buffer)
		// readme:begin
		clock, err := frame.Loop(ctx, e, step, frame.Options{Frames: 60, Scoped: true, LeakFrames: 30, StopOnLeak: true})
		e.Summary(os.Stdout)                                      // like torch.cuda.memory_summary()
		e.WriteProfile(f)                                         // go tool pprof -top -nodefraction=0 -sample_index=gpu_bytes f
		p, err := e.Profile(ctx, func() error { return step(0) }) // the kernels of one step, like tf.profile or torch.profiler
		p.WriteTable(os.Stdout)                                   // by time: calls, time per call, bytes read and written
		p.WriteTrace(trace)                                       // Chrome trace events: open it in ui.perfetto.dev
		// readme:end
		if err != nil {
			return err
		}
		if clock.Frame() != 60 {
			return fmt.Errorf("the loop stopped after %d frames, want 60", clock.Frame())
		}
		if st, err := f.Stat(); err != nil || st.Size() == 0 {
			return fmt.Errorf("the memory profile is empty (%v)", err)
		}
		if p.Total("sum").Calls != 1 || !json.Valid(trace.Bytes()) {
			return fmt.Errorf("the kernel profile has %d sum calls, want 1, or its trace is not JSON", p.Total("sum").Calls)
		}
		return nil
	})
}

// memoryHistory is README's "The memory history" snippet.
func memoryHistory(ctx context.Context) error {
	return withDevice(ctx, func(d *wgpu.Device) error {
		e := tensor.New(d)
		dir, err := os.MkdirTemp("", "wgtensor-history-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		oomPath, path := filepath.Join(dir, "oom.json"), filepath.Join(dir, "history.json")
		train := func(e *tensor.Engine) {
			tidy.Do(e, func() error { return e.Sum(e.Square(e.Range(tensor.Float32, 0, 100, 1)), false).Err() })
		}
		// readme:begin
		e.RecordMemoryHistory(wgpu.HistoryOptions{OnOOM: oomPath}) // OnOOM, OnLoss: written when an allocation fails for memory, or the device is lost
		train(e)
		e.WriteMemoryHistory(path) // with Engine.Memory's figures, for wgmemview
		// readme:end
		d.StopHistory()
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		h, err := wgpu.ReadHistory(f)
		if err != nil {
			return err
		}
		if len(h.Events) == 0 || h.Engine == nil {
			return fmt.Errorf("the history holds %d events and engine figures %v", len(h.Events), h.Engine)
		}
		return nil
	})
}

// double is the kernel of README's "Using the runtime" snippet.
const wgsl = `
@group(0) @binding(0) var<storage, read_write> v: array<f32>;
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&v)) { v[id.x] = 2.0 * v[id.x]; }
}`

// usingTheRuntime is README's "Using the runtime" snippet.
func usingTheRuntime(ctx context.Context) error {
	data := make([]byte, 4096)
	for i := 0; i < len(data); i += 4 {
		binary.LittleEndian.PutUint32(data[i:], math.Float32bits(float32(i/4)))
	}
	dst := make([]byte, 4096)
	// readme:begin
	d, err := wgpu.Open(ctx, wgpu.Options{})         // best adapter; WGT_BACKEND/WGT_ADAPTER fill unset options
	buf, err := d.NewBuffer(4096, wgpu.UsageStorage) // from the pool, counted
	err = d.Write(buf, 0, data)
	k, err := d.Kernel(wgpu.KernelSpec{Name: "double", Source: wgsl, Bindings: []wgpu.Access{wgpu.ReadWrite}})
	err = d.Dispatch(k, [3]uint32{64, 1, 1}, nil, buf) // recorded into the open batch
	out, err := d.ReadAsync(buf, 0, 4096).Await(ctx)   // submits, maps, copies out
	_, err = d.ReadAsyncInto(buf, 0, dst).Await(ctx)   // the same, into memory you own
	buf.Release()                                      // back to the pool
	fmt.Println(d.Pool().Stats())                      // live, pooled, reserved, peaks, counters
	d.Pool().Trim()                                    // pooled memory back to the driver
	err = d.Close()                                    // ErrLeaked lists what was still live, with file:line
	// readme:end
	if err != nil {
		return err
	}
	for i := 0; i < len(out); i += 4 {
		want := 2 * float32(i/4)
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[i:])); got != want {
			return fmt.Errorf("element %d = %v, want %v", i/4, got, want)
		}
	}
	if string(out) != string(dst) {
		return errors.New("ReadAsyncInto read other bytes than ReadAsync")
	}
	return nil
}
