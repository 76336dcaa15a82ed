{{- /* LayerNorm with Grad: dx, and dgamma and dbeta summed over a slice of rows, a workgroup per slice; with Columns, dx a
workgroup per slice and dgamma and dbeta over every row, a workgroup per block of columns (layernorm_vec4.wgsl is Columns
with Vec4); see LayerNorm. Each pass over a row takes .Unroll elements a trip, then the rest one a trip, in order (see
LoopTrips); so does each column's sum over a slice's rows, .ColumnUnroll a trip with Columns. */ -}}
{{- /* layernorm_column_slices sums the columns c0 to c1 (elements, or quads with Vec4) over every slice of rows in
order: their totals set to zero, then for each slice its means and rstds into stats and each column's sum over it added
to its total; .Zero is the sums' zero. */ -}}
{{define "layernorm_column_slices"}}	for (var c = c0 + l; c < c1; c += {{.WorkgroupSize}}u) {
		dgamma[c] = {{.Zero}};
		dbeta[c] = {{.Zero}};
	}
	for (var slice = 0u; slice < p.slices; slice++) {
		let first = slice * {{.WorkgroupSize}}u;
		let h = (slice & 1u) * {{.WorkgroupSize}}u;
		var st = vec2<f32>(0.0, 0.0);
		if (first + l < p.rows) { st = row_stats(first + l); }
		stats[h + l] = st;
		workgroupBarrier();
		let count = min({{.WorkgroupSize}}u, p.rows - first);
		for (var c = c0 + l; c < c1; c += {{.WorkgroupSize}}u) {
			var sg = {{.Zero}};
			var sb = {{.Zero}};
			var q = 0u;
			for (; q + {{.ColumnUnroll}}u <= count; q += {{.ColumnUnroll}}u) {
{{- range seq .ColumnUnroll}}
				{ let s = q + {{.}}u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
{{- end}}
			}
			for (; q < count; q++) { let s = q; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
			dgamma[c] = dgamma[c] + sg;
			dbeta[c] = dbeta[c] + sb;
		}
	}
}
{{end -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> gamma: array<f32>;
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;
@group(0) @binding(4) var<storage, read_write> dgamma: array<f32>;
@group(0) @binding(5) var<storage, read_write> dbeta: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;
{{- if .Columns}}
{{- /* Two slices' means and rstds: a slice's are written while the last one's may still be read. */}}
var<workgroup> stats: array<vec2<f32>, {{.Stats}}>;
{{- else}}
var<workgroup> means: array<f32, {{.WorkgroupSize}}>;
var<workgroup> rstds: array<f32, {{.WorkgroupSize}}>;
{{- end}}
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
{{- if .Columns}}
{{- /* row_stats is row r's mean and rstd, by the forward's passes. */}}
fn row_stats(r: u32) -> vec2<f32> {
{{- template "layernorm_stats" .}}
	return vec2<f32>(mean, rstd);
}
{{- /* columns sums dgamma and dbeta of block's columns over every row: each slice's sum of .WorkgroupSize rows in order,
added to the columns' totals in the slices' order, as layernorm_sums.wgsl adds the slices' sums. The threads take a row each
for the slice's means and rstds, then columns. */}}
fn columns(block: u32, l: u32) {
	let len = p.length;
	let c0 = block * p.block;
	let c1 = min(c0 + p.block, len);
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
	if (r < p.rows) { _ = row_grad(r); }
}
{{- else}}
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
{{- end}}
