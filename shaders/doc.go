// Package shaders holds wgtensor's WGSL kernels and the scheme that names
// them: each kernel family is a small Go description (types, rank,
// expression, transpose flags) whose Key identifies the compiled pipeline
// and whose Spec generates its WGSL. The package is text only: it never
// touches the GPU, and tensor/ decides when a kernel is compiled
// (wgpu.Device.KernelFor compiles each key once per device).
//
// # Parameter layout
//
// Every kernel takes one uniform block, built with Params: a header of four
// u32 words (usually the element count, the threads per dispatch row, and
// two kernel-specific words), four f32 scalars, then the kernel's metadata
// words (shape dimensions and strides) packed four to a vec4<u32>.
// Elementwise programs, whose ops each have scalars of their own, build
// theirs with Elementwise.Params.
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
// Mesa's drivers bound loops: a loop, with the loops nested in it, stops
// silently after 65,535 trips (see MaxLoopTrips), so every caller bounds
// the trips of each dispatch. Its GL compiler is slow on large workgroup
// arrays (WGSL zero-initialises them): MatMul's tiled kernel keeps its
// arrays to 128 vec4s.
//
// Large launches are two-dimensional: Grid spreads n threads over x and y
// so that no dimension exceeds the device's limit, and a kernel recovers
// the flat index as g.x + g.y * row.
//
// # Split dispatches
//
// Every kernel can run a range of its work: the threads or rows from
// Params.First (MatMul: the tiles and batches from it, and a range of the
// inner dimension), up to the end the header gives. Each family estimates
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
// concurrent use.
package shaders
