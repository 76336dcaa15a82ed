{{- /* MatMul's tiled kernel: a workgroup of .Threads×.Threads threads computes a
.Tile×.Tile tile of C, each thread a 4×4 block, staging .StepK k of A and
B at a time in workgroup memory; see MatMul. */ -}}
{{template "matmul_head" .}}
var<workgroup> As: array<vec4<f32>, {{.Stage}}>; // [k][m/4], {{.StepK}}×{{.Threads}}: four rows of A
var<workgroup> Bs: array<vec4<f32>, {{.Stage}}>; // [k][n/4], {{.StepK}}×{{.Threads}}: four columns of B
@compute @workgroup_size({{.Threads}}, {{.Threads}})
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>,
		@builtin(local_invocation_index) li: u32) {
	let M = p.m; let N = p.n; let K = p.k;{{template "matmul_batch" .}}
	aoff = aoff * M * K;
	boff = boff * K * N;
	let row0 = (w.y + p.first_row) * {{.Tile}}u;
	let col0 = (w.x + p.first_col) * {{.Tile}}u;
	let cbase = z * M * N;
	let r0 = row0 + 4u * l.y;
	let c0 = col0 + 4u * l.x;
	{{- /* s_i holds row r0 + i, columns c0 to c0 + 3; a dispatch that
	continues a range of k starts from the sums in C. */}}
	var s0 = vec4<f32>(0.0); var s1 = s0; var s2 = s0; var s3 = s0;
{{- if .SumA}}
	{{- /* The threads of column 0 also sum their four rows of A. */}}
	var rs = vec4<f32>(0.0);
	let sumRows = c0 == 0u;
{{- end}}
{{- if .SumB}}
	{{- /* The threads of row 0 also sum their four columns of B. */}}
	var cs = vec4<f32>(0.0);
	let sumCols = r0 == 0u;
{{- end}}
{{- if .Resume}}
	if (p.k_first > 0u) {
{{- range $i := seq 4}}{{range $j, $lane := lanes}}
		if (r0 + {{$i}}u < M && c0 + {{$j}}u < N) { s{{$i}}.{{$lane}} = c[cbase + (r0 + {{$i}}u) * N + c0 + {{$j}}u]; }
{{- end}}{{end}}
{{- if .SumA}}
		if (sumRows) { for (var t = 0u; t < 4u; t++) { if (r0 + t < M) { rs[t] = sums[r0 + t]; } } }
{{- end}}
{{- if .SumB}}
		if (sumCols) { for (var t = 0u; t < 4u; t++) { if (c0 + t < N) { cs[t] = sums[c0 + t]; } } }
{{- end}}
	}
{{- end}}
	for (var k0 = p.k_first; k0 < p.k_end; k0 += {{.StepK}}u) {
		{{- /* The first .Stage threads stage four rows of A at k0 + kk in
		As[kk * .Threads + q], the others four columns of B in Bs. Consecutive
		threads read consecutive addresses, so that a GPU coalesces the reads;
		values past the matrix edge are 0. */}}
		if (li < {{.Stage}}u) {
			{{if .TransA}}let q = li % {{.Threads}}u; let kk = li / {{.Threads}}u;{{else}}let kk = li % {{.StepK}}u; let q = li / {{.StepK}}u;{{end}} let gk = k0 + kk; var v = vec4<f32>(0.0);
{{- range $t, $lane := lanes}}
			if (gk < K && row0 + 4u * q + {{$t}}u < M) { let ia = aoff + {{if $.TransA}}gk * M + row0 + 4u * q + {{$t}}u{{else}}(row0 + 4u * q + {{$t}}u) * K + gk{{end}}; v.{{$lane}} = {{if $.LoadA}}la(ia){{else}}a[ia]{{end}}; }
{{- end}}
			As[kk * {{.Threads}}u + q] = v;
		} else {
			let e = li - {{.Stage}}u;
			{{if .TransB}}let kk = e % {{.StepK}}u; let q = e / {{.StepK}}u;{{else}}let q = e % {{.Threads}}u; let kk = e / {{.Threads}}u;{{end}} let gk = k0 + kk; var v = vec4<f32>(0.0);
{{- range $t, $lane := lanes}}
			if (gk < K && col0 + 4u * q + {{$t}}u < N) { let ib = boff + {{if $.TransB}}(col0 + 4u * q + {{$t}}u) * K + gk{{else}}gk * N + col0 + 4u * q + {{$t}}u{{end}}; v.{{$lane}} = {{if $.LoadB}}lb(ib){{else}}bm[ib]{{end}}; }
{{- end}}
			Bs[kk * {{.Threads}}u + q] = v;
		}
		workgroupBarrier();
		for (var kk = 0u; kk < {{.StepK}}u; kk++) {
			let av = As[kk * {{.Threads}}u + l.y];
			let bv = Bs[kk * {{.Threads}}u + l.x];
			s0 = fma(vec4<f32>(av.x), bv, s0);
			s1 = fma(vec4<f32>(av.y), bv, s1);
			s2 = fma(vec4<f32>(av.z), bv, s2);
			s3 = fma(vec4<f32>(av.w), bv, s3);
{{- if .SumA}}
			if (sumRows) { rs = rs + av; }
{{- end}}
{{- if .SumB}}
			if (sumCols) { cs = cs + bv; }
{{- end}}
		}
		workgroupBarrier();
	}
{{- if .Epilogue}}
	{{- /* One call of put, which inlines the epilogue, in a loop. */}}
	var stored = array<vec4<f32>, 4>(s0, s1, s2, s3);
	for (var q = 0u; q < 16u; q++) {
		let i = q / 4u; let j = q % 4u;
		if (r0 + i < M && c0 + j < N) { put(cbase + (r0 + i) * N + c0 + j, z, r0 + i, c0 + j, stored[i][j]); }
	}
{{- else}}
{{- range $i := seq 4}}{{range $j, $lane := lanes}}
	if (r0 + {{$i}}u < M && c0 + {{$j}}u < N) { put(cbase + (r0 + {{$i}}u) * N + c0 + {{$j}}u, z, r0 + {{$i}}u, c0 + {{$j}}u, s{{$i}}.{{$lane}}); }
{{- end}}{{end}}
{{- end}}
{{- if .SumA}}
	if (sumRows) { for (var t = 0u; t < 4u; t++) { if (r0 + t < M) { sums[r0 + t] = rs[t]; } } }
{{- end}}
{{- if .SumB}}
	if (sumCols) { for (var t = 0u; t < 4u; t++) { if (c0 + t < N) { sums[c0 + t] = cs[t]; } } }
{{- end}}
}
