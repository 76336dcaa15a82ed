package kernels

import (
	"fmt"

	"github.com/wgtensor/wgtensor/wgpu"
)

// ScatterAdd adds slices of updates into a tensor viewed as
// [outer, axis, inner], at the positions int32 indices name along axis:
// dst[o, idx[j], k] += upd[o, j, k], the adjoint of Gather. Negative
// indices count from the end; indices out of range add nothing (Gather
// reads zeros there, so the pair stays adjoint).
//
// Floats have no atomics in WGSL, and atomics would make the order of the
// additions, hence the rounding, vary from run to run. So one thread owns
// one element of dst and sums, in index order, the updates of the indices
// that hit it: the result is deterministic, with repeated indices summed
// in the order they appear. A dispatch covers the indices [Begin, Stop)
// (at most ScatterChunk of them, far below MaxLoopTrips), and successive
// dispatches accumulate into dst in index order.
//
// With ByIndex one thread owns one update element instead, for when the
// indices are fewer than the positions along the axis (an embedding's
// gradient): the thread of the first occurrence of an index sums, in
// index order, the updates of every occurrence and adds the sum to dst;
// the threads of later occurrences, and of indices out of range, write
// nothing. Its dispatch covers every index (count at most ScatterChunk),
// and adds the same sums in the same order as the kernel by element, so
// both give the same bits.
//
// With Vec4 (an inner size that is a multiple of four) a thread owns four
// consecutive elements along the inner dimension and reads updates and dst
// as vec4s: one index loaded and compared for four additions, and one wide
// access for four narrow ones, which a CPU adapter's loop over the indices
// spends most of its time on (an embedding's gradient of 2,048 indices
// into [64, 128] took 8.6 ms by element on lavapipe). Each lane adds its
// element's updates in the same order: the bits are the same.
//
// Its source is scatter.wgsl; its parameters are ScatterAddParams.
type ScatterAdd struct {
	T       Type
	ByIndex bool
	Vec4    bool
}

// ScatterAddParams is the ScatterAdd kernel's parameter block: the inner
// size, the count of indices, the length of the axis added along, and the
// indices [Begin, Stop) this dispatch adds (ByIndex: all of them).
type ScatterAddParams struct {
	Range
	Inner, Count, Axis, Begin, Stop uint32
}

// Bytes encodes p.
func (p *ScatterAddParams) Bytes() []byte { return encodeParams(p) }

// ScatterChunk is the most indices one ScatterAdd dispatch adds.
const ScatterChunk = 1 << 11

// Key identifies s's pipeline.
func (s ScatterAdd) Key() string {
	if s.Vec4 {
		return fmt.Sprintf("scatter_add/%s/%v/vec4", s.T, s.ByIndex)
	}
	return fmt.Sprintf("scatter_add/%s/%v", s.T, s.ByIndex)
}

// Spec generates s's kernel.
func (s ScatterAdd) Spec() wgpu.KernelSpec {
	p := &ScatterAddParams{}
	elem := string(s.T)
	if s.Vec4 {
		elem = fmt.Sprintf("vec4<%s>", s.T)
	}
	src := fill("scatter.wgsl", map[string]any{"Params": declareParams(p), "WorkgroupSize": WorkgroupSize, "T": s.T, "Elem": elem,
		"ByIndex": s.ByIndex, "Vec4": s.Vec4})
	return wgpu.KernelSpec{Name: "scatter_add", Key: s.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
}

// ThreadWork is the work of one thread of s over count indices (with
// Vec4, of four elements).
func (s ScatterAdd) ThreadWork(count int) float64 {
	if s.Vec4 {
		return 24 + 4*float64(count)
	}
	return 24 + 3*float64(count)
}
