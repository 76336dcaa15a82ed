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
	// better(v, j, acc, ai): whether value v at index j replaces acc at ai.
	var ident, step, better, final string
	switch r.Op {
	case Sum, Mean:
		ident, step, final = fmt.Sprintf("%s(0)", A), "acc = acc + v;", "acc"
		if r.Op == Mean {
			final = "acc * p.s.x"
		}
	case Prod:
		ident, step, final = fmt.Sprintf("%s(1)", A), "acc = acc * v;", "acc"
	case Max, ArgMax:
		ident, better = fmt.Sprintf("%s(0)", A), "(v > acc)"
	case Min, ArgMin:
		ident, better = fmt.Sprintf("%s(0)", A), "(v < acc)"
	}
	if better != "" {
		// ai == none marks an empty accumulator; ties keep the lower index.
		step = fmt.Sprintf("if (ai == none || %s) { acc = v; ai = j; }", better)
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
	if r.PerThread {
		fmt.Fprintf(&b, `@compute @workgroup_size(%d)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row + p.first.x;
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
			cmp := ">"
			if r.Op == Min || r.Op == ArgMin {
				cmp = "<"
			}
			combine = fmt.Sprintf(`let v = sv[l + h]; let j = si[l + h];
			if (j != none && (si[l] == none || v %s sv[l] || (v == sv[l] && j < si[l]))) { sv[l] = v; si[l] = j; }`, cmp)
		}
		fmt.Fprintf(&b, `var<workgroup> sv: array<%s, %d>;
var<workgroup> si: array<u32, %d>;
@compute @workgroup_size(%d)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let row = w.x + w.y * p.row + p.first.x;
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
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true}
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
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true}
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
