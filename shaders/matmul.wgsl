{{- /* What every MatMul kernel shares; see MatMul. */ -}}
{{- /* matmul_head declares the bindings (of element type .Elem) and the
uniform block. */ -}}
{{define "matmul_head" -}}
{{.Params -}}
@group(0) @binding(0) var<storage, read> a: array<{{.Elem}}>;
@group(0) @binding(1) var<storage, read> bm: array<{{.Elem}}>;
@group(0) @binding(2) var<storage, read_write> c: array<{{.Elem}}>;
@group(0) @binding(3) var<uniform> p: Params;
{{- end}}
{{- /* matmul_batch turns the batch index z, the grid's z counted from
first_batch, into the offsets of A's and B's matrices (aoff, boff), counted
in whole matrices; matmul_offsets does so for a z the kernel defined. */ -}}
{{define "matmul_batch"}}
	let z = w.z + p.first_batch;
{{- template "matmul_offsets" .}}
{{- end}}
{{define "matmul_offsets"}}
	var rem = z;
	var aoff = 0u;
	var boff = 0u;
{{- range down .BatchRank}}
	{ let dim = {{at "batch_dims" .}}; let c = rem % dim; rem = rem / dim; aoff += c * {{at "a_strides" .}}; boff += c * {{at "b_strides" .}}; }
{{- end}}
{{- end}}
