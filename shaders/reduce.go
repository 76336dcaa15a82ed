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
// Header: rows, row (threads or workgroups per step of y), length. Scalar 0
// is 1/length, for Mean. Max, Min and the arg reductions need length > 0.
type Reduce struct {
	Op        ReduceOp
	In        Type
	PerThread bool
}

// ReduceWorkgroup is the number of threads that share one row.
const ReduceWorkgroup = 64

// MaxLoopTrips is the most iterations one WGSL loop may run: on lavapipe
// (Mesa 22.3 through wgpu-native) a loop stops silently after 65,535 trips,
// so every loop over data runs an inner loop of 16 per outer trip, and
// callers refuse work that would need more.
const MaxLoopTrips = 65535

// MaxRowLength is the longest row a reduction or softmax handles.
const MaxRowLength = MaxLoopTrips * 16 * ReduceWorkgroup

// Out is the type of the reduction's result.
func (r Reduce) Out() Type {
	switch {
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
func (r Reduce) Key() string { return fmt.Sprintf("reduce/%s/%s/%v", r.Op, r.In, r.PerThread) }

// Spec generates r's kernel.
func (r Reduce) Spec() wgpu.KernelSpec {
	A := r.acc()
	// cmp, for the ordered reductions, is the comparison by which a value
	// is better (see beats).
	var ident, step, cmp, final string
	switch r.Op {
	case Sum, Mean:
		ident, step, final = fmt.Sprintf("%s(0)", A), "acc = acc + v;", "acc"
		if r.Op == Mean {
			final = "acc * p.s.x"
		}
	case Prod:
		ident, step, final = fmt.Sprintf("%s(1)", A), "acc = acc * v;", "acc"
	case Max, ArgMax:
		ident, cmp = fmt.Sprintf("%s(0)", A), ">"
	case Min, ArgMin:
		ident, cmp = fmt.Sprintf("%s(0)", A), "<"
	}
	if cmp != "" {
		// ai == none marks an empty accumulator.
		step = "if (beats(v, j, acc, ai)) { acc = v; ai = j; }"
		final = "acc"
		if r.Op.Arg() {
			final = "i32(ai)"
		}
	}
	var b strings.Builder
	b.WriteString(paramsStruct(0))
	fmt.Fprintf(&b, `@group(0) @binding(0) var<storage, read> src: array<%s>;
@group(0) @binding(1) var<storage, read_write> dst: array<%s>;
@group(0) @binding(2) var<uniform> p: Params;
const none = 0xffffffffu;
`, r.In, r.Out())
	if cmp != "" {
		b.WriteString(beats(A, cmp))
	}
	if r.PerThread {
		fmt.Fprintf(&b, `@compute @workgroup_size(%d)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row;
	if (row >= p.n) { return; }
	let len = p.h2;
	let base = row * len;
	var acc = %s;
	var ai = none;
	for (var j = 0u; j < len; j++) {
		let v = %s(src[base + j]);
		%s
	}
	dst[row] = %s;
}
`, WorkgroupSize, ident, A, step, final)
	} else {
		combine := "sv[l] = sv[l] + sv[l + h];"
		switch r.Op {
		case Prod:
			combine = "sv[l] = sv[l] * sv[l + h];"
		case Max, ArgMax, Min, ArgMin:
			combine = `let v = sv[l + h]; let j = si[l + h];
			if (j != none && beats(v, j, sv[l], si[l])) { sv[l] = v; si[l] = j; }`
		}
		fmt.Fprintf(&b, `var<workgroup> sv: array<%s, %d>;
var<workgroup> si: array<u32, %d>;
@compute @workgroup_size(%d)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let row = w.x + w.y * p.row;
	if (row >= p.n) { return; }
	let len = p.h2;
	let base = row * len;
	var acc = %s;
	var ai = none;
	for (var b0 = 0u; b0 < len; b0 += %du) {
		for (var u = 0u; u < 16u; u++) {
			let j = b0 + u * %du + l;
			if (j >= len) { break; }
			let v = %s(src[base + j]);
			%s
		}
	}
	sv[l] = acc;
	si[l] = ai;
	workgroupBarrier();
	for (var h = %du; h > 0u; h = h >> 1u) {
		if (l < h) {
			%s
		}
		workgroupBarrier();
	}
	if (l == 0u) {
		let acc = sv[0];
		let ai = si[0];
		dst[row] = %s;
	}
}
`, A, ReduceWorkgroup, ReduceWorkgroup, ReduceWorkgroup, ident, 16*ReduceWorkgroup, ReduceWorkgroup, A, step, ReduceWorkgroup/2, combine, final)
	}
	return wgpu.KernelSpec{Name: string(r.Op), Key: r.Key(), Source: b.String(),
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSize(0)}
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
// handles a row. Header: rows, row (workgroups per step of y), length.
type Softmax struct{ Log bool }

// Key identifies s's pipeline.
func (s Softmax) Key() string { return fmt.Sprintf("softmax/%v", s.Log) }

// Spec generates s's kernel.
func (s Softmax) Spec() wgpu.KernelSpec {
	write := "exp(src[base + j] - mx) / total"
	name := "softmax"
	if s.Log {
		write = "src[base + j] - mx - log(total)"
		name = "log_softmax"
	}
	src := paramsStruct(0) + fmt.Sprintf(`@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
var<workgroup> red: array<f32, %[1]d>;
@compute @workgroup_size(%[1]d)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let row = w.x + w.y * p.row;
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
	return wgpu.KernelSpec{Name: name, Key: s.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSize(0)}
}
