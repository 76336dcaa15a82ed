package shaders

import (
	"fmt"
	"strings"

	"github.com/wgtensor/wgtensor/wgpu"
)

// ReduceOp names a reduction.
type ReduceOp string

// The reductions.
const (
	Sum    ReduceOp = "sum"
	Mean   ReduceOp = "mean"
	Prod   ReduceOp = "prod"
	Max    ReduceOp = "max"
	Min    ReduceOp = "min"
	ArgMax ReduceOp = "argmax"
	ArgMin ReduceOp = "argmin"
)

// Arg reports whether op returns indices (as i32).
func (op ReduceOp) Arg() bool { return op == ArgMax || op == ArgMin }

// Reduce reduces each row of a tensor viewed as [rows, length] to one value.
// With PerThread one thread reduces a row (for short rows); otherwise a
// workgroup of ReduceWorkgroup threads shares each row and combines in
// workgroup memory.
//
// A row longer than ReduceSegment is reduced in two steps, so that no
// workgroup runs for long (on lavapipe one workgroup runs on one core,
// and a workgroup over 2²⁵ elements ran for seconds): with Segments, the
// workgroup kernel reduces segments of ReduceSegment elements, item i
// being segment i mod h3 of row i / h3, and writes each segment's
// accumulator (Mean's sum, the arg reductions' value) to dst, and for the
// arg reductions its index in the row to a third binding. The segments'
// results are then rows of a second reduction: Sum's, Prod's, Max's or
// Min's again, Mean's (over float32 sums, scaled by 1/length), or for the
// arg reductions the PerThread kernel with Indexed, which reads the
// indices from a second input and returns the index of the best value.
//
// Header: rows (or items), row (threads or workgroups per step of y),
// length. Scalar 0 is 1/length, for Mean. Max, Min and the arg reductions
// need length > 0.
type Reduce struct {
	Op        ReduceOp
	In        Type
	PerThread bool
	Segments  bool
	Indexed   bool
}

// ReduceWorkgroup is the number of threads that share one row.
const ReduceWorkgroup = 64

// ReduceSegment is the longest row one workgroup reduces; longer rows are
// reduced in segments of this length (see Reduce).
const ReduceSegment = 1 << 16

// MaxLoopTrips is the most iterations one WGSL loop may run: on lavapipe
// and llvmpipe (Mesa's gallivm) a loop stops silently after 65,535 trips,
// and the trips of the loops nested in it count toward the same budget.
// So no kernel's loops run near it: a workgroup reduces at most a segment
// (ReduceSegment: 64 trips of 16 per thread), a thread at most a row of
// MaxThreadRow, and a matmul dispatch at most MatMulKRange of k.
const MaxLoopTrips = 65535

// MaxThreadRow is the longest row the PerThread kernels of Reduce and
// Softmax take. One thread sums the row in order, whose rounding error
// grows with its length: up to 1,024 elements it is no larger than that of
// a workgroup's 64 partial sums over a segment (1,024 elements each).
// (This also keeps the thread's loop far below 65,535 trips, where
// lavapipe and llvmpipe stop a loop silently: see MatMulKRange.)
const MaxThreadRow = 1 << 10

// MaxRowLength is the longest row a reduction or softmax handles.
const MaxRowLength = MaxLoopTrips * 16 * ReduceWorkgroup

// Out is the type of the reduction's result.
func (r Reduce) Out() Type {
	switch {
	case r.Segments:
		return r.acc()
	case r.Op.Arg():
		return I32
	case r.Op == Mean:
		return F32
	}
	return r.In
}

// acc is the accumulator's type.
func (r Reduce) acc() Type {
	if r.Op == Mean {
		return F32
	}
	return r.In
}

// Key identifies r's pipeline.
func (r Reduce) Key() string {
	return fmt.Sprintf("reduce/%s/%s/%v/%v/%v", r.Op, r.In, r.PerThread, r.Segments, r.Indexed)
}

// reduceParts are the WGSL pieces of a reduction: the accumulator's
// initial value, the statement that takes value v at index j into it, and
// the expression of the result.
type reduceParts struct{ ident, step, final string }

func (r Reduce) parts() reduceParts {
	A := r.acc()
	// cmp, for the ordered reductions, is the comparison by which a value
	// is better (see beats).
	var ps reduceParts
	cmp := r.cmp()
	switch r.Op {
	case Sum, Mean:
		ps = reduceParts{fmt.Sprintf("%s(0)", A), "acc = acc + v;", "acc"}
		if r.Op == Mean {
			ps.final = "acc * p.s.x"
		}
	case Prod:
		ps = reduceParts{fmt.Sprintf("%s(1)", A), "acc = acc * v;", "acc"}
	case Max, ArgMax, Min, ArgMin:
		ps.ident = fmt.Sprintf("%s(0)", A)
	}
	if cmp != "" {
		// ai == none marks an empty accumulator.
		ps.step = "if (beats(v, j, acc, ai)) { acc = v; ai = j; }"
		ps.final = "acc"
		if r.Op.Arg() {
			ps.final = "i32(ai)"
		}
	}
	if r.Segments {
		ps.final = "acc"
	}
	return ps
}

// Spec generates r's kernel.
func (r Reduce) Spec() wgpu.KernelSpec {
	access := []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}
	var b strings.Builder
	b.WriteString(paramsStruct(0))
	fmt.Fprintf(&b, "@group(0) @binding(0) var<storage, read> src: array<%s>;\n", r.In)
	switch {
	case r.Indexed:
		b.WriteString("@group(0) @binding(1) var<storage, read> idx: array<u32>;\n")
		fmt.Fprintf(&b, "@group(0) @binding(2) var<storage, read_write> dst: array<%s>;\n", r.Out())
		access = []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}
	case r.Segments && r.Op.Arg():
		fmt.Fprintf(&b, "@group(0) @binding(1) var<storage, read_write> dst: array<%s>;\n", r.Out())
		b.WriteString("@group(0) @binding(2) var<storage, read_write> idx: array<u32>;\n")
		access = append(access, wgpu.ReadWrite)
	default:
		fmt.Fprintf(&b, "@group(0) @binding(1) var<storage, read_write> dst: array<%s>;\n", r.Out())
	}
	fmt.Fprintf(&b, "@group(0) @binding(%d) var<uniform> p: Params;\nconst none = 0xffffffffu;\n", len(access))
	if cmp := r.cmp(); cmp != "" {
		b.WriteString(beats(r.acc(), cmp))
	}
	if r.PerThread {
		r.threadSource(&b)
	} else {
		r.groupSource(&b)
	}
	return wgpu.KernelSpec{Name: string(r.Op), Key: r.Key(), Source: b.String(), Bindings: access, Params: true, ParamsSize: paramsSize(0)}
}

// threadSource writes the kernel in which a thread reduces a row.
func (r Reduce) threadSource(b *strings.Builder) {
	ps := r.parts()
	load := fmt.Sprintf("let j = s; let v = %s(src[base + j]);", r.acc())
	if r.Indexed {
		load = "let v = src[base + s]; let j = idx[base + s];"
	}
	fmt.Fprintf(b, `@compute @workgroup_size(%d)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row + p.first.x;
	if (row >= p.n) { return; }
	let len = p.h2;
	let base = row * len;
	var acc = %s;
	var ai = none;
	for (var s = 0u; s < len; s++) {
		%s
		%s
	}
	dst[row] = %s;
}
`, WorkgroupSize, ps.ident, load, ps.step, ps.final)
}

// groupSource writes the kernel in which a workgroup reduces a row, or
// with Segments a segment of one.
func (r Reduce) groupSource(b *strings.Builder) {
	ps := r.parts()
	// With Segments, row is the item: a segment of row row / h3.
	span := "let out = row; let lo = 0u; let hi = len;"
	write := "dst[out] = " + ps.final + ";"
	if r.Segments {
		span = fmt.Sprintf("let out = row; let lo = (row %% p.h3) * %du; let hi = min(lo + %du, len);", ReduceSegment, ReduceSegment)
		if r.Op.Arg() {
			write += " idx[out] = ai;"
		}
	}
	combine := "sv[l] = sv[l] + sv[l + h];"
	switch r.Op {
	case Prod:
		combine = "sv[l] = sv[l] * sv[l + h];"
	case Max, ArgMax, Min, ArgMin:
		combine = `let v = sv[l + h]; let j = si[l + h];
			if (j != none && beats(v, j, sv[l], si[l])) { sv[l] = v; si[l] = j; }`
	}
	base := "row * len"
	if r.Segments {
		base = "(row / p.h3) * len"
	}
	fmt.Fprintf(b, `var<workgroup> sv: array<%[1]s, %[2]d>;
var<workgroup> si: array<u32, %[2]d>;
@compute @workgroup_size(%[2]d)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let row = w.x + w.y * p.row + p.first.x;
	if (row >= p.n) { return; }
	let len = p.h2;
	let base = %[3]s;
	%[4]s
	var acc = %[5]s;
	var ai = none;
	for (var b0 = lo; b0 < hi; b0 += %[6]du) {
		for (var u = 0u; u < 16u; u++) {
			let j = b0 + u * %[2]du + l;
			if (j >= hi) { break; }
			let v = %[1]s(src[base + j]);
			%[7]s
		}
	}
	sv[l] = acc;
	si[l] = ai;
	workgroupBarrier();
	for (var h = %[8]du; h > 0u; h = h >> 1u) {
		if (l < h) {
			%[9]s
		}
		workgroupBarrier();
	}
	if (l == 0u) {
		let acc = sv[0];
		let ai = si[0];
		%[10]s
	}
}
`, r.acc(), ReduceWorkgroup, base, span, ps.ident, 16*ReduceWorkgroup, ps.step, ReduceWorkgroup/2, combine, write)
}

// cmp is the comparison by which a value is better in an ordered
// reduction (Max, Min and the arg reductions), "" for the others.
func (r Reduce) cmp() string {
	switch r.Op {
	case Max, ArgMax:
		return ">"
	case Min, ArgMin:
		return "<"
	}
	return ""
}

// beats is the WGSL function that orders the candidates of Max, Min and
// the arg reductions over type t, cmp being ">" or "<": whether value v at
// index j replaces w at index k (none: no value yet). A NaN beats every
// number, the first NaN every later one, so NaN propagates and ArgMax and
// ArgMin find the first NaN, as NumPy's do; among numbers ties (-0 and +0
// included) keep the lower index. NaN is read from the bits: drivers may
// drop it in a comparison folded into max or min.
func beats(t Type, cmp string) string {
	isNaN := "false"
	if t == F32 {
		isNaN = "(bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u"
	}
	return fmt.Sprintf(`fn is_nan(x: %s) -> bool { return %s; }
fn beats(v: %[1]s, j: u32, w: %[1]s, k: u32) -> bool {
	if (k == none) { return true; }
	if (is_nan(w)) { return is_nan(v) && j < k; }
	if (is_nan(v)) { return true; }
	return v %[3]s w || (v == w && j < k);
}
`, t, isNaN, cmp)
}

// Softmax computes softmax (or, with Log, log-softmax) along each row of a
// float32 tensor viewed as [rows, length], subtracting the row's maximum
// first so that no exp overflows. One workgroup of ReduceWorkgroup threads
// handles a row; with PerThread (for short rows) one thread does. Header:
// rows, row (threads or workgroups per step of y), length.
type Softmax struct{ Log, PerThread bool }

// Key identifies s's pipeline.
func (s Softmax) Key() string { return fmt.Sprintf("softmax/%v/%v", s.Log, s.PerThread) }

// Spec generates s's kernel.
func (s Softmax) Spec() wgpu.KernelSpec {
	write := "exp(src[base + j] - mx) / total"
	name := "softmax"
	if s.Log {
		write = "src[base + j] - mx - log(total)"
		name = "log_softmax"
	}
	spec := wgpu.KernelSpec{Name: name, Key: s.Key(), Source: s.groupSource(write),
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSize(0)}
	if s.PerThread {
		spec.Source = s.threadSource(write)
	}
	return spec
}

// threadSource is the kernel in which one thread handles a row.
func (s Softmax) threadSource(write string) string {
	return paramsStruct(0) + fmt.Sprintf(`@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(%d)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row + p.first.x;
	if (row >= p.n) { return; }
	let len = p.h2;
	let base = row * len;
	var mx = -3.4028234e38;
	for (var j = 0u; j < len; j++) { mx = max(mx, src[base + j]); }
	var total = 0.0;
	for (var j = 0u; j < len; j++) { total += exp(src[base + j] - mx); }
	for (var j = 0u; j < len; j++) { dst[base + j] = %s; }
}
`, WorkgroupSize, write)
}

// groupSource is the kernel in which a workgroup shares each row.
func (s Softmax) groupSource(write string) string {
	return paramsStruct(0) + fmt.Sprintf(`@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
var<workgroup> red: array<f32, %[1]d>;
@compute @workgroup_size(%[1]d)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let row = w.x + w.y * p.row + p.first.x;
	if (row >= p.n) { return; }
	let len = p.h2;
	let base = row * len;
	var m = -3.4028234e38;
	for (var b0 = 0u; b0 < len; b0 += %[4]du) { for (var u = 0u; u < 16u; u++) { let j = b0 + u * %[1]du + l; if (j >= len) { break; } m = max(m, src[base + j]); } }
	red[l] = m;
	workgroupBarrier();
	for (var h = %[2]du; h > 0u; h = h >> 1u) {
		if (l < h) { red[l] = max(red[l], red[l + h]); }
		workgroupBarrier();
	}
	let mx = red[0];
	workgroupBarrier();
	var sum = 0.0;
	for (var b0 = 0u; b0 < len; b0 += %[4]du) { for (var u = 0u; u < 16u; u++) { let j = b0 + u * %[1]du + l; if (j >= len) { break; } sum += exp(src[base + j] - mx); } }
	red[l] = sum;
	workgroupBarrier();
	for (var h = %[2]du; h > 0u; h = h >> 1u) {
		if (l < h) { red[l] = red[l] + red[l + h]; }
		workgroupBarrier();
	}
	let total = red[0];
	for (var b0 = 0u; b0 < len; b0 += %[4]du) { for (var u = 0u; u < 16u; u++) { let j = b0 + u * %[1]du + l; if (j >= len) { break; } dst[base + j] = %[3]s; } }
}
`, ReduceWorkgroup, ReduceWorkgroup/2, write, 16*ReduceWorkgroup)
}
