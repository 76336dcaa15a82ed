package tensor_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/kernels"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// lnUnit is float32's unit roundoff, 2⁻²⁴.
const lnUnit = 1.0 / (1 << 24)

// lnGrad is LayerNorm's gradient in float64 and, for each element, the
// error float32 is allowed (see LayerNormGrad's bounds).
type lnGrad struct {
	dx, dgamma, dbeta    []float64
	tdx, tdgamma, tdbeta []float64
}

// layerNormGradRef is LayerNormGrad in float64 over rows of n, with
// bounds of float32's error, times slack. x̂ = (x − mean)·rstd is off by
// about (n + 8)·2⁻²⁴ of e = |x̂| + rstd·mean|x| (the mean's error counts
// against x − mean whole, not relative to it); then dx is off by at most
// about (n + 8)·2⁻²⁴ of rstd·(|g| + mean|g| + e·mean|g·x̂| + |x̂|·mean|g|·e),
// dgamma by (64 + slices + 8)·2⁻²⁴ of Σ|dy·x̂| (the slices' sums) and
// (n + 8)·2⁻²⁴ of Σ|dy|·e (x̂'s error), and dbeta by (64 + slices +
// 8)·2⁻²⁴ of Σ|dy|. extra adds to every count (for a composed sum over
// all the rows).
func layerNormGradRef(x, gamma, dy []float32, n int, eps float64, extra int) lnGrad {
	rows := len(x) / max(n, 1)
	slices := (rows + 63) / 64
	const slack = 4
	r := lnGrad{dx: make([]float64, len(x)), tdx: make([]float64, len(x)),
		dgamma: make([]float64, n), dbeta: make([]float64, n), tdgamma: make([]float64, n), tdbeta: make([]float64, n)}
	absGX, absDy, absDyE := make([]float64, n), make([]float64, n), make([]float64, n)
	rowCount := float64(n + 8 + extra)
	sumCount := float64(64 + slices + 8 + extra)
	for row := range rows {
		xs, dys := x[row*n:(row+1)*n], dy[row*n:(row+1)*n]
		mean, sq, mabs := 0.0, 0.0, 0.0
		for _, v := range xs {
			mean += float64(v)
			mabs += math.Abs(float64(v))
		}
		mean /= float64(n)
		mabs /= float64(n)
		for _, v := range xs {
			sq += (float64(v) - mean) * (float64(v) - mean)
		}
		rstd := 1 / math.Sqrt(sq/float64(n)+eps)
		xhat, ex, g := make([]float64, n), make([]float64, n), make([]float64, n)
		mg, mgx, mag, magx, mage := 0.0, 0.0, 0.0, 0.0, 0.0
		for j := range n {
			xhat[j] = (float64(xs[j]) - mean) * rstd
			ex[j] = math.Abs(xhat[j]) + rstd*mabs
			g[j] = float64(dys[j]) * float64(gamma[j])
			mg += g[j]
			mgx += g[j] * xhat[j]
			mag += math.Abs(g[j])
			magx += math.Abs(g[j] * xhat[j])
			mage += math.Abs(g[j]) * ex[j]
		}
		mg, mgx, mag, magx, mage = mg/float64(n), mgx/float64(n), mag/float64(n), magx/float64(n), mage/float64(n)
		for j := range n {
			i := row*n + j
			r.dx[i] = rstd * (g[j] - mg - xhat[j]*mgx)
			r.tdx[i] = slack * rowCount * lnUnit * rstd * (math.Abs(g[j]) + mag + ex[j]*magx + math.Abs(xhat[j])*mage)
			r.dgamma[j] += float64(dys[j]) * xhat[j]
			r.dbeta[j] += float64(dys[j])
			absGX[j] += math.Abs(float64(dys[j]) * xhat[j])
			absDy[j] += math.Abs(float64(dys[j]))
			absDyE[j] += math.Abs(float64(dys[j])) * ex[j]
		}
	}
	for j := range n {
		r.tdgamma[j] = slack * lnUnit * (sumCount*absGX[j] + rowCount*absDyE[j])
		r.tdbeta[j] = slack * sumCount * lnUnit * absDy[j]
	}
	return r
}

// lnWithin checks got against want elementwise within tol (and 1e-30, for
// terms that vanish); NaNs must match NaNs.
func lnWithin(t *testing.T, want, tol []float64, got []float32, msg string, args ...any) {
	t.Helper()
	require.Len(t, got, len(want), append([]any{msg}, args...)...)
	bad := 0
	for i, w := range want {
		g := float64(got[i])
		if math.IsNaN(w) && math.IsNaN(g) {
			continue
		}
		if !(math.Abs(g-w) <= tol[i]+1e-30) {
			if bad < 5 {
				t.Errorf("%s: element %d: got %v, want %v (tolerance %.3g)", fmt.Sprintf(msg, args...), i, g, w, tol[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements out of tolerance", fmt.Sprintf(msg, args...), bad, len(want))
	}
}

// composedLayerNormGrad is LayerNorm's gradient composed of ordinary ops,
// as package grad computed it before LayerNormGrad.
func composedLayerNormGrad(e *tensor.Engine, x, gamma, dy *tensor.Tensor, eps float32) (dx, dg, db *tensor.Tensor) {
	n := gamma.Shape()[0]
	var out []*tensor.Tensor
	_, err := tidy.Run(e, func() ([]*tensor.Tensor, error) {
		d := e.Sub(x, e.Mean(x, true, -1))
		rstd := e.Rsqrt(e.Add(e.Mean(e.Square(d), true, -1), e.Scalar(eps)))
		xhat := e.Mul(d, rstd)
		g := e.Mul(dy, gamma)
		centred := e.Sub(g, e.Mean(g, true, -1))
		dx := e.Mul(rstd, e.Sub(centred, e.Mul(xhat, e.Mean(e.Mul(g, xhat), true, -1))))
		lead := make([]int, x.Rank()-1)
		for i := range lead {
			lead[i] = i
		}
		dg, db := e.Mul(dy, xhat), e.Clone(dy)
		if len(lead) > 0 { // Sum of no axes sums them all
			dg, db = e.Reshape(e.Sum(dg, false, lead...), n), e.Reshape(e.Sum(db, false, lead...), n)
		}
		out = []*tensor.Tensor{dx, dg, db}
		return out, nil
	})
	if err != nil {
		panic(err)
	}
	return out[0], out[1], out[2]
}

// LayerNormGrad against float64 and against the ops it replaces, at edge
// shapes of both kernels: one row, rows of one element, odd widths and
// widths of a multiple of 4 (the one-dispatch kernel's vec4 form), 63 and
// 64 rows and one more, many slices, widths of two and three column
// workgroups' blocks, no rows, rows of nothing.
func TestLayerNormGradAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(21, 1))
	for _, s := range [][]int{{7}, {1, 7}, {1, 12}, {3, 5}, {2, 3, 33}, {65, 1}, {63, 4}, {64, 9}, {64, 12}, {65, 17}, {65, 16},
		{5, 40, 13}, {130, 5}, {1000, 24}, {2, 1500}, {70, 1500}, {66, 1027}, {65, 2052}, {0, 4}, {0, 5}, {3, 0}} {
		n := s[len(s)-1]
		xv, dyv := randF32(r, size(s), -3, 5), randF32(r, size(s), -1, 1)
		gv := randF32(r, n, 0.5, 1.5)
		x, g, dy := e.FromFloat32s(xv, s...), e.FromFloat32s(gv, n), e.FromFloat32s(dyv, s...)
		for _, eps := range []float32{1e-5, 0.5, 0} {
			dirty(e, size(s))
			dx, dg, db := e.LayerNormGrad(x, g, dy, eps)
			assert.Equal(t, tensor.Shape(s), dx.Shape())
			assert.Equal(t, tensor.Shape{n}, dg.Shape())
			assert.Equal(t, tensor.Shape{n}, db.Shape())
			ref := layerNormGradRef(xv, gv, dyv, n, float64(eps), 0)
			lnWithin(t, ref.dx, ref.tdx, f32s(t, dx), "%v eps %v: dx", s, eps)
			lnWithin(t, ref.dgamma, ref.tdgamma, f32s(t, dg), "%v eps %v: dgamma", s, eps)
			lnWithin(t, ref.dbeta, ref.tdbeta, f32s(t, db), "%v eps %v: dbeta", s, eps)
			// The composed ops sum over all the rows in another order.
			cdx, cdg, cdb := composedLayerNormGrad(e, x, g, dy, eps)
			cref := layerNormGradRef(xv, gv, dyv, n, float64(eps), size(s)/max(n, 1))
			lnWithin(t, cref.dx, cref.tdx, f32s(t, cdx), "%v eps %v: composed dx", s, eps)
			lnWithin(t, cref.dgamma, cref.tdgamma, f32s(t, cdg), "%v eps %v: composed dgamma", s, eps)
			lnWithin(t, cref.dbeta, cref.tdbeta, f32s(t, cdb), "%v eps %v: composed dbeta", s, eps)
			tidy.Dispose([]*tensor.Tensor{dx, dg, db, cdx, cdg, cdb})
		}
		tidy.Dispose([]*tensor.Tensor{x, g, dy})
	}
}

// Rows of the longest width LayerNorm takes, and of widths whose passes
// one element a trip would have passed the loop budget, in slices of
// 64 rows and more.
func TestLayerNormGradLongRowsWithinLoopBudget(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(21, 2))
	for _, c := range []struct{ rows, n int }{{2, 21845}, {1, kernels.MaxLoopTrips - 1}, {65, kernels.MaxLoopTrips}} {
		xv, dyv := randF32(r, c.rows*c.n, -3, 5), randF32(r, c.rows*c.n, -1, 1)
		gv := randF32(r, c.n, 0.5, 1.5)
		x, g, dy := e.FromFloat32s(xv, c.rows, c.n), e.FromFloat32s(gv, c.n), e.FromFloat32s(dyv, c.rows, c.n)
		dirty(e, c.rows*c.n)
		dx, dg, db := e.LayerNormGrad(x, g, dy, 1e-5)
		ref := layerNormGradRef(xv, gv, dyv, c.n, 1e-5, 0)
		lnWithin(t, ref.dx, ref.tdx, f32s(t, dx), "%d rows of %d: dx", c.rows, c.n)
		lnWithin(t, ref.dgamma, ref.tdgamma, f32s(t, dg), "%d rows of %d: dgamma", c.rows, c.n)
		lnWithin(t, ref.dbeta, ref.tdbeta, f32s(t, db), "%d rows of %d: dbeta", c.rows, c.n)
		tidy.Dispose([]*tensor.Tensor{x, g, dy, dx, dg, db})
	}
	n := kernels.MaxLoopTrips + 1
	x, g := e.Zeros(tensor.Float32, 1, n), e.Zeros(tensor.Float32, n)
	dx, _, _ := e.LayerNormGrad(x, g, x, 1e-5)
	requireLimitErr(t, dx, tensor.ErrShape, "layer_norm_grad")
	tidy.Dispose([]*tensor.Tensor{x, g})
}

// Edge values: a row holding a NaN or an infinity gets NaN gradients and
// makes every dgamma NaN (its x̂ is NaN), not dbeta; values near 1e18 are
// exact to float32 rounding; a constant row's x̂ is 0; values whose
// squares overflow (var = ∞, rstd = 0) give x̂ = 0 as the forward does,
// so dx = 0, as the composed ops give; a constant row with eps 0 is NaN
// (0·∞), as the forward.
func TestLayerNormGradEdgeValues(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(21, 3))
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	const n = 5
	gv := randF32(r, n, 0.5, 1.5)
	g := e.FromFloat32s(gv, n)
	defer g.Dispose()
	run := func(xv []float32, eps float32) (dyv []float32, dx, dg, db []float32, cdx, cdg, cdb []float32) {
		rows := len(xv) / n
		dyv = randF32(r, len(xv), -1, 1)
		x, dy := e.FromFloat32s(xv, rows, n), e.FromFloat32s(dyv, rows, n)
		a, b, c := e.LayerNormGrad(x, g, dy, eps)
		ca, cb, cc := composedLayerNormGrad(e, x, g, dy, eps)
		dx, dg, db, cdx, cdg, cdb = f32s(t, a), f32s(t, b), f32s(t, c), f32s(t, ca), f32s(t, cb), f32s(t, cc)
		tidy.Dispose([]*tensor.Tensor{x, dy, a, b, c, ca, cb, cc})
		return
	}
	finite := randF32(r, 2*n, -3, 5)
	for _, bad := range []float32{nan, inf, -inf} {
		xv := append([]float32{1, 2, bad, 4, 5}, finite...)
		dyv, dx, dg, db, cdx, cdg, cdb := run(xv, 1e-5)
		for j := range n {
			assert.True(t, isNaN32(dx[j]) && isNaN32(cdx[j]), "%v: dx of the bad row %v, composed %v", bad, dx[:n], cdx[:n])
			assert.True(t, isNaN32(dg[j]) && isNaN32(cdg[j]), "%v: dgamma %v, composed %v", bad, dg, cdg)
		}
		ref := layerNormGradRef(finite, gv, dyv[n:], n, 1e-5, 0)
		lnWithin(t, ref.dx, ref.tdx, dx[n:], "%v: dx of the other rows", bad)
		full := layerNormGradRef(xv, gv, dyv, n, 1e-5, 0) // dbeta reads no x
		lnWithin(t, full.dbeta, full.tdbeta, db, "%v: dbeta", bad)
		assert.Equal(t, db, cdb, "%v: dbeta, fused and composed (three rows, in order)", bad)
	}
	// Near 1e18 the squares (1e36) stay finite: float32 keeps its
	// relative accuracy. A constant row (x̂ = 0) and a row of 1e-20s.
	big := []float32{1e18, -3e18, 2e18, 5e17, -1e18, 7, 7, 7, 7, 7, 1e-20, -2e-20, 3e-20, 0, 1e-20}
	for _, eps := range []float32{1e-5, 0} {
		if eps == 0 {
			big = big[:5] // the constant row is 0·∞ at eps 0; the tiny one near it
		}
		dyv, dx, dg, db, _, _, _ := run(big, eps)
		ref := layerNormGradRef(big, gv, dyv, n, float64(eps), 0)
		lnWithin(t, ref.dx, ref.tdx, dx, "large values eps %v: dx", eps)
		lnWithin(t, ref.dgamma, ref.tdgamma, dg, "large values eps %v: dgamma", eps)
		lnWithin(t, ref.dbeta, ref.tdbeta, db, "large values eps %v: dbeta", eps)
	}
	// Squares past float32's range: var = ∞, rstd = 0, x̂ = 0.
	_, dx, dg, db, cdx, cdg, cdb := run([]float32{1e20, -3e20, 2e20, 5e19, -1e20}, 1e-5)
	for j := range n {
		assert.Zero(t, dx[j], "dx %v", dx)
		assert.Zero(t, dg[j], "dgamma %v", dg)
	}
	assert.Equal(t, dx, cdx, "dx, fused and composed")
	assert.Equal(t, dg, cdg, "dgamma, fused and composed")
	assert.Equal(t, db, cdb, "dbeta, fused and composed")
	// A constant row at eps 0: rstd = ∞ and x̂ = 0·∞, NaN, as the forward.
	_, dx, _, _, cdx, _, _ = run([]float32{2, 2, 2, 2, 2}, 0)
	for j := range n {
		assert.True(t, isNaN32(dx[j]) && isNaN32(cdx[j]), "dx %v, composed %v", dx, cdx)
	}
}

// Past a small work budget the one dispatch gives way to the two
// kernels, the slices cut into many dispatches (and the final sums over
// columns too), each within the budget, with results bit for bit those of
// the one dispatch, scalar (an odd width) and vec4.
func TestLayerNormGradSplitByWorkBudget(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.WorkBudget = 20_000
	small := testgpu.EngineOn(t, testgpu.OpenWith(t, opts))
	def := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(21, 4))
	for _, n := range []int{30, 32} {
		const rows = 700
		xv, dyv, gv := randF32(r, rows*n, -3, 5), randF32(r, rows*n, -1, 1), randF32(r, n, 0.5, 1.5)
		run := func(e *tensor.Engine) ([][]float32, []string) {
			x, g, dy := e.FromFloat32s(xv, rows, n), e.FromFloat32s(gv, n), e.FromFloat32s(dyv, rows, n)
			var dx, dg, db *tensor.Tensor
			p, err := e.Profile(context.Background(), func() error {
				dx, dg, db = e.LayerNormGrad(x, g, dy, 1e-5)
				return dx.Err()
			})
			require.NoError(t, err)
			out := [][]float32{f32s(t, dx), f32s(t, dg), f32s(t, db)}
			tidy.Dispose([]*tensor.Tensor{x, g, dy, dx, dg, db})
			return out, kernelNames(p)
		}
		before := small.Device().Stats()
		got, kernels := run(small)
		checkBounded(t, small, before)
		assert.GreaterOrEqual(t, len(kernels), (rows+63)/64+1, "%d: a dispatch a slice or more, and the sums", n)
		want, one := run(def)
		assert.Len(t, one, 1, "%d: the default budget's one dispatch", n)
		assert.Equal(t, want, got, "%d: one dispatch and the split kernels", n)
		ref := layerNormGradRef(xv, gv, dyv, n, 1e-5, 0)
		lnWithin(t, ref.dx, ref.tdx, got[0], "%d: dx", n)
		lnWithin(t, ref.dgamma, ref.tdgamma, got[1], "%d: dgamma", n)
		lnWithin(t, ref.dbeta, ref.tdbeta, got[2], "%d: dbeta", n)
	}
}

// kernelNames lists the kernels of p's dispatches.
func kernelNames(p *tensor.KernelProfile) []string {
	var names []string
	for _, d := range p.Dispatches {
		names = append(names, d.Kernel)
	}
	return names
}

// The one dispatch's column workgroup at the most rows its first thread's
// loop trips allow (scalar and vec4, each where it is cheapest, and
// scalar with two columns a thread), whose sums gallivm would cut short
// were kernels.LayerNorm.ColumnTrips to count fewer trips than the kernel
// takes, and one row more, which takes the two kernels, against float64.
// A budget past their work keeps the loop budget the limit.
func TestLayerNormGradColumnsAtTheLoopBudget(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.WorkBudget = 1 << 30
	e := testgpu.EngineOn(t, testgpu.OpenWith(t, opts))
	r := rand.New(rand.NewPCG(21, 6))
	for _, n := range []int{5, 4, 65} {
		k := kernels.LayerNorm{Grad: true, Columns: true, Vec4: n%4 == 0}
		most := 0
		for k.ColumnTrips(n, most+1, n) <= kernels.MaxLoopTrips {
			most++
		}
		slices := (most + kernels.LayerNormWorkgroup - 1) / kernels.LayerNormWorkgroup
		work := float64(slices)*k.RowWork(n) + k.ColumnWork(n, most, n)
		require.LessOrEqual(t, work, float64(e.Device().WorkBudget()), "%d: the loop budget, not the work budget, ends the one dispatch", n)
		for _, c := range []struct {
			rows int
			want []string
		}{{most, []string{k.Key()}}, {most + 1, []string{"layer_norm_grad", "layer_norm_grad_sums"}}} {
			xv, dyv, gv := randF32(r, c.rows*n, -3, 5), randF32(r, c.rows*n, -1, 1), randF32(r, n, 0.5, 1.5)
			x, g, dy := e.FromFloat32s(xv, c.rows, n), e.FromFloat32s(gv, n), e.FromFloat32s(dyv, c.rows, n)
			dirty(e, c.rows*n)
			var dx, dg, db *tensor.Tensor
			p, err := e.Profile(context.Background(), func() error {
				dx, dg, db = e.LayerNormGrad(x, g, dy, 1e-5)
				return dx.Err()
			})
			require.NoError(t, err)
			assert.Equal(t, c.want, kernelNames(p), "%d rows of %d", c.rows, n)
			ref := layerNormGradRef(xv, gv, dyv, n, 1e-5, 0)
			lnWithin(t, ref.dx, ref.tdx, f32s(t, dx), "%d rows of %d: dx", c.rows, n)
			lnWithin(t, ref.dgamma, ref.tdgamma, f32s(t, dg), "%d rows of %d: dgamma", c.rows, n)
			lnWithin(t, ref.dbeta, ref.tdbeta, f32s(t, db), "%d rows of %d: dbeta", c.rows, n)
			tidy.Dispose([]*tensor.Tensor{x, g, dy, dx, dg, db})
		}
	}
}

// One dispatch: rows of a multiple of 4 take the one-dispatch kernel's
// vec4 form, more than 64 rows of other widths its scalar form, and up to
// 64 of those the kernel of one slice; none for rows of nothing, and one
// (zeros for dgamma and dbeta) for no rows.
func TestLayerNormGradDispatches(t *testing.T) {
	e := testgpu.Engine(t)
	for _, c := range []struct {
		shape []int
		want  []string
	}{
		{[]int{1, 8}, []string{"layer_norm_grad_columns_vec4"}},
		{[]int{4, 16, 8}, []string{"layer_norm_grad_columns_vec4"}},
		{[]int{65, 8}, []string{"layer_norm_grad_columns_vec4"}},
		{[]int{1024, 128}, []string{"layer_norm_grad_columns_vec4"}},
		{[]int{2048, 128}, []string{"layer_norm_grad_columns_vec4"}},
		{[]int{1, 7}, []string{"layer_norm_grad"}},
		{[]int{64, 7}, []string{"layer_norm_grad"}},
		{[]int{65, 7}, []string{"layer_norm_grad_columns"}},
		{[]int{300, 1500}, []string{"layer_norm_grad_columns_vec4"}},
		{[]int{0, 8}, []string{"layer_norm_grad_sums"}},
		{[]int{3, 0}, nil},
	} {
		n := c.shape[len(c.shape)-1]
		r := rand.New(rand.NewPCG(21, 5))
		// Uploads, not kernels: the profile sees LayerNormGrad's alone.
		x, dy := e.FromFloat32s(randF32(r, size(c.shape), -1, 1), c.shape...), e.FromFloat32s(randF32(r, size(c.shape), -1, 1), c.shape...)
		g := e.FromFloat32s(randF32(r, n, 0.5, 1.5), n)
		var dx, dg, db *tensor.Tensor
		p, err := e.Profile(context.Background(), func() error {
			dx, dg, db = e.LayerNormGrad(x, g, dy, 1e-5)
			return dx.Err()
		})
		require.NoError(t, err)
		assert.Equal(t, c.want, kernelNames(p), "%v", c.shape)
		tidy.Dispose([]*tensor.Tensor{x, g, dy, dx, dg, db})
	}
}

func TestLayerNormGradErrors(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 2, 3)
	g := e.Ones(tensor.Float32, 3)
	g4 := e.Ones(tensor.Float32, 4)
	xi := e.Zeros(tensor.Int32, 2, 3)
	dy3 := e.Zeros(tensor.Float32, 3, 3)
	s := e.Scalar(1)
	defer tidy.Dispose([]*tensor.Tensor{x, g, g4, xi, dy3, s})
	disposed := e.Zeros(tensor.Float32, 2, 3)
	disposed.Dispose()
	for _, c := range []struct {
		name string
		kind error
		f    func() (a, b, c *tensor.Tensor)
	}{
		{"gamma of the wrong shape", tensor.ErrShape, func() (a, b, c *tensor.Tensor) { return e.LayerNormGrad(x, g4, x, 1e-5) }},
		{"dy of the wrong shape", tensor.ErrShape, func() (a, b, c *tensor.Tensor) { return e.LayerNormGrad(x, g, dy3, 1e-5) }},
		{"int32 x", tensor.ErrDType, func() (a, b, c *tensor.Tensor) { return e.LayerNormGrad(xi, g, x, 1e-5) }},
		{"int32 dy", tensor.ErrDType, func() (a, b, c *tensor.Tensor) { return e.LayerNormGrad(x, g, xi, 1e-5) }},
		{"a scalar", tensor.ErrShape, func() (a, b, c *tensor.Tensor) { return e.LayerNormGrad(s, g, s, 1e-5) }},
		{"negative eps", tensor.ErrArgument, func() (a, b, c *tensor.Tensor) { return e.LayerNormGrad(x, g, x, -1) }},
		{"NaN eps", tensor.ErrArgument, func() (a, b, c *tensor.Tensor) { return e.LayerNormGrad(x, g, x, float32(math.NaN())) }},
		{"infinite eps", tensor.ErrArgument, func() (a, b, c *tensor.Tensor) { return e.LayerNormGrad(x, g, x, float32(math.Inf(1))) }},
		{"a disposed dy", tensor.ErrDisposed, func() (a, b, c *tensor.Tensor) { return e.LayerNormGrad(x, g, disposed, 1e-5) }},
	} {
		live := e.NumTensors()
		a, b, d := c.f()
		for _, r := range []*tensor.Tensor{a, b, d} {
			err := r.Err()
			var oe *tensor.OpError
			require.True(t, errors.As(err, &oe), "%s: %v", c.name, err)
			assert.ErrorIs(t, err, c.kind, c.name)
			assert.Contains(t, err.Error(), "layer_norm_grad", c.name)
		}
		assert.Equal(t, live, e.NumTensors(), c.name)
	}
}

// BenchmarkLayerNormGrad compares the fused backward with the ops it
// replaces (package grad's rule before it).
func BenchmarkLayerNormGrad(b *testing.B) {
	for _, s := range [][2]int{{64, 256}, {1024, 128}, {256, 1024}, {4096, 128}} {
		for _, kind := range []string{"fused", "composed"} {
			b.Run(fmt.Sprintf("%dx%d/%s", s[0], s[1], kind), func(b *testing.B) {
				e := testgpu.Engine(b)
				r := rand.New(rand.NewPCG(1, 2))
				x := e.FromFloat32s(randF32(r, s[0]*s[1], -2, 2), s[0], s[1])
				dy := e.FromFloat32s(randF32(r, s[0]*s[1], -1, 1), s[0], s[1])
				g := e.FromFloat32s(randF32(r, s[1], 0.5, 1.5), s[1])
				defer tidy.Dispose([]*tensor.Tensor{x, dy, g})
				op := func() []*tensor.Tensor { a, b, c := e.LayerNormGrad(x, g, dy, 1e-5); return []*tensor.Tensor{a, b, c} }
				if kind == "composed" {
					op = func() []*tensor.Tensor {
						a, b, c := composedLayerNormGrad(e, x, g, dy, 1e-5)
						return []*tensor.Tensor{a, b, c}
					}
				}
				warm := op()
				readBack(b, warm[0])
				tidy.Dispose(warm)
				b.ResetTimer()
				var last []*tensor.Tensor
				for range b.N {
					tidy.Dispose(last)
					last = op()
				}
				readBack(b, last[0])
				readBack(b, last[1])
				b.StopTimer()
				tidy.Dispose(last)
			})
		}
	}
}
