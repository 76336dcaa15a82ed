package kernels

import (
	"github.com/wgtensor/wgtensor/wgpu"
)

// Work estimates: what one thread, row or tile of each kernel costs, in the
// units of wgpu.Work (about a nanosecond of lavapipe on this project's
// 2-core machines). They were measured on large dispatches of each kernel
// family (transposes, slices, gathers, elementwise programs scalar, vec4,
// strided and Philox, reductions and softmax of both kinds, matmuls) and
// rounded up: on an unloaded machine each family ran in 0.3 to 0.9 of
// its estimate (under a heavy load, up to 7 times it: the budget allows
// for that, see wgpu.CPUWorkBudget). An estimate may be several times the
// real cost, never much less.

// ThreadWork is the work of one thread of k: one element, or four with
// Vec4, as costly on a CPU adapter. Strided leaves pay for their index
// arithmetic, and Philox generators for their ten rounds.
func (k Elementwise) ThreadWork() float64 {
	w := 1.0 + float64(len(k.Nodes)) + 3*float64(k.strided())
	for _, n := range k.Nodes {
		if helpersInfoOf(n.Helpers).philox {
			w += 4
		}
	}
	// A Vec4 thread does four elements at the vector rate; a scalar thread
	// does one, but its narrow accesses cost about as much.
	return 4 * w
}

// ThreadWork is the work of one thread of c: one word copied.
func (c Copy) ThreadWork() float64 { return 6 + 4*float64(c.Rank) }

// ThreadWork is the work of one thread of the gather kernel.
func (Gather) ThreadWork() float64 { return 24 }

// RowWork is the work of reducing one row of length elements: a workgroup
// pays for its barriers whatever the length.
func (r Reduce) RowWork(length int) float64 {
	if r.PerThread {
		return 4 + 2*float64(length)
	}
	return 4000 + 3*float64(length)
}

// RowWork is the work of one row of length elements: three passes over
// the row, and with a workgroup per row its barriers (about 13 µs).
func (s Softmax) RowWork(length int) float64 {
	if s.PerThread {
		return 8 + 8*float64(length)
	}
	return 16000 + 16*float64(length)
}

// GroupWork is the work of one workgroup of m, one tile of the result (with
// Small, SmallThreads blocks), over an inner dimension of K: its
// multiply-adds at the kernel's rate (vec4 about 0.08 ns each on lavapipe
// in a large product, 0.33 in a product of one tile, which runs on one
// core; register 0.28; tiled, with its barriers, about 1.5), and with Small
// each block's fixed cost.
func (m MatMul) GroupWork(K int) float64 {
	if m.Small {
		return SmallThreads * (smallBlockWork + float64(K)*SmallBlock*SmallBlock*smallFMAWork)
	}
	perFMA := 2.0
	switch {
	case m.Vec4:
		perFMA = 0.4
	case m.Register:
		perFMA = 0.5
	}
	return float64(m.TileRows()) * float64(m.TileCols()) * float64(max(K, 1)) * perFMA
}

// The Small kernel's work per block of C (its index arithmetic, and the
// sums of elements past the matrix edge) and per multiply-add: about twice
// the register kernel's in a product of whole tiles (128×784 times
// 784×256), much less where the register kernel's tiles would be mostly
// empty (128×256 times 256×10 ran 2.7 times as fast, a batch of 16×16
// products 10 times, of 6×6 ones 40 times, of 1×1 ones 170 times).
const (
	smallBlockWork = 40.0
	smallFMAWork   = 1.0
)

// Split returns how many items (threads, rows, tiles) of work each one
// dispatch may take so that its work stays within budget: at least one,
// at most n and at most limit.
func Split(n int, each float64, budget wgpu.Work, limit int) int {
	step := n
	if each > 0 && float64(n)*each > float64(budget) {
		step = int(float64(budget) / each)
	}
	return max(1, min(step, n, limit))
}
