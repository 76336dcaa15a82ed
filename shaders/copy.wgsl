{{- /* Copy: out[dst_offset + Σ c·dst_strides] = in[src_offset + Σ c·src_strides] for each index c of a region of .Rank dimensions, of 32-bit words, or with .Narrow of halves or bytes of words. */ -}}
{{- /* narrow_elements declares part(i), element i of src, and put(i, v),
which writes v to element i of dst, for elements of .Bits bits (see
narrowElems): threads that share a word write its parts, each clearing and
setting only its own bits, and the updates commute. */ -}}
{{define "narrow_elements"}}
fn part(i: u32) -> u32 { return (src[i >> {{.Shift}}u] >> ((i & {{.Lane}}u) * {{.Bits}}u)) & {{.Ones}}; }
fn put(i: u32, v: u32) {
	let shift = (i & {{.Lane}}u) * {{.Bits}}u;
	atomicAnd(&dst[i >> {{.Shift}}u], ~({{.Ones}} << shift));
	atomicOr(&dst[i >> {{.Shift}}u], v << shift);
}
{{- end}}
{{- .Params -}}
@group(0) @binding(0) var<storage, read> src: array<u32>;
{{- if .Narrow}}
@group(0) @binding(1) var<storage, read_write> dst: array<atomic<u32>>;
{{- else}}
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
{{- end}}
@group(0) @binding(2) var<uniform> p: Params;
{{- with .Narrow}}{{template "narrow_elements" .}}{{end}}
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	var rem = i;
	var si = p.src_offset;
	var di = p.dst_offset;
{{- range down .Rank}}
	{ let dim = {{at "dims" .}}; let c = rem % dim; rem = rem / dim; si += c * {{at "src_strides" .}}; di += c * {{at "dst_strides" .}}; }
{{- end}}
{{- if .Narrow}}
	put(di, part(si));
{{- else}}
	dst[di] = src[si];
{{- end}}
}
