{{- /* Pool2DGrad with Scatter: one thread per window writes the gradient of
every input element of its cell (see Pool2DGrad). A cell holds its
window, as stride >= kernel; windows, and so cells, do not overlap. With
.Vec4 a thread takes four channels, each an element of a vec4 (T; U and B
the matching vectors of u32 and bool). */ -}}
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
{{- end}}

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
{{template "pool_window" .}}{{- if .Max}}
	var best = x[((base + ylo) * p.in_w + xlo) * C + c];
	var aty = {{.U}}(ylo);
	var atx = {{.U}}(xlo);
	for (var iy = ylo; iy < yhi; iy++) {
		for (var ix = xlo; ix < xhi; ix++) {
			let v = x[((base + iy) * p.in_w + ix) * C + c];
			let take = !is_nan(best) & ((ord(v) > ord(best)) | is_nan(v));
			best = select(best, v, take);
			aty = select(aty, {{.U}}(iy), take);
			atx = select(atx, {{.U}}(ix), take);
		}
	}
	let grad = dy[i];
{{- else}}
	let grad = dy[i] / f32((yhi - ylo) * (xhi - xlo));
{{- end}}
	let cy = cell(oy, p.stride_h, p.pad_top, p.out_h, p.in_h);
	let cx = cell(ox, p.stride_w, p.pad_left, p.out_w, p.in_w);
	for (var iy = cy.x; iy < cy.y; iy++) {
		for (var ix = cx.x; ix < cx.y; ix++) {
{{- if .Max}}
			let hit = ({{.U}}(iy) == aty) & ({{.U}}(ix) == atx);
{{- else}}
			let hit = iy < yhi && ix < xhi;
{{- end}}
			dx[((base + iy) * p.in_w + ix) * C + c] = select({{.T}}(0.0), grad, hit);
		}
	}
}
