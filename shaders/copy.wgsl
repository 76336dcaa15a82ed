{{- /* Copy: out[dst_offset + Σ c·dst_strides] = in[src_offset + Σ c·src_strides] for each index c of a region of .Rank dimensions. */ -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;
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
	dst[di] = src[si];
}
