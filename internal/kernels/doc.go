// Package kernels builds wgtensor's WGSL kernels and names them: each
// kernel family is a small Go description (types, rank, expression,
// transpose flags) whose Key identifies the compiled pipeline and whose
// Spec generates its WGSL. The package is text only: it never touches the
// GPU, and tensor/ decides when a kernel is compiled
// (wgpu.Device.KernelFor compiles each key once per device); nn/ reads one
// of its limits (MaxLoopTrips). The kernel sources themselves, and how
// their keys are formed, are package shaders, which a reader of the
// kernels reads first.
//
// # Where each family lives
//
// The fixed families are the WGSL templates of package shaders
// (shaders.Sources, the files of shaders/), filled by text/template
// (templates.go) from the constants the dispatch code uses:
//
//   - matmul_tiled.wgsl, matmul_register.wgsl and matmul_small.wgsl:
//     MatMul's tiled, register and small kernels; matmul.wgsl holds what
//     every MatMul kernel shares (bindings, batch offsets).
//   - reduce.wgsl: Reduce, a thread or a workgroup per row or segment.
//   - softmax.wgsl: Softmax and log-softmax.
//   - copy.wgsl and gather.wgsl: Copy and Gather.
//   - philox.wgsl: the Philox generator, included by random nodes.
//   - half.wgsl: float16 and bfloat16 conversions (Half).
//   - pool.wgsl, pool_grad.wgsl and pool_scatter.wgsl: Pool2D and
//     Pool2DGrad; onehot.wgsl, cumsum.wgsl (Scan), topk.wgsl and
//     layernorm.wgsl: OneHot, Scan, TopK and LayerNorm.
//   - layernorm_grad.wgsl and layernorm_sums.wgsl: LayerNorm's gradient,
//     dx and each slice's column sums in one kernel, then the slices'
//     sums added in order.
//   - conv.wgsl: Conv2D, a convolution and its two gradients as implicit
//     matrix products, scalar and Vec4.
//   - attention.wgsl: Attention, fused scaled-dot-product attention (an
//     online softmax over the keys) and the two kernels of its gradient.
//
// Code that is really generated stays in Go: elementwise programs
// (elementwise.go) and MatMul's unrolled Vec4 kernel (matmul.go).
//
// shaders/testdata holds the source of every variant the library produces
// (family_dtype_flags.wgsl): the golden test here fails when a kernel
// changes, so that a reviewer reads each change as a WGSL diff; it also
// validates each with naga and compiles it on the test device. After
// changing a kernel, run go test ./internal/kernels -update and review the
// diff.
//
// To add a family: write its .wgsl template in shaders/, a Go type here
// whose Key names its pipelines and whose Spec fills the template, and its
// parameter block (a struct, below); give its keys' form in the table of
// the shaders doc and its template in shaders.FileOf; then add its variants
// to variants (variants_test.go, whose TestVariantsCoverEveryFlag fails
// until every flag is covered, as TestKeysAsShadersDocSays and
// TestFileOfNamesTheTemplateFilled do until the doc and FileOf know its
// keys) and run go test ./internal/kernels -update.
//
// # Parameter blocks
//
// Every kernel takes one uniform block, declared once as a Go struct with
// named fields (MatMulParams, RowParams, CopyParams, GatherParams): the
// kernel's WGSL struct Params and the bytes the dispatch sends are both
// derived from it (params.go), so they cannot disagree. A field's WGSL name
// is its Go name in snake case. Words (uint32, int32, float32) are laid
// out in order; metadata of a variant-given length (one word per
// dimension) is a []uint32, an array of whole vec4<u32>s aligned to 16
// bytes, word i read as p.name[i / 4][i % 4]. Kernels that run a range of
// items embed Range (First, End, Row), which the dispatcher fills for each
// piece of a split op. Elementwise programs, whose ops each have scalars
// and words of their own, build theirs with Elementwise.Params.
//
// # Kernels for CPU adapters
//
// On a CPU adapter (lavapipe, llvmpipe) a workgroup runs as a loop over
// SIMD vectors of invocations, a barrier is costly, and each load or store
// whose address differs between invocations costs a loop over the vector's
// lanes, more than the arithmetic it feeds. The kernels chosen there
// (MatMul's Register and Vec4, Elementwise's Vec4, the PerThread kernels
// of Reduce and Softmax over 8 rows or more) use no workgroup memory and
// read as few, as wide, values as they can.
//
// Mesa's drivers bound loops: an invocation's loops stop silently once
// they have run 65,535 trips together, every loop of the invocation
// counting toward the one budget (see MaxLoopTrips and LoopTrips), so
// every caller bounds the trips of each dispatch's threads. Its GL compiler is slow on large workgroup
// arrays (WGSL zero-initialises them): MatMul's tiled kernel keeps its
// arrays to 128 vec4s.
//
// Large launches are two-dimensional: Grid spreads n threads over x and y
// so that no dimension exceeds the device's limit, and a kernel recovers
// the flat index as g.x + g.y * row.
//
// # Split dispatches
//
// Every kernel can run a range of its work: the threads or rows of its
// Range (MatMul: the tiles and batches from its First fields, and a range
// of the inner dimension). Each family estimates
// its work (ThreadWork, RowWork, GroupWork, in the units of wgpu.Work), and
// Split says how many items fit a device's work budget, so that tensor/
// cuts a large op into several dispatches whose results are exactly those
// of one: every item is computed by the same code, wherever the cut falls.
//
// No item is long either: a workgroup reduces at most ReduceSegment
// elements of a row (longer rows are reduced in segments, see Reduce: a few
// milliseconds of a CPU adapter), and a MatMul tile sums a range of k
// sized to the budget, so that no single workgroup passes it.
//
// # Concurrency
//
// Every function and type here is a pure value computation, safe for
// concurrent use. A parameter block is a plain value: one goroutine fills
// it (the dispatcher its Range) before it is encoded.
package kernels
