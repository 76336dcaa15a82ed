{{- /* MatMul's small kernel: the register kernel's blocks of .Block×.Block
elements of C, one per thread, over a flat index of every batch's blocks
(the grid's x counts groups of .Threads blocks from first_col), so that a
small matrix takes only the blocks it covers. See MatMul. */ -}}
{{template "matmul_head" .}}
@compute @workgroup_size({{.Threads}})
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let M = p.m; let N = p.n; let K = p.k;
	let col_blocks = (N + {{.Block}}u - 1u) / {{.Block}}u;
	let blocks = (M + {{.Block}}u - 1u) / {{.Block}}u * col_blocks;
	var total = blocks;
{{- range down .BatchRank}}
	total *= {{at "batch_dims" .}};
{{- end}}
	let i = (w.x + p.first_col) * {{.Threads}}u + li;
	if (i >= total) { return; }
	let z = i / blocks;
	let row0 = (i % blocks) / col_blocks * {{.Block}}u;
	let col0 = (i % col_blocks) * {{.Block}}u;{{template "matmul_offsets" .}}
	aoff = aoff * M * K;
	boff = boff * K * N;{{template "matmul_block" .}}
}
