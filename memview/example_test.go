package memview_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wgtensor/wgtensor/memview"
	"github.com/wgtensor/wgtensor/wgpu"
)

// Record a device's memory history over two steps of a loop, one of which
// keeps a buffer it should not, and write the viewer page. Opened in a
// browser, its diff of "step 1" and "step 2" names the line that kept it.
func ExampleWriteFile() {
	d, err := wgpu.Open(context.Background(), wgpu.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	if err := d.RecordHistory(wgpu.HistoryOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	var kept []*wgpu.Buffer
	for step := 1; step <= 2; step++ {
		b, err := d.NewBuffer(1<<20, wgpu.UsageStorage)
		if err != nil {
			fmt.Println(err)
			return
		}
		b.Describe(0, wgpu.BufferTag{Category: "activation", DType: "float32", Shape: "[512 512]"})
		kept = append(kept, b) // the leak
		d.MarkHistory(fmt.Sprintf("step %d", step))
	}
	h, err := d.History()
	for _, b := range kept {
		b.Release()
	}
	if err != nil {
		fmt.Println(err)
		return
	}

	dir, err := os.MkdirTemp("", "memview")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "memory.html")
	if err := memview.WriteFile(path, h); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d events in %s\n", len(h.Events), filepath.Base(path))
	// Output:
	// 4 events in memory.html
}
