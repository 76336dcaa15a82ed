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

// attnProblem is one attention problem on the host: inputs, masks folded
// into a bias of -Inf (masked) or an added value for every (head, query,
// key), the dropout keep decisions, and the scale.
type attnProblem struct {
	BH, Tq, Tk, D, Dv int
	q, k, v           []float32
	bias              []float64 // [BH, Tq, Tk]; nil: none
	masked            []bool    // [BH, Tq, Tk]: masked by a boolean mask, padding or causality
	keep              []bool    // [BH, Tq, Tk] dropout's decisions; nil: no dropout
	dropScale         float64
	scale             float64
}

// attnRef is the float64 reference: for each head and query row,
// softmax over the unmasked keys of scale·q·k + bias, applied (with
// dropout) to v; a row with no unmasked key gives 0 and lse +Inf. It
// returns out [BH·Tq, Dv], lse [BH·Tq] and the weights P [BH, Tq, Tk]
// (before dropout).
func attnRef(p attnProblem) (out, lse, P []float64) {
	out = make([]float64, p.BH*p.Tq*p.Dv)
	lse = make([]float64, p.BH*p.Tq)
	P = make([]float64, p.BH*p.Tq*p.Tk)
	s := make([]float64, p.Tk)
	for bh := range p.BH {
		for i := range p.Tq {
			row := bh*p.Tq + i
			m := math.Inf(-1)
			any := false
			for j := range p.Tk {
				e := (row)*p.Tk + j
				dot := 0.0
				for d := range p.D {
					dot += float64(p.q[row*p.D+d]) * float64(p.k[(bh*p.Tk+j)*p.D+d])
				}
				s[j] = dot * p.scale
				if p.bias != nil {
					s[j] += p.bias[e]
				}
				if p.masked != nil && p.masked[e] || s[j] == math.Inf(-1) {
					s[j] = math.Inf(-1)
					continue
				}
				any = true
				if math.IsNaN(s[j]) || math.IsNaN(m) {
					m = math.NaN()
				} else {
					m = math.Max(m, s[j])
				}
			}
			if !any {
				lse[row] = math.Inf(1)
				continue
			}
			sum := 0.0
			for j := range p.Tk {
				if s[j] != math.Inf(-1) {
					sum += math.Exp(s[j] - m)
				}
			}
			lse[row] = m + math.Log(sum)
			for j := range p.Tk {
				e := row*p.Tk + j
				if s[j] == math.Inf(-1) {
					continue
				}
				P[e] = math.Exp(s[j]-m) / sum
				w := P[e]
				if p.keep != nil {
					w = 0
					if p.keep[e] {
						w = P[e] * p.dropScale
					}
				}
				for d := range p.Dv {
					out[row*p.Dv+d] += w * float64(p.v[(bh*p.Tk+j)*p.Dv+d])
				}
			}
		}
	}
	return out, lse, P
}

// attnRefGrad is the float64 gradient of attnRef's out with respect to q,
// k and v, given dout.
func attnRefGrad(p attnProblem, dout []float32) (dq, dk, dv []float64) {
	out, _, P := attnRef(p)
	dq, dk, dv = make([]float64, len(p.q)), make([]float64, len(p.k)), make([]float64, len(p.v))
	for bh := range p.BH {
		for i := range p.Tq {
			row := bh*p.Tq + i
			delta := 0.0
			for d := range p.Dv {
				delta += float64(dout[row*p.Dv+d]) * out[row*p.Dv+d]
			}
			for j := range p.Tk {
				e := row*p.Tk + j
				if P[e] == 0 {
					continue
				}
				key := bh*p.Tk + j
				z := 1.0
				if p.keep != nil {
					z = 0
					if p.keep[e] {
						z = p.dropScale
					}
				}
				dp := 0.0
				for d := range p.Dv {
					dp += float64(dout[row*p.Dv+d]) * float64(p.v[key*p.Dv+d])
					dv[key*p.Dv+d] += P[e] * z * float64(dout[row*p.Dv+d])
				}
				ds := P[e] * (z*dp - delta)
				for d := range p.D {
					dq[row*p.D+d] += p.scale * ds * float64(p.k[key*p.D+d])
					dk[key*p.D+d] += p.scale * ds * float64(p.q[row*p.D+d])
				}
			}
		}
	}
	return dq, dk, dv
}

func f32sFrom(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// attnCase is one configuration of the reference tests.
type attnCase struct {
	name              string
	B, H, Tq, Tk      int
	D, Dv             int
	rank3             bool
	causal            bool
	mask              string // "", "add", "u32", "i32"
	maskShape         []int  // broadcast to [B, H, Tq, Tk] (or [B, Tq, Tk] with rank3)
	padding           bool
	scale, dropout    float32
	seed              uint64
	fullyMaskedRowsOK bool
}

var attnCases = []attnCase{
	{name: "plain", B: 2, H: 3, Tq: 5, Tk: 7, D: 8, Dv: 4},
	{name: "odd D", B: 1, H: 2, Tq: 6, Tk: 6, D: 5, Dv: 3},
	{name: "rank 3", B: 3, Tq: 4, Tk: 9, D: 4, Dv: 6, rank3: true},
	{name: "causal", B: 2, H: 2, Tq: 9, Tk: 9, D: 4, Dv: 4, causal: true},
	{name: "causal Tq<Tk", B: 1, H: 2, Tq: 3, Tk: 8, D: 3, Dv: 5, causal: true},
	{name: "causal Tq>Tk", B: 1, H: 1, Tq: 8, Tk: 3, D: 2, Dv: 2, causal: true},
	{name: "additive mask", B: 2, H: 2, Tq: 5, Tk: 6, D: 4, Dv: 4, mask: "add", maskShape: []int{5, 6}},
	{name: "additive mask per head", B: 2, H: 3, Tq: 4, Tk: 5, D: 7, Dv: 2, mask: "add", maskShape: []int{1, 3, 1, 5}},
	{name: "additive mask full", B: 2, H: 2, Tq: 3, Tk: 4, D: 4, Dv: 3, mask: "add", maskShape: []int{2, 2, 3, 4}, fullyMaskedRowsOK: true},
	{name: "boolean mask u32", B: 2, H: 2, Tq: 6, Tk: 5, D: 4, Dv: 4, mask: "u32", maskShape: []int{2, 1, 6, 5}, fullyMaskedRowsOK: true},
	{name: "boolean mask i32 rank 3", B: 4, Tq: 3, Tk: 5, D: 3, Dv: 3, rank3: true, mask: "i32", maskShape: []int{3, 5}, fullyMaskedRowsOK: true},
	{name: "key padding", B: 3, H: 2, Tq: 4, Tk: 6, D: 4, Dv: 5, padding: true, fullyMaskedRowsOK: true},
	{name: "everything", B: 2, H: 2, Tq: 7, Tk: 7, D: 6, Dv: 3, causal: true, mask: "add", maskShape: []int{7, 7}, padding: true, scale: 0.7, fullyMaskedRowsOK: true},
	{name: "scale", B: 1, H: 2, Tq: 3, Tk: 3, D: 4, Dv: 4, scale: -1.5},
	{name: "past the tile", B: 1, H: 2, Tq: 70, Tk: 70, D: 5, Dv: 3, causal: true},
	{name: "Tq 70 Tk 67 mask", B: 1, H: 1, Tq: 70, Tk: 67, D: 8, Dv: 8, mask: "add", maskShape: []int{70, 67}},
	{name: "one", B: 1, H: 1, Tq: 1, Tk: 1, D: 1, Dv: 1},
	{name: "no keys", B: 2, H: 1, Tq: 3, Tk: 0, D: 2, Dv: 2, fullyMaskedRowsOK: true},
	{name: "no queries", B: 2, H: 1, Tq: 0, Tk: 3, D: 2, Dv: 2},
	{name: "D 0", B: 1, H: 1, Tq: 3, Tk: 4, D: 0, Dv: 2},
	{name: "Dv 0", B: 1, H: 1, Tq: 3, Tk: 4, D: 2, Dv: 0},
	{name: "D 64 fused", B: 1, H: 2, Tq: 9, Tk: 6, D: 64, Dv: 64, causal: true},
	{name: "wide heads composed", B: 1, H: 2, Tq: 5, Tk: 6, D: 128, Dv: 128, mask: "add", maskShape: []int{5, 6}, padding: true, fullyMaskedRowsOK: true},
	{name: "odd wide heads composed", B: 2, H: 1, Tq: 4, Tk: 7, D: 61, Dv: 7, causal: true, mask: "u32", maskShape: []int{4, 7}, fullyMaskedRowsOK: true},
	{name: "composed dropout rank 3", B: 2, Tq: 4, Tk: 5, D: 40, Dv: 100, rank3: true, dropout: 0.25, seed: 99, padding: true, fullyMaskedRowsOK: true},
	{name: "composed no keys", B: 1, H: 1, Tq: 2, Tk: 0, D: 100, Dv: 100, fullyMaskedRowsOK: true},
	{name: "dropout", B: 2, H: 2, Tq: 6, Tk: 9, D: 4, Dv: 4, dropout: 0.3, seed: 7},
	{name: "dropout causal masked", B: 1, H: 2, Tq: 9, Tk: 9, D: 3, Dv: 5, causal: true, mask: "u32", maskShape: []int{9, 9}, dropout: 0.5, seed: 1 << 40, fullyMaskedRowsOK: true},
	{name: "dropout all", B: 1, H: 1, Tq: 3, Tk: 4, D: 2, Dv: 2, dropout: 1, seed: 3},
}

// attnBuilt is a case's tensors and host problem.
type attnBuilt struct {
	q, k, v *tensor.Tensor
	opts    tensor.AttentionOptions
	prob    attnProblem
	owned   []*tensor.Tensor
}

func (b attnBuilt) dispose() { tidy.Dispose(b.owned) }

// build makes c's inputs from r, on e.
func (c attnCase) build(t *testing.T, e *tensor.Engine, r *rand.Rand) attnBuilt {
	t.Helper()
	H := c.H
	if c.rank3 {
		H = 1
	}
	BH := c.B * H
	p := attnProblem{BH: BH, Tq: c.Tq, Tk: c.Tk, D: c.D, Dv: c.Dv,
		q: randF32(r, BH*c.Tq*c.D, -1.5, 1.5), k: randF32(r, BH*c.Tk*c.D, -1.5, 1.5), v: randF32(r, BH*c.Tk*c.Dv, -2, 2)}
	p.scale = float64(c.scale)
	if c.scale == 0 {
		p.scale = float64(float32(1 / math.Sqrt(float64(max(c.D, 1)))))
	}
	shape := func(T, D int) []int {
		if c.rank3 {
			return []int{c.B, T, D}
		}
		return []int{c.B, c.H, T, D}
	}
	var b attnBuilt
	b.q, b.k, b.v = e.FromFloat32s(p.q, shape(c.Tq, c.D)...), e.FromFloat32s(p.k, shape(c.Tk, c.D)...), e.FromFloat32s(p.v, shape(c.Tk, c.Dv)...)
	b.owned = []*tensor.Tensor{b.q, b.k, b.v}
	n := BH * c.Tq * c.Tk
	p.masked = make([]bool, n)
	full := []int{c.B, H, c.Tq, c.Tk}
	// at returns the flat index into a tensor of shape s (broadcast to
	// full, right-aligned) of element (b, h, i, j).
	at := func(s []int, idx []int) int {
		f := idx
		if c.rank3 {
			f = []int{idx[0], idx[2], idx[3]}
		}
		off, stride := 0, 1
		for d := len(s) - 1; d >= 0; d-- {
			x := f[len(f)-len(s)+d]
			if s[d] == 1 {
				x = 0
			}
			off += x * stride
			stride *= s[d]
		}
		return off
	}
	each := func(f func(e int, idx []int)) {
		for bi := range c.B {
			for h := range H {
				for i := range c.Tq {
					for j := range c.Tk {
						f(((bi*H+h)*c.Tq+i)*c.Tk+j, []int{bi, h, i, j})
					}
				}
			}
		}
	}
	_ = full
	switch c.mask {
	case "add":
		mv := make([]float32, size(c.maskShape))
		for i := range mv {
			mv[i] = float32(r.Float64()*4 - 2)
			if r.IntN(8) == 0 {
				mv[i] = float32(math.Inf(-1))
			}
		}
		b.opts.Mask = e.FromFloat32s(mv, c.maskShape...)
		p.bias = make([]float64, n)
		each(func(el int, idx []int) { p.bias[el] = float64(mv[at(c.maskShape, idx)]) })
	case "u32", "i32":
		mv := make([]uint32, size(c.maskShape))
		for i := range mv {
			if r.IntN(4) != 0 {
				mv[i] = uint32(1 + r.IntN(3)) // any nonzero attends
				if c.mask == "i32" && r.IntN(2) == 0 {
					mv[i] = uint32(0xffffffff) // -1
				}
			}
		}
		if c.mask == "u32" {
			b.opts.Mask = e.FromUint32s(mv, c.maskShape...)
		} else {
			iv := make([]int32, len(mv))
			for i, x := range mv {
				iv[i] = int32(x)
			}
			b.opts.Mask = e.FromInt32s(iv, c.maskShape...)
		}
		each(func(el int, idx []int) { p.masked[el] = p.masked[el] || mv[at(c.maskShape, idx)] == 0 })
	}
	if b.opts.Mask != nil {
		b.owned = append(b.owned, b.opts.Mask)
	}
	if c.padding {
		pv := make([]int32, c.B*c.Tk)
		for i := range pv {
			if r.IntN(3) == 0 {
				pv[i] = int32(1 + r.IntN(5))
			}
		}
		for j := range c.Tk { // the first batch has every key padded
			pv[j] = 1
		}
		b.opts.KeyPadding = e.FromInt32s(pv, c.B, c.Tk)
		b.owned = append(b.owned, b.opts.KeyPadding)
		each(func(el int, idx []int) {
			bi := idx[0]
			if c.rank3 {
				bi = idx[0] // [BH, Tk]
			}
			p.masked[el] = p.masked[el] || pv[bi*c.Tk+idx[3]] != 0
		})
	}
	if c.causal {
		b.opts.Causal = true
		each(func(el int, idx []int) { p.masked[el] = p.masked[el] || idx[3] > idx[2] })
	}
	b.opts.Scale = c.scale
	if c.dropout > 0 {
		b.opts.Dropout, b.opts.Seed = c.dropout, c.seed
		u := e.RandUniform(c.seed, 0, 1, BH, c.Tq, c.Tk)
		uv := f32s(t, u)
		u.Dispose()
		p.keep = make([]bool, n)
		for i, x := range uv {
			p.keep[i] = x >= c.dropout
		}
		if c.dropout < 1 {
			p.dropScale = float64(float32(1 / (1 - c.dropout)))
		}
	}
	b.prob = p
	return b
}

// checkLSE compares lse with the reference: +Inf exactly, others close.
func checkLSE(t *testing.T, want []float64, got []float32, msg string) {
	t.Helper()
	require.Len(t, got, len(want), msg)
	for i, w := range want {
		if math.IsInf(w, 1) || math.IsNaN(w) {
			assert.Equal(t, fmt.Sprint(float32(w)), fmt.Sprint(got[i]), "%s: lse %d", msg, i)
			continue
		}
		assert.InDelta(t, w, float64(got[i]), 2e-5+2e-6*math.Abs(w), "%s: lse %d", msg, i)
	}
}

func TestAttentionAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(20, 1))
	for _, c := range attnCases {
		t.Run(c.name, func(t *testing.T) {
			b := c.build(t, e, r)
			defer b.dispose()
			wantOut, wantLSE, _ := attnRef(b.prob)
			n := b.prob.BH * b.prob.Tq
			dirty(e, n*max(b.prob.Dv, 1)+n)
			out, lse := e.ScaledDotProductAttentionLSE(b.q, b.k, b.v, b.opts)
			defer tidy.Dispose([]*tensor.Tensor{out, lse})
			require.NoError(t, out.Err())
			wantShape := append(b.q.Shape()[:b.q.Rank()-1:b.q.Rank()-1], c.Dv)
			assert.Equal(t, tensor.Shape(wantShape), out.Shape())
			assert.Equal(t, b.q.Shape()[:b.q.Rank()-1], lse.Shape())
			closeTo(t, f32sFrom(wantOut), f32s(t, out), 2e-6, 2e-5, "out")
			checkLSE(t, wantLSE, f32s(t, lse), "lse")
			if !c.fullyMaskedRowsOK {
				for i, l := range wantLSE {
					require.False(t, math.IsInf(l, 1), "row %d has no key: the case should not mask any row fully", i)
				}
			}
			plain := e.ScaledDotProductAttention(b.q, b.k, b.v, b.opts)
			assert.Equal(t, f32s(t, out), f32s(t, plain), "ScaledDotProductAttention differs from ScaledDotProductAttentionLSE")
			plain.Dispose()
		})
	}
}

// The gradient kernels against the float64 gradient of the reference,
// for every case (package grad checks them against finite differences).
func TestAttentionGradAgainstReference(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(20, 2))
	for _, c := range attnCases {
		t.Run(c.name, func(t *testing.T) {
			b := c.build(t, e, r)
			defer b.dispose()
			p := b.prob
			dout := randF32(r, p.BH*p.Tq*p.Dv, -1, 1)
			wq, wk, wv := attnRefGrad(p, dout)
			err := tidy.Do(e, func() error {
				out, lse := e.ScaledDotProductAttentionLSE(b.q, b.k, b.v, b.opts)
				dirty(e, len(p.q)+len(p.k)+len(p.v)+p.BH*p.Tq)
				dq, dk, dv := e.ScaledDotProductAttentionGrad(b.q, b.k, b.v, out, lse, e.FromFloat32s(dout, out.Shape()...), b.opts)
				if err := dq.Err(); err != nil {
					return err
				}
				assert.Equal(t, b.q.Shape(), dq.Shape())
				assert.Equal(t, b.k.Shape(), dk.Shape())
				assert.Equal(t, b.v.Shape(), dv.Shape())
				closeTo(t, f32sFrom(wq), f32s(t, dq), 2e-6, 5e-5, "dq")
				closeTo(t, f32sFrom(wk), f32s(t, dk), 2e-6, 5e-5, "dk")
				closeTo(t, f32sFrom(wv), f32s(t, dv), 2e-6, 5e-5, "dv")
				return nil
			})
			require.NoError(t, err)
		})
	}
}

// Both kernel shapes (one row a thread, as on a GPU, and four, as on a
// CPU adapter) give the reference's results.
func TestAttentionRowsPerThread(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(20, 3))
	for _, rows := range []int{1, 2, 4} {
		tensor.ForceAttentionRows(rows)
		for _, c := range []attnCase{attnCases[0], attnCases[3], attnCases[12], attnCases[22]} {
			b := c.build(t, e, r)
			wantOut, wantLSE, _ := attnRef(b.prob)
			out, lse := e.ScaledDotProductAttentionLSE(b.q, b.k, b.v, b.opts)
			closeTo(t, f32sFrom(wantOut), f32s(t, out), 2e-6, 2e-5, "%s rows %d", c.name, rows)
			checkLSE(t, wantLSE, f32s(t, lse), c.name)
			dout := randF32(r, b.prob.BH*b.prob.Tq*b.prob.Dv, -1, 1)
			wq, wk, wv := attnRefGrad(b.prob, dout)
			do := e.FromFloat32s(dout, out.Shape()...)
			dq, dk, dv := e.ScaledDotProductAttentionGrad(b.q, b.k, b.v, out, lse, do, b.opts)
			closeTo(t, f32sFrom(wq), f32s(t, dq), 2e-6, 5e-5, "%s rows %d dq", c.name, rows)
			closeTo(t, f32sFrom(wk), f32s(t, dk), 2e-6, 5e-5, "%s rows %d dk", c.name, rows)
			closeTo(t, f32sFrom(wv), f32s(t, dv), 2e-6, 5e-5, "%s rows %d dv", c.name, rows)
			tidy.Dispose([]*tensor.Tensor{out, lse, do, dq, dk, dv})
			b.dispose()
		}
	}
	tensor.ForceAttentionRows(0)
}

// Issue 20: the kernels loop once per key (per query for dk and dv),
// and lavapipe stops an invocation's loops after 65,535 trips. Sequences
// at and past kernels.AttentionInnerRange, and past that budget, are cut
// into dispatches of at most AttentionInnerRange keys (queries), each
// resuming from the last; results first hold NaN (dirty), so that an
// element a stopped loop left unwritten shows.
func TestAttentionLongSequences(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(20, 4))
	ctx := context.Background()
	n := kernels.AttentionInnerRange
	require.Less(t, n, kernels.MaxLoopTrips)
	for _, c := range []attnCase{
		{name: "keys at the range", B: 1, H: 1, Tq: 9, Tk: n, D: 4, Dv: 4},
		{name: "keys past the range", B: 1, H: 1, Tq: 8, Tk: n + 1, D: 4, Dv: 4, mask: "add", maskShape: []int{8, n + 1}},
		{name: "keys past the loop budget", B: 2, H: 1, Tq: 8, Tk: kernels.MaxLoopTrips + 4467, D: 3, Dv: 2, padding: true, fullyMaskedRowsOK: true},
		{name: "queries past the loop budget", B: 1, H: 1, Tq: kernels.MaxLoopTrips + 4467, Tk: 8, D: 4, Dv: 4, causal: true},
		{name: "dropout past the range", B: 1, H: 1, Tq: 8, Tk: n + 5, D: 4, Dv: 4, dropout: 0.2, seed: 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := c.build(t, e, r)
			defer b.dispose()
			p := b.prob
			wantOut, wantLSE, _ := attnRef(p)
			dout := randF32(r, p.BH*p.Tq*p.Dv, -1, 1)
			wq, wk, wv := attnRefGrad(p, dout)
			err := tidy.Do(e, func() error {
				dirty(e, len(p.q)+len(p.k)+len(p.v)+2*p.BH*p.Tq*4)
				var out, lse, dq, dk, dv *tensor.Tensor
				prof, err := e.Profile(ctx, func() error {
					out, lse = e.ScaledDotProductAttentionLSE(b.q, b.k, b.v, b.opts)
					dq, dk, dv = e.ScaledDotProductAttentionGrad(b.q, b.k, b.v, out, lse, e.FromFloat32s(dout, out.Shape()...), b.opts)
					return dv.Err()
				})
				if err != nil {
					return err
				}
				// Sums of 70,000 terms in float32, one after another: their
				// rounding reaches a few parts in 10,000.
				closeTo(t, f32sFrom(wantOut), f32s(t, out), 1e-5, 1e-3, "out")
				checkLSE(t, wantLSE, f32s(t, lse), "lse")
				closeTo(t, f32sFrom(wq), f32s(t, dq), 1e-5, 1e-3, "dq")
				closeTo(t, f32sFrom(wk), f32s(t, dk), 1e-5, 1e-3, "dk")
				closeTo(t, f32sFrom(wv), f32s(t, dv), 1e-5, 1e-3, "dv")
				// At least one dispatch per AttentionInnerRange keys (queries).
				keys, queries := (p.Tk+n-1)/n, (p.Tq+n-1)/n
				assert.GreaterOrEqual(t, prof.Total("attention_forward").Calls, keys)
				assert.GreaterOrEqual(t, prof.Total("attention_grad_q").Calls, keys)
				assert.GreaterOrEqual(t, prof.Total("attention_grad_kv").Calls, queries)
				return nil
			})
			require.NoError(t, err)
		})
	}
}

// Edge values: -Inf entries of an additive mask, rows with every key
// masked (0 out, +Inf lse, zero gradients), logits whose exp overflows
// float32, NaN spreading to exactly the rows whose scores hold it, +Inf
// scores, and NaN in the value of a masked key (ignored), for the fused
// kernels and the composed path.
func TestAttentionEdgeValues(t *testing.T) {
	e := testgpu.Engine(t)
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, D := range []int{4, 120} { // fused, composed
		t.Run(fmt.Sprint("D ", D), func(t *testing.T) {
			r := rand.New(rand.NewPCG(20, 5))
			const Tq, Tk = 4, 5
			qv, kv, vv := randF32(r, Tq*D, -1, 1), randF32(r, Tk*D, -1, 1), randF32(r, Tk*D, -1, 1)
			run := func(q, k, v []float32, opts tensor.AttentionOptions) (out, lse []float32) {
				t.Helper()
				qt, kt, vt := e.FromFloat32s(q, 1, 1, Tq, D), e.FromFloat32s(k, 1, 1, Tk, D), e.FromFloat32s(v, 1, 1, Tk, D)
				o, l := e.ScaledDotProductAttentionLSE(qt, kt, vt, opts)
				out, lse = f32s(t, o), f32s(t, l)
				tidy.Dispose([]*tensor.Tensor{qt, kt, vt, o, l})
				return out, lse
			}
			ref := func(q, k, v []float32, bias []float64, masked []bool) ([]float32, []float64) {
				o, l, _ := attnRef(attnProblem{BH: 1, Tq: Tq, Tk: Tk, D: D, Dv: D, q: q, k: k, v: v, bias: bias, masked: masked,
					scale: float64(float32(1 / math.Sqrt(float64(D))))})
				return f32sFrom(o), l
			}
			// An additive mask: row 0 masks two keys, row 2 every key.
			mv := make([]float32, Tq*Tk)
			mv[0], mv[3] = -inf, -inf
			for j := range Tk {
				mv[2*Tk+j] = -inf
			}
			bias := make([]float64, len(mv))
			for i, x := range mv {
				bias[i] = float64(x)
			}
			mask := e.FromFloat32s(mv, Tq, Tk)
			out, lse := run(qv, kv, vv, tensor.AttentionOptions{Mask: mask})
			mask.Dispose()
			wantOut, wantLSE := ref(qv, kv, vv, bias, nil)
			closeTo(t, wantOut, out, 2e-6, 2e-5, "-Inf mask")
			checkLSE(t, wantLSE, lse, "-Inf mask")
			assert.Equal(t, make([]float32, D), out[2*D:3*D], "a fully masked row gives 0")
			assert.True(t, math.IsInf(float64(lse[2]), 1), "a fully masked row's lse is +Inf")

			// Large logits: scores of about ±1e4, whose exp overflows.
			big := make([]float32, len(qv))
			for i, x := range qv {
				big[i] = x * 300
			}
			out, lse = run(big, kv, vv, tensor.AttentionOptions{})
			wantOut, wantLSE = ref(big, kv, vv, nil, nil)
			closeTo(t, wantOut, out, 1e-5, 1e-4, "large logits")
			checkLSE(t, wantLSE, lse, "large logits")

			// NaN in q's row 1 and in k's key 3 under a causal mask: row 1
			// and the rows that attend key 3 (3) are NaN; row 0 and 2 not.
			qn := append([]float32(nil), qv...)
			qn[1*D+1] = nan
			kn := append([]float32(nil), kv...)
			kn[3*D] = nan
			out, _ = run(qn, kn, vv, tensor.AttentionOptions{Causal: true})
			for i := range Tq {
				for d := range D {
					assert.Equal(t, i == 1 || i == 3, isNaN32(out[i*D+d]), "NaN row %d col %d", i, d)
				}
			}
			// +Inf in q gives +Inf scores: its row is NaN, as softmax's.
			qi := append([]float32(nil), qv...)
			qi[2*D] = inf
			out, _ = run(qi, kv, vv, tensor.AttentionOptions{})
			for d := range D {
				assert.True(t, isNaN32(out[2*D+d]), "+Inf score: col %d", d)
				assert.False(t, isNaN32(out[d]), "+Inf score's row only")
			}
			// NaN in the value of a padded key changes nothing (fused), or
			// is multiplied by a zero weight (composed, as PyTorch's math).
			vn := append([]float32(nil), vv...)
			vn[4*D+2] = nan
			pad := e.FromInt32s([]int32{0, 0, 0, 0, 1}, 1, Tk)
			out, _ = run(qv, kv, vn, tensor.AttentionOptions{KeyPadding: pad})
			pad.Dispose()
			masked := make([]bool, Tq*Tk)
			for i := range Tq {
				masked[i*Tk+4] = true
			}
			wantOut, _ = ref(qv, kv, vv, nil, masked)
			if kernels.AttentionFits(D, D) {
				closeTo(t, wantOut, out, 2e-6, 2e-5, "NaN in a padded key's value")
			} else {
				for i := range Tq {
					assert.True(t, isNaN32(out[i*D+2]), "composed: 0·NaN in column 2, row %d", i)
				}
			}
		})
	}
}

// Dropout is a function of the seed: the same seed gives the same bits,
// forward and backward, another seed other weights, and a probability of
// 0 gives the result without dropout, bit for bit.
func TestAttentionDropoutDeterministic(t *testing.T) {
	e := testgpu.Engine(t)
	q := e.RandNormal(1, 0, 1, 2, 2, 9, 8)
	k := e.RandNormal(2, 0, 1, 2, 2, 11, 8)
	v := e.RandNormal(3, 0, 1, 2, 2, 11, 4)
	do := e.RandNormal(4, 0, 1, 2, 2, 9, 4)
	defer tidy.Dispose([]*tensor.Tensor{q, k, v, do})
	all := func(o tensor.AttentionOptions) [][]float32 {
		out, lse := e.ScaledDotProductAttentionLSE(q, k, v, o)
		dq, dk, dv := e.ScaledDotProductAttentionGrad(q, k, v, out, lse, do, o)
		defer tidy.Dispose([]*tensor.Tensor{out, lse, dq, dk, dv})
		return [][]float32{f32s(t, out), f32s(t, dq), f32s(t, dk), f32s(t, dv)}
	}
	a := all(tensor.AttentionOptions{Dropout: 0.4, Seed: 11, Causal: true})
	assert.Equal(t, a, all(tensor.AttentionOptions{Dropout: 0.4, Seed: 11, Causal: true}), "same seed")
	b := all(tensor.AttentionOptions{Dropout: 0.4, Seed: 12, Causal: true})
	assert.NotEqual(t, a[0], b[0], "another seed")
	assert.Equal(t, all(tensor.AttentionOptions{Causal: true}), all(tensor.AttentionOptions{Causal: true, Seed: 3}), "no dropout")
}

func TestAttentionErrors(t *testing.T) {
	e := testgpu.Engine(t)
	f := func(s ...int) *tensor.Tensor { return e.Zeros(tensor.Float32, s...) }
	q, k, v := f(2, 3, 4, 8), f(2, 3, 5, 8), f(2, 3, 5, 6)
	qi := e.Zeros(tensor.Int32, 2, 3, 4, 8)
	owned := []*tensor.Tensor{q, k, v, qi}
	own := func(x *tensor.Tensor) *tensor.Tensor { owned = append(owned, x); return x }
	defer func() { tidy.Dispose(owned) }()
	disposed := f(2, 3, 5, 8)
	disposed.Dispose()
	gradOut, gradLSE := own(f(2, 3, 4, 6)), own(f(2, 3, 4))
	for _, c := range []struct {
		name    string
		q, k, v *tensor.Tensor
		o       tensor.AttentionOptions
		kind    error
		says    string
	}{
		{"int q", qi, k, v, tensor.AttentionOptions{}, tensor.ErrDType, "float32"},
		{"rank 2", own(f(4, 8)), own(f(5, 8)), own(f(5, 6)), tensor.AttentionOptions{}, tensor.ErrShape, "[B, H, T, D]"},
		{"ranks differ", q, own(f(6, 5, 8)), own(f(6, 5, 6)), tensor.AttentionOptions{}, tensor.ErrShape, "[B, H, T, D]"},
		{"heads differ", q, own(f(2, 2, 5, 8)), own(f(2, 2, 5, 6)), tensor.AttentionOptions{}, tensor.ErrShape, "batch"},
		{"D differs", q, own(f(2, 3, 5, 7)), v, tensor.AttentionOptions{}, tensor.ErrShape, "last dimension"},
		{"keys differ", q, k, own(f(2, 3, 6, 6)), tensor.AttentionOptions{}, tensor.ErrShape, "keys"},
		{"mask shape", q, k, v, tensor.AttentionOptions{Mask: own(f(4, 6))}, tensor.ErrShape, "does not broadcast"},
		{"mask rank", q, k, v, tensor.AttentionOptions{Mask: own(f(1, 2, 3, 4, 5))}, tensor.ErrShape, "does not broadcast"},
		{"padding dtype", q, k, v, tensor.AttentionOptions{KeyPadding: own(f(2, 5))}, tensor.ErrDType, "int32 or uint32"},
		{"padding shape", q, k, v, tensor.AttentionOptions{KeyPadding: own(e.Zeros(tensor.Uint32, 2, 4))}, tensor.ErrShape, "[2 5]"},
		{"scale NaN", q, k, v, tensor.AttentionOptions{Scale: float32(math.NaN())}, tensor.ErrArgument, "scale"},
		{"dropout 1.5", q, k, v, tensor.AttentionOptions{Dropout: 1.5}, tensor.ErrArgument, "dropout"},
		{"dropout NaN", q, k, v, tensor.AttentionOptions{Dropout: float32(math.NaN())}, tensor.ErrArgument, "dropout"},
		{"disposed k", q, disposed, v, tensor.AttentionOptions{}, tensor.ErrDisposed, ""},
		{"nil mask tensor", q, k, v, tensor.AttentionOptions{Mask: &tensor.Tensor{}}, tensor.ErrArgument, "nil or zero"},
	} {
		before := e.NumTensors()
		y := e.ScaledDotProductAttention(c.q, c.k, c.v, c.o)
		err := y.Err()
		require.Error(t, err, c.name)
		assert.True(t, errors.Is(err, c.kind), "%s: %v", c.name, err)
		assert.Contains(t, err.Error(), "scaled_dot_product_attention", c.name)
		assert.Contains(t, err.Error(), c.says, c.name)
		if c.kind != tensor.ErrDisposed && c.kind != tensor.ErrArgument {
			assert.Contains(t, err.Error(), fmt.Sprint(c.q.Shape()), "%s: the error names the shapes", c.name)
		}
		out, lse := e.ScaledDotProductAttentionLSE(c.q, c.k, c.v, c.o)
		require.Error(t, out.Err())
		require.Error(t, lse.Err())
		dq, dk, dv := e.ScaledDotProductAttentionGrad(c.q, c.k, c.v, gradOut, gradLSE, gradOut, c.o)
		for _, g := range []*tensor.Tensor{dq, dk, dv} {
			require.Error(t, g.Err(), c.name)
		}
		assert.Equal(t, before, e.NumTensors(), "%s: a failed op leaves nothing live", c.name)
	}
	// The gradient's own inputs.
	out, lse := e.ScaledDotProductAttentionLSE(q, k, v, tensor.AttentionOptions{})
	defer tidy.Dispose([]*tensor.Tensor{out, lse})
	for _, c := range []struct {
		name           string
		out, lse, dout *tensor.Tensor
		kind           error
	}{
		{"out shape", own(f(2, 3, 4, 5)), lse, out, tensor.ErrShape},
		{"lse shape", out, own(f(2, 3, 5)), out, tensor.ErrShape},
		{"dout dtype", out, lse, own(e.Zeros(tensor.Int32, 2, 3, 4, 6)), tensor.ErrDType},
	} {
		dq, _, _ := e.ScaledDotProductAttentionGrad(q, k, v, c.out, c.lse, c.dout, tensor.AttentionOptions{})
		assert.True(t, errors.Is(dq.Err(), c.kind), "%s: %v", c.name, dq.Err())
		assert.Contains(t, dq.Err().Error(), "scaled_dot_product_attention_grad", c.name)
	}
	mg := e.ScaledDotProductAttentionMaskGrad(q, k, v, out, lse, out, tensor.AttentionOptions{})
	assert.True(t, errors.Is(mg.Err(), tensor.ErrArgument), "%v", mg.Err())
}
