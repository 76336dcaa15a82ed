{{- /* What every MatMul kernel shares; see MatMul. */ -}}
{{- /* matmul_head declares the bindings (of element type .Elem) and the
uniform block, and put(i, z, r, col, v), which stores v, element (or with
.Elem a vec4, four elements) i of C, at row r and column col (the first of
the four) of matrix z: the kernels store through it alone. With an
.Epilogue, what follows A and B and what put does are the epilogue's
(see MatMulEpilogue). */ -}}
{{define "matmul_head" -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> a: array<{{.AElem}}>;
@group(0) @binding(1) var<storage, read> bm: array<{{.BElem}}>;
{{- if .Lib}}
{{.Lib}}
{{- end}}
{{- /* la and lb read element i of A and B, where they are packed. */}}
{{- if .LoadA}}
{{.LoadA}}
{{- end}}
{{- if .LoadB}}
{{.LoadB}}
{{- end}}
{{- if .Epilogue}}
{{.Epilogue}}
{{- else}}
@group(0) @binding(2) var<storage, read_write> c: array<{{.Elem}}>;
{{- if or .SumA .SumB}}
@group(0) @binding(3) var<storage, read_write> sums: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
{{- else}}
@group(0) @binding(3) var<uniform> p: Params;
{{- end}}
fn put(i: u32, z: u32, r: u32, col: u32, v: {{.Elem}}) { c[i] = v; }
{{- end}}
{{- end}}
{{- /* matmul_batch turns the batch index z, the grid's z counted from
first_batch, into the offsets of A's and B's matrices (aoff, boff), counted
in whole matrices; matmul_offsets does so for a z the kernel defined. */ -}}
{{define "matmul_batch"}}
	let z = w.z + p.first_batch;
{{- template "matmul_offsets" .}}
{{- end}}
{{define "matmul_offsets"}}
	var rem = z;
	var aoff = 0u;
	var boff = 0u;
{{- range down .BatchRank}}
	{ let dim = {{at "batch_dims" .}}; let c = rem % dim; rem = rem / dim; aoff += c * {{at "a_strides" .}}; boff += c * {{at "b_strides" .}}; }
{{- end}}
{{- end}}
{{- /* matmul_block computes the .Block×.Block block of C from row0, col0 of
matrix z, its sums in registers, straight from memory (aoff and boff are
the offsets of A's and B's matrices). Loads past the matrix edge are
clamped to its last row or column: they feed only outputs that are not
written. */ -}}
{{define "matmul_block"}}
	var ri: array<u32, {{.Block}}>;
	var ci: array<u32, {{.Block}}>;
	for (var t = 0u; t < {{.Block}}u; t++) {
		ri[t] = min(row0 + t, M - 1u);
		ci[t] = min(col0 + t, N - 1u);
	}
	let cbase = z * M * N;
	var acc: array<f32, {{.Sums}}>;
{{- if .SumA}}
	{{- /* The block holding column 0 also sums its rows of A. */}}
	var rs: array<f32, {{.Block}}>;
	let sumRows = col0 == 0u;
{{- end}}
{{- if .SumB}}
	{{- /* The block holding row 0 also sums its columns of B. */}}
	var cs: array<f32, {{.Block}}>;
	let sumCols = row0 == 0u;
{{- end}}
{{- if .Resume}}
	if (p.k_first > 0u) {
		for (var i = 0u; i < {{.Block}}u; i++) {
			for (var j = 0u; j < {{.Block}}u; j++) {
				if (row0 + i < M && col0 + j < N) { acc[i * {{.Block}}u + j] = c[cbase + (row0 + i) * N + col0 + j]; }
			}
		}
{{- if .SumA}}
		if (sumRows) { for (var i = 0u; i < {{.Block}}u; i++) { if (row0 + i < M) { rs[i] = sums[row0 + i]; } } }
{{- end}}
{{- if .SumB}}
		if (sumCols) { for (var j = 0u; j < {{.Block}}u; j++) { if (col0 + j < N) { cs[j] = sums[col0 + j]; } } }
{{- end}}
	}
{{- end}}
	for (var k0 = p.k_first; k0 < p.k_end; k0 += {{.StepK}}u) {
		for (var kk = 0u; kk < {{.StepK}}u; kk++) {
			let k = k0 + kk;
			if (k >= K) { break; }
			var av: array<f32, {{.Block}}>;
			var bv: array<f32, {{.Block}}>;
			for (var i = 0u; i < {{.Block}}u; i++) { let ia = aoff + {{if .TransA}}k * M + ri[i]{{else}}ri[i] * K + k{{end}}; av[i] = {{if .LoadA}}la(ia){{else}}a[ia]{{end}}; }
			for (var j = 0u; j < {{.Block}}u; j++) { let ib = boff + {{if .TransB}}ci[j] * K + k{{else}}k * N + ci[j]{{end}}; bv[j] = {{if .LoadB}}lb(ib){{else}}bm[ib]{{end}}; }
{{- if .SumA}}
			if (sumRows) { for (var i = 0u; i < {{.Block}}u; i++) { rs[i] = rs[i] + av[i]; } }
{{- end}}
{{- if .SumB}}
			if (sumCols) { for (var j = 0u; j < {{.Block}}u; j++) { cs[j] = cs[j] + bv[j]; } }
{{- end}}
			for (var i = 0u; i < {{.Block}}u; i++) {
				for (var j = 0u; j < {{.Block}}u; j++) {
					acc[i * {{.Block}}u + j] = fma(av[i], bv[j], acc[i * {{.Block}}u + j]);
				}
			}
		}
	}
	for (var i = 0u; i < {{.Block}}u; i++) {
		let r = row0 + i;
		for (var j = 0u; j < {{.Block}}u; j++) {
			let col = col0 + j;
			if (r < M && col < N) { put(cbase + r * N + col, z, r, col, acc[i * {{.Block}}u + j]); }
		}
	}
{{- if .SumA}}
	if (sumRows) { for (var i = 0u; i < {{.Block}}u; i++) { if (row0 + i < M) { sums[row0 + i] = rs[i]; } } }
{{- end}}
{{- if .SumB}}
	if (sumCols) { for (var j = 0u; j < {{.Block}}u; j++) { if (col0 + j < N) { sums[col0 + j] = cs[j]; } } }
{{- end}}
{{- end}}
