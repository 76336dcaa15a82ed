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
{{- template "row_pass" (pass .Unroll (printf "sum += %s;" .X))}}
	let mean = sum / f32(len);
	var sq = 0.0;
{{- template "row_pass" (pass .Unroll (printf "let d = %s - mean; sq += d * d;" .X))}}
	let rstd = inverseSqrt(sq / f32(len) + p.eps);{{end}}
{{- .Params -}}
@group(0) @binding(0) var<storage, read> x: array<{{.Elem}}>;
@group(0) @binding(1) var<storage, read> gamma: array<{{.Elem}}>;
@group(0) @binding(2) var<storage, read> beta: array<{{.Elem}}>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
{{- if .Unpack}}
{{.Lib}}
{{- /* lx, lg and lbeta read element i of x, gamma and beta: half of a word. */}}
fn lx(i: u32) -> f32 { return {{.Unpack}}(x[i >> 1u], i & 1u); }
fn lg(i: u32) -> f32 { return {{.Unpack}}(gamma[i >> 1u], i & 1u); }
fn lbeta(i: u32) -> f32 { return {{.Unpack}}(beta[i >> 1u], i & 1u); }
{{- end}}
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let r = g.x + g.y * p.row + p.first;
	if (r >= p.end) { return; }
{{- template "layernorm_stats" .}}
{{- template "row_pass" (pass .Unroll (printf "y[base + k] = (%s - mean) * rstd * %s + %s;" .X .G .B))}}
}
