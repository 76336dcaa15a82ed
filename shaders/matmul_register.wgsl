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
	let col0 = ((w.x + p.first_col) * {{.Threads}}u + l.x) * {{.Block}}u;
	var ri: array<u32, {{.Block}}>;
	var ci: array<u32, {{.Block}}>;
	for (var t = 0u; t < {{.Block}}u; t++) {
		ri[t] = min(row0 + t, M - 1u);
		ci[t] = min(col0 + t, N - 1u);
	}
	let cbase = z * M * N;
	var acc: array<f32, {{.Sums}}>;
	if (p.k_first > 0u) {
		for (var i = 0u; i < {{.Block}}u; i++) {
			for (var j = 0u; j < {{.Block}}u; j++) {
				if (row0 + i < M && col0 + j < N) { acc[i * {{.Block}}u + j] = c[cbase + (row0 + i) * N + col0 + j]; }
			}
		}
	}
	for (var k0 = p.k_first; k0 < p.k_end; k0 += {{.StepK}}u) {
		for (var kk = 0u; kk < {{.StepK}}u; kk++) {
			let k = k0 + kk;
			if (k >= K) { break; }
			var av: array<f32, {{.Block}}>;
			var bv: array<f32, {{.Block}}>;
			for (var i = 0u; i < {{.Block}}u; i++) { av[i] = a[aoff + {{if .TransA}}k * M + ri[i]{{else}}ri[i] * K + k{{end}}]; }
			for (var j = 0u; j < {{.Block}}u; j++) { bv[j] = bm[boff + {{if .TransB}}ci[j] * K + k{{else}}k * N + ci[j]{{end}}]; }
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
			if (r < M && col < N) { c[cbase + r * N + col] = acc[i * {{.Block}}u + j]; }
		}
	}
}
