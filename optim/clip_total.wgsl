{{/* ClipGradNorm's total kernel (totalKernel), in one workgroup: the
partials reduced to the total norm and the factor min(1, max_norm/(total
+ 1e-6)), NaN if the norm is, 0 if it is infinite (NaN if max_norm is
too). The blank line that starts the kernel is kept as it was. */}}
struct Params { first: u32, end: u32, row: u32, threads: u32, count: u32, max_norm: f32, inf_norm: u32 }
@group(0) @binding(0) var<storage, read> sums: array<f32>;
@group(0) @binding(1) var<storage, read> bits: array<u32>;
@group(0) @binding(2) var<storage, read_write> total: array<f32>;
@group(0) @binding(3) var<storage, read_write> scale: array<f32>;
@group(0) @binding(4) var<uniform> u: Params;
var<workgroup> ws: array<f32, {{.Workgroup}}>;
var<workgroup> wb: array<u32, {{.Workgroup}}>;
const NAN = 0x7fc00000u;
const INF = 0x7f800000u;
@compute @workgroup_size({{.Workgroup}})
fn main(@builtin(local_invocation_index) l: u32) {
	var sum = 0.0f;
	var mb = 0u;
	for (var i = l; i < u.count; i += {{.Workgroup}}u) {
		sum = sum + sums[i];
		mb = max(mb, bits[i]);
	}
{{template "clip_reduce" .}}	if (l != 0u) { return; }
	let m = wb[0];
	var tot = sqrt(ws[0]);
	if (u.inf_norm != 0u) {
		tot = bitcast<f32>(m);
	} else if (m > INF) {
		tot = bitcast<f32>(NAN);
	} else if (m == INF) {
		tot = bitcast<f32>(INF);
	}
	total[0] = tot;
	let tb = bitcast<u32>(tot);
	var sc = 1.0f;
	if (m > INF) {
		sc = bitcast<f32>(NAN);
	} else if (tb == INF) {
		sc = 0.0f;
		if (bitcast<u32>(u.max_norm) == INF) { sc = bitcast<f32>(NAN); }
	} else {
		sc = min(u.max_norm / (tot + 1e-6f), 1.0f);
	}
	scale[0] = sc;
}
