package peakx

import (
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/wgtensor/wgtensor/wgpu"
)

func TestPeak(t *testing.T) {
	f, _ := os.Open("/tmp/h.json")
	h, err := wgpu.ReadHistory(f)
	if err != nil {
		t.Fatal(err)
	}
	var peakI int
	var peak uint64
	h.Replay(func(i int, tt wgpu.HistoryTotals) {
		if tt.LiveBytes > peak {
			peak, peakI = tt.LiveBytes, i
		}
	})
	live, _ := h.Live(peakI)
	by := map[string]uint64{}
	for _, b := range live {
		k := "?"
		if b.Tag >= 0 {
			k = fmt.Sprint(h.Tags[b.Tag])
		}
		by[k] += b.Bytes
	}
	type kv struct {
		k string
		v uint64
	}
	var kvs []kv
	for k, v := range by {
		kvs = append(kvs, kv{k, v})
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].v > kvs[j].v })
	fmt.Println("peak", peak, "at", peakI)
	for _, x := range kvs[:min(40, len(kvs))] {
		fmt.Printf("%10d %s\n", x.v, x.k)
	}
}
