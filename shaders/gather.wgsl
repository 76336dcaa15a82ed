{{- /* Gather: out[o, j, k] = in[o, idx[j], k], of 32-bit words, or with .Narrow of halves or bytes of words; see Gather. */ -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read> idx: array<i32>;
{{- if .Narrow}}
@group(0) @binding(2) var<storage, read_write> dst: array<atomic<u32>>;
{{- else}}
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
{{- end}}
@group(0) @binding(3) var<uniform> p: Params;
{{- with .Narrow}}{{template "narrow_elements" .}}{{end}}
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	let inner = p.inner;
	let count = p.count;
	let axis = p.axis;
	let k = i % inner;
	let t = i / inner;
	let j = t % count;
	let o = t / count;
	var x = idx[j];
	if (x < 0) { x = x + i32(axis); }
{{- if .Narrow}}
	if (x < 0 || u32(x) >= axis) { put(i, 0u); return; }
	put(i, part((o * axis + u32(x)) * inner + k));
{{- else}}
	if (x < 0 || u32(x) >= axis) { dst[i] = 0u; return; }
	dst[i] = src[(o * axis + u32(x)) * inner + k];
{{- end}}
}
