{{- /* ScatterAdd: dst[o, idx[j], k] += upd[o, j, k], added to dst in index order; by element of dst over the indices [p.begin, p.stop), or with .ByIndex by element of upd over every index; with .Vec4 by four elements along the inner dimension (inner counts vec4s then); see ScatterAdd. */ -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> idx: array<i32>;
@group(0) @binding(1) var<storage, read> upd: array<{{.Elem}}>;
@group(0) @binding(2) var<storage, read_write> dst: array<{{.Elem}}>;
@group(0) @binding(3) var<uniform> p: Params;
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	let inner = p.inner{{if .Vec4}} / 4u{{end}};
	let count = p.count;
	let axis = p.axis;
	let k = i % inner;
	let t = i / inner;
{{- if .ByIndex}}
	let j = t % count;
	let base = (t / count) * count;
	var a = idx[j];
	if (a < 0) { a = a + i32(axis); }
	if (a < 0 || u32(a) >= axis) { return; }
	for (var q = 0u; q < j; q++) {
		var x = idx[q];
		if (x < 0) { x = x + i32(axis); }
		if (x == a) { return; }
	}
	let d = ((t / count) * axis + u32(a)) * inner + k;
	var acc = dst[d];
	for (var q = j; q < count; q++) {
		var x = idx[q];
		if (x < 0) { x = x + i32(axis); }
		if (x == a) { acc += upd[(base + q) * inner + k]; }
	}
	dst[d] = acc;
{{- else}}
	let a = i32(t % axis);
	let base = (t / axis) * count;
	var acc = dst[i];
	for (var j = p.begin; j < p.stop; j++) {
		var x = idx[j];
		if (x < 0) { x = x + i32(axis); }
		if (x == a) { acc += upd[(base + j) * inner + k]; }
	}
	dst[i] = acc;
{{- end}}
}
