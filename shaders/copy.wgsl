{{- /* Copy: out[dst_offset + Σ c·dst_strides] = in[src_offset + Σ c·src_strides] for each index c of a region of .Rank dimensions, of 32-bit words, or with .Half of 16-bit halves of words. */ -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> src: array<u32>;
{{- if .Half}}
@group(0) @binding(1) var<storage, read_write> dst: array<atomic<u32>>;
{{- else}}
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
{{- end}}
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
{{- if .Half}}
	// Threads that share a word write its two halves: each clears and sets
	// only its own bits, and the two updates commute.
	let h = (src[si >> 1u] >> ((si & 1u) * 16u)) & 0xffffu;
	let shift = (di & 1u) * 16u;
	atomicAnd(&dst[di >> 1u], ~(0xffffu << shift));
	atomicOr(&dst[di >> 1u], h << shift);
{{- else}}
	dst[di] = src[si];
{{- end}}
}
