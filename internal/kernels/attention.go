package kernels

import (
	"fmt"
	"strings"

	"github.com/wgtensor/wgtensor/wgpu"
)

// AttentionPass names one of the fused attention kernels.
type AttentionPass string

// The attention kernels: the forward pass and the two halves of its
// gradient, as FlashAttention-2 splits it.
const (
	AttentionForward AttentionPass = "forward"
	AttentionGradQ   AttentionPass = "grad_q"
	AttentionGradKV  AttentionPass = "grad_kv"
)

// Attention is the family of fused scaled-dot-product attention kernels
// (FlashAttention's online-softmax formulation, reshaped for CPU
// adapters): no kernel forms the [Tq, Tk] matrix of scores or weights.
// Tensors are viewed as rows: the query rows of q and of the output (and
// of dq and dout) are D and Dv wide, the key rows of k and v (dk and dv)
// D and Dv wide, wherever their layouts put them (see Layouts below); the
// per-row logsumexp L and Δ are [BH·Tq], row bh·Tq + i. For query i and
// key j of head bh (b = bh / Heads, h = bh mod Heads):
//
//	s_ij = Scale·(q_i·k_j) + mask[b,h,i,j]   (MaskAdd)
//
// and key j is masked for query i where Causal and j > i, where
// MaskBool's word is 0, where KeyPadding's word for (b, j) is not 0, or
// where s_ij is -Inf. Masked keys are skipped (they add nothing, not even
// a NaN of their values). With P_ij = softmax_j(s_ij) over the unmasked
// keys and, with Dropout, Z_ij the keep decision (see below):
//
//	forward:  O_i = Σ_j P_ij·Z_ij·DropScale·v_j,  L_i = logsumexp_j s_ij
//	grad_q:   Δ_i = dO_i·O_i,  dq_i = Scale·Σ_j dS_ij·k_j
//	grad_kv:  dv_j = Σ_i P_ij·Z_ij·DropScale·dO_i,  dk_j = Scale·Σ_i dS_ij·q_i
//
// with dS_ij = P_ij·(Z_ij·DropScale·(dO_i·v_j) - Δ_i), P recomputed as
// exp(s_ij - L_i). A query row with no unmasked key gets O = 0 and L =
// +Inf (so that every P of the row is 0 in the gradient kernels): zero
// output and zero gradients, where PyTorch gives NaN. A NaN or +Inf score
// makes its row NaN, as softmax does.
//
// Forward and GradQ run a thread per Rows query rows of one head, looping
// over the keys; GradKV a thread per Rows key rows, looping over the
// queries. A thread keeps its rows of q (k and v for GradKV) and its
// accumulators in registers and reads each key (query) once for all its
// rows, as wide vec4 loads where D (Dv) is a multiple of 4. Every loop
// over D, Dv and Rows is unrolled in the generated source (D and Dv are
// part of the variant; each vec4 of a row is a variable of its own), so
// that a thread's only loop is the one over keys (queries): one trip
// each, within the trips gallivm allows an invocation (see LoopTrips) for
// a range of up to AttentionInnerRange. Unrolled kernels compile slowly
// on lavapipe, so their size is bounded (AttentionFits, AttentionRows).
// A dispatch runs the keys (queries) [InnerFirst, InnerEnd) of its
// threads; longer ranges take several dispatches, in order, each resuming
// from what the one before wrote: the forward from O and L (a normalised
// partial result is a complete online-softmax state: m = L, l = 1, acc =
// O), the gradients from dq, dk and dv.
//
// Dropout keeps the weight of query i and key j when the Philox4x32-10
// word of counter (n, 0, 0, 0), n = (bh·Tq + i)·Tk + j as 64 bits, under
// key (SeedLo, SeedHi), as a unit float (see Philox), is at least
// AttentionParams.Dropout: the element n of RandUniform(seed, 0, 1, B, H,
// Tq, Tk) >= Dropout, so the gradient kernels regenerate the forward's
// mask instead of storing it. Its ten rounds are unrolled.
//
// Layouts: row i of head h of batch b of q starts at element
//
//	off + b·batch + h·head + i·row
//
// of its binding (in vec4s where its rows are whole vec4s, else in
// floats), by the words (off, batch, head, row) of AttentionParams.Layouts
// for q, then k, v and the output: [B, H, T, D] is (0, H·T·D, T·D, D), a
// projection [B, T, H·D] with its heads side by side (0, T·H·D, D, H·D),
// and q, k or v packed in one [B, T, 3·H·D] (part·H·D, 3·T·H·D, D,
// 3·H·D). dq, dk and dv are laid out as q, k and v, dout as the output; q,
// k and v may be one buffer bound thrice (only read). The rows of a head
// may so lie anywhere, which lets the caller skip the transposes around
// multi-head attention.
//
// Bindings, in order (MaskAdd's mask is f32, MaskBool's and KeyPadding's
// words u32; the results read_write):
//
//	forward: q, k, v, [mask], [key padding], out, L
//	grad_q:  q, k, v, out, dout, L, [mask], [key padding], dq, Δ
//	grad_kv: q, k, v, dout, L, Δ, [mask], [key padding], dk, dv
//
// With PackedKV (which needs D = Dv), grad_kv's dk and dv are one
// binding, dkv, which holds both at their layouts' offsets: the gradient
// of a packed q, k, v, one buffer that a dispatch may bind only once
// where it writes it.
//
// Its source is attention.wgsl; its parameters are AttentionParams. An
// Attention is a plain value and its methods pure: safe for concurrent
// use.
type Attention struct {
	Pass  AttentionPass
	D, Dv int // the head dimensions of q and k, and of v
	Rows  int // the rows a thread takes: query rows, or key rows for GradKV
	// MaskAdd adds a float mask to the scores; MaskBool masks where a
	// word is 0 (at most one of the two).
	MaskAdd, MaskBool bool
	KeyPadding        bool
	Dropout           bool
	// PackedKV (GradKV only, with D = Dv) writes dk and dv to one
	// binding, dkv.
	PackedKV bool
}

// attentionUnits is the size of one row of an Attention kernel over head
// dimensions d and dv, in vec4 operations per key (query): a row of a
// dimension that is not a multiple of 4 counts thrice, as its loads are
// scalar and its code about that much larger.
func attentionUnits(d, dv int) int {
	w := func(n int) int {
		if n%4 == 0 {
			return vec4s(n)
		}
		return 3 * vec4s(n)
	}
	return max(1, w(d)+w(dv))
}

// maxAttentionUnits bounds Rows·attentionUnits, the size of an Attention
// kernel, every loop of which but one is unrolled. Lavapipe compiles a
// kernel when it first runs it, inside the submission (so a compile
// counts against the submission's time, and a submission that wgpu waits
// on for more than 5 s fails), and its compile time grows faster than the
// kernel: at 32 units, on this project's machines, about 0.4 s for the
// forward kernel and 1 to 1.3 s for the two gradient kernels together; at
// 64, 0.8 and 3 to 5 s.
const maxAttentionUnits = 32

// AttentionFits reports whether heads of dimensions d (q and k) and dv
// (v) fit the Attention kernels: 4·(⌈d/4⌉ + ⌈dv/4⌉) of at most 128 when
// both are multiples of 4 (d = dv = 64, say), less otherwise (see
// attentionUnits). Wider heads are computed otherwise (package tensor
// composes them from matrix products and a softmax).
func AttentionFits(d, dv int) bool { return attentionUnits(d, dv) <= maxAttentionUnits }

// AttentionRows returns the rows a thread of an Attention kernel over
// head dimensions d and dv takes on a CPU adapter, for t queries (keys for
// GradKV): up to four, whose loads of each key (query) row serve all of
// them (a load costs lavapipe more than the arithmetic it feeds), as
// maxAttentionUnits allows, and no more than t.
func AttentionRows(d, dv, t int) int {
	r := 4
	for r > 1 && (r*attentionUnits(d, dv) > maxAttentionUnits || r > t) {
		r /= 2
	}
	return r
}

// AttentionInnerRange is the most keys (queries, for GradKV) one dispatch
// of an Attention kernel loops over: one loop trip each, far within the
// 65,535 trips an invocation may run (MaxLoopTrips).
const AttentionInnerRange = 1 << 15

// AttentionWorkgroup is the Attention kernels' workgroup size: their
// threads each do much work, and are few.
const AttentionWorkgroup = 64

// AttentionParams is the Attention kernels' parameter block (one
// goroutine fills it before it is encoded). Range counts
// row groups: Rows query rows of one head (Rows key rows for GradKV),
// numbered head by head. Scale multiplies q·k; Dropout is the drop
// probability and DropScale what kept weights are multiplied by (1/(1 -
// Dropout), 0 when everything is dropped); MaskStrides are the mask's
// strides in elements along b, h, i and j (0 where it broadcasts);
// Layouts are the layouts of q, k, v and the output, four words each
// (offset, batch, head and row strides; see Attention).
type AttentionParams struct {
	Range
	Heads, Tq, Tk        uint32
	InnerFirst, InnerEnd uint32
	Causal               uint32
	Scale                float32
	Dropout, DropScale   float32
	SeedLo, SeedHi       uint32
	MaskStrides          []uint32
	Layouts              []uint32
}

// Bytes encodes p.
func (p *AttentionParams) Bytes() []byte { return encodeParams(p) }

// params is a's block with its metadata's length, for variants.
func (a Attention) params() *AttentionParams {
	return &AttentionParams{MaskStrides: make([]uint32, 4), Layouts: make([]uint32, 16)}
}

// Key identifies a's pipeline.
func (a Attention) Key() string {
	return fmt.Sprintf("attention/%s/%d/%d/%d/%v/%v/%v/%v/%v", a.Pass, a.D, a.Dv, a.Rows, a.MaskAdd, a.MaskBool, a.KeyPadding, a.Dropout, a.PackedKV)
}

// Name is the kernel's name: attention_forward, attention_grad_q or
// attention_grad_kv.
func (a Attention) Name() string { return "attention_" + string(a.Pass) }

// attnBinding is one storage binding of an Attention kernel.
type attnBinding struct {
	Name, Type string
	Write      bool
}

// attnIO is an array the kernel reads rows of vec4s from (ld_Name) or
// writes them to (st_Name): rows of N floats, N4 vec4s, in the binding
// Array (Name, or dkv for PackedKV's dk and dv).
type attnIO struct {
	Name, Array string
	N, N4       int
	Vec4        bool
	Load, Store bool
}

// attnRow is one of a thread's rows: its number, the indices of its
// vec4s in the thread's arrays of D-wide (Q) and Dv-wide (V) rows, and
// the dot products the kernels take of them with the key or query row
// the loop reads: q·k and dO·v (forward, grad_q), k·q and v·dO (grad_kv).
type attnRow struct {
	R                int
	Q, V             []int
	QK, DoV, KQ, VDo string
}

// dotExpr is the WGSL sum of dot(a<ai[c]>, b<c>) over the vec4s c.
func dotExpr(a string, ai []int, b string) string {
	if len(ai) == 0 {
		return "0.0"
	}
	var s strings.Builder
	for c, i := range ai {
		if c > 0 {
			s.WriteString(" + ")
		}
		fmt.Fprintf(&s, "dot(%s%d, %s%d)", a, i, b, c)
	}
	return s.String()
}

// vec4s is how many vec4s hold n floats.
func vec4s(n int) int { return (n + 3) / 4 }

// bindings lists a's storage bindings in order.
func (a Attention) bindings() []attnBinding {
	qk, vt := "f32", "f32"
	if a.D%4 == 0 {
		qk = "vec4<f32>"
	}
	if a.Dv%4 == 0 {
		vt = "vec4<f32>"
	}
	bs := []attnBinding{{"q", qk, false}, {"k", qk, false}, {"v", vt, false}}
	masks := func() {
		switch {
		case a.MaskAdd:
			bs = append(bs, attnBinding{"mask", "f32", false})
		case a.MaskBool:
			bs = append(bs, attnBinding{"mask", "u32", false})
		}
		if a.KeyPadding {
			bs = append(bs, attnBinding{"kpad", "u32", false})
		}
	}
	switch a.Pass {
	case AttentionForward:
		masks()
		bs = append(bs, attnBinding{"out", vt, true}, attnBinding{"lse", "f32", true})
	case AttentionGradQ:
		bs = append(bs, attnBinding{"out", vt, false}, attnBinding{"dout", vt, false}, attnBinding{"lse", "f32", false})
		masks()
		bs = append(bs, attnBinding{"dq", qk, true}, attnBinding{"delta", "f32", true})
	case AttentionGradKV:
		bs = append(bs, attnBinding{"dout", vt, false}, attnBinding{"lse", "f32", false}, attnBinding{"delta", "f32", false})
		masks()
		if a.PackedKV {
			bs = append(bs, attnBinding{"dkv", qk, true})
		} else {
			bs = append(bs, attnBinding{"dk", qk, true}, attnBinding{"dv", vt, true})
		}
	}
	return bs
}

// ios lists the row arrays a's kernel loads from or stores to.
func (a Attention) ios() []attnIO {
	io := func(name string, n int, load, store bool) attnIO {
		x := attnIO{Name: name, Array: name, N: n, N4: vec4s(n), Vec4: n%4 == 0, Load: load, Store: store}
		if a.Pass == AttentionGradKV && a.PackedKV && (name == "dk" || name == "dv") {
			x.Array = "dkv"
		}
		return x
	}
	out := []attnIO{io("q", a.D, true, false), io("k", a.D, true, false), io("v", a.Dv, true, false)}
	switch a.Pass {
	case AttentionForward:
		out = append(out, io("out", a.Dv, true, true))
	case AttentionGradQ:
		out = append(out, io("out", a.Dv, true, false), io("dout", a.Dv, true, false), io("dq", a.D, true, true))
	case AttentionGradKV:
		out = append(out, io("dout", a.Dv, true, false), io("dk", a.D, true, true), io("dv", a.Dv, true, true))
	}
	return out
}

// attnVars declares the variables of a thread of rows rows of d4 and v4
// vec4s: each vec4 of a row (q, k or v, and their accumulators) one
// variable, named by its array and index (q0, q1, ...), and the rows'
// scalars (m0, l0, ...). Separate variables, not arrays, keep the
// compiler's work small.
func attnVars(rows, d4, v4 int) map[string]string {
	decl := func(name, typ string, n int) string {
		indent := "\n\t"
		if name == "kc" || name == "vc" || name == "qc" || name == "doc" { // inside the loop
			indent = "\n\t\t"
		}
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(indent)
			}
			fmt.Fprintf(&b, "var %s%d: %s;", name, i, typ)
		}
		return b.String()
	}
	vars := map[string]string{}
	for name, n := range map[string]int{"q": rows * d4, "dqa": rows * d4, "kr": rows * d4, "dka": rows * d4,
		"acc": rows * v4, "dov": rows * v4, "vr": rows * v4, "dva": rows * v4, "kc": d4, "qc": d4, "vc": v4, "doc": v4} {
		vars[name] = decl(name, "vec4<f32>", n)
	}
	for _, name := range []string{"m", "l", "lr", "dl"} {
		vars[name] = decl(name, "f32", rows)
	}
	return vars
}

// Spec generates a's kernel from attention.wgsl.
func (a Attention) Spec() wgpu.KernelSpec {
	p := a.params()
	rows := max(a.Rows, 1)
	d4, v4 := vec4s(a.D), vec4s(a.Dv)
	rs := make([]attnRow, rows)
	for r := range rs {
		rs[r] = attnRow{R: r, Q: make([]int, d4), V: make([]int, v4)}
		for c := range d4 {
			rs[r].Q[c] = r*d4 + c
		}
		for c := range v4 {
			rs[r].V[c] = r*v4 + c
		}
		row := &rs[r]
		row.QK, row.DoV = dotExpr("q", row.Q, "kc"), dotExpr("dov", row.V, "vc")
		row.KQ, row.VDo = dotExpr("kr", row.Q, "qc"), dotExpr("vr", row.V, "doc")
	}
	bs := a.bindings()
	src := fill("attention.wgsl", map[string]any{
		"Params": declareParams(p), "WorkgroupSize": AttentionWorkgroup, "A": a, "Pass": string(a.Pass),
		"R": rows, "Rows": rs, "QK": seq(d4), "VC": seq(v4), "NQ": max(1, rows*d4), "NV": max(1, rows*v4),
		"N4": max(1, d4), "NV4": max(1, v4), "Bindings": bs, "IOs": a.ios(), "Mask": a.MaskAdd || a.MaskBool,
		"Philox": Philox, "Vars": attnVars(rows, d4, v4),
	})
	access := make([]wgpu.Access, len(bs))
	for i, b := range bs {
		access[i] = wgpu.ReadOnly
		if b.Write {
			access[i] = wgpu.ReadWrite
		}
	}
	return wgpu.KernelSpec{Name: a.Name(), Key: a.Key(), Source: src, Bindings: access, Params: true, ParamsSize: paramsSizeOf(p)}
}

// InnerWork is the work of one thread of a over one key (one query for
// GradKV): its loads of that row, shared by the thread's rows, and each
// row's dot products, exponentials, mask loads and Philox rounds. Measured
// on lavapipe (T = 512, 16 heads, one dispatch each, unloaded): the
// forward kernel ran in 0.27 to 0.43 of this estimate, the two gradient
// kernels in 0.27 to 0.5, from D = 5 to 64, with and without masks and
// dropout.
func (a Attention) InnerWork() float64 {
	rows, width := float64(max(a.Rows, 1)), float64(max(1, vec4s(a.D)+vec4s(a.Dv)))
	perRow, load := width, 2*width+8
	if a.Pass != AttentionForward {
		perRow, load = 1.2*width, 1.5*width+4
	}
	if a.Dropout {
		perRow += 8
	}
	if a.MaskAdd || a.MaskBool {
		perRow += 3
	}
	if a.KeyPadding {
		load += 2
	}
	return load + rows*perRow
}

// ThreadWork is the work of one thread of a besides its loop: loading
// its rows and writing its results.
func (a Attention) ThreadWork() float64 {
	return 16 + 4*float64(max(a.Rows, 1))*float64(vec4s(a.D)+vec4s(a.Dv))
}
