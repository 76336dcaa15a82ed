// Package shaders holds the sources of wgtensor's WGSL kernels: the
// templates in this directory (Sources) and, in testdata/, the source of
// every kernel variant the library generates from them. It is where to read
// what runs on the device. The Go that fills the templates is internal:
// package internal/kernels builds each variant and names its pipeline, and
// tensor/ chooses and dispatches it.
//
// # Templates
//
// Each .wgsl file is a text/template of one kernel family, or of what
// several families share:
//
//   - matmul_tiled.wgsl, matmul_register.wgsl and matmul_small.wgsl: the
//     matrix product's tiled kernel (tiles staged in workgroup memory), its
//     register kernel (none) and its small kernel (a flat index over the
//     blocks of small matrices); matmul.wgsl holds what they share
//     (bindings, batch offsets).
//   - reduce.wgsl and softmax.wgsl: reductions and softmax or log-softmax
//     along rows, a thread or a workgroup per row (or segment of a row).
//   - xent.wgsl: softmax cross-entropy against labels or probabilities, and
//     its gradient.
//   - copy.wgsl, gather.wgsl and scatter.wgsl: strided copies, gathers
//     along an axis, and scatter-adds in index order.
//   - conv.wgsl: a 2-D convolution and its two gradients as implicit
//     matrix products.
//   - pool.wgsl, pool_grad.wgsl and pool_scatter.wgsl: 2-D max and average
//     pooling, and its gradient by input element or by window.
//   - layernorm.wgsl, layernorm_grad.wgsl, layernorm_vec4.wgsl and
//     layernorm_sums.wgsl: layer normalisation; its gradient in one
//     dispatch (column workgroups beside the rows' ones; by vec4s for rows
//     of a multiple of 4), or with each slice's column sums; and those
//     sums added in order.
//   - onehot.wgsl, cumsum.wgsl and topk.wgsl: one-hot rows, cumulative sums
//     and top-k.
//   - attention.wgsl: fused scaled-dot-product attention (an online softmax
//     over the keys) and the two kernels of its gradient.
//   - philox.wgsl: the Philox generator, included as it is by the
//     elementwise programs that draw random numbers.
//   - half.wgsl: conversions between f32 and float16 or bfloat16 bits,
//     rounding to nearest even in integer arithmetic, for kernels to
//     include as it is.
//   - numerics.wgsl: the functions behind the elementwise ops whose
//     results must not depend on the driver at the edges (NaN, infinities,
//     signed zeros, subnormals, out-of-range conversions), filled for the
//     device's float32 arithmetic and included by the programs that call
//     them; testdata/numerics*.wgsl holds it for each behaviour.
//
// Two kinds of kernel have no template, as their code is really generated:
// elementwise programs (runs of elementwise ops fused into one kernel) and
// the matrix product's unrolled vec4 kernel. Their sources are in testdata/
// all the same.
//
// A template's data are the variant's flags (.T the element type, .Vec4,
// .Max, ...) and the constants the dispatch code uses (.WorkgroupSize,
// .Unroll, tile shapes), so that a kernel and its dispatch cannot disagree
// on them. .Params declares the kernel's one uniform block, struct Params,
// from the Go struct whose bytes the dispatch sends: a field's WGSL name is
// its Go name in snake case, words (u32, i32, f32) come in order, and
// metadata of a variant-given length (one word per dimension) is an array
// of vec4<u32>, word i read as p.name[i / 4][i % 4]. Comments between {{/*
// and */}} do not reach the generated source; they name the Go types of
// internal/kernels that fill the template ("see MatMul" is kernels.MatMul,
// whose doc gives the kernel's arithmetic and limits).
//
// testdata/ holds every variant's generated source, a file each named by
// its family and flags (matmul_tiled_ta_b1.wgsl, reduce_sum_f32_thread.wgsl).
// go test ./internal/kernels fails when a generated source differs from its
// file, validates each file with naga and compiles each variant on the test
// device; after changing a template, run go test ./internal/kernels -update
// and review the diff of testdata/.
//
// # Pipeline keys
//
// A device compiles each kernel once and keeps the pipeline under its key
// (wgpu.KernelSpec.Key), which profiles report too (tensor.KernelStats). A
// key is the family's name, then the variant's flags in a fixed order,
// separated by slashes; booleans, types and ops print as Go prints them
// (true, f32, argmax). Below, {Field} is a field of the family's Go type in
// internal/kernels ({kind} is tiled, register, small or vec4; {nodes} and
// {hash} are the program's, see below), [part] is there for some variants
// only, and a|b is one or the other; FileOf gives the template of a key:
//
//	matmul_tiled.wgsl     matmul/tiled/{TransA}/{TransB}/b{BatchRank}[/sum_a][/sum_b][/{AStorage}|/a_{AStorage}/b_{BStorage}]
//	matmul_register.wgsl  matmul/register/{TransA}/{TransB}/b{BatchRank}[/sum_a][/sum_b][/{AStorage}|/a_{AStorage}/b_{BStorage}]
//	matmul_small.wgsl     matmul/small/{TransA}/{TransB}/b{BatchRank}[/sum_a][/sum_b][/{AStorage}|/a_{AStorage}/b_{BStorage}]
//	(generated)           matmul/vec4/{TransA}/{TransB}/b{BatchRank}[/sum_a][/sum_b][/{AStorage}|/a_{AStorage}/b_{BStorage}]
//	(generated)           elementwise/{nodes}/{hash}
//	(the product's)       matmul/{kind}/{TransA}/{TransB}/b{BatchRank}[/sum_a][/sum_b][/{AStorage}|/a_{AStorage}/b_{BStorage}]+elementwise/{nodes}/{hash}/{StoreC}
//	reduce.wgsl           reduce/{Op}/{In}/{PerThread}/{Segments}/{Indexed}[/{Storage}]
//	softmax.wgsl          softmax/{Log}/{PerThread}[/{Storage}]
//	xent.wgsl             softmax_xent[_grad][_weighted|_mean]/{Dense}
//	copy.wgsl             copy/r{Rank}[/half|/byte]
//	gather.wgsl           gather[/half|/byte]
//	scatter.wgsl          scatter_add/{T}/{ByIndex}[/vec4]
//	conv.wgsl             conv2d/{Op}/{Vec4}[/cpu[/narrow]|/narrow[/short]][/unit][/b4][/x_{Input}][/f_{Filter}]
//	pool.wgsl             pool2d/{Max}/{Arg}[/vec4][/{Storage}]
//	pool_grad.wgsl        pool2d_grad/{Max}
//	pool_scatter.wgsl     pool2d_grad/{Max}/scatter[/vec4]
//	layernorm.wgsl        layer_norm[/{Storage}]
//	layernorm_grad.wgsl   layer_norm_grad[_columns]
//	layernorm_vec4.wgsl   layer_norm_grad_columns_vec4
//	layernorm_sums.wgsl   layer_norm_grad_sums
//	onehot.wgsl           one_hot
//	cumsum.wgsl           scan/{T}/{Exclusive}/{Reverse}/{Offset}/{Totals}
//	topk.wgsl             top_k/{T}/{Write}
//	attention.wgsl        attention/{Pass}/{D}/{Dv}/{Rows}/{MaskAdd}/{MaskBool}/{KeyPadding}/{Dropout}/{PackedKV}
//
// An elementwise program's key counts its nodes (its ops) and ends with 24
// hex digits of a SHA-256 of the program (its rank, leaves and nodes). A
// product whose kernel runs ops after it (an epilogue) joins the product's
// key and its program's with a plus, then says whether the product itself
// is stored. Kernels written outside these families, with tensor.Kernel
// (optim's among them), have keys that start with custom/.
//
// # Kernels for CPU adapters
//
// The templates are written for CPU adapters (lavapipe, llvmpipe) as well
// as for GPUs. There a workgroup runs as a loop over SIMD vectors of
// invocations, a barrier is costly, and each load or store whose address
// differs between invocations costs a loop over the vector's lanes, more
// than the arithmetic it feeds: the kernels chosen there (the matrix
// product's register and vec4 kernels, the thread-per-row reductions and
// softmax, vec4 elementwise programs) use no workgroup memory and read as
// few, as wide, values as they can. Mesa's drivers also
// stop an invocation's loops silently once they have run 65,535 trips
// together, every loop of the invocation counting toward the one budget:
// each loop takes several elements a trip where it can (.Unroll), and every
// dispatch bounds its threads' trips (kernels.LoopTrips).
//
// Large launches are two-dimensional, and a dispatch may run a range of
// the work only (tensor/ cuts a large op into several dispatches): a
// thread-per-item kernel's item is g.x + g.y * p.row + p.first, p.row the
// threads of a row of the grid and p.first the dispatch's first item.
package shaders
