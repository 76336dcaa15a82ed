{{/* The batched update kernel (kernelSpec.batchKernel): a function per
parameter j of .Params, called one after the other, each the
per-parameter kernel's loop over its elements with its .Body (the
optimizer's, with u.<member> read as h.<member> and each slot as
<slot>_j). .Elem is f32 or vec4<f32>; .Members are the hyperparameters,
each parameter's .Hyper their words of u.hp and .Size its size's word of
u.info. */ -}}
struct Params { first: u32, end: u32, row: u32, threads: u32, trips: u32, info: array<vec4<u32>, {{.InfoVec4s}}>, hp: array<vec4<f32>, {{.HyperVec4s}}> }
struct Hyper { {{- range $i, $m := .Members}}{{if $i}},{{end}} {{$m}}: f32{{else}} unused: f32{{end}} }
{{range .Params}}@group(0) @binding({{.J}}) var<storage, read> grad_{{.J}}: array<{{$.Elem}}>;
{{end}}{{range .Params}}@group(0) @binding({{.Binding}}) var<storage, read_write> param_{{.J}}: array<{{$.Elem}}>;
{{range .Slots}}@group(0) @binding({{.Binding}}) var<storage, read_write> {{.Name}}: array<{{$.Elem}}>;
{{end}}{{end}}@group(0) @binding({{.Uniform}}) var<uniform> u: Params;
{{range .Params}}fn update_{{.J}}(t: u32) {
	let h = Hyper({{range $i, $w := .Hyper}}{{if $i}}, {{end}}u.hp[{{$w.Vec}}][{{$w.Lane}}]{{else}}0.0f{{end}});
	let n = u.info[{{.Size.Vec}}][{{.Size.Lane}}];
	for (var k = 0u; k < u.trips; k++) {
	let i = t + k * u.threads;
	if (i >= n) { break; }
	var g = grad_{{.J}}[i];
	var p = param_{{.J}}[i];
{{.Body}}	param_{{.J}}[i] = p;
	}
}
{{end}}@compute @workgroup_size({{.Workgroup}})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let t = u.first + id.x + id.y * u.row;
	if (t >= u.end) { return; }
{{range .Params}}	update_{{.J}}(t);
{{end}}}
