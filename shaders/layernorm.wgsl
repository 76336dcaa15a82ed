{{- /* LayerNorm: y = (x - mean) * rsqrt(var + eps) * gamma + beta over each row, a thread per row; see LayerNorm.
Each pass takes .Unroll elements a trip, then the rest one a trip, in order (see LoopTrips). */ -}}
{{- /* layernorm_stats: row r's mean and rstd, in len, base, mean and rstd;
LayerNorm's gradient (layernorm_grad.wgsl) computes them with the same
passes, so that its normalised x is the forward's to the bit. */ -}}
{{define "layernorm_stats"}}
	let len = p.length;
	let base = r * len;
	var j: u32;
	var sum = 0.0;
{{- template "row_pass" (pass .Unroll "sum += x[base + k];")}}
	let mean = sum / f32(len);
	var sq = 0.0;
{{- template "row_pass" (pass .Unroll "let d = x[base + k] - mean; sq += d * d;")}}
	let rstd = inverseSqrt(sq / f32(len) + p.eps);{{end}}
{{- .Params -}}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> gamma: array<f32>;
@group(0) @binding(2) var<storage, read> beta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let r = g.x + g.y * p.row + p.first;
	if (r >= p.end) { return; }
{{- template "layernorm_stats" .}}
{{- template "row_pass" (pass .Unroll "y[base + k] = (x[base + k] - mean) * rstd * gamma[k] + beta[k];")}}
}
