{{- /* LayerNorm: y = (x - mean) * rsqrt(var + eps) * gamma + beta over each row, a thread per row; see LayerNorm.
Each pass takes .Unroll elements a trip, then the rest one a trip, in order (see LoopTrips). */ -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> gamma: array<f32>;
@group(0) @binding(2) var<storage, read> beta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let r = g.x + g.y * p.row + p.first;
	if (r >= p.end) { return; }
	let n = p.length;
	let base = r * n;
	var sum = 0.0;
	var j = 0u;
	for (; j + {{.Unroll}}u <= n; j += {{.Unroll}}u) {
{{- range seq .Unroll}}
		sum += x[base + j + {{.}}u];
{{- end}}
	}
	for (; j < n; j++) { sum += x[base + j]; }
	let mean = sum / f32(n);
	var sq = 0.0;
	j = 0u;
	for (; j + {{.Unroll}}u <= n; j += {{.Unroll}}u) {
{{- range seq .Unroll}}
		let d{{.}} = x[base + j + {{.}}u] - mean;
		sq += d{{.}} * d{{.}};
{{- end}}
	}
	for (; j < n; j++) {
		let d = x[base + j] - mean;
		sq += d * d;
	}
	let rstd = inverseSqrt(sq / f32(n) + p.eps);
	j = 0u;
	for (; j + {{.Unroll}}u <= n; j += {{.Unroll}}u) {
{{- range seq .Unroll}}
		y[base + j + {{.}}u] = (x[base + j + {{.}}u] - mean) * rstd * gamma[j + {{.}}u] + beta[j + {{.}}u];
{{- end}}
	}
	for (; j < n; j++) {
		y[base + j] = (x[base + j] - mean) * rstd * gamma[j] + beta[j];
	}
}
