{{- /* LayerNorm with Grad, Columns and Vec4: LayerNorm's backward in one dispatch over rows of a multiple of 4 elements,
every buffer read and written four elements (a quad) a load; see LayerNorm. Each pass over a row takes .Quads quads a trip,
then the rest one a trip, in order (see LoopTrips), and sums a quad's elements in order: the sums are those of the scalar
kernels, to the bit; each column quad's sum over a slice's rows takes .ColumnUnroll rows a trip, then one. */ -}}
{{- /* layernorm_quad_stats: row r's mean and rstd, in n (the row's elements), len (its quads), base, mean and rstd. */ -}}
{{- define "layernorm_quad_stats"}}
	let n = p.length;
	let len = n / 4u;
	let base = r * len;
	var j: u32;
	var sum = 0.0;
{{- template "row_pass" (pass .Quads "let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w;")}}
	let mean = sum / f32(n);
	var sq = 0.0;
{{- template "row_pass" (pass .Quads "let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w;")}}
	let rstd = inverseSqrt(sq / f32(n) + p.eps);{{end}}
{{- .Params -}}
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gamma: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> dy: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> dx: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> dgamma: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> dbeta: array<vec4<f32>>;
@group(0) @binding(6) var<uniform> p: Params;
{{- /* Two slices' means and rstds: a slice's are written while the last one's may still be read. */}}
var<workgroup> stats: array<vec2<f32>, {{.Stats}}>;
{{- /* row_grad writes row r's dx. */}}
fn row_grad(r: u32) {
{{- template "layernorm_quad_stats" .}}
	var sg = 0.0;
	var sgx = 0.0;
{{- template "row_pass" (pass .Quads "let g = dy[base + k] * gamma[k]; let h = (x[base + k] - mean) * rstd; sg += g.x; sgx += g.x * h.x; sg += g.y; sgx += g.y * h.y; sg += g.z; sgx += g.z * h.z; sg += g.w; sgx += g.w * h.w;")}}
	let mg = sg / f32(n);
	let mgx = sgx / f32(n);
{{- template "row_pass" (pass .Quads "dx[base + k] = rstd * ((dy[base + k] * gamma[k] - mg) - (x[base + k] - mean) * rstd * mgx);")}}
}
{{- /* row_stats is row r's mean and rstd. */}}
fn row_stats(r: u32) -> vec2<f32> {
{{- template "layernorm_quad_stats" .}}
	return vec2<f32>(mean, rstd);
}
{{- /* columns sums dgamma and dbeta of block's column quads over every row: each slice's sum of .WorkgroupSize rows in
order, added to the columns' totals in the slices' order, as layernorm_sums.wgsl adds the slices' sums. The threads take a
row each for the slice's means and rstds, then column quads. */}}
fn columns(block: u32, l: u32) {
	let len = p.length / 4u;
	let c0 = block * p.block / 4u;
	let c1 = min(c0 + p.block / 4u, len);
{{template "layernorm_column_slices" .}}@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let item = w.x + w.y * p.row + p.first;
	if (item >= p.end) { return; }
	let blocks = (p.length + p.block - 1u) / p.block;
	if (item < blocks) {
		columns(item, l);
		return;
	}
	let r = (item - blocks) * {{.WorkgroupSize}}u + l;
	if (r < p.rows) { row_grad(r); }
}
