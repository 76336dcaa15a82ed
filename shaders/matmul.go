package shaders

import (
	"fmt"
	"strings"

	"github.com/wgtensor/wgtensor/wgpu"
)

// MatMul multiplies float32 matrices, batched: C[b] = op(A[b]) · op(B[b]),
// where op transposes when TransA/TransB say so, A[b] is M×K after op and
// B[b] is K×N. Batch dimensions broadcast: the batch index z (the grid's z)
// is decomposed over BatchRank dimensions, each with an A stride and a B
// stride counted in whole matrices (0 where that side is broadcast).
//
// The kernel tiles C into 64×64 blocks, one per workgroup of 16×16
// threads. Each step of 8 k stages a 64×8 slice of A and an 8×64 slice of
// B in workgroup memory, as vec4s of four rows or columns, and each thread
// accumulates a 4×4 block of C (four consecutive rows and columns) in
// registers, so every value loaded from memory is used 64 times. The
// workgroup arrays are kept small (128 vec4s): WGSL zero-initialises
// them, and llvmpipe's GL compiler took 20 s to compile that for each
// array of 1,024 floats, 0.5 s for these.
//
// A large product is split into several dispatches (see Split): First
// holds the first column tile, row tile and batch of the dispatch, which
// the grid's x, y and z count from, and the first k of the range of the
// inner dimension it sums, which ends at header word 2. A range that does
// not start at 0 continues the sums a dispatch before it wrote to C, in
// the same order as one dispatch would: the result is the same, bit for
// bit. The range's ends are multiples of 16 (MatMulTileK), or K.
//
// Header: batches, 0, the end of the range of k, 0. Metadata: M, N, K, the
// BatchRank batch dimensions, their A strides, their B strides.
//
// With Register the kernel uses no workgroup memory and no barriers: each
// of 8×8 threads computes an 8×8 block of the same 64×64 tile straight
// from memory. That wins on CPU adapters (lavapipe), where a barrier is
// expensive and the compiler vectorises across invocations.
//
// With Vec4 (no transposes, K and N multiples of four; see Vec4Fits) the
// kernel is Register's, wider: each of 8×8 threads computes 16 rows × 16
// columns of a 128×128 tile, reading A and B as vec4s (four k of a row of
// A, four columns of a row of B) and keeping 64 vec4 sums. A CPU adapter
// spends most of a matmul's time on loads, each costing a loop over the
// vector's lanes; one vec4 load costs much less than four scalar ones, and
// every value loaded here feeds 16 or 64 multiply-adds. On lavapipe it
// runs at 2.5 to 3 times Register's speed.
type MatMul struct {
	TransA, TransB bool
	BatchRank      int
	Register       bool
	Vec4           bool
}

// Vec4Fits reports whether the Vec4 kernel takes a product of these
// transposes and K, N: both multiples of four.
func Vec4Fits(transA, transB bool, K, N int) bool {
	return !transA && !transB && K%4 == 0 && N%4 == 0
}

// MaxMatMulK is the longest inner dimension the tensor package's MatMul
// takes (2^20 - 16): longer products are refused with an error naming it.
const MaxMatMulK = MaxLoopTrips * MatMulTileK

// MatMulKRange is the most k one dispatch of any MatMul kernel sums; a
// longer inner dimension is summed in ranges, one dispatch each (see
// First). On lavapipe and llvmpipe (Mesa's gallivm) one budget of 65,535
// trips covers a top-level loop together with every loop nested in it:
// past it the loop stops silently. The K loops here spend about 18 trips
// per 16 k (the tiled and register kernels: 16 inner trips and 2 for the
// outer one), so one dispatch of 65,536 k summed only 58,255 of them.
// 16,384 k stay far below the budget in every kernel.
const MatMulKRange = 1 << 14

// The tile's shape.
const (
	MatMulTileM = 64
	MatMulTileN = 64
	MatMulTileK = 16
)

// Key identifies m's pipeline.
func (m MatMul) Key() string {
	return fmt.Sprintf("matmul/%s/%v/%v/b%d", m.Kind(), m.TransA, m.TransB, m.BatchRank)
}

// Kind names m's kernel: "vec4", "register" or "tiled".
func (m MatMul) Kind() string {
	switch {
	case m.Vec4:
		return "vec4"
	case m.Register:
		return "register"
	}
	return "tiled"
}

// MetaWords is how many metadata words m takes.
func (m MatMul) MetaWords() int { return 3 + 3*m.BatchRank }

// TileRows and TileCols are the rows and columns of C one workgroup computes.
func (m MatMul) TileRows() int {
	if m.Vec4 {
		return vec4Tile
	}
	return MatMulTileM
}

// TileCols: see TileRows.
func (m MatMul) TileCols() int {
	if m.Vec4 {
		return vec4Tile
	}
	return MatMulTileN
}

// The Vec4 kernel's threads each compute vec4Rows rows × vec4Blocks vec4s
// of columns; 8×8 threads make a tile of vec4Tile × vec4Tile.
const (
	vec4Rows   = 16
	vec4Blocks = 4
	vec4Tile   = 8 * vec4Rows
)

// Spec generates m's kernel.
func (m MatMul) Spec() wgpu.KernelSpec {
	switch {
	case m.Vec4:
		return m.vec4Spec()
	case m.Register:
		return m.registerSpec()
	}
	var b strings.Builder
	b.WriteString(paramsStruct(m.MetaWords()))
	fmt.Fprintf(&b, `@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> bm: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;
var<workgroup> As: array<vec4<f32>, 128>; // [k][m/4], 8×16: four rows of A
var<workgroup> Bs: array<vec4<f32>, 128>; // [k][n/4], 8×16: four columns of B
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>,
		@builtin(local_invocation_index) li: u32) {
	let M = %s; let N = %s; let K = %s;
	let z = w.z + p.first.z;
	var rem = z;
	var aoff = 0u;
	var boff = 0u;
%s	aoff = aoff * M * K;
	boff = boff * K * N;
	let row0 = (w.y + p.first.y) * 64u;
	let col0 = (w.x + p.first.x) * 64u;
	let cbase = z * M * N;
	let r0 = row0 + 4u * l.y;
	let c0 = col0 + 4u * l.x;
%s	for (var k0 = p.first.w; k0 < p.h2; k0 += 8u) {
		if (li < 128u) {
			%s
			As[kk * 16u + q] = v;
		} else {
			let e = li - 128u;
			%s
			Bs[kk * 16u + q] = v;
		}
		workgroupBarrier();
		for (var kk = 0u; kk < 8u; kk++) {
			let av = As[kk * 16u + l.y];
			let bv = Bs[kk * 16u + l.x];
			s0 = fma(vec4<f32>(av.x), bv, s0);
			s1 = fma(vec4<f32>(av.y), bv, s1);
			s2 = fma(vec4<f32>(av.z), bv, s2);
			s3 = fma(vec4<f32>(av.w), bv, s3);
		}
		workgroupBarrier();
	}
%s}
`, meta(0), meta(1), meta(2), m.batchOffsets(), tiledSums(true), m.tiledStageA(), m.tiledStageB(), tiledSums(false))
	return wgpu.KernelSpec{Name: "matmul", Key: m.Key(), Source: b.String(),
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSize(m.MetaWords())}
}

// tiledStageA is the tiled kernel's code by which thread li (of the first
// 128) loads four rows of A at one k of the step, v, for As[kk*16 + q].
// Consecutive threads read consecutive addresses of A's stored layout, so
// a GPU coalesces the reads. Values past the matrix edge are 0.
func (m MatMul) tiledStageA() string {
	if m.TransA { // A is stored [K][M]: four rows are four consecutive words
		return stage4("let q = li % 16u; let kk = li / 16u;", "row0 + 4u * q", "M", "a[aoff + gk * M + %s]")
	}
	return stage4("let kk = li % 8u; let q = li / 8u;", "row0 + 4u * q", "M", "a[aoff + (%s) * K + gk]")
}

// tiledStageB is tiledStageA for B's four columns, by thread e = li - 128.
func (m MatMul) tiledStageB() string {
	if m.TransB { // B is stored [N][K]
		return stage4("let kk = e % 8u; let q = e / 8u;", "col0 + 4u * q", "N", "bm[boff + (%s) * K + gk]")
	}
	return stage4("let q = e % 16u; let kk = e / 16u;", "col0 + 4u * q", "N", "bm[boff + gk * N + %s]")
}

// stage4 writes the code that loads v, four values at k0 + kk: those of
// index first+t (t < 4, below limit) read by load (a format of the index).
func stage4(where, first, limit, load string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s let gk = k0 + kk; var v = vec4<f32>(0.0);", where)
	for t, lane := range "xyzw" {
		idx := fmt.Sprintf("%s + %du", first, t)
		fmt.Fprintf(&b, "\n\t\t\tif (gk < K && %s < %s) { v.%c = %s; }", idx, limit, lane, fmt.Sprintf(load, idx))
	}
	return b.String()
}

// tiledSums writes the tiled kernel's code for a thread's sums: s_i holds
// row r0 + i, columns c0 to c0 + 3. With start it declares them and, in a
// dispatch that continues a range of k, loads them from C; otherwise it
// stores them to C.
func tiledSums(start bool) string {
	var b strings.Builder
	if start {
		b.WriteString("\tvar s0 = vec4<f32>(0.0); var s1 = s0; var s2 = s0; var s3 = s0;\n\tif (p.first.w > 0u) {\n")
	}
	for i := range 4 {
		for j, lane := range "xyzw" {
			at := fmt.Sprintf("c[cbase + (r0 + %du) * N + c0 + %du]", i, j)
			in := fmt.Sprintf("if (r0 + %du < M && c0 + %du < N)", i, j)
			if start {
				fmt.Fprintf(&b, "\t\t%s { s%d.%c = %s; }\n", in, i, lane, at)
			} else {
				fmt.Fprintf(&b, "\t%s { %s = s%d.%c; }\n", in, at, i, lane)
			}
		}
	}
	if start {
		b.WriteString("\t}\n")
	}
	return b.String()
}

// batchOffsets is the WGSL that turns the batch index (rem) into the
// A and B matrix offsets (aoff, boff), counted in whole matrices.
func (m MatMul) batchOffsets() string {
	var batch strings.Builder
	for d := m.BatchRank - 1; d >= 0; d-- {
		fmt.Fprintf(&batch, "\t{ let dim = %s; let c = rem %% dim; rem = rem / dim; aoff += c * %s; boff += c * %s; }\n",
			meta(3+d), meta(3+m.BatchRank+d), meta(3+2*m.BatchRank+d))
	}
	return batch.String()
}

// registerSpec generates the barrier-free kernel. Loads past the matrix
// edge are clamped to its last row or column: they feed only outputs that
// are not written.
func (m MatMul) registerSpec() wgpu.KernelSpec {
	aIdx := "ri[i] * K + k"
	if m.TransA {
		aIdx = "k * M + ri[i]"
	}
	bIdx := "k * N + ci[j]"
	if m.TransB {
		bIdx = "ci[j] * K + k"
	}
	src := paramsStruct(m.MetaWords()) + fmt.Sprintf(`@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> bm: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;
@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
	let M = %s; let N = %s; let K = %s;
	let z = w.z + p.first.z;
	var rem = z;
	var aoff = 0u;
	var boff = 0u;
%s	aoff = aoff * M * K;
	boff = boff * K * N;
	let row0 = ((w.y + p.first.y) * 8u + l.y) * 8u;
	let col0 = ((w.x + p.first.x) * 8u + l.x) * 8u;
	var ri: array<u32, 8>;
	var ci: array<u32, 8>;
	for (var t = 0u; t < 8u; t++) {
		ri[t] = min(row0 + t, M - 1u);
		ci[t] = min(col0 + t, N - 1u);
	}
	let cbase = z * M * N;
	var acc: array<f32, 64>;
	if (p.first.w > 0u) {
		for (var i = 0u; i < 8u; i++) {
			for (var j = 0u; j < 8u; j++) {
				if (row0 + i < M && col0 + j < N) { acc[i * 8u + j] = c[cbase + (row0 + i) * N + col0 + j]; }
			}
		}
	}
	for (var k0 = p.first.w; k0 < p.h2; k0 += 16u) {
		for (var kk = 0u; kk < 16u; kk++) {
			let k = k0 + kk;
			if (k >= K) { break; }
			var av: array<f32, 8>;
			var bv: array<f32, 8>;
			for (var i = 0u; i < 8u; i++) { av[i] = a[aoff + %s]; }
			for (var j = 0u; j < 8u; j++) { bv[j] = bm[boff + %s]; }
			for (var i = 0u; i < 8u; i++) {
				for (var j = 0u; j < 8u; j++) {
					acc[i * 8u + j] = fma(av[i], bv[j], acc[i * 8u + j]);
				}
			}
		}
	}
	for (var i = 0u; i < 8u; i++) {
		let r = row0 + i;
		for (var j = 0u; j < 8u; j++) {
			let col = col0 + j;
			if (r < M && col < N) { c[cbase + r * N + col] = acc[i * 8u + j]; }
		}
	}
}
`, meta(0), meta(1), meta(2), m.batchOffsets(), aIdx, bIdx)
	return wgpu.KernelSpec{Name: "matmul", Key: m.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSize(m.MetaWords())}
}

// vec4Spec generates the Vec4 kernel, unrolled: a thread's 64 sums are
// named values, not an array, so that they stay in registers. Loads past
// the matrix edge are clamped to its last row or column block: they feed
// only sums that are not written.
func (m MatMul) vec4Spec() wgpu.KernelSpec {
	var b strings.Builder
	b.WriteString(paramsStruct(m.MetaWords()))
	fmt.Fprintf(&b, `@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> bm: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> c: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> p: Params;
@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
	let M = %s; let N = %s; let K = %s;
	let K4 = K / 4u; let N4 = N / 4u;
	let z = w.z + p.first.z;
	var rem = z;
	var aoff = 0u;
	var boff = 0u;
%s	aoff = aoff * M * K4;
	boff = boff * K * N4;
	let row0 = ((w.y + p.first.y) * 8u + l.y) * %du;
	let cb0 = ((w.x + p.first.x) * 8u + l.x) * %du;
`, meta(0), meta(1), meta(2), m.batchOffsets(), vec4Rows, vec4Blocks)
	for i := range vec4Rows {
		fmt.Fprintf(&b, "\tlet ra%d = aoff + min(row0 + %du, M - 1u) * K4;\n", i, i)
	}
	for j := range vec4Blocks {
		fmt.Fprintf(&b, "\tlet bc%d = boff + min(cb0 + %du, N4 - 1u);\n", j, j)
	}
	b.WriteString("\tlet cbase = z * M * N4;\n")
	for i := range vec4Rows {
		for j := range vec4Blocks {
			fmt.Fprintf(&b, "\tvar s%d_%d = vec4<f32>(0.0);\n", i, j)
		}
	}
	b.WriteString("\tif (p.first.w > 0u) {\n")
	for i := range vec4Rows {
		for j := range vec4Blocks {
			fmt.Fprintf(&b, "\t\tif (row0 + %du < M && cb0 + %du < N4) { s%d_%d = c[cbase + (row0 + %du) * N4 + cb0 + %du]; }\n", i, j, i, j, i, j)
		}
	}
	b.WriteString("\t}\n\tfor (var kb = p.first.w / 4u; kb < p.h2 / 4u; kb++) {\n")
	for i := range vec4Rows {
		fmt.Fprintf(&b, "\t\tlet a%d = a[ra%d + kb];\n", i, i)
	}
	b.WriteString("\t\tlet krow = kb * 4u * N4;\n")
	for kk, lane := range "xyzw" {
		for j := range vec4Blocks {
			fmt.Fprintf(&b, "\t\tlet b%d_%d = bm[bc%d + krow + %du * N4];\n", kk, j, j, kk)
			for i := range vec4Rows {
				fmt.Fprintf(&b, "\t\ts%d_%d = fma(vec4<f32>(a%d.%c), b%d_%d, s%d_%d);\n", i, j, i, lane, kk, j, i, j)
			}
		}
	}
	b.WriteString("\t}\n")
	for i := range vec4Rows {
		for j := range vec4Blocks {
			fmt.Fprintf(&b, "\tif (row0 + %du < M && cb0 + %du < N4) { c[cbase + (row0 + %du) * N4 + cb0 + %du] = s%d_%d; }\n", i, j, i, j, i, j)
		}
	}
	b.WriteString("}\n")
	return wgpu.KernelSpec{Name: "matmul", Key: m.Key(), Source: b.String(),
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSize(m.MetaWords())}
}
