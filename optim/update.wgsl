{{/* The per-parameter update kernel (kernelSpec.kernel): invocation t
updates elements t, t + threads, ... (.Trips of them) of one parameter,
each with the optimizer's .Body. .Elem is f32 or vec4<f32>; .Members are
the hyperparameters, .Slots the state arrays. */ -}}
struct Params { first: u32, end: u32, row: u32, threads: u32, count: u32{{range .Members}}, {{.}}: f32{{end}} }
@group(0) @binding(0) var<storage, read> grad_: array<{{.Elem}}>;
@group(0) @binding(1) var<storage, read_write> param_: array<{{.Elem}}>;
{{range $i, $slot := .Slots}}@group(0) @binding({{add 2 $i}}) var<storage, read_write> {{$slot}}: array<{{$.Elem}}>;
{{end}}@group(0) @binding({{add 2 (len .Slots)}}) var<uniform> u: Params;
@compute @workgroup_size({{.Workgroup}})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let t = u.first + id.x + id.y * u.row;
	if (t >= u.end) { return; }
	for (var k = 0u; k < {{.Trips}}u; k++) {
	let i = t + k * u.threads;
	if (i >= u.count) { return; }
	var g = grad_[i];
	var p = param_[i];
{{.Body}}	param_[i] = p;
	}
}
