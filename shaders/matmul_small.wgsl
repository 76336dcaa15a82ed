{{- /* MatMul's small kernel: each of .Threads threads computes one element
of C, at a flat index over every batch's rows and columns (the grid's x
counts groups of .Threads from first_col), summing its k straight from
memory. See MatMul. */ -}}
{{template "matmul_head" .}}
@compute @workgroup_size({{.Threads}})
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let M = p.m; let N = p.n; let K = p.k;
	let mn = M * N;
	var total = mn;
{{- range down .BatchRank}}
	total *= {{at "batch_dims" .}};
{{- end}}
	let i = (w.x + p.first_col) * {{.Threads}}u + li;
	if (i >= total) { return; }
	let z = i / mn;
	let row = (i % mn) / N;
	let col = i % N;{{template "matmul_offsets" .}}
	aoff = aoff * M * K + {{if .TransA}}row{{else}}row * K{{end}};
	boff = boff * K * N + {{if .TransB}}col * K{{else}}col{{end}};
	var s = 0.0;
	if (p.k_first > 0u) { s = c[i]; }
	for (var k = p.k_first; k < p.k_end; k++) {
		s = fma(a[aoff + {{if .TransA}}k * M{{else}}k{{end}}], bm[boff + {{if .TransB}}k{{else}}k * N{{end}}], s);
	}
	c[i] = s;
}
