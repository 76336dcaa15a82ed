{{- /* Pool2D: the max (its index with .Arg) or the average of each window of an NHWC tensor; see Pool2D.
With .Vec4 a thread takes four channels, each an element of a vec4 (T; U and B the matching vectors). */ -}}
{{- /* pool_window: thread i's window (output ox, oy of image n, channel
block c of C), and the rows [ylo, yhi) and columns [xlo, xhi) of the input
inside it; Pool2D and Pool2DGrad with Scatter share it. */ -}}
{{define "pool_window"}}	let C = p.c{{if .Vec4}} / 4u{{end}};
	let c = i % C;
	var t = i / C;
	let ox = t % p.out_w;
	t = t / p.out_w;
	let oy = t % p.out_h;
	let n = t / p.out_h;
	let y0 = i32(oy * p.stride_h) - i32(p.pad_top);
	let x0 = i32(ox * p.stride_w) - i32(p.pad_left);
	let ylo = u32(max(y0, 0));
	let yhi = u32(min(y0 + i32(p.kernel_h), i32(p.in_h)));
	let xlo = u32(max(x0, 0));
	let xhi = u32(min(x0 + i32(p.kernel_w), i32(p.in_w)));
	let base = n * p.in_h;
	let img = base * p.in_w;{{end -}}
{{- /* pool_next: moves pos, the position iy·in_w + ix, to the next
position of a span ww wide in row-major order, col being its column in
the span (and row its row, with .Row); the loops that walk a window or a
cell take .Unroll positions per trip (see LoopTrips). */ -}}
{{define "pool_next"}}
			col++;
			let wrap = col == ww;
			col = select(col, 0u, wrap);
{{- if .Row}}
			row = select(row, row + 1u, wrap);
{{- end}}
			pos += select(1u, skip, wrap);{{end -}}
{{- /* pool_step: takes the element at pos as the window's maximum if it is greater (see Pool2D), or adds it to the sum. */ -}}
{{define "pool_step"}}
		{
			let v = x[(img + pos) * C + c];
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
@group(0) @binding(0) var<storage, read> x: array<{{.T}}>;
@group(0) @binding(1) var<storage, read_write> y: array<{{.Out}}>;
@group(0) @binding(2) var<uniform> p: Params;
{{- if .Max}}
{{.Order}}
{{- end}}
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
{{template "pool_window" .}}
	let ww = xhi - xlo;
	let count = (yhi - ylo) * ww;
	let skip = p.in_w - ww + 1u;
	var pos = ylo * p.in_w + xlo;
	var col = 0u;
	var k = 0u;
{{- if .Max}}
	var best = x[(img + pos) * C + c];
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
	y[i] = sum / f32(count);
{{- end}}
}
