{{- /* MatMul's register kernel: no workgroup memory and no barriers; each of
.Threads×.Threads threads computes a .Block×.Block block of the .Tile×.Tile
tile straight from memory. Loads past the matrix edge are clamped to its
last row or column: they feed only outputs that are not written. See
MatMul. */ -}}
{{template "matmul_head" .}}
@compute @workgroup_size({{.Threads}}, {{.Threads}})
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
	let M = p.m; let N = p.n; let K = p.k;{{template "matmul_batch" .}}
	aoff = aoff * M * K;
	boff = boff * K * N;
	let row0 = ((w.y + p.first_row) * {{.Threads}}u + l.y) * {{.Block}}u;
	let col0 = ((w.x + p.first_col) * {{.Threads}}u + l.x) * {{.Block}}u;{{template "matmul_block" .}}
}
