package tensor

import (
	"math"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/wgpu"
)

// LayerNorm normalises x over its last axis and scales and shifts the
// result (tf.layers.layerNormalization, torch's layer_norm over the last
// dimension): for each row,
//
//	y = (x − mean) / sqrt(var + eps) · gamma + beta
//
// with var the biased variance (the mean of the squared deviations).
// x is float32 of rank 1 or more; gamma and beta are float32 of shape
// [n], n the last dimension, at most kernels.MaxLoopTrips; eps is finite
// and not negative. It runs as one kernel, a thread per row, where the
// same formula composed of Mean, Sub, Square, Rsqrt, Mul and Add takes
// four dispatches and reads x three times (BenchmarkLayerNorm, lavapipe:
// 1.4 to 3.7 times as fast over 64x256 to 4096x128). A row holding a NaN
// or an infinity normalises to NaN, and so does a constant row with eps
// 0 (0·∞). Package grad differentiates it with respect to x, gamma and
// beta, with LayerNormGrad. Like every op it belongs to the Engine's
// goroutine; bad arguments give a tensor carrying an *OpError that names
// layer_norm and the shapes.
func (e *Engine) LayerNorm(x, gamma, beta *Tensor, eps float32) *Tensor {
	o, bad := e.begin("layer_norm", callerSite(), x, gamma, beta)
	if bad != nil {
		return bad
	}
	defer o.end()
	o.attrs.Eps = eps
	k := kernels.LayerNorm{Storage: x.dtype.storage()}
	n, bad := o.checkLayerNorm(k, x, eps, gamma, beta)
	if bad != nil {
		return bad
	}
	return o.roundedTo(x.dtype, o.layerNorm(k, x, gamma, beta, eps, n))
}

// layerNorm dispatches kernel k over x's rows of n elements and returns
// the float32 result.
func (o *op) layerNorm(k kernels.LayerNorm, x, gamma, beta *Tensor, eps float32, n int) *Tensor {
	out, err := o.alloc(x.shape.clone(), Float32)
	if err != nil {
		return o.e.errTensor(err)
	}
	if rows := x.Size() / max(n, 1); n > 0 && rows > 0 {
		p := &kernels.LayerNormParams{Length: uint32(n), Eps: eps}
		bufs := []*wgpu.Buffer{x.buf(), gamma.buf(), beta.buf(), out.buf()}
		if err := o.spread(k.Key(), k.Spec, kernels.LayerNormWorkgroup, rows, k.RowWork(n), p, bufs); err != nil {
			out.Dispose()
			return o.e.errTensor(err)
		}
	}
	return out
}

// checkLayerNorm checks LayerNorm's or LayerNormGrad's x, eps and
// parameters (gamma, and beta or dy) for kernel k, and returns the row
// length. They are float32, or for the forward all of x's half dtype.
func (o *op) checkLayerNorm(k kernels.LayerNorm, x *Tensor, eps float32, params ...*Tensor) (int, *Tensor) {
	want := Float32
	if !k.Grad && x.dtype.half() {
		want = x.dtype
	}
	for i, t := range append([]*Tensor{x}, params...) {
		if t.dtype != want {
			return 0, o.fail(ErrDType, "input %d is %s, not %s", i, t.dtype, want)
		}
	}
	if x.Rank() == 0 {
		return 0, o.fail(ErrShape, "a scalar has no last axis")
	}
	n := x.shape[x.Rank()-1]
	if !params[0].shape.Equal(Shape{n}) {
		return 0, o.fail(ErrShape, "gamma must be [%d], x's last dimension", n)
	}
	if k.Grad {
		if !params[1].shape.Equal(x.shape) {
			return 0, o.fail(ErrShape, "dy must be %v, x's shape", x.shape)
		}
	} else if !params[1].shape.Equal(Shape{n}) {
		return 0, o.fail(ErrShape, "gamma and beta must be [%d], x's last dimension", n)
	}
	// The kernels' passes take several elements a loop trip, so that a
	// row of kernels.MaxLoopTrips stays within the trips of an
	// invocation (kernels.LoopTrips).
	if n > kernels.MaxLoopTrips || k.Trips(n) > kernels.MaxLoopTrips {
		return 0, o.fail(ErrShape, "rows of %d elements; at most %d", n, kernels.MaxLoopTrips)
	}
	if !(eps >= 0) || math.IsInf(float64(eps), 1) {
		return 0, o.fail(ErrArgument, "eps %v is not finite and non-negative", eps)
	}
	return n, nil
}

// LayerNormGrad returns the gradients of LayerNorm(x, gamma, beta, eps)
// with respect to x, gamma and beta, given dy, the gradient of its
// result (of x's shape). With x̂ = (x − mean)·rstd, rstd =
// 1/sqrt(var + eps) and g = dy·gamma, over each row of n:
//
//	dx = rstd·((g − mean(g)) − x̂·mean(g·x̂))
//	dgamma = Σ dy·x̂,  dbeta = Σ dy   (over the rows)
//
// The mean and rstd are recomputed from x by the forward kernel's own
// two passes (so x̂ is bit for bit the forward's), rather than saved by
// the forward: the forward keeps its one result and inference pays
// nothing for training, a tape holds only x and gamma between the passes
// (no statistics of its own), and the cost, two more reads of x per
// element in a kernel that reads x, dy and gamma twice besides, is small
// next to the dispatches saved (BenchmarkLayerNormGrad).
//
// It is one dispatch (see kernels.LayerNorm). For rows of a multiple of
// 4 elements, or more than kernels.LayerNormWorkgroup rows of other
// widths, workgroups of one kernel write dx, a slice of 64 rows each,
// while others each own a block of columns and sum its dgamma and dbeta
// over every row, reading x once more for the rows' statistics (rows of
// a multiple of 4 are read four elements a load throughout, which pays
// for that); up to 64 rows of other widths take one workgroup, which sums
// the columns itself. Where that kernel would carry more than the
// device's work budget in one dispatch, or its column workgroups more
// rows than the loop budget allows (a CPU adapter's budget holds about
// 17,000 rows of 128 or 2,000 of 1,024; the loop budget 41,800 rows of
// 1,024 or 10,700 of 1,023), it takes two kernels, each split by the
// budget: the first writes dx and each slice's sums of dgamma and dbeta,
// the second adds the slices' sums. Both ways sum each column's slices of
// 64 rows in order, then the slices in order, so their results are the
// same to the bit (TestLayerNormGradSplitByWorkBudget), and the same from
// run to run. The formulas composed of ordinary ops took eleven
// dispatches. Results match them to float32 rounding, not bit for bit:
// the sums run in another order. With u = 2⁻²⁴ and e = |x̂| +
// rstd·mean|x| (the mean's error counts against x − mean whole), dx is
// within about (n + 8)·u of rstd·(|g| + mean|g| + e·mean|g·x̂| +
// |x̂|·mean(|g|·e)), dgamma within (64 + slices + 8)·u of Σ|dy·x̂| plus
// (n + 8)·u of Σ|dy|·e, and dbeta within (64 + slices + 8)·u of Σ|dy|, of
// the exact values (TestLayerNormGradAgainstReference checks four times
// these against float64, and the composed ops against the same bounds
// with the rows added to each count). A row holding a NaN or an infinity
// gets a NaN dx and makes dgamma NaN; dbeta does not read x. Rows whose
// squared deviations overflow (rstd 0) get x̂ = 0 and dx = 0, as the
// forward gives them beta; a constant row with eps 0 gets NaN (0·∞).
//
// x, gamma, dy and eps are as LayerNorm takes them (dy float32 of x's
// shape); rows of x are at most kernels.LayerNormWorkgroup times the
// slices a thread can add within the loop budget (about 33 million).
// The three results are the caller's; bad arguments give one tensor
// carrying an *OpError naming layer_norm_grad and the shapes as all
// three, and leave nothing live. Like every op it belongs to the
// Engine's goroutine.
func (e *Engine) LayerNormGrad(x, gamma, dy *Tensor, eps float32) (dx, dgamma, dbeta *Tensor) {
	o, bad := e.begin("layer_norm_grad", callerSite(), x, gamma, dy)
	if bad != nil {
		return bad, bad, bad
	}
	defer o.end()
	o.attrs.Eps = eps
	k := kernels.LayerNorm{Grad: true}
	n, bad := o.checkLayerNorm(k, x, eps, gamma, dy)
	if bad != nil {
		return bad, bad, bad
	}
	rows := x.Size() / max(n, 1)
	slices := (rows + kernels.LayerNormWorkgroup - 1) / kernels.LayerNormWorkgroup
	sums := kernels.LayerNorm{Grad: true, Sums: true}
	if sums.Trips(slices) > kernels.MaxLoopTrips {
		return bad3Of(o.fail(ErrShape, "%d rows; at most %d", rows, kernels.LayerNormWorkgroup*maxSlices()))
	}
	var made []*Tensor
	fail := func(err error) (dx, dgamma, dbeta *Tensor) {
		for _, t := range made {
			t.Dispose()
		}
		return bad3Of(o.e.errTensor(err))
	}
	for _, s := range []Shape{x.shape.clone(), {n}, {n}} {
		t, err := o.alloc(s, Float32)
		if err != nil {
			return fail(err)
		}
		made = append(made, t)
	}
	if n == 0 {
		return made[0], made[1], made[2]
	}
	p := &kernels.LayerNormGradParams{Length: uint32(n), Rows: uint32(rows), Slices: uint32(slices), Eps: eps}
	if rows > 0 && (n%4 == 0 || slices > 1) {
		done, err := o.layerNormGradColumns(x, gamma, dy, made, p)
		if err != nil {
			return fail(err)
		}
		if done {
			return made[0], made[1], made[2]
		}
	}
	pg, pb := made[1], made[2] // the slices' sums: dgamma and dbeta themselves for one slice
	if slices != 1 {
		for range 2 {
			t, err := o.alloc(Shape{max(slices, 1), n}, Float32)
			if err != nil {
				return fail(err)
			}
			// Safe to dispose once the sums are recorded: the pool never
			// hands the storage to a later op before them (see reduce).
			defer t.Dispose()
			made = append(made, t)
		}
		pg, pb = made[3], made[4]
	}
	if rows > 0 {
		bufs := []*wgpu.Buffer{x.buf(), gamma.buf(), dy.buf(), made[0].buf(), pg.buf(), pb.buf()}
		if err := o.spread(k.Key(), k.Spec, 1, slices, k.RowWork(n), p, bufs); err != nil {
			return fail(err)
		}
	}
	if slices != 1 { // several slices' sums to add, or none (no rows: zeros)
		bufs := []*wgpu.Buffer{pg.buf(), pb.buf(), made[1].buf(), made[2].buf()}
		if err := o.spread(sums.Key(), sums.Spec, kernels.LayerNormWorkgroup, n, sums.RowWork(slices), p, bufs); err != nil {
			return fail(err)
		}
	}
	return made[0], made[1], made[2]
}

// layerNormGradColumns records LayerNormGrad as one dispatch of
// kernels.LayerNorm with Columns (and Vec4, for rows of a multiple of 4)
// into made's dx, dgamma and dbeta, where that dispatch stays within the
// device's work budget and its column workgroups within the loop budget,
// and reports whether it did.
func (o *op) layerNormGradColumns(x, gamma, dy *Tensor, made []*Tensor, p *kernels.LayerNormGradParams) (bool, error) {
	n, rows, slices := int(p.Length), int(p.Rows), int(p.Slices)
	k := kernels.LayerNorm{Grad: true, Columns: true, Vec4: n%4 == 0}
	// Blocks of equal columns, as few as LayerNormBlock allows (each
	// reads all of x), of whole quads with Vec4; the kernel counts
	// ⌈n/block⌉ of them.
	blocks := (n + kernels.LayerNormBlock - 1) / kernels.LayerNormBlock
	block := (n + blocks - 1) / blocks
	if k.Vec4 {
		block = (block + 3) / 4 * 4
	}
	blocks = (n + block - 1) / block
	work := float64(slices)*k.RowWork(n) + float64(blocks)*k.ColumnWork(n, rows, block)
	if k.ColumnTrips(n, rows, block) > kernels.MaxLoopTrips || work > float64(o.e.dev.WorkBudget()) {
		return false, nil
	}
	groups, row, err := kernels.Grid(uint64(blocks+slices), 1, o.e.dev.Limits().MaxComputeWorkgroupsPerDimension)
	if err != nil {
		return false, nil // the two kernels split it
	}
	p.Block = uint32(block)
	p.Range = kernels.Range{First: 0, End: uint32(blocks + slices), Row: row}
	bufs := []*wgpu.Buffer{x.buf(), gamma.buf(), dy.buf(), made[0].buf(), made[1].buf(), made[2].buf()}
	return true, o.dispatch(k.Key(), k.Spec, groups, wgpu.WorkOf(work), p, bufs...)
}

// bad3Of returns t three times: the results of a failed op with three.
func bad3Of(t *Tensor) (a, b, c *Tensor) { return t, t, t }

// maxSlices is the most slices LayerNormGrad's second kernel adds within
// a thread's loop budget.
func maxSlices() int {
	s := kernels.MaxLoopTrips * kernels.RowUnroll
	for (kernels.LayerNorm{Grad: true, Sums: true}).Trips(s) > kernels.MaxLoopTrips {
		s--
	}
	return s
}
