{{- /* Reduce: each row (or, with .Segments, each segment of a row) to one value; see Reduce. */ -}}
{{- /* The op's pieces: the accumulator's initial value, the statement that
takes value v at index j into it, the statement by which thread l of a
workgroup takes thread l + h's accumulator into its own, and the result. */ -}}
{{define "reduce_ident"}}{{.Acc}}({{if eq .Op "prod"}}1{{else}}0{{end}}){{end -}}
{{define "reduce_step"}}{{if .Cmp}}if (beats(v, j, acc, ai)) { acc = v; ai = j; }{{else if eq .Op "prod"}}acc = acc * v;{{else}}acc = acc + v;{{end}}{{end -}}
{{define "reduce_combine"}}{{if .Cmp}}let v = sv[l + h]; let j = si[l + h];
			if (j != none && beats(v, j, sv[l], si[l])) { sv[l] = v; si[l] = j; }{{else if eq .Op "prod"}}sv[l] = sv[l] * sv[l + h];{{else}}sv[l] = sv[l] + sv[l + h];{{end}}{{end -}}
{{define "reduce_final"}}{{if .Segments}}acc{{else if .Op.Arg}}i32(ai){{else if eq .Op "mean"}}acc * p.scale{{else}}acc{{end}}{{end -}}
{{- /* half_load declares, with .Unpack, load(i): source element i, half of a word (Softmax uses it too). */ -}}
{{define "half_load"}}{{if .Unpack}}
{{.Lib}}fn load(i: u32) -> f32 { return {{.Unpack}}(src[i >> 1u], i & 1u); }{{end}}{{end -}}
{{- /* row_base is where row r's first element lies; its elements are p.stride apart (see Reduce; Softmax uses it too). */ -}}
{{define "row_base"}}fn row_base(r: u32) -> u32 { let st = max(p.stride, 1u); return (r / st) * p.length * st + r % st; }{{end -}}
{{- /* load reads source element i: with .Unpack, half of a word. */ -}}
{{define "load"}}{{if .Unpack}}load(base + j * st){{else}}{{.Acc}}(src[base + j * st]){{end}}{{end -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> src: array<{{if .Unpack}}u32{{else}}{{.In}}{{end}}>;
{{- if .Indexed}}
@group(0) @binding(1) var<storage, read> idx: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<{{.Out}}>;
@group(0) @binding(3) var<uniform> p: Params;
{{- else if .SegmentIndices}}
@group(0) @binding(1) var<storage, read_write> dst: array<{{.Out}}>;
@group(0) @binding(2) var<storage, read_write> idx: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;
{{- else}}
@group(0) @binding(1) var<storage, read_write> dst: array<{{.Out}}>;
@group(0) @binding(2) var<uniform> p: Params;
{{- end}}
const none = 0xffffffffu;
{{template "row_base" .}}
{{- template "half_load" .}}
{{- if .Cmp}}
{{/* beats orders the candidates of Max, Min and the arg reductions (see Reduce.cmp). */ -}}
fn is_nan(x: {{.Acc}}) -> bool { return {{if eq .Acc "f32"}}(bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u{{else}}false{{end}}; }
{{- if eq .Acc "f32"}}
{{/* ord maps a float's bits to an i32 in the floats' order, both zeros to 0, so that no device's comparison takes a subnormal for zero. */ -}}
fn ord(x: f32) -> i32 {
	let b = bitcast<i32>(x);
	return select(select(b, b ^ 0x7fffffff, b < 0), 0, (bitcast<u32>(x) & 0x7fffffffu) == 0u);
}
{{- else}}
fn ord(x: {{.Acc}}) -> {{.Acc}} { return x; }
{{- end}}
fn beats(v: {{.Acc}}, j: u32, w: {{.Acc}}, k: u32) -> bool {
	if (k == none) { return true; }
	if (is_nan(w)) { return is_nan(v) && j < k; }
	if (is_nan(v)) { return true; }
	return ord(v) {{.Cmp}} ord(w) || (ord(v) == ord(w) && j < k);
}
{{- end}}
{{- if .PerThread}}
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row + p.first;
	if (row >= p.end) { return; }
	let len = p.length;
	let base = row_base(row);
	{{- if not .Indexed}}
	let st = max(p.stride, 1u);
	{{- end}}
	var acc = {{template "reduce_ident" .}};
	var ai = none;
	for (var s = 0u; s < len; s++) {
		{{if .Indexed}}let v = src[base + s]; let j = idx[base + s];{{else}}let j = s; let v = {{template "load" .}};{{end}}
		{{template "reduce_step" .}}
	}
	dst[row] = {{template "reduce_final" .}};
}
{{- else}}
var<workgroup> sv: array<{{.Acc}}, {{.Group}}>;
var<workgroup> si: array<u32, {{.Group}}>;
@compute @workgroup_size({{.Group}})
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let row = w.x + w.y * p.row + p.first;
	if (row >= p.end) { return; }
	let len = p.length;
{{- if .Segments}}
	{{- /* The item row is segment row % p.segments of row row / p.segments. */}}
	let base = row_base(row / p.segments);
	let out = row; let lo = (row % p.segments) * {{.Segment}}u; let hi = min(lo + {{.Segment}}u, len);
{{- else}}
	let base = row_base(row);
	let out = row; let lo = 0u; let hi = len;
{{- end}}
	let st = max(p.stride, 1u);
	var acc = {{template "reduce_ident" .}};
	var ai = none;
	for (var b0 = lo; b0 < hi; b0 += {{.Chunk}}u) {
		for (var u = 0u; u < {{.Unroll}}u; u++) {
			let j = b0 + u * {{.Group}}u + l;
			if (j >= hi) { break; }
			let v = {{template "load" .}};
			{{template "reduce_step" .}}
		}
	}
	sv[l] = acc;
	si[l] = ai;
	workgroupBarrier();
	for (var h = {{.Half}}u; h > 0u; h = h >> 1u) {
		if (l < h) {
			{{template "reduce_combine" .}}
		}
		workgroupBarrier();
	}
	if (l == 0u) {
		let acc = sv[0];
		let ai = si[0];
		dst[out] = {{template "reduce_final" .}};{{if .SegmentIndices}} idx[out] = ai;{{end}}
	}
}
{{- end}}
