// Command custom adds two ops the library lacks with tensor.Engine.RunKernel
// (the caller's WGSL on tensors) and checks them against Go:
//
//   - swish with a learnable beta per channel, y = x * sigmoid(beta * x),
//     over a [rows, channels] batch;
//   - a histogram of float32 values into equal bins, counted with atomics,
//     first in each workgroup's memory, then into a zeroed output.
//
// It exits with status 1 if a result is wrong or a tensor is left live.
//
//	go run ./examples/custom
//
// WGT_BACKEND (vulkan, gl, metal, dx12) and WGT_ADAPTER (a name substring)
// choose the adapter.
package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// swish reads x [rows, channels] and beta [channels]. Its uniform block
// is the launch header, then the number of channels.
var swish = tensor.Kernel{
	Name: "swish_beta",
	Source: `
struct Params { first: u32, end: u32, row: u32, threads: u32, channels: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> beta: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = p.first + id.x + id.y * p.row;
	if (i >= p.end) { return; }
	let v = x[i];
	y[i] = v / (1.0 + exp(-beta[i % p.channels] * v));
}`,
	Work: 24, // an exp and a division on top of the loads
}

// histogram counts values in [lo, hi) into bins (at most 256) of equal
// width. Every invocation of a workgroup reaches its barriers, those past
// the end too.
var histogram = tensor.Kernel{
	Name: "histogram",
	Source: `
struct Params { first: u32, end: u32, row: u32, threads: u32, lo: f32, hi: f32, bins: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> p: Params;
var<workgroup> local: array<atomic<u32>, 256>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let i = p.first + id.x + id.y * p.row;
	atomicStore(&local[li], 0u);
	workgroupBarrier();
	if (i < p.end) {
		let v = x[i];
		if (v >= p.lo && v < p.hi) {
			let b = min(u32((v - p.lo) / (p.hi - p.lo) * f32(p.bins)), p.bins - 1u);
			atomicAdd(&local[b], 1u);
		}
	}
	workgroupBarrier();
	if (li < p.bins) {
		let c = atomicLoad(&local[li]);
		if (c > 0u) { atomicAdd(&counts[li], c); }
	}
}`,
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "custom:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		return err
	}
	defer d.Close()
	fmt.Println("device:", d.Info())
	e := tensor.New(d)
	err = tidy.Do(e, func() error {
		if err := checkSwish(ctx, e); err != nil {
			return err
		}
		return checkHistogram(ctx, e)
	})
	if err != nil {
		return err
	}
	if n := e.NumTensors(); n != 0 {
		return fmt.Errorf("%d tensors still live: %v", n, e.LiveTensors())
	}
	fmt.Println("memory after the scope:", e.Memory().Pool)
	return nil
}

func checkSwish(ctx context.Context, e *tensor.Engine) error {
	const rows, channels = 4096, 48
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float32, rows*channels)
	for i := range xs {
		xs[i] = r.Float32()*12 - 6
	}
	betas := make([]float32, channels)
	for i := range betas {
		betas[i] = 0.25 + r.Float32()*2
	}
	x := e.FromFloat32s(xs, rows, channels)
	beta := e.FromFloat32s(betas, channels)
	y := e.RunKernel(swish, tensor.Launch{
		Inputs:  []*tensor.Tensor{x, beta},
		Outputs: []tensor.Out{{Shape: x.Shape(), DType: tensor.Float32}},
		Threads: x.Size(),
		Params:  []any{uint32(channels)},
	})[0]
	got, err := y.Float32s(ctx)
	if err != nil {
		return err
	}
	for i, v := range xs {
		b := float64(betas[i%channels])
		want := float64(v) / (1 + math.Exp(-b*float64(v)))
		if diff := math.Abs(float64(got[i]) - want); diff > 1e-5+1e-5*math.Abs(want) {
			return fmt.Errorf("swish_beta: y[%d] = %v, want %v (x %v, beta %v)", i, got[i], want, v, b)
		}
	}
	fmt.Printf("swish_beta on %v: correct\n", y.Shape())
	return nil
}

func checkHistogram(ctx context.Context, e *tensor.Engine) error {
	// Whole numbers in [-8, 72) into 16 bins over [0, 64): the bin of each
	// is exact in float32, and some values fall outside.
	const n, bins, lo, hi = 1_000_003, 16, 0, 64
	r := rand.New(rand.NewPCG(3, 4))
	xs := make([]float32, n)
	want := make([]uint32, bins)
	for i := range xs {
		xs[i] = float32(r.IntN(80) - 8)
		if xs[i] >= lo && xs[i] < hi {
			want[int(xs[i]-lo)*bins/(hi-lo)]++
		}
	}
	x := e.FromFloat32s(xs)
	counts := e.RunKernel(histogram, tensor.Launch{
		Inputs:  []*tensor.Tensor{x},
		Outputs: []tensor.Out{{Shape: tensor.Shape{bins}, DType: tensor.Uint32, Zeroed: true}},
		Threads: n,
		Params:  []any{float32(lo), float32(hi), uint32(bins)},
	})[0]
	got, err := counts.Uint32s(ctx)
	if err != nil {
		return err
	}
	for b := range want {
		if got[b] != want[b] {
			return fmt.Errorf("histogram: bin %d counts %d, want %d (all: %v, want %v)", b, got[b], want[b], got, want)
		}
	}
	fmt.Printf("histogram of %d values: correct: %v\n", n, got)
	return nil
}
