{{- /* Conv2D: a 2-D convolution or one of its gradients as an implicit GEMM,
C[m, n] = sum over k of A[m, k] * B[k, n] for group g, A and B read from
the bindings by index arithmetic; see Conv2D. Rows past M and columns past
N are clamped to the last one: they feed only sums that are not written.
Index arithmetic is in u32: a position left of or above the input wraps to
a value past its size, so one comparison rejects both sides. A workgroup's
.Threads threads are numbered in one dimension, .X across (lx, fastest) and
.Y down (ly), then (the filter's gradient with .Z > 1) .Z slices: lavapipe
runs invocations as vector lanes along x only. */ -}}
{{- define "convpixels"}}
{{- /* The image, row and column (pn<i>, py<i>, px<i>) of each of .U rows
from row0, pixels of the output ("out") or the input ("in") counted from
m0 = min(row0, M - 1): counters stepped row by row (a row past M repeats
the one before), so that only row0 is divided. */}}
{{- $w := "p.out_w"}}{{$h := "p.out_h"}}{{if eq .Body "in"}}{{$w = "p.in_w"}}{{$h = "p.in_h"}}{{end}}
	let m0 = min(row0, M - 1u);
	var cx = m0 % {{$w}};
	var cy = m0 / {{$w}} % {{$h}};
	var cn = m0 / {{$w}} / {{$h}};
{{- range $i := seq .U}}
{{- if $i}}
	let st{{$i}} = row0 + {{$i}}u < M;
	cx += select(0u, 1u, st{{$i}});
	let wx{{$i}} = cx == {{$w}};
	cx = select(cx, 0u, wx{{$i}});
	cy += select(0u, 1u, wx{{$i}});
	let wy{{$i}} = cy == {{$h}};
	cy = select(cy, 0u, wy{{$i}});
	cn += select(0u, 1u, wy{{$i}});
{{- end}}
	let px{{$i}} = cx; let py{{$i}} = cy; let pn{{$i}} = cn;
{{- end}}
{{- end}}
{{- define "convtaps"}}
{{- /* The tap (ty<i>, tx<i>) and channel tc<i> of each of .U rows of a
filter (m = (ky·kernel_w + kx)·group_in + channel), from row0 by .Body
(1, or 4 for quads of channels), counted from m0 = min(row0, M - .Body)
as convpixels counts pixels. */}}
	let m0 = min(row0, M - {{.Body}}u);
	var tci = m0 % p.group_in;
	var tkx = m0 / p.group_in % p.kernel_w;
	var tky = m0 / p.group_in / p.kernel_w;
{{- $s := .Body}}
{{- range $i := seq .U}}
{{- if $i}}
	let st{{$i}} = row0 + {{$i}}u * {{$s}}u < M;
	tci += select(0u, {{$s}}u, st{{$i}});
	let wc{{$i}} = tci == p.group_in;
	tci = select(tci, 0u, wc{{$i}});
	tkx += select(0u, 1u, wc{{$i}});
	let wx{{$i}} = tkx == p.kernel_w;
	tkx = select(tkx, 0u, wx{{$i}});
	tky += select(0u, 1u, wx{{$i}});
{{- end}}
	let tc{{$i}} = tci; let tx{{$i}} = tkx; let ty{{$i}} = tky;
{{- end}}
{{- end}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> a: array<{{.AElem}}>;
@group(0) @binding(1) var<storage, read> bm: array<{{.BElem}}>;
@group(0) @binding(2) var<storage, read_write> c: array<{{if or .Vec4 .B4}}vec4<f32>{{else}}f32{{end}}>;
@group(0) @binding(3) var<uniform> p: Params;
{{- if .Lib}}
{{.Lib}}
{{- end}}
{{- /* la reads A (a vec4 of four channels with .Vec4), half-width x
unpacked for the forward product; lbm reads B for the forward product
(an int8 or half-width filter unpacked) and the filter's gradient. */}}
{{.LoadA}}
{{- if eq .Op "forward" "filter"}}
{{.LoadB}}
{{- end}}
{{- if .Vec4}}
{{- /* .Rows rows x .Cols vec4s of columns per thread, read as vec4s of four
channels. The forward product loops over the taps, and for each works out
the pixel each row reads (o<i>, or none: ok<i> false in the padding), then
loops over four channels of that pixel per load. The filter's gradient
reads each quad of rows (four channels of one tap) as one vec4 of the
input at the pixel output pixel k sees through that tap; k's column, row
and image are counters k0, k1, k2 stepped with k, not divisions, as are the
rows' pixels (convpixels) and taps (convtaps) from the first row's. */}}
@compute @workgroup_size({{.Threads}})
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let lx = li % {{.X}}u; let ly = li / {{.X}}u;
	let M = p.m; let N4 = p.n / 4u;
{{- if eq .Op "filter"}}
	let z = w.z + p.first_group;
	let g = z % p.groups;
	let slice = z / p.groups;
	let k_first = p.k_first + slice * p.k_slice;
	let k_end = min(p.k_end + slice * p.k_slice, p.k);
	let out0 = slice * (p.slice_size / 4u);
{{- else}}
	let g = w.z + p.first_group;
	let k_first = p.k_first; let k_end = p.k_end; let out0 = 0u;
{{- end}}
	let row0 = ((w.y + p.first_row) * {{.Y}}u + ly) * {{.Rows}}u;
	let cb0 = ((w.x + p.first_col) * {{.X}}u + lx) * {{.Cols}}u;
	let C4 = p.in_c / 4u; let O4 = p.out_c / 4u;
	let cs = {{if eq .Op "input"}}C4{{else}}O4{{end}};
{{- range $j := seq .Cols}}
	let bc{{$j}} = g * N4 + min(cb0 + {{$j}}u, N4 - 1u);
{{- end}}
{{- range $i := seq .Rows}}{{range $j := seq $.Cols}}
	var s{{$i}}_{{$j}} = vec4<f32>(0.0);
{{- end}}{{end}}
	if (p.k_first > 0u) {
{{- range $i := seq .Rows}}{{range $j := seq $.Cols}}
		if (row0 + {{$i}}u < M && cb0 + {{$j}}u < N4) { s{{$i}}_{{$j}} = c[out0 + (row0 + {{$i}}u) * cs + bc{{$j}}]; }
{{- end}}{{end}}
	}
{{- if eq .Op "filter"}}
{{- template "convtaps" pass (len .Quads) "4"}}
{{- range $q := .Quads}}
	let ry{{$q.Index}} = ty{{$q.Index}} * p.dilation_h - p.pad_top;
	let rx{{$q.Index}} = tx{{$q.Index}} * p.dilation_w - p.pad_left;
	let rc{{$q.Index}} = (g * p.group_in + tc{{$q.Index}}) / 4u;
{{- end}}
	let lim0 = p.out_w; let lim1 = p.out_h;
	var k0 = k_first % lim0;
	var k1 = k_first / lim0 % lim1;
	var k2 = k_first / lim0 / lim1;
	for (var k = k_first; k < k_end; k++) {
		let ky = k1 * p.stride_h;
		let kx = k0 * p.stride_w;
		let kb = k2 * p.in_h;
{{- range $q := .Quads}}
		let y{{$q.Index}} = ry{{$q.Index}} + ky;
		let x{{$q.Index}} = rx{{$q.Index}} + kx;
		let ok{{$q.Index}} = y{{$q.Index}} < p.in_h && x{{$q.Index}} < p.in_w;
		let a{{$q.Index}} = select(vec4<f32>(0.0), la(select(0u, ((kb + y{{$q.Index}}) * p.in_w + x{{$q.Index}}) * C4 + rc{{$q.Index}}, ok{{$q.Index}})), ok{{$q.Index}});
{{- end}}
{{- range $j := seq .Cols}}
		let b{{$j}} = bm[k * O4 + bc{{$j}}];
{{- range $q := $.Quads}}{{range $r := $q.Rows}}
		s{{$r.Row}}_{{$j}} = fma(vec4<f32>(a{{$q.Index}}.{{$r.Lane}}), b{{$j}}, s{{$r.Row}}_{{$j}});
{{- end}}{{end}}{{end}}
		k0 += 1u;
		let wrap0 = k0 == lim0;
		k0 = select(k0, 0u, wrap0);
		k1 += select(0u, 1u, wrap0);
		let wrap1 = k1 == lim1;
		k1 = select(k1, 0u, wrap1);
		k2 += select(0u, 1u, wrap1);
	}
{{- else if eq .Op "input"}}
	let gout = g * (p.group_out / 4u);
{{- template "convpixels" pass .Rows "in"}}
{{- range $i := seq .Rows}}
	let ry{{$i}} = py{{$i}} + p.pad_top;
	let rx{{$i}} = px{{$i}} + p.pad_left;
	let rb{{$i}} = pn{{$i}} * p.out_h;
{{- end}}
{{- range $q := .ColQuads}}{{range $t := $q.Rows}}
	let fc{{$t.Row}} = min(cb0 * 4u + {{$t.Row}}u, p.n - 1u);
{{- end}}{{end}}
	for (var tap = p.k_first / p.group_out; tap * p.group_out < p.k_end; tap++) {
		let ky = tap / p.kernel_w * p.dilation_h;
		let kx = tap % p.kernel_w * p.dilation_w;
{{- range $i := seq .Rows}}
		let y{{$i}} = ry{{$i}} - ky;
		let x{{$i}} = rx{{$i}} - kx;
{{- if $.Unit}}
		let ok{{$i}} = ry{{$i}} >= ky && rx{{$i}} >= kx && y{{$i}} < p.out_h && x{{$i}} < p.out_w;
{{- else}}
		let ok{{$i}} = ry{{$i}} >= ky && rx{{$i}} >= kx && y{{$i}} % p.stride_h == 0u && x{{$i}} % p.stride_w == 0u && y{{$i}} / p.stride_h < p.out_h && x{{$i}} / p.stride_w < p.out_w;
{{- end}}
		let o{{$i}} = select(0u, ((rb{{$i}} + y{{$i}}{{if not $.Unit}} / p.stride_h{{end}}) * p.out_w + x{{$i}}{{if not $.Unit}} / p.stride_w{{end}}) * O4 + gout, ok{{$i}});
{{- end}}
{{- range $q := .ColQuads}}{{range $t := $q.Rows}}
		let fo{{$t.Row}} = (tap * p.group_in + fc{{$t.Row}}) * O4 + gout;
{{- end}}{{end}}
		let kbase = tap * p.group_out;
		let cend = (min(p.k_end, kbase + p.group_out) - kbase) / 4u;
		for (var c4 = (max(p.k_first, kbase) - kbase) / 4u; c4 < cend; c4++) {
{{- range $i := seq .Rows}}
			let a{{$i}} = select(vec4<f32>(0.0), la(o{{$i}} + c4), ok{{$i}});
{{- end}}
{{- range $q := .ColQuads}}{{range $t := $q.Rows}}
			let f{{$t.Row}} = bm[fo{{$t.Row}} + c4];
{{- end}}{{end}}
{{- range $kk := seq 4}}{{$lane := index (lanes) $kk}}{{range $q := $.ColQuads}}
			let b{{$kk}}_{{$q.Index}} = vec4<f32>({{range $n, $t := $q.Rows}}{{if $n}}, {{end}}f{{$t.Row}}.{{$lane}}{{end}});
{{- range $i := seq $.Rows}}
			s{{$i}}_{{$q.Index}} = select(s{{$i}}_{{$q.Index}}, fma(vec4<f32>(a{{$i}}.{{$lane}}), b{{$kk}}_{{$q.Index}}, s{{$i}}_{{$q.Index}}), ok{{$i}});
{{- end}}{{end}}{{end}}
		}
	}
{{- else}}
	let gin = g * (p.group_in / 4u);
{{- template "convpixels" pass .Rows "out"}}
{{- range $i := seq .Rows}}
	let ry{{$i}} = py{{$i}} * p.stride_h;
	let rx{{$i}} = px{{$i}} * p.stride_w;
	let rb{{$i}} = pn{{$i}} * p.in_h;
{{- end}}
	for (var tap = p.k_first / p.group_in; tap * p.group_in < p.k_end; tap++) {
		let ky = tap / p.kernel_w * p.dilation_h - p.pad_top;
		let kx = tap % p.kernel_w * p.dilation_w - p.pad_left;
{{- range $i := seq .Rows}}
		let ok{{$i}} = ry{{$i}} + ky < p.in_h && rx{{$i}} + kx < p.in_w;
		let o{{$i}} = select(0u, ((rb{{$i}} + ry{{$i}} + ky) * p.in_w + rx{{$i}} + kx) * C4 + gin, ok{{$i}});
{{- end}}
		let kbase = tap * p.group_in;
		let cend = (min(p.k_end, kbase + p.group_in) - kbase) / 4u;
		for (var c4 = (max(p.k_first, kbase) - kbase) / 4u; c4 < cend; c4++) {
{{- range $i := seq .Rows}}
			let a{{$i}} = select(vec4<f32>(0.0), la(o{{$i}} + c4), ok{{$i}});
{{- end}}
			let krow = (kbase + c4 * 4u) * O4;
{{- range $kk := seq 4}}{{$lane := index (lanes) $kk}}{{range $j := seq $.Cols}}
			let b{{$kk}}_{{$j}} = lbm(krow + {{$kk}}u * O4 + bc{{$j}});
{{- range $i := seq $.Rows}}
			s{{$i}}_{{$j}} = fma(vec4<f32>(a{{$i}}.{{$lane}}), b{{$kk}}_{{$j}}, s{{$i}}_{{$j}});
{{- end}}{{end}}{{end}}
		}
	}
{{- end}}
{{- range $i := seq .Rows}}{{range $j := seq $.Cols}}
	if (row0 + {{$i}}u < M && cb0 + {{$j}}u < N4) { c[out0 + (row0 + {{$i}}u) * cs + bc{{$j}}] = s{{$i}}_{{$j}}; }
{{- end}}{{end}}
}
{{- else}}
{{- /* One k per trip, .Rows rows x .Cols columns per thread. Each row's and
each k's share of the indices is worked out once: for the forward product a
row is an output pixel (its image, and its window's corner) and k a tap and
a channel; for the filter's gradient a row is a tap and a channel, k an
output pixel; for the input's, a row is an input pixel and k a tap and an
output channel. k's parts are counters k0, k1, k2 (the fastest first,
wrapping at lim0 and lim1) stepped with k: no division per trip; the rows'
are counters stepped from the first row's (convpixels, convtaps). With .B4
a thread's columns of B are .Cols/4 vec4s (a thread past N reads the last
.Cols, for sums that are not written) and its sums are written by vec4s.
With .Z > 1 each of a workgroup's .Z slices of threads sums its own slice
of k (z); those past the last slice (live false) write nothing. */}}
@compute @workgroup_size({{.Threads}})
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let lx = li % {{.X}}u; let ly = li / {{.X}}u{{if gt .Z 1}} % {{.Y}}u{{end}};
	let M = p.m; let N = p.n;
{{- if eq .Op "filter"}}
{{- if gt .Z 1}}
	let z = (w.z + p.first_group) * {{.Z}}u + li / {{.XY}}u;
{{- else}}
	let z = w.z + p.first_group;
{{- end}}
	let g = z % p.groups;
	let slice = z / p.groups;
{{- if gt .Z 1}}
	let live = slice < select(1u, (p.k + p.k_slice - 1u) / p.k_slice, p.k_slice > 0u);
{{- end}}
	let k_first = p.k_first + slice * p.k_slice;
	let k_end = min(p.k_end + slice * p.k_slice, p.k);
	let out0 = slice * p.slice_size;
{{- else}}
	let g = w.z + p.first_group;
	let k_first = p.k_first; let k_end = p.k_end; let out0 = 0u;
{{- end}}
	let row0 = ((w.y + p.first_row) * {{.Y}}u + ly) * {{.Rows}}u;
	let col0 = ((w.x + p.first_col) * {{.X}}u + lx) * {{.Cols}}u;
{{- if eq .Op "input"}}
	let cstride = p.in_c;
{{- template "convpixels" pass .Rows "in"}}
{{- range $i := seq .Rows}}
	let ry{{$i}} = py{{$i}} + p.pad_top;
	let rx{{$i}} = px{{$i}} + p.pad_left;
	let rb{{$i}} = pn{{$i}} * p.out_h;
{{- end}}
{{- else}}
	let cstride = p.out_c;
{{- if eq .Op "forward"}}
{{- template "convpixels" pass .Rows "out"}}
{{- range $i := seq .Rows}}
	let ry{{$i}} = py{{$i}} * p.stride_h - p.pad_top;
	let rx{{$i}} = px{{$i}} * p.stride_w - p.pad_left;
	let rb{{$i}} = pn{{$i}} * p.in_h;
	let rc{{$i}} = g * p.group_in;
{{- end}}
{{- else}}
{{- template "convtaps" pass .Rows "1"}}
{{- range $i := seq .Rows}}
	let ry{{$i}} = ty{{$i}} * p.dilation_h - p.pad_top;
	let rx{{$i}} = tx{{$i}} * p.dilation_w - p.pad_left;
	let rb{{$i}} = 0u;
	let rc{{$i}} = g * p.group_in + tc{{$i}};
{{- end}}
{{- end}}
{{- end}}
{{- range $j := seq .Cols}}
	let c{{$j}} = min(col0 + {{$j}}u, N - 1u);
{{- end}}
{{- range $i := seq .Rows}}{{range $j := seq $.Cols}}
	var s{{$i}}_{{$j}} = 0.0;
{{- end}}{{end}}
	if (p.k_first > 0u{{if gt .Z 1}} && live{{end}}) {
{{- if .B4}}
{{- range $i := seq .Rows}}
		if (row0 + {{$i}}u < M && col0 < N) {
{{- range $q := $.ColQuads}}
			let v{{$q.Index}} = c[(out0 + (row0 + {{$i}}u) * cstride + g * N + col0) / 4u + {{$q.Index}}u];
{{- range $r := $q.Rows}}
			s{{$i}}_{{$r.Row}} = v{{$q.Index}}.{{$r.Lane}};
{{- end}}{{end}}
		}
{{- end}}
{{- else}}
{{- range $i := seq .Rows}}{{range $j := seq $.Cols}}
		if (row0 + {{$i}}u < M && col0 + {{$j}}u < N) { s{{$i}}_{{$j}} = c[out0 + (row0 + {{$i}}u) * cstride + g * N + col0 + {{$j}}u]; }
{{- end}}{{end}}
{{- end}}
	}
{{- if eq .Op "filter"}}
	let lim0 = p.out_w; let lim1 = p.out_h;
{{- else if eq .Op "forward"}}
	let lim0 = p.group_in; let lim1 = p.kernel_w;
{{- else}}
	let lim0 = p.group_out; let lim1 = p.kernel_w;
{{- end}}
	var k0 = k_first % lim0;
	var k1 = k_first / lim0 % lim1;
	var k2 = k_first / lim0 / lim1;
	for (var k = k_first; k < k_end; k++) {
{{- if eq .Op "input"}}
		let tap = k2 * p.kernel_w + k1;
		let ky = k2 * p.dilation_h;
		let kx = k1 * p.dilation_w;
		let kc = g * p.group_out + k0;
{{- range $i := seq .Rows}}
		let y{{$i}} = ry{{$i}} - ky;
		let x{{$i}} = rx{{$i}} - kx;
{{- if $.Unit}}
		let ok{{$i}} = ry{{$i}} >= ky && rx{{$i}} >= kx && y{{$i}} < p.out_h && x{{$i}} < p.out_w;
{{- else}}
		let ok{{$i}} = ry{{$i}} >= ky && rx{{$i}} >= kx && y{{$i}} % p.stride_h == 0u && x{{$i}} % p.stride_w == 0u && y{{$i}} / p.stride_h < p.out_h && x{{$i}} / p.stride_w < p.out_w;
{{- end}}
		let a{{$i}} = select(0.0, la(select(0u, ((rb{{$i}} + y{{$i}}{{if not $.Unit}} / p.stride_h{{end}}) * p.out_w + x{{$i}}{{if not $.Unit}} / p.stride_w{{end}}) * p.out_c + kc, ok{{$i}})), ok{{$i}});
{{- end}}
{{- range $j := seq .Cols}}
		let b{{$j}} = bm[(tap * p.group_in + c{{$j}}) * p.out_c + kc];
{{- end}}
{{- range $i := seq .Rows}}
		if (ok{{$i}}) {
{{- range $j := seq $.Cols}}
			s{{$i}}_{{$j}} = fma(a{{$i}}, b{{$j}}, s{{$i}}_{{$j}});
{{- end}}
		}
{{- end}}
{{- else}}
{{- if eq .Op "forward"}}
		let ky = k2 * p.dilation_h;
		let kx = k1 * p.dilation_w;
		let kb = 0u;
		let kc = k0;
{{- else}}
		let ky = k1 * p.stride_h;
		let kx = k0 * p.stride_w;
		let kb = k2 * p.in_h;
		let kc = 0u;
{{- end}}
{{- range $i := seq .Rows}}
		let y{{$i}} = ry{{$i}} + ky;
		let x{{$i}} = rx{{$i}} + kx;
		let ok{{$i}} = y{{$i}} < p.in_h && x{{$i}} < p.in_w;
		let a{{$i}} = select(0.0, la(select(0u, ((rb{{$i}} + kb + y{{$i}}) * p.in_w + x{{$i}}) * p.in_c + rc{{$i}} + kc, ok{{$i}})), ok{{$i}});
{{- end}}
{{- if .B4}}
		let bq = (k * p.out_c + g * N + min(col0, N - {{.Cols}}u)) / 4u;
{{- range $q := .ColQuads}}
		let bv{{$q.Index}} = lbm(bq + {{$q.Index}}u);
{{- range $r := $q.Rows}}
		let b{{$r.Row}} = bv{{$q.Index}}.{{$r.Lane}};
{{- end}}{{end}}
{{- else}}
{{- range $j := seq .Cols}}
		let b{{$j}} = lbm(k * p.out_c + g * N + c{{$j}});
{{- end}}
{{- end}}
{{- range $i := seq .Rows}}{{range $j := seq $.Cols}}
		s{{$i}}_{{$j}} = fma(a{{$i}}, b{{$j}}, s{{$i}}_{{$j}});
{{- end}}{{end}}
{{- end}}
		k0 += 1u;
		let wrap0 = k0 == lim0;
		k0 = select(k0, 0u, wrap0);
		k1 += select(0u, 1u, wrap0);
		let wrap1 = k1 == lim1;
		k1 = select(k1, 0u, wrap1);
		k2 += select(0u, 1u, wrap1);
	}
{{- if .B4}}
{{- range $i := seq .Rows}}
	if ({{if gt $.Z 1}}live && {{end}}row0 + {{$i}}u < M && col0 < N) {
{{- range $q := $.ColQuads}}
		c[(out0 + (row0 + {{$i}}u) * cstride + g * N + col0) / 4u + {{$q.Index}}u] = vec4<f32>({{range $n, $r := $q.Rows}}{{if $n}}, {{end}}s{{$i}}_{{$r.Row}}{{end}});
{{- end}}
	}
{{- end}}
{{- else}}
{{- range $i := seq .Rows}}{{range $j := seq $.Cols}}
	if ({{if gt $.Z 1}}live && {{end}}row0 + {{$i}}u < M && col0 + {{$j}}u < N) { c[out0 + (row0 + {{$i}}u) * cstride + g * N + col0 + {{$j}}u] = s{{$i}}_{{$j}}; }
{{- end}}{{end}}
{{- end}}
}
{{- end}}
