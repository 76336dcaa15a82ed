{{- /* Pool2DGrad with Scatter: one thread per window writes the gradient of
every input element of its cell (see Pool2DGrad). A cell holds its
window, as stride >= the window's dilated extent; windows, and so cells,
do not overlap. With .Vec4 a thread takes four channels, each an element
of a vec4 (T; U and B the matching vectors of u32 and bool). The window
and the cell are each walked as one span in row-major order, .Unroll
positions per trip (see LoopTrips; pool_taps, pool_window, pool_step and
pool_next are pool.wgsl's). */ -}}
{{- define "scatter_step"}}
		{
{{- if .Max}}
			let hit = {{.U}}(pos) == at;
{{- else}}
			let hit = row < ty.y && col < tx.y;
{{- end}}
			dx[(img + pos) * C + c] = select({{.T}}(0.0), grad, hit);
{{- template "pool_next" .}}
		}{{end -}}
{{.Params -}}
{{- if .Max}}
@group(0) @binding(0) var<storage, read> x: array<{{.T}}>;
@group(0) @binding(1) var<storage, read> dy: array<{{.T}}>;
@group(0) @binding(2) var<storage, read_write> dx: array<{{.T}}>;
@group(0) @binding(3) var<uniform> p: Params;

{{.Order}}
{{- else}}
@group(0) @binding(0) var<storage, read> dy: array<{{.T}}>;
@group(0) @binding(1) var<storage, read_write> dx: array<{{.T}}>;
@group(0) @binding(2) var<uniform> p: Params;

{{template "pool_divisor"}}
{{- end}}

{{template "pool_taps"}}

// cell is the span [lo, hi) of input positions whose gradient window o
// writes: from its window's start (or 0) to the next window's start, the
// last window to the input's end.
fn cell(o: u32, stride: u32, pad: u32, outs: u32, size: u32) -> vec2<u32> {
	let start = i32(o * stride) - i32(pad);
	let end = select(min(start + i32(stride), i32(size)), i32(size), o + 1u == outs);
	return vec2<u32>(u32(max(start, 0)), u32(end));
}

@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
{{template "pool_window" .}}
	var k = 0u;
{{- if .Max}}
	var ww = tx.y;
	var count = ty.y * ww;
	var step = p.dilation_w;
	var skip = p.dilation_h * p.in_w - (ww - 1u) * p.dilation_w;
	var pos = ty.x * p.in_w + tx.x;
	var col = 0u;
	var best = x[(img + pos) * C + c];
	var at = {{.U}}(pos);
	for (; k + {{.Unroll}}u <= count; k += {{.Unroll}}u) {
{{- range seq .Unroll}}{{template "pool_step" $}}{{end}}
	}
	for (; k < count; k++) {{- template "pool_step" .}}
	let grad = dy[i];
{{- else}}
	let grad = dy[i] / f32(divisor(y0, p.kernel_h, p.in_h, p.count_top, p.count_bottom) * divisor(x0, p.kernel_w, p.in_w, p.count_left, p.count_right));
{{- end}}
	let cy = cell(oy, p.stride_h, p.pad_top, p.out_h, p.in_h);
	let cx = cell(ox, p.stride_w, p.pad_left, p.out_w, p.in_w);
	{{if .Max}}ww = cx.y - cx.x;
	count = (cy.y - cy.x) * ww;
	step = 1u;
	skip = p.in_w - ww + 1u;
	pos = cy.x * p.in_w + cx.x;
	col = 0u;
	k = 0u;{{else}}let ww = cx.y - cx.x;
	let count = (cy.y - cy.x) * ww;
	let step = 1u;
	let skip = p.in_w - ww + 1u;
	var pos = cy.x * p.in_w + cx.x;
	var col = 0u;
	var row = 0u;{{end}}
	for (; k + {{.Unroll}}u <= count; k += {{.Unroll}}u) {
{{- range seq .Unroll}}{{template "scatter_step" $}}{{end}}
	}
	for (; k < count; k++) {{- template "scatter_step" .}}
}
