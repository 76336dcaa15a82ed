{{- /* TopK: the rank of each element in its row, or (.Write) the K first elements and their columns; see TopK. */ -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> x: array<{{.T}}>;
{{- if .Write}}
@group(0) @binding(1) var<storage, read> rank: array<u32>;
@group(0) @binding(2) var<storage, read_write> vals: array<{{.T}}>;
@group(0) @binding(3) var<storage, read_write> idx: array<i32>;
@group(0) @binding(4) var<uniform> p: Params;
{{- else}}
@group(0) @binding(1) var<storage, read_write> rank: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;
{{.Order}}

// before reports whether a, at column ia, comes before b, at column ib.
fn before(a: {{.T}}, ia: u32, b: {{.T}}, ib: u32) -> bool {
	if (is_nan(a)) { return !is_nan(b) || ia < ib; }
	if (is_nan(b)) { return false; }
	return ord(a) > ord(b) || (ord(a) == ord(b) && ia < ib);
}
{{- end}}
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	let j = i % p.length;
{{- if .Write}}
	let r = rank[i];
	if (r < p.k) {
		let at = (i / p.length) * p.k + r;
		vals[at] = x[i];
		idx[at] = i32(j);
	}
{{- else}}
	let base = i - j;
	let v = x[i];
	var r = 0u;
	if (p.begin > 0u) { r = rank[i]; }
	for (var q = p.begin; q < p.stop; q++) {
		if (before(x[base + q], q, v, j)) { r++; }
	}
	rank[i] = r;
{{- end}}
}
