{{/* ClipGradNorm's norm kernel (normKernel): each workgroup reduces
.Chunk elements of one gradient of the batch to a partial sum of squares
and a largest absolute value, as bits. */ -}}
struct Params { first: u32, end: u32, row: u32, threads: u32, base: u32{{template "clip_members" .}} }
{{range .Gradients}}@group(0) @binding({{.}}) var<storage, read> g{{.}}: array<f32>;
{{end}}@group(0) @binding({{.K}}) var<storage, read_write> sums: array<f32>;
@group(0) @binding({{add .K 1}}) var<storage, read_write> bits: array<u32>;
@group(0) @binding({{add .K 2}}) var<uniform> u: Params;
var<workgroup> ws: array<f32, {{.Workgroup}}>;
var<workgroup> wb: array<u32, {{.Workgroup}}>;
fn load(j: u32, i: u32) -> f32 {
	switch j {
{{range .Cases}}		case {{.}}u: { return g{{.}}[i]; }
{{end}}		default: { return g{{.Last}}[i]; }
	}
}
@compute @workgroup_size({{.Workgroup}})
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let t = u.first + id.x + id.y * u.row;
	let w = t / {{.Workgroup}}u;
{{template "clip_select" .}}	var sum = 0.0f;
	var mb = 0u;
	if (t < u.end) {
		let e0 = (w - s) * {{.Chunk}}u + l;
		for (var q = 0u; q < {{.PerThread}}u; q++) {
			let i = e0 + q * {{.Workgroup}}u;
			if (i < n) {
				let v = load(j, i);
				sum = sum + v * v;
				mb = max(mb, bitcast<u32>(v) & 0x7fffffffu);
			}
		}
	}
{{template "clip_reduce" .}}	if (l == 0u && t < u.end) {
		sums[u.base + w] = ws[0];
		bits[u.base + w] = wb[0];
	}
}
