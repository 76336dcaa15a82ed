package tensor

import (
	"os"

	"github.com/wgtensor/wgtensor/shaders"
	"github.com/wgtensor/wgtensor/wgpu"
)

// MatMul returns the matrix product a·b of float32 tensors of rank 2 or
// more: the last two dimensions multiply, and the dimensions before them
// are batch dimensions that broadcast.
func (e *Engine) MatMul(a, b *Tensor) *Tensor {
	return e.matmul(callerPC(), a, b, false, false)
}

// MatMulT is MatMul with either side transposed (in its last two
// dimensions) first, without a copy.
func (e *Engine) MatMulT(a, b *Tensor, transA, transB bool) *Tensor {
	return e.matmul(callerPC(), a, b, transA, transB)
}

func (e *Engine) matmul(site uintptr, a, b *Tensor, ta, tb bool) *Tensor {
	o, bad := e.begin("matmul", site, a, b)
	if bad != nil {
		return bad
	}
	defer o.end()
	if a.dtype != Float32 || b.dtype != Float32 {
		return o.fail(ErrDType, "matmul takes float32, got %s and %s", a.dtype, b.dtype)
	}
	if a.Rank() < 2 || b.Rank() < 2 {
		return o.fail(ErrShape, "matmul needs rank 2 or more")
	}
	ra, rb := a.Rank(), b.Rank()
	M, K := a.shape[ra-2], a.shape[ra-1]
	if ta {
		M, K = K, M
	}
	K2, N := b.shape[rb-2], b.shape[rb-1]
	if tb {
		K2, N = N, K2
	}
	if K != K2 {
		return o.fail(ErrShape, "inner dimensions %d and %d differ (transposed: %v, %v)", K, K2, ta, tb)
	}
	if K > shaders.MaxMatMulK {
		return o.fail(ErrShape, "inner dimension %d; at most %d", K, shaders.MaxMatMulK)
	}
	aBatch, bBatch := a.shape[:ra-2], b.shape[:rb-2]
	batch, err := broadcast(aBatch, bBatch)
	if err != nil {
		return o.fail(ErrShape, "batch dimensions do not broadcast: %v", err)
	}
	shape := append(batch.clone(), M, N)
	out, err := o.alloc(shape, Float32)
	if err != nil {
		return e.errTensor(err)
	}
	batches := batch.Size()
	if shape.Size() == 0 {
		return out
	}
	if lim := e.dev.Limits().MaxComputeWorkgroupsPerDimension; batches > int(lim) {
		out.Dispose()
		return o.fail(ErrShape, "%d batches; the device runs at most %d", batches, lim)
	}
	k := shaders.MatMul{TransA: ta, TransB: tb, BatchRank: len(batch)}
	switch e.MatMulKernel() {
	case "vec4":
		k.Vec4 = shaders.Vec4Fits(ta, tb, K, N)
		k.Register = !k.Vec4
	case "register":
		k.Register = true
	}
	meta := u32s([]int{M, N, K}, batch, broadcastStrides(aBatch, batch), broadcastStrides(bBatch, batch))
	// Split the rows into dispatches of bounded work, and on a CPU adapter
	// submit each on its own: lavapipe crashes at device release after a
	// submission that ran for more than about five seconds.
	cpu := e.dev.Info().Type == wgpu.AdapterCPU
	tiles := (M + k.TileRows() - 1) / k.TileRows()
	perTile := float64(k.TileRows()) * float64(N) * float64(max(K, 1)) * float64(batches)
	budget := float64(1 << 34)
	if cpu {
		budget = 1 << 28
	}
	step := max(1, min(tiles, int(budget/perTile)))
	for t0 := 0; t0 < tiles; t0 += step {
		n := min(step, tiles-t0)
		p := shaders.Params{Header: [4]uint32{uint32(batches), 0, uint32(t0)}, Meta: meta}
		if err := o.dispatch(k.Key(), k.Spec, k.Groups(n, N, batches), p, a.buf(), b.buf(), out.buf()); err != nil {
			out.Dispose()
			return e.errTensor(err)
		}
		if cpu && tiles > step {
			if err := e.dev.Flush(); err != nil {
				out.Dispose()
				return o.failErr(err)
			}
		}
	}
	return out
}

// MatMulKernel names the family of matmul kernels e's device uses: "vec4"
// on CPU adapters (the Vec4 kernel where a product's shapes allow it, the
// Register kernel elsewhere: see shaders.MatMul), "tiled" (workgroup-memory
// tiles) on GPUs. WGT_MATMUL=tiled|register|vec4 overrides the choice.
func (e *Engine) MatMulKernel() string {
	switch k := os.Getenv("WGT_MATMUL"); k {
	case "tiled", "register", "vec4":
		return k
	}
	if e.usable("") == nil && e.dev.Info().Type == wgpu.AdapterCPU {
		return "vec4"
	}
	return "tiled"
}
