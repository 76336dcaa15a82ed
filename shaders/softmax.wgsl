{{- /* Softmax (or with .Log log-softmax) along each row; see Softmax. */ -}}
{{- /* x is the row's element j: with .Unpack, half of a word. */ -}}
{{define "x"}}{{if .Unpack}}load(base + j * st){{else}}src[base + j * st]{{end}}{{end -}}
{{define "softmax_value"}}{{if .Log}}{{template "x" .}} - mx - log(total){{else}}exp({{template "x" .}} - mx) / total{{end}}{{end -}}
{{- /* each runs its body for every j of the row this thread takes; end_each closes it. */ -}}
{{define "each"}}for (var b0 = 0u; b0 < len; b0 += {{.Chunk}}u) { for (var u = 0u; u < {{.Unroll}}u; u++) { let j = b0 + u * {{.Group}}u + l; if (j >= len) { break; } {{end -}}
{{define "end_each"}} } }{{end -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> src: array<{{if .Unpack}}u32{{else}}f32{{end}}>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;
{{template "row_base" .}}
{{- template "half_load" .}}
{{- if .PerThread}}
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row + p.first;
	if (row >= p.end) { return; }
	let len = p.length;
	let base = row_base(row);
	let st = max(p.stride, 1u);
	var mx = -3.4028234e38;
	for (var j = 0u; j < len; j++) { mx = max(mx, {{template "x" .}}); }
	var total = 0.0;
	for (var j = 0u; j < len; j++) { total += exp({{template "x" .}} - mx); }
	for (var j = 0u; j < len; j++) { dst[base + j * st] = {{template "softmax_value" .}}; }
}
{{- else}}
var<workgroup> red: array<f32, {{.Group}}>;
@compute @workgroup_size({{.Group}})
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let row = w.x + w.y * p.row + p.first;
	if (row >= p.end) { return; }
	let len = p.length;
	let base = row_base(row);
	let st = max(p.stride, 1u);
	var m = -3.4028234e38;
	{{template "each" .}}m = max(m, {{template "x" .}});{{template "end_each"}}
	red[l] = m;
	workgroupBarrier();
	for (var h = {{.Half}}u; h > 0u; h = h >> 1u) {
		if (l < h) { red[l] = max(red[l], red[l + h]); }
		workgroupBarrier();
	}
	let mx = red[0];
	workgroupBarrier();
	var sum = 0.0;
	{{template "each" .}}sum += exp({{template "x" .}} - mx);{{template "end_each"}}
	red[l] = sum;
	workgroupBarrier();
	for (var h = {{.Half}}u; h > 0u; h = h >> 1u) {
		if (l < h) { red[l] = red[l] + red[l + h]; }
		workgroupBarrier();
	}
	let total = red[0];
	{{template "each" .}}dst[base + j * st] = {{template "softmax_value" .}};{{template "end_each"}}
}
{{- end}}
