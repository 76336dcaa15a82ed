{{- /* Scan: cumulative sums along an axis, a segment per thread; see Scan. */ -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> x: array<{{.T}}>;
@group(0) @binding(1) var<storage, read_write> y: array<{{.T}}>;
{{- if .Offset}}
@group(0) @binding(2) var<storage, read> off: array<{{.T}}>;
@group(0) @binding(3) var<uniform> p: Params;
{{- else}}
@group(0) @binding(2) var<uniform> p: Params;
{{- end}}
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	let inner = p.inner;
	let k = i % inner;
	let t = i / inner;
	let s = t % p.segs;
	let base = (t / p.segs) * p.length;
	let lo = s * p.segment;
	let hi = min(lo + p.segment, p.length);
{{- if .Offset}}
	var acc = off[i];
{{- else}}
	var acc = {{.T}}(0);
{{- end}}
{{- if .Totals}}
	for (var j = lo; j < hi; j++) {
		acc += x[(base + j) * inner + k];
	}
	y[i] = acc;
{{- else}}
	for (var q = 0u; q < hi - lo; q++) {
{{- if .Reverse}}
		let at = (base + hi - 1u - q) * inner + k;
{{- else}}
		let at = (base + lo + q) * inner + k;
{{- end}}
		let v = x[at];
{{- if .Exclusive}}
		y[at] = acc;
		acc += v;
{{- else}}
		acc += v;
		y[at] = acc;
{{- end}}
	}
{{- end}}
}
