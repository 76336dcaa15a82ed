{{- /* LayerNorm with Grad: dx, and dgamma and dbeta summed over a slice of rows, a workgroup per slice; see LayerNorm.
Each pass over a row takes .Unroll elements a trip, then the rest one a trip, in order (see LoopTrips);
so does each column's sum over the slice's rows. */ -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> gamma: array<f32>;
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;
@group(0) @binding(4) var<storage, read_write> dgamma: array<f32>;
@group(0) @binding(5) var<storage, read_write> dbeta: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;
var<workgroup> means: array<f32, {{.WorkgroupSize}}>;
var<workgroup> rstds: array<f32, {{.WorkgroupSize}}>;
{{- /* row_grad writes row r's dx and returns its mean and rstd, the forward's. */}}
fn row_grad(r: u32) -> vec2<f32> {
{{- template "layernorm_stats" .}}
	var sg = 0.0;
	var sgx = 0.0;
{{- template "row_pass" (pass .Unroll "let g = dy[base + k] * gamma[k]; sg += g; sgx += g * ((x[base + k] - mean) * rstd);")}}
	let mg = sg / f32(len);
	let mgx = sgx / f32(len);
{{- template "row_pass" (pass .Unroll "dx[base + k] = rstd * ((dy[base + k] * gamma[k] - mg) - (x[base + k] - mean) * rstd * mgx);")}}
	return vec2<f32>(mean, rstd);
}
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let slice = w.x + w.y * p.row + p.first;
	if (slice >= p.end) { return; }
	let len = p.length;
	let first = slice * {{.WorkgroupSize}}u;
	var stats = vec2<f32>(0.0, 0.0);
	if (first + l < p.rows) { stats = row_grad(first + l); }
	means[l] = stats.x;
	rstds[l] = stats.y;
	workgroupBarrier();
	let count = min({{.WorkgroupSize}}u, p.rows - first);
	let out = slice * len;
	for (var c = l; c < len; c += {{.WorkgroupSize}}u) {
		var sg = 0.0;
		var sb = 0.0;
		var q = 0u;
		for (; q + {{.Unroll}}u <= count; q += {{.Unroll}}u) {
{{- range seq .Unroll}}
			{ let s = q + {{.}}u; let i = (first + s) * len + c; let d = dy[i]; sb += d; sg += d * ((x[i] - means[s]) * rstds[s]); }
{{- end}}
		}
		for (; q < count; q++) { let s = q; let i = (first + s) * len + c; let d = dy[i]; sb += d; sg += d * ((x[i] - means[s]) * rstds[s]); }
		dgamma[out + c] = sg;
		dbeta[out + c] = sb;
	}
}
