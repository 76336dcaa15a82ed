package wgpu_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/wgtensor/wgtensor/wgpu"
)

// A kernel that doubles every element, on the best adapter (or the one
// WGT_BACKEND and WGT_ADAPTER name).
func Example() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()

	k, err := d.Kernel(wgpu.KernelSpec{
		Name: "double",
		Source: `
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	if (id.x < arrayLength(&x)) { x[id.x] = 2.0 * x[id.x]; }
}`,
		Bindings: []wgpu.Access{wgpu.ReadWrite},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	in := []float32{1, 2, 3, 4}
	data := make([]byte, 4*len(in))
	for i, v := range in {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	buf, err := d.NewBuffer(uint64(len(data)), wgpu.UsageStorage)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer buf.Release()
	if err := d.Write(buf, 0, data); err != nil {
		fmt.Println(err)
		return
	}
	if err := d.Dispatch(k, [3]uint32{1, 1, 1}, nil, buf); err != nil {
		fmt.Println(err)
		return
	}

	// ReadAsync returns at once; Await submits the batch and waits for it.
	out, err := d.ReadAsync(buf, 0, buf.Size()).Await(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 0; i < len(out); i += 4 {
		fmt.Print(math.Float32frombits(binary.LittleEndian.Uint32(out[i:])), ";")
	}
	fmt.Println()
	fmt.Println("live buffers:", d.Pool().Stats().LiveBuffers)
	// Output:
	// 2;4;6;8;
	// live buffers: 1
}
