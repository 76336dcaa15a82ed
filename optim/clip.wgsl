{{/* What ClipGradNorm's batched kernels share, for a batch of gradients
0..k-1 (.Gradients; .Rest is 1..k-1). */ -}}

{{/* clip_members declares the batch's members of Params: the sizes
n0..n{k-1} and first workgroups s1..s{k-1} (s0 is 0). */ -}}
{{define "clip_members"}}{{range .Gradients}}, n{{.}}: u32{{end}}{{range .Rest}}, s{{.}}: u32{{end}}{{end}}

{{- /* clip_select finds, from the workgroup w of the launch, the gradient
j it reduces, the first workgroup s of that gradient and its size n. */ -}}
{{define "clip_select"}}	var j = 0u;
	var s = 0u;
	var n = u.n0;
{{range .Rest}}	if (w >= u.s{{.}}) { j = {{.}}u; s = u.s{{.}}; n = u.n{{.}}; }
{{end}}{{end}}

{{- /* clip_reduce adds each invocation's sum and takes the largest of its
bits across the workgroup, in ws[0] and wb[0]. */ -}}
{{define "clip_reduce"}}	ws[l] = sum;
	wb[l] = mb;
	workgroupBarrier();
	for (var st = {{.Half}}u; st > 0u; st = st >> 1u) {
		if (l < st) {
			ws[l] = ws[l] + ws[l + st];
			wb[l] = max(wb[l], wb[l + st]);
		}
		workgroupBarrier();
	}
{{end}}
