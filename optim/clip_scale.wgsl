{{/* ClipGradNorm's scale kernel (scaleKernel): each invocation multiplies
.PerThread elements of one gradient of the batch by the factor, unless
it is 1. */ -}}
struct Params { first: u32, end: u32, row: u32, threads: u32{{template "clip_members" .}} }
@group(0) @binding(0) var<storage, read> scale: array<f32>;
{{range .Gradients}}@group(0) @binding({{add . 1}}) var<storage, read_write> g{{.}}: array<f32>;
{{end}}@group(0) @binding({{add .K 1}}) var<uniform> u: Params;
fn mul(j: u32, i: u32, f: f32) {
	switch j {
{{range .Cases}}		case {{.}}u: { g{{.}}[i] = g{{.}}[i] * f; }
{{end}}		default: { g{{.Last}}[i] = g{{.Last}}[i] * f; }
	}
}
@compute @workgroup_size({{.Workgroup}})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let t = u.first + id.x + id.y * u.row;
	if (t >= u.end) { return; }
	let f = scale[0];
	if (f == 1.0f) { return; }
	let w = t / {{.Workgroup}}u;
{{template "clip_select" .}}	let e0 = (w - s) * {{.Chunk}}u + t % {{.Workgroup}}u;
	for (var q = 0u; q < {{.PerThread}}u; q++) {
		let i = e0 + q * {{.Workgroup}}u;
		if (i < n) { mul(j, i, f); }
	}
}
