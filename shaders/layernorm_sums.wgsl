{{- /* LayerNorm with Grad and Sums: dgamma and dbeta of each column, the sum of its slices' partial sums in order, a thread per column; see LayerNorm.
The slices are taken .Unroll a trip, then the rest one a trip (see LoopTrips). */ -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> pg: array<f32>;
@group(0) @binding(1) var<storage, read> pb: array<f32>;
@group(0) @binding(2) var<storage, read_write> dgamma: array<f32>;
@group(0) @binding(3) var<storage, read_write> dbeta: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let c = g.x + g.y * p.row + p.first;
	if (c >= p.end) { return; }
	let n = p.length;
	let len = p.slices;
	var j: u32;
	var sg = 0.0;
	var sb = 0.0;
{{- template "row_pass" (pass .Unroll "let i = k * n + c; sg += pg[i]; sb += pb[i];")}}
	dgamma[c] = sg;
	dbeta[c] = sb;
}
