package frame_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/wgtensor/wgtensor/frame"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// A loop that forgets to dispose a tensor each frame: the watchdog stops it
// and names the line that allocated what leaked.
func ExampleLoop() {
	ctx := context.Background()
	d, err := wgpu.Open(ctx, wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	e := tensor.New(d)
	x := e.Ones(tensor.Float32, 256)
	defer x.Dispose()

	var leaked []*tensor.Tensor
	_, err = frame.Loop(ctx, e, func(int) error {
		y := e.Add(x, x) // never disposed
		leaked = append(leaked, y)
		return nil
	}, frame.Options{Frames: 100, LeakFrames: 5, StopOnLeak: true})
	defer tidy.Dispose(leaked)

	var leak *frame.Leak
	if errors.As(err, &leak) {
		fmt.Printf("leak after frame %d: %d tensors from %s\n", leak.ToFrame, leak.Sites[0].Tensors, leak.Sites[0].Site)
	}
	// Output:
	// leak after frame 6: 5 tensors from frame/example_test.go:30
}
