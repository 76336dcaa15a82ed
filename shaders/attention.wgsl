{{- /* Fused scaled-dot-product attention: the forward pass (.Pass "forward") or one half of its gradient ("grad_q", "grad_kv"); see Attention.
Every loop over a thread's rows and over the vec4s of a head's row is unrolled here; the only loop is the one over keys (queries for grad_kv).
ld_X(ro, c) and st_X(ro, c, x) read and write vec4 c of the row of X that starts at ro, in the units of X's binding (p.layouts). */ -}}
{{.Params -}}
{{- range $i, $b := .Bindings}}
@group(0) @binding({{$i}}) var<storage, {{if $b.Write}}read_write{{else}}read{{end}}> {{$b.Name}}: array<{{$b.Type}}>;
{{- end}}
@group(0) @binding({{len .Bindings}}) var<uniform> p: Params;

const neg_max = -3.4028234e38;
const inf_bits = 0x7f800000u;
{{- range .IOs}}
{{- if .Load}}
fn ld_{{.Name}}(ro: u32, c: u32) -> vec4<f32> {
{{- if .Vec4}}
	return {{.Array}}[ro + c];
{{- else}}
	let o = ro + 4u * c;
	let n = {{.N}}u - 4u * c;
	if (n >= 4u) { return vec4<f32>({{.Array}}[o], {{.Array}}[o + 1u], {{.Array}}[o + 2u], {{.Array}}[o + 3u]); }
	if (n == 3u) { return vec4<f32>({{.Array}}[o], {{.Array}}[o + 1u], {{.Array}}[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>({{.Array}}[o], {{.Array}}[o + 1u], 0.0, 0.0); }
	return vec4<f32>({{.Array}}[o], 0.0, 0.0, 0.0);
{{- end}}
}
{{- end}}
{{- if .Store}}
fn st_{{.Name}}(ro: u32, c: u32, x: vec4<f32>) {
{{- if .Vec4}}
	{{.Array}}[ro + c] = x;
{{- else}}
	let o = ro + 4u * c;
	{{.Array}}[o] = x.x;
	if (4u * c + 1u < {{.N}}u) { {{.Array}}[o + 1u] = x.y; }
	if (4u * c + 2u < {{.N}}u) { {{.Array}}[o + 2u] = x.z; }
	if (4u * c + 3u < {{.N}}u) { {{.Array}}[o + 3u] = x.w; }
{{- end}}
}
{{- end}}
{{- end}}
{{- if .A.Dropout}}
{{.Philox}}
// philox10 is philox, its ten rounds unrolled: a loop would spend the
// invocation's loop trips (see LoopTrips).
fn philox10(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
	var c = counter;
	var k = key;
{{- range seq 10}}
	{ let p0 = mulhilo(0xD2511F53u, c.x); let p1 = mulhilo(0xCD9E8D57u, c.z); c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y); k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u); }
{{- end}}
	return c;
}
// kept reports whether dropout keeps the weight of query row qrow (bh·tq + i)
// for key j: whether element qrow·tk + j of RandUniform(seed, 0, 1) is at
// least p.dropout.
fn kept(qrow: u32, j: u32) -> bool {
	let hl = mulhilo(qrow, p.tk);
	let lo = hl.y + j;
	let hi = hl.x + select(0u, 1u, lo < j);
	return unit(philox10(vec4<u32>(lo, hi, 0u, 0u), vec2<u32>(p.seed_lo, p.seed_hi)).x) >= p.dropout;
}
{{- end}}
{{- /* attention_bases: the batch and head of invocation row bh, and where
each operand's rows of that head begin (layouts: offset, batch, head and
row strides). */ -}}
{{define "attention_bases"}}
	let b = bh / p.heads;
	let h = bh % p.heads;
	let qrow = bh * p.tq;
	let lq = p.layouts[0];
	let lk = p.layouts[1];
	let lv = p.layouts[2];
	let lo = p.layouts[3];
	let qb = lq.x + b * lq.y + h * lq.z;
	let kb = lk.x + b * lk.y + h * lk.z;
	let vb = lv.x + b * lv.y + h * lv.z;
	let ob = lo.x + b * lo.y + h * lo.z;{{end}}
@compute @workgroup_size({{.WorkgroupSize}})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let t = g.x + g.y * p.row + p.first;
	if (t >= p.end) { return; }
	let ms = p.mask_strides[0];
{{- if ne .Pass "grad_kv"}}
	let groups = (p.tq + {{.R}}u - 1u) / {{.R}}u;
	let bh = t / groups;
	let ib = (t % groups) * {{.R}}u;{{template "attention_bases"}}
	var kend = p.inner_end;
	if (p.causal != 0u) { kend = min(kend, ib + {{.R}}u); }
	if (p.inner_first > 0u && p.inner_first >= kend) { return; }
{{- range .Rows}}
	let i{{.R}} = min(ib + {{.R}}u, p.tq - 1u);
	let qo{{.R}} = qb + i{{.R}} * lq.w;
	let oo{{.R}} = ob + i{{.R}} * lo.w;
{{- if $.Mask}}
	let mo{{.R}} = b * ms.x + h * ms.y + i{{.R}} * ms.z;
{{- end}}
{{- end}}
	{{index .Vars "q"}}
{{- range $r := .Rows}}
{{- range $c := $.QK}}
	q{{index $r.Q $c}} = ld_q(qo{{$r.R}}, {{$c}}u);
{{- end}}
{{- end}}
{{- if eq .Pass "forward"}}
	{{index .Vars "acc"}}
	{{index .Vars "m"}}
	{{index .Vars "l"}}
{{- range $r := .Rows}}
	m{{$r.R}} = neg_max;
{{- end}}
	if (p.inner_first > 0u) {
		// Resume from the keys before: O and L are the state m = L, l = 1,
		// acc = O, or no key yet where L is +Inf.
{{- range $r := .Rows}}
		{
			let lr = lse[qrow + i{{$r.R}}];
			if (!(lr > 3.4028234e38)) {
				m{{$r.R}} = lr;
				l{{$r.R}} = 1.0;
{{- range $c := $.VC}}
				acc{{index $r.V $c}} = ld_out(oo{{$r.R}}, {{$c}}u);
{{- end}}
			}
		}
{{- end}}
	}
{{- else}}
	{{index .Vars "dov"}}
	{{index .Vars "dqa"}}
	{{index .Vars "lr"}}
	{{index .Vars "dl"}}
{{- range $r := .Rows}}
{{- range $c := $.VC}}
	dov{{index $r.V $c}} = ld_dout(oo{{$r.R}}, {{$c}}u);
	dl{{$r.R}} += dot(dov{{index $r.V $c}}, ld_out(oo{{$r.R}}, {{$c}}u));
{{- end}}
	lr{{$r.R}} = lse[qrow + i{{$r.R}}];
{{- end}}
{{- end}}
	for (var j = p.inner_first; j < kend; j++) {
		let kj = kb + j * lk.w;
		let vj = vb + j * lv.w;
		{{index .Vars "kc"}}
		{{index .Vars "vc"}}
{{- range $c := .QK}}
		kc{{$c}} = ld_k(kj, {{$c}}u);
{{- end}}
{{- range $c := .VC}}
		vc{{$c}} = ld_v(vj, {{$c}}u);
{{- end}}
{{- if .A.KeyPadding}}
		let padded = kpad[b * p.tk + j] != 0u;
{{- end}}
{{- range $r := .Rows}}
		{
			let s = ({{$r.QK}}) * p.scale{{if $.A.MaskAdd}} + mask[mo{{$r.R}} + j * ms.w]{{end}};
			var keep = !(s < neg_max){{if $.A.MaskBool}} && mask[mo{{$r.R}} + j * ms.w] != 0u{{end}}{{if $.A.KeyPadding}} && !padded{{end}};
			if (p.causal != 0u && j > ib + {{$r.R}}u) { keep = false; }
			if (keep) {
{{- if eq $.Pass "forward"}}
				let mn = max(m{{$r.R}}, s);
				let corr = exp(m{{$r.R}} - mn);
				let pr = exp(s - mn);
				l{{$r.R}} = l{{$r.R}} * corr + pr;
				let w = {{if $.A.Dropout}}select(0.0, pr * p.drop_scale, kept(qrow + i{{$r.R}}, j)){{else}}pr{{end}};
{{- range $c := $.VC}}
				acc{{index $r.V $c}} = acc{{index $r.V $c}} * corr + w * vc{{$c}};
{{- end}}
				m{{$r.R}} = mn;
{{- else}}
				let pr = exp(s - lr{{$r.R}});
				var dp = {{$r.DoV}};
{{- if $.A.Dropout}}
				dp = select(0.0, dp * p.drop_scale, kept(qrow + i{{$r.R}}, j));
{{- end}}
				let ds = pr * (dp - dl{{$r.R}});
{{- range $c := $.QK}}
				dqa{{index $r.Q $c}} += ds * kc{{$c}};
{{- end}}
{{- end}}
			}
		}
{{- end}}
	}
{{- range $r := .Rows}}
	if (ib + {{$r.R}}u < p.tq) {
		let row = qrow + ib + {{$r.R}}u;
{{- if eq $.Pass "forward"}}
		if (l{{$r.R}} == 0.0) {
			lse[row] = bitcast<f32>(inf_bits);
{{- range $c := $.VC}}
			st_out(oo{{$r.R}}, {{$c}}u, vec4<f32>(0.0));
{{- end}}
		} else {
{{- range $c := $.VC}}
			st_out(oo{{$r.R}}, {{$c}}u, acc{{index $r.V $c}} / l{{$r.R}});
{{- end}}
			lse[row] = m{{$r.R}} + log(l{{$r.R}});
		}
{{- else}}
{{- range $c := $.QK}}
		{
			var x = dqa{{index $r.Q $c}} * p.scale;
			if (p.inner_first > 0u) { x += ld_dq(qo{{$r.R}}, {{$c}}u); }
			st_dq(qo{{$r.R}}, {{$c}}u, x);
		}
{{- end}}
		delta[row] = dl{{$r.R}};
{{- end}}
	}
{{- end}}
{{- else}}
	let groups = (p.tk + {{.R}}u - 1u) / {{.R}}u;
	let bh = t / groups;
	let jb = (t % groups) * {{.R}}u;{{template "attention_bases"}}
	var ibeg = p.inner_first;
	if (p.causal != 0u) { ibeg = max(ibeg, jb); }
	if (p.inner_first > 0u && ibeg >= p.inner_end) { return; }
{{- range .Rows}}
	let j{{.R}} = min(jb + {{.R}}u, p.tk - 1u);
	let ko{{.R}} = kb + j{{.R}} * lk.w;
	let vo{{.R}} = vb + j{{.R}} * lv.w;
{{- if $.Mask}}
	let mo{{.R}} = b * ms.x + h * ms.y + j{{.R}} * ms.w;
{{- end}}
{{- if $.A.KeyPadding}}
	let padded{{.R}} = kpad[b * p.tk + j{{.R}}] != 0u;
{{- end}}
{{- end}}
	{{index .Vars "kr"}}
	{{index .Vars "vr"}}
	{{index .Vars "dka"}}
	{{index .Vars "dva"}}
{{- range $r := .Rows}}
{{- range $c := $.QK}}
	kr{{index $r.Q $c}} = ld_k(ko{{$r.R}}, {{$c}}u);
{{- end}}
{{- range $c := $.VC}}
	vr{{index $r.V $c}} = ld_v(vo{{$r.R}}, {{$c}}u);
{{- end}}
{{- end}}
	for (var i = ibeg; i < p.inner_end; i++) {
		let qi = qb + i * lq.w;
		let oi = ob + i * lo.w;
		{{index .Vars "qc"}}
		{{index .Vars "doc"}}
{{- range $c := .QK}}
		qc{{$c}} = ld_q(qi, {{$c}}u);
{{- end}}
{{- range $c := .VC}}
		doc{{$c}} = ld_dout(oi, {{$c}}u);
{{- end}}
		let li = lse[qrow + i];
		let di = delta[qrow + i];
{{- range $r := .Rows}}
		{
			let s = ({{$r.KQ}}) * p.scale{{if $.A.MaskAdd}} + mask[mo{{$r.R}} + i * ms.z]{{end}};
			var keep = !(s < neg_max){{if $.A.MaskBool}} && mask[mo{{$r.R}} + i * ms.z] != 0u{{end}}{{if $.A.KeyPadding}} && !padded{{$r.R}}{{end}};
			if (p.causal != 0u && jb + {{$r.R}}u > i) { keep = false; }
			if (keep) {
				let pr = exp(s - li);
				var dp = {{$r.VDo}};
				var w = pr;
{{- if $.A.Dropout}}
				if (kept(qrow + i, j{{$r.R}})) { w = pr * p.drop_scale; dp = dp * p.drop_scale; } else { w = 0.0; dp = 0.0; }
{{- end}}
				let ds = pr * (dp - di);
{{- range $c := $.VC}}
				dva{{index $r.V $c}} += w * doc{{$c}};
{{- end}}
{{- range $c := $.QK}}
				dka{{index $r.Q $c}} += ds * qc{{$c}};
{{- end}}
			}
		}
{{- end}}
	}
{{- range $r := .Rows}}
	if (jb + {{$r.R}}u < p.tk) {
{{- range $c := $.QK}}
		{
			var x = dka{{index $r.Q $c}} * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(ko{{$r.R}}, {{$c}}u); }
			st_dk(ko{{$r.R}}, {{$c}}u, x);
		}
{{- end}}
{{- range $c := $.VC}}
		{
			var x = dva{{index $r.V $c}};
			if (p.inner_first > 0u) { x += ld_dv(vo{{$r.R}}, {{$c}}u); }
			st_dv(vo{{$r.R}}, {{$c}}u, x);
		}
{{- end}}
	}
{{- end}}
{{- end}}
}
