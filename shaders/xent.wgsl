{{- /* SoftmaxXent: softmax cross-entropy of each row against a label or probabilities; see SoftmaxXent. */ -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read> t: array<{{if .Dense}}f32{{else}}i32{{end}}>;
{{- if .Grad}}
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<storage, read_write> dst: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
{{- else}}
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;
{{- end}}
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row + p.first;
	if (row >= p.end) { return; }
	let len = p.length;
	let base = row * len;
	var mx = -3.4028234e38;
	for (var j = 0u; j < len; j++) { mx = max(mx, src[base + j]); }
	var total = 0.0;
	for (var j = 0u; j < len; j++) { total += exp(src[base + j] - mx); }
{{- if .Grad}}
	let gr = dy[row];
{{- if .Dense}}
	var mass = 0.0;
	for (var j = 0u; j < len; j++) { mass += t[base + j]; }
	for (var j = 0u; j < len; j++) { dst[base + j] = gr * (exp(src[base + j] - mx) / total * mass - t[base + j]); }
{{- else}}
	let y = t[row];
	for (var j = 0u; j < len; j++) { dst[base + j] = gr * (exp(src[base + j] - mx) / total - select(0.0, 1.0, i32(j) == y)); }
{{- end}}
{{- else if .Dense}}
	var dot = 0.0;
	var mass = 0.0;
	for (var j = 0u; j < len; j++) { let q = t[base + j]; dot += q * (mx - src[base + j]); mass += q; }
	dst[row] = dot + mass * log(total);
{{- else}}
	let y = t[row];
	if (y < 0 || u32(y) >= len) { dst[row] = bitcast<f32>(0x7fc00000u); return; }
	dst[row] = (mx - src[base + u32(y)]) + log(total);
{{- end}}
}
