{{- /* Pool2D: the max (its index with .Arg) or the average of each window of an NHWC tensor; see Pool2D.
With .Vec4 a thread takes four channels, each an element of a vec4 (T; U and B the matching vectors). */ -}}
{{- /* pool_taps: taps, the first position inside the input and the count
of the taps of a window along one dimension (see Pool2D); Pool2D and
Pool2DGrad with Scatter share it. The window's taps are start + k·dil for
k in [0, kernel); the caller guarantees one at least lies inside [0, size). */ -}}
{{define "pool_taps"}}// taps is the first position inside [0, size) of the taps start + k·dil,
// k in [0, kernel), and how many lie inside: the taps before 0 are the
// first lo, those from size on the last ones. The first is computed in
// u32, where start (negative in the padding) wraps and lo·dil brings it
// back to its place.
fn taps(start: i32, kernel: u32, dil: u32, size: u32) -> vec2<u32> {
	let lo = select(0u, (u32(-start) + dil - 1u) / dil, start < 0);
	let hi = select(0u, min(kernel, (u32(i32(size) - start) + dil - 1u) / dil), start < i32(size));
	return vec2<u32>(bitcast<u32>(start) + lo * dil, select(0u, hi - lo, hi > lo));
}{{end -}}
{{- /* pool_divisor: divisor, what an average divides by along one dimension (see Pool2D). */ -}}
{{define "pool_divisor"}}// divisor is the count of the positions of the window of kernel from
// start that lie inside [-before, size + after): the input and the padding
// an average counts (Pool2DParams' Count fields).
fn divisor(start: i32, kernel: u32, size: u32, before: u32, after: u32) -> u32 {
	let lo = max(start, -i32(before));
	let hi = min(start + i32(kernel), i32(size + after));
	return u32(hi - lo);
}{{end -}}
{{- /* pool_window: thread i's window (output ox, oy of image n, channel
block c of C), its first rows and columns y0, x0 (padded coordinates
less the padding), and ty, tx, its taps inside the input (see taps):
Pool2D and Pool2DGrad with Scatter share it. */ -}}
{{define "pool_window"}}	let C = p.c{{if .Vec4}} / 4u{{end}};
	let c = i % C;
	var t = i / C;
	let ox = t % p.out_w;
	t = t / p.out_w;
	let oy = t % p.out_h;
	let n = t / p.out_h;
	let y0 = i32(oy * p.stride_h) - i32(p.pad_top);
	let x0 = i32(ox * p.stride_w) - i32(p.pad_left);
	let ty = taps(y0, p.kernel_h, p.dilation_h, p.in_h);
	let tx = taps(x0, p.kernel_w, p.dilation_w, p.in_w);
	let base = n * p.in_h;
	let img = base * p.in_w;{{end -}}
{{- /* pool_next: moves pos, the position iy·in_w + ix, to the next
position of a span ww wide in row-major order, step apart along a row
and skip from a row's last to the next row's first, col being its
column in the span (and row its row, with .Row); the loops that walk a
window or a cell take .Unroll positions per trip (see LoopTrips). */ -}}
{{define "pool_next"}}
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
{{- if .Row}}
			row = select(row, row + 1u, wrap);
{{- end}}
			pos += select(step, skip, wrap);{{end -}}
{{- /* pool_step: takes the element at pos as the window's maximum if it is greater (see Pool2D), or adds it to the sum. */ -}}
{{define "pool_step"}}
		{
			let v = {{if .LoadX}}lx((img + pos) * C + c){{else}}x[(img + pos) * C + c]{{end}};
{{- if .Max}}
			let take = !is_nan(best) & ((ord(v) > ord(best)) | is_nan(v));
			best = select(best, v, take);
{{- if .At}}
			at = select(at, {{.AtType}}(pos), take);
{{- end}}
{{- else}}
			sum += v;
{{- end}}
{{- template "pool_next" .}}
		}{{end -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> x: array<{{if .LoadX}}u32{{else}}{{.T}}{{end}}>;
@group(0) @binding(1) var<storage, read_write> y: array<{{.Out}}>;
@group(0) @binding(2) var<uniform> p: Params;
{{- if .LoadX}}
{{- /* lx reads element (or with .Vec4, vec4) i of half-width x. */}}
{{.Lib}}
{{.LoadX}}
{{- end}}
{{- if .Max}}
{{.Order}}
{{- end}}

{{template "pool_taps"}}
{{- if not .Max}}

{{template "pool_divisor"}}
{{- end}}

@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
{{template "pool_window" .}}
	let ww = tx.y;
	let count = ty.y * ww;
	let step = p.dilation_w;
	let skip = p.dilation_h * p.in_w - (ww - 1u) * p.dilation_w;
	var pos = ty.x * p.in_w + tx.x;
	var col = 0u;
	var k = 0u;
{{- if .Max}}
	var best = {{if .LoadX}}lx((img + pos) * C + c){{else}}x[(img + pos) * C + c]{{end}};
{{- if .Arg}}
	var at = pos;
{{- end}}
{{- else}}
	var sum = {{.T}}(0.0);
{{- end}}
	for (; k + {{.Unroll}}u <= count; k += {{.Unroll}}u) {
{{- range seq .Unroll}}{{template "pool_step" $}}{{end}}
	}
	for (; k < count; k++) {{- template "pool_step" .}}
{{- if .Arg}}
	y[i] = i32(at);
{{- else if .Max}}
	y[i] = best;
{{- else}}
	y[i] = sum / f32(divisor(y0, p.kernel_h, p.in_h, p.count_top, p.count_bottom) * divisor(x0, p.kernel_w, p.in_w, p.count_left, p.count_right));
{{- end}}
}
