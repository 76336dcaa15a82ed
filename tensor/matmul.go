package tensor

import (
	"os"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/wgpu"
)

// MatMul returns the matrix product a·b of float32 tensors of rank 2 or
// more: the last two dimensions multiply, and the dimensions before them
// are batch dimensions that broadcast. Float16 and bfloat16 operands (both
// of one dtype) are summed in float32 and the result rounded to their
// dtype. A float32 operand times a float16 or bfloat16 one (either side:
// an activation saved at half width times a gradient) is the float32
// product of their values, the narrow one read as it lies and never
// widened in memory. A float32 a times an int8 b (quantized weights: see
// QuantizeInt8) is the float32 product of a and b's integer values, b
// read four elements to a word.
//
// The kernel is chosen per product: by a heuristic of the adapter's type
// and the shapes, or, where the autotuner is on (SetAutotune), by timing
// the kernels on the first product of each shape class. Every kernel sums
// each element's K products in the order of k, one fused multiply-add each,
// so the choice never changes a result: it is within (K+1)·2⁻²⁴·Σ|a·b| of
// the exact product, the same bits whichever kernel runs.
//
// Like an elementwise op, a product is dispatched when something needs it
// (see Flush), and the elementwise ops that follow it on its shape run in
// its kernel as its epilogue (a bias, an activation, a residual, a scale),
// evaluated where the product's sums are stored, with the bits the ops
// give dispatched one by one; a result disposed before then is not
// written, and a product nobody holds or reads is not computed. On CPU
// adapters an epilogue takes only cheap ops (no exp, tanh, GELU, ...) that
// read the product or an earlier op of it, which is where it saves time
// there. A product whose inner dimension is summed over several
// dispatches (past 16,384 k, or on a small work budget) is
// dispatched at once, its ops apart.
func (e *Engine) MatMul(a, b *Tensor) *Tensor {
	return e.matmul(callerSite(), a, b, false, false)
}

// MatMulT is MatMul with either side transposed (in its last two
// dimensions) first, without a copy.
func (e *Engine) MatMulT(a, b *Tensor, transA, transB bool) *Tensor {
	return e.matmul(callerSite(), a, b, transA, transB)
}

func (e *Engine) matmul(site stack, a, b *Tensor, ta, tb bool) *Tensor {
	o, bad := e.begin("matmul", site, a, b)
	if bad != nil {
		return bad
	}
	defer o.end()
	o.attrs.TransA, o.attrs.TransB = ta, tb
	switch {
	case a.dtype == Float32 && b.dtype == Int8, a.dtype == Float32 && b.dtype.half(), a.dtype.half() && b.dtype == Float32:
		return o.product(a, b, ta, tb)
	case a.dtype != b.dtype || !a.dtype.IsFloat():
		return o.fail(ErrDType, "matmul takes two float32, float16 or bfloat16 tensors, float32 and float16 or bfloat16 (either side), or float32 and int8, got %s and %s", a.dtype, b.dtype)
	}
	return o.roundedTo(a.dtype, o.product(a, b, ta, tb))
}

// product records a·b (with the transposes) of float32, float16 or
// bfloat16 operands of one dtype, of float32 and one of those, or of
// float32 and int8, and returns the float32 result.
func (o *op) product(a, b *Tensor, ta, tb bool) *Tensor {
	e := o.e
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
	if K > kernels.MaxMatMulK {
		return o.fail(ErrShape, "inner dimension %d; at most %d", K, kernels.MaxMatMulK)
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
	if shape.Size() == 0 {
		return out
	}
	g := matmulGeom{M: M, K: K, N: N, batches: batch.Size(), base: kernels.MatMul{TransA: ta, TransB: tb, BatchRank: len(batch), AStorage: a.dtype.storage(), BStorage: b.dtype.storage()},
		batchDims: u32s(batch), aStrides: u32s(broadcastStrides(aBatch, batch)), bStrides: u32s(broadcastStrides(bBatch, batch))}
	bufs := []*wgpu.Buffer{a.buf(), b.buf(), out.buf()}
	k := o.matmulChoice(g, bufs, true)
	if e.deferProduct(out, a, b, k, g) {
		return out
	}
	if err := o.recordMatMul(k, g, bufs, false); err != nil {
		out.Dispose()
		return e.errTensor(err)
	}
	return out
}

// matmulGeom is a product's geometry: batches M×K times K×N matrices, the
// batch dimensions and strides of the operands (see kernels.MatMul), and
// the kernel's transposes and batch rank (base, its kernel not chosen).
type matmulGeom struct {
	M, K, N, batches              int
	base                          kernels.MatMul
	batchDims, aStrides, bStrides []uint32
}

// recordMatMul records the dispatches of g's product with kernel k,
// reading bufs[0] and bufs[1] and writing bufs[2]. With warm, it records
// one workgroup of it instead, summing at most one step of k: enough to
// compile the kernel on drivers that compile on first use.
func (o *op) recordMatMul(k kernels.MatMul, g matmulGeom, bufs []*wgpu.Buffer, warm bool) error {
	pieces := o.e.matmulPieces(k, g.M, g.N, g.K, g.batches)
	if warm {
		kEnd := min(g.K, kernels.MatMulTileK)
		pieces = []tilePiece{{kEnd: kEnd, groups: [3]uint32{1, 1, 1}, work: wgpu.WorkOf(k.GroupWork(kEnd))}}
	}
	for _, pc := range pieces {
		if err := o.dispatch(k.Key(), k.Spec, pc.groups, pc.work, g.params(pc), bufs...); err != nil {
			return err
		}
	}
	return nil
}

// params is the parameter block of piece pc of g's product.
func (g matmulGeom) params(pc tilePiece) *kernels.MatMulParams {
	return &kernels.MatMulParams{M: uint32(g.M), N: uint32(g.N), K: uint32(g.K),
		FirstCol: pc.first[0], FirstRow: pc.first[1], FirstBatch: pc.first[2], KFirst: pc.first[3], KEnd: uint32(pc.kEnd),
		BatchDims: g.batchDims, AStrides: g.aStrides, BStrides: g.bStrides}
}

// tiler is a tiled product's kernel (kernels.MatMul, kernels.Conv2D): the
// workgroups its grid takes and the work of each.
type tiler interface {
	Groups(M, N, batches int) (cols, rows, zs int)
	GroupWork(K int) float64
}

// tilePiece is one dispatch of a tiled product (a matmul, a convolution): groups tiles (columns, rows,
// batches) from first[0:3] on, summing k from first[3] to kEnd.
type tilePiece struct {
	first  [4]uint32
	kEnd   int
	groups [3]uint32
	work   wgpu.Work
}

// matmulPieces splits the tiles of a product (columns of tiles, rows of
// tiles, batches) into dispatches whose work stays within the device's
// budget and whose grids stay within its limits: whole rows of tiles where
// they fit, then whole batches. A tile whose sums alone pass the budget
// (a long inner dimension), or whose inner dimension is longer than
// kernels.MatMulKRange, sums a range of k per dispatch, the ranges in order
// (see kernels.MatMul).
func (e *Engine) matmulPieces(k tiler, M, N, K, batches int) []tilePiece {
	kStep := max(min(K, kernels.MatMulKRange), 1)
	if perK, budget := k.GroupWork(1), e.dev.WorkBudget(); float64(kStep)*perK > float64(budget) {
		kStep = kernels.MatMulTileK * kernels.Split(kStep/kernels.MatMulTileK, perK*kernels.MatMulTileK, budget, kStep)
	}
	return e.tilePieces(k, M, N, K, batches, kStep)
}

// tilePieces is matmulPieces with the range of k each dispatch sums
// given: kStep (at least K for one range).
func (e *Engine) tilePieces(k tiler, M, N, K, batches, kStep int) []tilePiece {
	budget, lim := e.dev.WorkBudget(), int(e.dev.Limits().MaxComputeWorkgroupsPerDimension)
	kStep = max(kStep, 1)
	each := k.GroupWork(min(kStep, K))
	cols, rows, zs := k.Groups(M, N, batches)
	nx := kernels.Split(cols, each, budget, lim)
	ny := kernels.Split(rows, each*float64(nx), budget, lim)
	nz := kernels.Split(zs, each*float64(nx*ny), budget, lim)
	var pieces []tilePiece
	for z := 0; z < zs; z += nz {
		for y := 0; y < rows; y += ny {
			for x := 0; x < cols; x += nx {
				g := [3]uint32{uint32(min(nx, cols-x)), uint32(min(ny, rows-y)), uint32(min(nz, zs-z))}
				for k0 := 0; k0 == 0 || k0 < K; k0 += kStep {
					kEnd := min(k0+kStep, K)
					pieces = append(pieces, tilePiece{
						first:  [4]uint32{uint32(x), uint32(y), uint32(z), uint32(k0)},
						kEnd:   kEnd,
						groups: g,
						work:   wgpu.WorkOf(k.GroupWork(kEnd-k0) * float64(g[0]) * float64(g[1]) * float64(g[2])),
					})
				}
			}
		}
	}
	return pieces
}

// pickMatMul returns k with its kernel chosen: the family's (see
// matMulKernel), or the Small kernel where its work estimate is lower
// (small matrices, a few rows or columns), unless the family is forced.
func pickMatMul(family string, forced bool, k kernels.MatMul, M, K, N, batches int) kernels.MatMul {
	small := k
	small.Small = true
	switch family {
	case "small":
		return small
	case "vec4":
		k.Vec4 = kernels.Vec4Fits(k.TransA, k.TransB, M, K, N)
		k.Register = !k.Vec4
	case "register":
		k.Register = true
	}
	if forced {
		return k
	}
	tiles := matmulWork(k, M, K, N, batches)
	if family == "tiled" {
		tiles /= gpuTileAdvantage
	}
	if matmulWork(small, M, K, N, batches) < tiles {
		return small
	}
	return k
}

// gpuTileAdvantage is how many times less a multiply-add of the tiled
// kernel costs on a GPU than the work estimates say, which are
// lavapipe's, where its barriers make it the slowest kernel per
// multiply-add (see kernels.MatMul.GroupWork). On a GPU its tiles in
// workgroup memory make it the fastest wherever they are mostly full:
// with this factor a GPU takes the Small kernel only for products whose
// tiles would be less than about a quarter full (the Small kernel took
// every product up to 4096×4096 on an H200 without it, at 6 TFLOP/s).
const gpuTileAdvantage = 8

// matmulWork is the work estimate of a product with kernel k.
func matmulWork(k kernels.MatMul, M, K, N, batches int) float64 {
	cols, rows, zs := k.Groups(M, N, batches)
	return float64(cols) * float64(rows) * float64(zs) * k.GroupWork(K)
}

// forcedMatMulKernel returns the family WGT_MATMUL names, if it names one.
func forcedMatMulKernel() (string, bool) {
	switch k := os.Getenv("WGT_MATMUL"); k {
	case "tiled", "register", "vec4", "small":
		return k, true
	}
	return "", false
}

// matMulKernel names the family of matmul kernels e's device uses for
// products larger than a few tiles: "vec4" on CPU adapters (the Vec4
// kernel where a product's shapes allow it, the Register kernel elsewhere:
// see kernels.MatMul), "tiled" (workgroup-memory tiles) on GPUs; smaller
// ones may take the Small kernel (see pickMatMul). Where the autotuner is
// on (see AutotuneMode), this heuristic gives way to the kernel measured
// fastest for the product's shape class (matmulChoice).
// WGT_MATMUL=tiled|register|vec4|small forces one family for every
// product.
func (e *Engine) matMulKernel() string {
	if k, forced := forcedMatMulKernel(); forced {
		return k
	}
	if e.usable("") == nil && e.dev.Info().Type == wgpu.AdapterCPU {
		return "vec4"
	}
	return "tiled"
}
