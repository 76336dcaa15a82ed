// Command hello opens the default WebGPU device, runs one kernel on it and
// prints the adapter and the device's memory report: the smallest program
// that exercises the whole runtime.
//
//	go run ./examples/hello
//
// WGT_BACKEND (vulkan, gl, metal, dx12) and WGT_ADAPTER (a name substring)
// choose the adapter.
package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/wgtensor/wgtensor/wgpu"
)

const saxpy = `
struct Params { a: f32, n: u32 }
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < p.n) { y[id.x] = p.a * x[id.x] + y[id.x]; }
}`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hello:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	fmt.Println("adapters:")
	for _, a := range wgpu.Adapters() {
		fmt.Printf("  [%d] %s, driver %q\n", a.Index, a, a.Driver)
	}
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		return err
	}
	defer d.Close()
	info, lim := d.Info(), d.Limits()
	fmt.Printf("opened: %s\n  max buffer %d MiB, max storage binding %d MiB, %d invocations per workgroup\n",
		info, lim.MaxBufferSize>>20, lim.MaxStorageBufferBindingSize>>20, lim.MaxComputeInvocationsPerWorkgroup)

	const n = 1 << 20
	k, err := d.Kernel(wgpu.KernelSpec{Name: "saxpy", Source: saxpy,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: 8})
	if err != nil {
		return err
	}
	x, err := upload(d, func(i int) float32 { return float32(i) })
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := upload(d, func(int) float32 { return 1 })
	if err != nil {
		return err
	}
	defer y.Release()

	params := make([]byte, 8)
	binary.LittleEndian.PutUint32(params, math.Float32bits(2))
	binary.LittleEndian.PutUint32(params[4:], n)
	start := time.Now()
	if err := d.Dispatch(k, [3]uint32{n / 64, 1, 1}, params, x, y); err != nil {
		return err
	}
	out, err := d.ReadAsync(y, 0, y.Size()).Await(ctx)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	for i := range n {
		got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
		if want := 2*float32(i) + 1; got != want {
			return fmt.Errorf("saxpy: y[%d] = %v, want %v", i, got, want)
		}
	}
	fmt.Printf("saxpy on %d floats: correct, %v including the readback\n", n, elapsed.Round(time.Microsecond))

	fmt.Println("memory while x and y are live:")
	fmt.Println(" ", d.Pool().Stats())
	x.Release()
	y.Release()
	if err := d.Pool().Trim(); err != nil {
		return err
	}
	fmt.Println("memory after release and trim:")
	fmt.Println(" ", d.Pool().Stats())
	return nil
}

func upload(d *wgpu.Device, f func(int) float32) (*wgpu.Buffer, error) {
	const n = 1 << 20
	data := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(f(i)))
	}
	b, err := d.NewBuffer(uint64(len(data)), wgpu.UsageStorage)
	if err != nil {
		return nil, err
	}
	if err := d.Write(b, 0, data); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}
