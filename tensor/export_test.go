package tensor

import "github.com/wgtensor/wgtensor/internal/kernels"

// Hooks for the external tests (package tensor_test), which cannot be
// internal tests: testgpu imports tensor.

// MatMulKernel names the family of matmul kernels e uses for large
// products: "vec4", "register", "tiled", or "small" when WGT_MATMUL forces
// it (Engine.Profile names the pipeline each product ran).
func MatMulKernel(e *Engine) string { return e.matMulKernel() }

// PickMatMul reports whether a product of batches M×K times K×N matrices
// (transposed as k says) takes the Small kernel where the family of large
// products is family ("vec4" on CPU adapters, "tiled" on GPUs).
func PickMatMul(family string, k kernels.MatMul, M, K, N, batches int) bool {
	return pickMatMul(family, false, k, M, K, N, batches).Small
}

// AnyEpilogue makes products on e take any elementwise op of their shape
// as their epilogue, as they do on GPUs, on a CPU adapter too.
func AnyEpilogue(e *Engine) { e.cheapEpilogues = false }

// OnClaim makes every op on e call f once it has claimed e, before it
// checks its inputs: f runs while the op holds e.
func OnClaim(e *Engine, f func()) { e.hooks.claimed = f }

// OnChecked makes every op on e, and every readback of e's tensors, call f
// once its inputs passed their checks, before it reads them.
func OnChecked(e *Engine, f func()) { e.hooks.checked = f }

// ForceRowKernel makes the reductions and softmax of rows on e take a
// thread per row ("thread": rows up to kernels.MaxThreadRow) or a
// workgroup per row ("group") whatever their shape; "" restores the
// choice by shape.
func ForceRowKernel(e *Engine, kind string) { e.hooks.rows = kind }

// TextReads returns the runs of elements, [start, end) as flat indices,
// that Text reads back for a tensor of shape.
func TextReads(shape Shape) [][2]int {
	var out [][2]int
	if shape.Size() == 0 {
		return out
	}
	for _, s := range newTextLayout(shape).spans(0, 0, nil) {
		out = append(out, [2]int{s.start, s.start + s.n})
	}
	return out
}
