package shaders

import (
	"fmt"
	"strings"

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
// in the order they appear. A dispatch covers the indices [begin, end)
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
// Header: n, row, inner, count of indices. Metadata: the axis length, the
// first index and the end of the indices this dispatch adds (ByIndex: all).
type ScatterAdd struct {
	T       Type
	ByIndex bool
}

// ScatterChunk is the most indices one ScatterAdd dispatch adds.
const ScatterChunk = 1 << 11

// Key identifies s's pipeline.
func (s ScatterAdd) Key() string { return fmt.Sprintf("scatter_add/%s/%v", s.T, s.ByIndex) }

// MetaWords is how many metadata words s takes.
func (ScatterAdd) MetaWords() int { return 3 }

// Spec generates s's kernel.
func (s ScatterAdd) Spec() wgpu.KernelSpec {
	body := byElement
	if s.ByIndex {
		body = byIndex
	}
	body = fmt.Sprintf(strings.ReplaceAll(body, "T(0)", string(s.T)+"(0)"), meta(0), meta(1), meta(2))
	src := paramsStruct(s.MetaWords()) + fmt.Sprintf(`@group(0) @binding(0) var<storage, read> idx: array<i32>;
@group(0) @binding(1) var<storage, read> upd: array<%[1]s>;
@group(0) @binding(2) var<storage, read_write> dst: array<%[1]s>;
@group(0) @binding(3) var<uniform> p: Params;
@compute @workgroup_size(%[2]d)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first.x;
	if (i >= p.n) { return; }
%[3]s}
`, s.T, WorkgroupSize, body)
	return wgpu.KernelSpec{Name: "scatter_add", Key: s.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSize(s.MetaWords())}
}

// byElement is the body of the kernel with a thread per element of dst.
const byElement = `	let inner = p.h2;
	let count = p.h3;
	let axis = %[1]s;
	let k = i %% inner;
	let t = i / inner;
	let a = i32(t %% axis);
	let base = (t / axis) * count;
	var sum = T(0);
	var hit = false;
	for (var j = %[2]s; j < %[3]s; j++) {
		var x = idx[j];
		if (x < 0) { x = x + i32(axis); }
		if (x == a) {
			sum += upd[(base + j) * inner + k];
			hit = true;
		}
	}
	if (hit) { dst[i] = dst[i] + sum; }
`

// byIndex is the body of the kernel with a thread per element of upd.
const byIndex = `	let inner = p.h2;
	let count = p.h3;
	let axis = %[1]s;
	let k = i %% inner;
	let t = i / inner;
	let j = t %% count;
	let base = (t / count) * count;
	var a = idx[j];
	if (a < 0) { a = a + i32(axis); }
	if (a < 0 || u32(a) >= axis) { return; }
	for (var q = 0u; q < j; q++) {
		var x = idx[q];
		if (x < 0) { x = x + i32(axis); }
		if (x == a) { return; }
	}
	var sum = T(0);
	for (var q = j; q < count; q++) {
		var x = idx[q];
		if (x < 0) { x = x + i32(axis); }
		if (x == a) { sum += upd[(base + q) * inner + k]; }
	}
	let d = ((t / count) * axis + u32(a)) * inner + k;
	dst[d] = dst[d] + sum;
`

// ThreadWork is the work of one thread of s over count indices.
func (ScatterAdd) ThreadWork(count int) float64 { return 24 + 3*float64(count) }
