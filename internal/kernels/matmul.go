package kernels

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
// A large product is split into several dispatches (see Split): the
// parameters (MatMulParams) hold the first column tile, row tile and batch
// of the dispatch, which the grid's x, y and z count from, and the range
// of the inner dimension it sums. A range that does not start at 0
// continues the sums a dispatch before it wrote to C, in the same order as
// one dispatch would: the result is the same, bit for bit. The range's
// ends are multiples of 16 (MatMulTileK), or K.
//
// The tiled, register and small kernels' sources are matmul_tiled.wgsl,
// matmul_register.wgsl and matmul_small.wgsl; the Vec4 kernel, unrolled,
// is generated in Go (vec4Source). What they share is in matmul.wgsl.
//
// With Register the kernel uses no workgroup memory and no barriers: each
// of 8×8 threads computes an 8×8 block of the same 64×64 tile straight
// from memory. That wins on CPU adapters (lavapipe), where a barrier is
// expensive and the compiler vectorises across invocations.
//
// With Vec4 (K and N multiples of four, and M when A is transposed; see
// Vec4Fits) the kernel is Register's, wider: each of 8×8 threads computes
// 16 rows × 16 columns of a 128×128 tile, reading A and B as vec4s (four k
// of a row of A, four columns of a row of B; with a transpose, four rows
// of A at one k, four k of a column of B) and keeping 64 vec4 sums. A CPU adapter
// spends most of a matmul's time on loads, each costing a loop over the
// vector's lanes; one vec4 load costs much less than four scalar ones, and
// every value loaded here feeds 16 or 64 multiply-adds. On lavapipe it
// runs at 2.5 to 3 times Register's speed.
//
// With Small each thread computes a block of SmallBlock×SmallBlock
// elements of C as Register's threads do, for products of small matrices
// (a batch of 6×6 ones, a 10-column output) where a tile of 64×64 or
// 128×128 would mostly compute elements past the matrix edge: the grid's x
// counts groups of SmallThreads blocks over every batch's blocks, so that
// its work is in proportion to the product's.
//
// With SumA the kernel also writes the sums of op(A)'s rows, Σ_k op(A)[m,
// k], and with SumB those of op(B)'s columns, Σ_k op(B)[k, n], to a
// binding after C (see Bindings), from the values it loads for the product
// anyway: the workgroups of the first column (SumA) or row (SumB) of tiles
// add them up as they go, in the order of k, one rounding each, and
// continue across dispatches that sum ranges of k as C's sums do. A
// layer's bias gradient is such a sum of the output's gradient, which the
// weight gradient's product reads. Only for BatchRank 0.
type MatMul struct {
	TransA, TransB bool
	BatchRank      int
	Register       bool
	Vec4           bool
	Small          bool
	SumA, SumB     bool
	// AStorage and BStorage are how A's and B's elements lie in memory:
	// they are unpacked as Elementwise unpacks them, and C is float32 all
	// the same; none but Word with SumA or SumB. With Vec4 a vec4 of an
	// Int8 operand (weights of int8 values) is one word, of a half-width
	// one two: the kernel's indexing is the same, in vec4s.
	AStorage, BStorage Storage
}

// Vec4Fits reports whether the Vec4 kernel takes a product of these
// transposes and shape (M×K times K×N): K and N multiples of four, and M
// too when A is transposed (its rows, read as vec4s, are M long).
func Vec4Fits(transA, transB bool, M, K, N int) bool {
	return K%4 == 0 && N%4 == 0 && (!transA || M%4 == 0)
}

// MaxMatMulK is the longest inner dimension the tensor package's MatMul
// takes (2^20 - 16): longer products are refused with an error naming it.
const MaxMatMulK = MaxLoopTrips * MatMulTileK

// MatMulKRange is the most k one dispatch of any MatMul kernel sums; a
// longer inner dimension is summed in ranges, one dispatch each (see
// First). On lavapipe and llvmpipe (Mesa's gallivm) one budget of 65,535
// trips covers a top-level loop together with every loop nested in it:
// past it the loop stops silently. The K loops here spend about 18 trips
// per 16 k (the tiled, register and small kernels: 16 inner trips and 2
// for the outer one), so one dispatch of 65,536 k summed only 58,255 of
// them.
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
	key := fmt.Sprintf("matmul/%s/%v/%v/b%d", m.Kind(), m.TransA, m.TransB, m.BatchRank)
	if m.SumA {
		key += "/sum_a"
	}
	if m.SumB {
		key += "/sum_b"
	}
	switch {
	case m.AStorage == m.BStorage && m.AStorage != Word:
		key += "/" + m.AStorage.String()
	case m.AStorage != m.BStorage:
		key += "/a_" + m.AStorage.String() + "/b_" + m.BStorage.String()
	}
	return key
}

// Bindings are the access modes of m's bindings: A and B, C, and the sums
// with SumA or SumB.
func (m MatMul) Bindings() []wgpu.Access {
	access := []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}
	if m.SumA || m.SumB {
		access = append(access, wgpu.ReadWrite)
	}
	return access
}

// Kind names m's kernel: "small", "vec4", "register" or "tiled".
func (m MatMul) Kind() string {
	switch {
	case m.Small:
		return "small"
	case m.Vec4:
		return "vec4"
	case m.Register:
		return "register"
	}
	return "tiled"
}

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

// The Small kernel's shape: workgroups of SmallThreads threads, each
// computing a block of SmallBlock×SmallBlock elements of C.
const (
	SmallThreads = 64
	SmallBlock   = 4
)

// Groups returns the workgroups a product of batches M×N matrices takes,
// as the grid counts them: columns of tiles, rows of tiles and batches;
// with Small, groups of SmallThreads blocks, 1 and 1.
func (m MatMul) Groups(M, N, batches int) (cols, rows, zs int) {
	if m.Small {
		blocks := batches * ceilDiv(M, SmallBlock) * ceilDiv(N, SmallBlock)
		return ceilDiv(blocks, SmallThreads), 1, 1
	}
	return ceilDiv(N, m.TileCols()), ceilDiv(M, m.TileRows()), batches
}

// ceilDiv is n / d rounded up.
func ceilDiv(n, d int) int { return (n + d - 1) / d }

// The Vec4 kernel's threads each compute vec4Rows rows × vec4Blocks vec4s
// of columns; 8×8 threads make a tile of vec4Tile × vec4Tile.
const (
	vec4Rows   = 16
	vec4Blocks = 4
	vec4Tile   = 8 * vec4Rows
)

// MatMulParams is the parameter block of every MatMul kernel: the
// product's shape, where the dispatch starts (the grid's x, y and z count
// column tiles, row tiles and batches from FirstCol, FirstRow and
// FirstBatch), the range [KFirst, KEnd) of the inner dimension it sums,
// and for each of the BatchRank batch dimensions its length and the A and
// B strides, in whole matrices.
type MatMulParams struct {
	M, N, K                        uint32
	FirstCol, FirstRow, FirstBatch uint32
	KFirst, KEnd                   uint32
	BatchDims, AStrides, BStrides  []uint32
}

// Bytes encodes p.
func (p *MatMulParams) Bytes() []byte { return encodeParams(p) }

// params is an empty block of m's shape.
func (m MatMul) params() *MatMulParams {
	return &MatMulParams{BatchDims: make([]uint32, m.BatchRank), AStrides: make([]uint32, m.BatchRank), BStrides: make([]uint32, m.BatchRank)}
}

// The tiled kernel's shape: a workgroup of tiledThreads × tiledThreads
// threads, each computing 4×4 of C, stages tiledStepK k of A and B at a
// time, tiledStage vec4s each, loaded by half of its threads each.
const (
	tiledThreads = MatMulTileM / 4
	tiledStepK   = 8
	tiledStage   = tiledStepK * tiledThreads
)

// The register kernel's shape: 8×8 threads, each computing a block of
// registerBlock × registerBlock, summing MatMulTileK k per outer trip.
const (
	registerThreads = 8
	registerBlock   = MatMulTileM / registerThreads
)

// matmulKernel is the template data of the MatMul kernels.
type matmulKernel struct {
	MatMul
	Params               string
	Elem                 string // the element type of the bindings
	Tile, Threads, StepK int
	Stage, Block, Sums   int
	// Resume: a dispatch whose range of k does not start at 0 starts from
	// the sums in C. Epilogue: the bindings after A and B, and put, of a
	// MatMulEpilogue (whose kernels never resume).
	Resume   bool
	Epilogue string
	// AElem, BElem, LoadA, LoadB and Lib: the element types of A's and B's
	// bindings and, where a storage is not Word, WGSL functions la(i) and
	// lb(i) reading element i of it as f32, and the library they call.
	AElem, BElem      string
	LoadA, LoadB, Lib string
}

// Spec generates m's kernel: the tiled, register and small kernels from
// their .wgsl templates, the Vec4 kernel in Go.
func (m MatMul) Spec() wgpu.KernelSpec {
	src := m.source(matmulKernel{MatMul: m, Params: declareParams(m.params()), Resume: true})
	return wgpu.KernelSpec{Name: "matmul", Key: m.Key(), Source: src,
		Bindings: m.Bindings(), Params: true, ParamsSize: paramsSizeOf(m.params())}
}

// source generates m's kernel from data, whose Params, Resume and
// Epilogue the caller sets.
func (m MatMul) source(data matmulKernel) string {
	data.Elem, data.Tile = "f32", MatMulTileM
	data.AElem, data.BElem = operandElem(m.AStorage, false), operandElem(m.BStorage, false)
	data.LoadA, data.LoadB = loader("la", "a", m.AStorage), loader("lb", "bm", m.BStorage)
	data.Lib = storageLib(m.AStorage, m.BStorage)
	var src string
	switch {
	case m.Small:
		data.Threads, data.Block, data.StepK = SmallThreads, SmallBlock, MatMulTileK
		data.Sums = SmallBlock * SmallBlock
		src = fill("matmul_small.wgsl", data)
	case m.Vec4:
		data.Elem = "vec4<f32>"
		data.AElem, data.BElem = operandElem(m.AStorage, true), operandElem(m.BStorage, true)
		src = m.vec4Source(data)
	case m.Register:
		data.Threads, data.Block, data.StepK = registerThreads, registerBlock, MatMulTileK
		data.Sums = registerBlock * registerBlock
		src = fill("matmul_register.wgsl", data)
	default:
		data.Threads, data.StepK, data.Stage = tiledThreads, tiledStepK, tiledStage
		src = fill("matmul_tiled.wgsl", data)
	}
	return src
}

// loader is the WGSL function name(i) reading element i of the array
// binding in storage s as f32, or "" for Word, read directly.
func loader(name, binding string, s Storage) string {
	if s == Word {
		return ""
	}
	return loadFunc(name, binding, s, false)
}

// operandElem is the element type of the binding of an operand in
// storage s that a product kernel (MatMul, Conv2D, Pool2D) reads: f32
// (vec4<f32> where wide, reading four at a time), or u32 words of packed
// elements.
func operandElem(s Storage, wide bool) string {
	switch {
	case s != Word:
		return "u32"
	case wide:
		return "vec4<f32>"
	}
	return "f32"
}

// loadFunc is the WGSL function name(i) reading element i of the array
// binding in storage s as f32, or where wide its vec4 i (four
// consecutive elements) as vec4<f32> (see vec4Load).
func loadFunc(name, binding string, s Storage, wide bool) string {
	if wide {
		return fmt.Sprintf("fn %s(i: u32) -> vec4<f32> { return %s; }", name, vec4Load(binding, s, "i"))
	}
	v := s.element(binding, "i")
	if s == Int8 {
		v = "f32(" + v + ")"
	}
	return fmt.Sprintf("fn %s(i: u32) -> f32 { return %s; }", name, v)
}

// vec4Load is the load of the vec4 of operand binding at index (counted
// in vec4s): a vec4 of f32, with Int8 storage the word of four int8s,
// with a half-width one the two words of four halves.
func vec4Load(binding string, s Storage, index string) string {
	switch s.PerWord() {
	case 4:
		return fmt.Sprintf("vec4<f32>(load4_i8(%s[%s]))", binding, index)
	case 2:
		return fmt.Sprintf("%s(%s[2u * (%s)], %s[2u * (%s) + 1u])", s.helper("load4"), binding, index, binding, index)
	}
	return fmt.Sprintf("%s[%s]", binding, index)
}

// vec4Source generates the Vec4 kernel, unrolled: a thread's 64 sums are
// named values, not an array, so that they stay in registers. It shares
// matmul.wgsl's bindings and batch offsets. Loads past the matrix edge are
// clamped to its last row or column block: they feed only sums that are
// not written. Each step of four k loads 16 vec4s of A and 16 of B,
// whatever the transposes: four k of a row of A (or, with TransA, four
// rows of A at one k), and four columns of B at one k (or, with TransB,
// four k of a column, regrouped by k in registers). Every sum adds its
// products in the order of k, as the other kernels do: all give the same
// bits.
func (m MatMul) vec4Source(data matmulKernel) string {
	var b strings.Builder
	b.WriteString(fill("matmul_head", data))
	fmt.Fprintf(&b, `
@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
	let M = p.m; let N = p.n; let K = p.k;
	let M4 = M / 4u; let K4 = K / 4u; let N4 = N / 4u;%s
	aoff = aoff * M * K4;
	boff = boff * K * N4;
	let row0 = ((w.y + p.first_row) * 8u + l.y) * %du;
	let cb0 = ((w.x + p.first_col) * 8u + l.x) * %du;
`, fill("matmul_batch", data), vec4Rows, vec4Blocks)
	m.vec4Bases(&b)
	b.WriteString("\tlet cbase = z * M * N4;\n")
	for i := range vec4Rows {
		for j := range vec4Blocks {
			fmt.Fprintf(&b, "\tvar s%d_%d = vec4<f32>(0.0);\n", i, j)
		}
	}
	m.vec4SumsDeclare(&b)
	if data.Resume {
		b.WriteString("\tif (p.k_first > 0u) {\n")
		for i := range vec4Rows {
			for j := range vec4Blocks {
				fmt.Fprintf(&b, "\t\tif (row0 + %du < M && cb0 + %du < N4) { s%d_%d = c[cbase + (row0 + %du) * N4 + cb0 + %du]; }\n", i, j, i, j, i, j)
			}
		}
		m.vec4SumsLoad(&b)
		b.WriteString("\t}\n")
	}
	b.WriteString("\tfor (var kb = p.k_first / 4u; kb < p.k_end / 4u; kb++) {\n")
	m.vec4Step(&b)
	m.vec4SumsStep(&b)
	b.WriteString("\t}\n")
	if data.Epilogue != "" {
		// One call of put in a loop, not one per sum: put inlines the
		// epilogue, and 64 copies of it made kernels that crashed
		// lavapipe's compiler.
		fmt.Fprintf(&b, "\tvar stored = array<vec4<f32>, %d>(", vec4Rows*vec4Blocks)
		for i := range vec4Rows {
			for j := range vec4Blocks {
				if i+j > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "s%d_%d", i, j)
			}
		}
		fmt.Fprintf(&b, ");\n\tfor (var q = 0u; q < %du; q++) {\n", vec4Rows*vec4Blocks)
		fmt.Fprintf(&b, "\t\tlet i = q / %du; let j = q %% %du;\n", vec4Blocks, vec4Blocks)
		b.WriteString("\t\tif (row0 + i < M && cb0 + j < N4) { put(cbase + (row0 + i) * N4 + cb0 + j, z, row0 + i, 4u * (cb0 + j), stored[q]); }\n\t}\n")
	} else {
		for i := range vec4Rows {
			for j := range vec4Blocks {
				fmt.Fprintf(&b, "\tif (row0 + %du < M && cb0 + %du < N4) { put(cbase + (row0 + %du) * N4 + cb0 + %du, z, row0 + %du, 4u * (cb0 + %du), s%d_%d); }\n", i, j, i, j, i, j, i, j)
			}
		}
	}
	m.vec4SumsStore(&b)
	b.WriteString("}\n")
	return b.String()
}

// vec4SumsDeclare declares the Vec4 kernel's sums of A's rows (SumA: the
// threads of column block 0, a scalar per row) and of B's columns (SumB:
// the threads of row 0, a vec4 per block of four columns).
func (m MatMul) vec4SumsDeclare(b *strings.Builder) {
	if m.SumA {
		b.WriteString("\tlet sumRows = cb0 == 0u;\n")
		for i := range vec4Rows {
			fmt.Fprintf(b, "\tvar rs%d = 0.0;\n", i)
		}
	}
	if m.SumB {
		b.WriteString("\tlet sumCols = row0 == 0u;\n")
		for j := range vec4Blocks {
			fmt.Fprintf(b, "\tvar cs%d = vec4<f32>(0.0);\n", j)
		}
	}
}

// vec4SumsLoad continues the sums a dispatch before this one wrote.
func (m MatMul) vec4SumsLoad(b *strings.Builder) {
	if m.SumA {
		for i := range vec4Rows {
			fmt.Fprintf(b, "\t\tif (sumRows && row0 + %du < M) { rs%d = sums[row0 + %du]; }\n", i, i, i)
		}
	}
	if m.SumB {
		for j := range vec4Blocks {
			fmt.Fprintf(b, "\t\tif (sumCols && cb0 + %du < N4) { let o = 4u * (cb0 + %du); cs%d = vec4<f32>(sums[o], sums[o + 1u], sums[o + 2u], sums[o + 3u]); }\n", j, j, j)
		}
	}
}

// vec4SumsStep adds one trip's four k to the sums, in the order of k.
func (m MatMul) vec4SumsStep(b *strings.Builder) {
	if m.SumA {
		b.WriteString("\t\tif (sumRows) {\n")
		for i := range vec4Rows {
			for kk := range 4 {
				fmt.Fprintf(b, "\t\t\trs%d = rs%d + %s;\n", i, i, m.vec4AAt(i, kk))
			}
		}
		b.WriteString("\t\t}\n")
	}
	if m.SumB {
		b.WriteString("\t\tif (sumCols) {\n")
		for j := range vec4Blocks {
			for kk := range 4 {
				fmt.Fprintf(b, "\t\t\tcs%d = cs%d + b%d_%d;\n", j, j, kk, j)
			}
		}
		b.WriteString("\t\t}\n")
	}
}

// vec4SumsStore writes the sums.
func (m MatMul) vec4SumsStore(b *strings.Builder) {
	if m.SumA {
		for i := range vec4Rows {
			fmt.Fprintf(b, "\tif (sumRows && row0 + %du < M) { sums[row0 + %du] = rs%d; }\n", i, i, i)
		}
	}
	if m.SumB {
		for j := range vec4Blocks {
			fmt.Fprintf(b, "\tif (sumCols && cb0 + %du < N4) { let o = 4u * (cb0 + %du); sums[o] = cs%d.x; sums[o + 1u] = cs%d.y; sums[o + 2u] = cs%d.z; sums[o + 3u] = cs%d.w; }\n", j, j, j, j, j, j)
		}
	}
}

// vec4AAt is the value of A at row i of the thread's block and k = kb * 4
// + kk, as vec4Step loads it.
func (m MatMul) vec4AAt(i, kk int) string {
	if m.TransA {
		return fmt.Sprintf("a%d_%d.%c", kk, i/4, lanes[i%4])
	}
	return fmt.Sprintf("a%d.%c", i, lanes[kk])
}

// lanes names a vec4's components.
const lanes = "xyzw"

// vec4Bases writes the Vec4 kernel's base offsets, clamped to the matrix:
// of each row of A the thread reads (ra<i>, or with TransA of each block
// of four rows, ra<q>), and of each block of four columns of B (bc<j>).
func (m MatMul) vec4Bases(b *strings.Builder) {
	if m.TransA {
		for q := range vec4Rows / 4 {
			fmt.Fprintf(b, "\tlet ra%d = aoff + min(row0 / 4u + %du, M4 - 1u);\n", q, q)
		}
	} else {
		for i := range vec4Rows {
			fmt.Fprintf(b, "\tlet ra%d = aoff + min(row0 + %du, M - 1u) * K4;\n", i, i)
		}
	}
	for j := range vec4Blocks {
		if m.TransB {
			fmt.Fprintf(b, "\tlet bc%d = boff + min(cb0 + %du, N4 - 1u) * 4u * K4;\n", j, j)
		} else {
			fmt.Fprintf(b, "\tlet bc%d = boff + min(cb0 + %du, N4 - 1u);\n", j, j)
		}
	}
}

// vec4Step writes one trip of the Vec4 kernel's loop: the products of
// four k, kb * 4 to kb * 4 + 3, in that order for every sum.
func (m MatMul) vec4Step(b *strings.Builder) {
	if m.TransA {
		for kk := range 4 {
			for q := range vec4Rows / 4 {
				fmt.Fprintf(b, "\t\tlet a%d_%d = %s;\n", kk, q, vec4Load("a", m.AStorage, fmt.Sprintf("ra%d + (kb * 4u + %du) * M4", q, kk)))
			}
		}
	} else {
		for i := range vec4Rows {
			fmt.Fprintf(b, "\t\tlet a%d = %s;\n", i, vec4Load("a", m.AStorage, fmt.Sprintf("ra%d + kb", i)))
		}
	}
	if !m.TransB {
		b.WriteString("\t\tlet krow = kb * 4u * N4;\n")
	}
	for kk := range 4 {
		for j := range vec4Blocks {
			if m.TransB {
				if kk == 0 {
					for t := range 4 {
						fmt.Fprintf(b, "\t\tlet bt%d_%d = %s;\n", j, t, vec4Load("bm", m.BStorage, fmt.Sprintf("bc%d + %du * K4 + kb", j, t)))
					}
				}
				fmt.Fprintf(b, "\t\tlet b%d_%d = vec4<f32>(bt%d_0.%c, bt%d_1.%c, bt%d_2.%c, bt%d_3.%c);\n",
					kk, j, j, lanes[kk], j, lanes[kk], j, lanes[kk], j, lanes[kk])
			} else {
				fmt.Fprintf(b, "\t\tlet b%d_%d = %s;\n", kk, j, vec4Load("bm", m.BStorage, fmt.Sprintf("bc%d + krow + %du * N4", j, kk)))
			}
			for i := range vec4Rows {
				fmt.Fprintf(b, "\t\ts%d_%d = fma(vec4<f32>(%s), b%d_%d, s%d_%d);\n", i, j, m.vec4AAt(i, kk), kk, j, i, j)
			}
		}
	}
}
