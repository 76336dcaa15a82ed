{{- /* SoftmaxXent: softmax cross-entropy of each row against a label or probabilities; see SoftmaxXent.
Each pass takes .Unroll classes a trip, then the rest one a trip, in order (see LoopTrips). */ -}}
{{- /* row_pass: j from 0 over a row of len, .U elements (k) a trip running .Body, then the rest one a trip; LayerNorm uses it too. */ -}}
{{- define "row_pass"}}
	j = 0u;
	for (; j + {{.U}}u <= len; j += {{.U}}u) {
{{- $body := .Body}}{{range seq .U}}
		{ let k = j + {{.}}u; {{$body}} }
{{- end}}
	}
	for (; j < len; j++) { let k = j; {{.Body}} }
{{- end -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read> t: array<{{if .Dense}}f32{{else}}i32{{end}}>;
{{- if .Weighted}}
@group(0) @binding(2) var<storage, read> w: array<f32>;
{{- end}}
{{- if .Grad}}
@group(0) @binding({{index .Bindings 0}}) var<storage, read> dy: array<f32>;
{{- end}}
@group(0) @binding({{index .Bindings 1}}) var<storage, read_write> dst: array<f32>;
@group(0) @binding({{index .Bindings 2}}) var<uniform> p: Params;
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row + p.first;
	if (row >= p.end) { return; }
	let len = p.length;
	let base = row * len;
	var j: u32;
	var mx = -3.4028234e38;
{{- template "row_pass" (pass .Unroll "mx = max(mx, src[base + k]);")}}
	var total = 0.0;
{{- template "row_pass" (pass .Unroll "total += exp(src[base + k] - mx);")}}
{{- if .Grad}}
	let gr = {{if .Weighted}}dy[0] * w[row]{{else if .Mean}}dy[0] * p.scale{{else}}dy[row]{{end}};
{{- if .Dense}}
	var mass = 0.0;
{{- template "row_pass" (pass .Unroll "mass += t[base + k];")}}
{{- template "row_pass" (pass .Unroll "dst[base + k] = gr * (exp(src[base + k] - mx) / total * mass - t[base + k]);")}}
{{- else}}
	let y = t[row];
{{- template "row_pass" (pass .Unroll "dst[base + k] = gr * (exp(src[base + k] - mx) / total - select(0.0, 1.0, i32(k) == y));")}}
{{- end}}
{{- else if .Dense}}
	var dot = 0.0;
	var mass = 0.0;
{{- template "row_pass" (pass .Unroll "let q = t[base + k]; dot += q * (mx - src[base + k]); mass += q;")}}
{{- if .Weighted}}
	let loss = dot + mass * log(total);
	dst[row] = loss * w[row];
{{- else}}
	dst[row] = dot + mass * log(total);
{{- end}}
{{- else}}
	let y = t[row];
	if (y < 0 || u32(y) >= len) { dst[row] = bitcast<f32>(0x7fc00000u); return; }
{{- if .Weighted}}
	let loss = (mx - src[base + u32(y)]) + log(total);
	dst[row] = loss * w[row];
{{- else}}
	dst[row] = (mx - src[base + u32(y)]) + log(total);
{{- end}}
{{- end}}
}
