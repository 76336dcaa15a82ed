struct Params {
	first: u32,
	end: u32,
	row: u32,
	heads: u32,
	tq: u32,
	tk: u32,
	inner_first: u32,
	inner_end: u32,
	causal: u32,
	scale: f32,
	dropout: f32,
	drop_scale: f32,
	seed_lo: u32,
	seed_hi: u32,
	mask_strides: array<vec4<u32>, 1>,
	layouts: array<vec4<u32>, 4>,
}

@group(0) @binding(0) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> k: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> v: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> dout: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> lse: array<f32>;
@group(0) @binding(5) var<storage, read> delta: array<f32>;
@group(0) @binding(6) var<storage, read_write> dkv: array<vec4<f32>>;
@group(0) @binding(7) var<uniform> p: Params;

const neg_max = -3.4028234e38;
const inf_bits = 0x7f800000u;
fn ld_q(ro: u32, c: u32) -> vec4<f32> {
	return q[ro + c];
}
fn ld_k(ro: u32, c: u32) -> vec4<f32> {
	return k[ro + c];
}
fn ld_v(ro: u32, c: u32) -> vec4<f32> {
	return v[ro + c];
}
fn ld_dout(ro: u32, c: u32) -> vec4<f32> {
	return dout[ro + c];
}
fn ld_dk(ro: u32, c: u32) -> vec4<f32> {
	return dkv[ro + c];
}
fn st_dk(ro: u32, c: u32, x: vec4<f32>) {
	dkv[ro + c] = x;
}
fn ld_dv(ro: u32, c: u32) -> vec4<f32> {
	return dkv[ro + c];
}
fn st_dv(ro: u32, c: u32, x: vec4<f32>) {
	dkv[ro + c] = x;
}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let t = g.x + g.y * p.row + p.first;
	if (t >= p.end) { return; }
	let ms = p.mask_strides[0];
	let groups = (p.tk + 4u - 1u) / 4u;
	let bh = t / groups;
	let jb = (t % groups) * 4u;
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
	let ob = lo.x + b * lo.y + h * lo.z;
	var ibeg = p.inner_first;
	if (p.causal != 0u) { ibeg = max(ibeg, jb); }
	if (p.inner_first > 0u && ibeg >= p.inner_end) { return; }
	let j0 = min(jb + 0u, p.tk - 1u);
	let ko0 = kb + j0 * lk.w;
	let vo0 = vb + j0 * lv.w;
	let j1 = min(jb + 1u, p.tk - 1u);
	let ko1 = kb + j1 * lk.w;
	let vo1 = vb + j1 * lv.w;
	let j2 = min(jb + 2u, p.tk - 1u);
	let ko2 = kb + j2 * lk.w;
	let vo2 = vb + j2 * lv.w;
	let j3 = min(jb + 3u, p.tk - 1u);
	let ko3 = kb + j3 * lk.w;
	let vo3 = vb + j3 * lv.w;
	var kr0: vec4<f32>;
	var kr1: vec4<f32>;
	var kr2: vec4<f32>;
	var kr3: vec4<f32>;
	var kr4: vec4<f32>;
	var kr5: vec4<f32>;
	var kr6: vec4<f32>;
	var kr7: vec4<f32>;
	var vr0: vec4<f32>;
	var vr1: vec4<f32>;
	var vr2: vec4<f32>;
	var vr3: vec4<f32>;
	var vr4: vec4<f32>;
	var vr5: vec4<f32>;
	var vr6: vec4<f32>;
	var vr7: vec4<f32>;
	var dka0: vec4<f32>;
	var dka1: vec4<f32>;
	var dka2: vec4<f32>;
	var dka3: vec4<f32>;
	var dka4: vec4<f32>;
	var dka5: vec4<f32>;
	var dka6: vec4<f32>;
	var dka7: vec4<f32>;
	var dva0: vec4<f32>;
	var dva1: vec4<f32>;
	var dva2: vec4<f32>;
	var dva3: vec4<f32>;
	var dva4: vec4<f32>;
	var dva5: vec4<f32>;
	var dva6: vec4<f32>;
	var dva7: vec4<f32>;
	kr0 = ld_k(ko0, 0u);
	kr1 = ld_k(ko0, 1u);
	vr0 = ld_v(vo0, 0u);
	vr1 = ld_v(vo0, 1u);
	kr2 = ld_k(ko1, 0u);
	kr3 = ld_k(ko1, 1u);
	vr2 = ld_v(vo1, 0u);
	vr3 = ld_v(vo1, 1u);
	kr4 = ld_k(ko2, 0u);
	kr5 = ld_k(ko2, 1u);
	vr4 = ld_v(vo2, 0u);
	vr5 = ld_v(vo2, 1u);
	kr6 = ld_k(ko3, 0u);
	kr7 = ld_k(ko3, 1u);
	vr6 = ld_v(vo3, 0u);
	vr7 = ld_v(vo3, 1u);
	for (var i = ibeg; i < p.inner_end; i++) {
		let qi = qb + i * lq.w;
		let oi = ob + i * lo.w;
		var qc0: vec4<f32>;
		var qc1: vec4<f32>;
		var doc0: vec4<f32>;
		var doc1: vec4<f32>;
		qc0 = ld_q(qi, 0u);
		qc1 = ld_q(qi, 1u);
		doc0 = ld_dout(oi, 0u);
		doc1 = ld_dout(oi, 1u);
		let li = lse[qrow + i];
		let di = delta[qrow + i];
		{
			let s = (dot(kr0, qc0) + dot(kr1, qc1)) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && jb + 0u > i) { keep = false; }
			if (keep) {
				let pr = exp(s - li);
				var dp = dot(vr0, doc0) + dot(vr1, doc1);
				var w = pr;
				let ds = pr * (dp - di);
				dva0 += w * doc0;
				dva1 += w * doc1;
				dka0 += ds * qc0;
				dka1 += ds * qc1;
			}
		}
		{
			let s = (dot(kr2, qc0) + dot(kr3, qc1)) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && jb + 1u > i) { keep = false; }
			if (keep) {
				let pr = exp(s - li);
				var dp = dot(vr2, doc0) + dot(vr3, doc1);
				var w = pr;
				let ds = pr * (dp - di);
				dva2 += w * doc0;
				dva3 += w * doc1;
				dka2 += ds * qc0;
				dka3 += ds * qc1;
			}
		}
		{
			let s = (dot(kr4, qc0) + dot(kr5, qc1)) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && jb + 2u > i) { keep = false; }
			if (keep) {
				let pr = exp(s - li);
				var dp = dot(vr4, doc0) + dot(vr5, doc1);
				var w = pr;
				let ds = pr * (dp - di);
				dva4 += w * doc0;
				dva5 += w * doc1;
				dka4 += ds * qc0;
				dka5 += ds * qc1;
			}
		}
		{
			let s = (dot(kr6, qc0) + dot(kr7, qc1)) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && jb + 3u > i) { keep = false; }
			if (keep) {
				let pr = exp(s - li);
				var dp = dot(vr6, doc0) + dot(vr7, doc1);
				var w = pr;
				let ds = pr * (dp - di);
				dva6 += w * doc0;
				dva7 += w * doc1;
				dka6 += ds * qc0;
				dka7 += ds * qc1;
			}
		}
	}
	if (jb + 0u < p.tk) {
		{
			var x = dka0 * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(ko0, 0u); }
			st_dk(ko0, 0u, x);
		}
		{
			var x = dka1 * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(ko0, 1u); }
			st_dk(ko0, 1u, x);
		}
		{
			var x = dva0;
			if (p.inner_first > 0u) { x += ld_dv(vo0, 0u); }
			st_dv(vo0, 0u, x);
		}
		{
			var x = dva1;
			if (p.inner_first > 0u) { x += ld_dv(vo0, 1u); }
			st_dv(vo0, 1u, x);
		}
	}
	if (jb + 1u < p.tk) {
		{
			var x = dka2 * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(ko1, 0u); }
			st_dk(ko1, 0u, x);
		}
		{
			var x = dka3 * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(ko1, 1u); }
			st_dk(ko1, 1u, x);
		}
		{
			var x = dva2;
			if (p.inner_first > 0u) { x += ld_dv(vo1, 0u); }
			st_dv(vo1, 0u, x);
		}
		{
			var x = dva3;
			if (p.inner_first > 0u) { x += ld_dv(vo1, 1u); }
			st_dv(vo1, 1u, x);
		}
	}
	if (jb + 2u < p.tk) {
		{
			var x = dka4 * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(ko2, 0u); }
			st_dk(ko2, 0u, x);
		}
		{
			var x = dka5 * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(ko2, 1u); }
			st_dk(ko2, 1u, x);
		}
		{
			var x = dva4;
			if (p.inner_first > 0u) { x += ld_dv(vo2, 0u); }
			st_dv(vo2, 0u, x);
		}
		{
			var x = dva5;
			if (p.inner_first > 0u) { x += ld_dv(vo2, 1u); }
			st_dv(vo2, 1u, x);
		}
	}
	if (jb + 3u < p.tk) {
		{
			var x = dka6 * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(ko3, 0u); }
			st_dk(ko3, 0u, x);
		}
		{
			var x = dka7 * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(ko3, 1u); }
			st_dk(ko3, 1u, x);
		}
		{
			var x = dva6;
			if (p.inner_first > 0u) { x += ld_dv(vo3, 0u); }
			st_dv(vo3, 0u, x);
		}
		{
			var x = dva7;
			if (p.inner_first > 0u) { x += ld_dv(vo3, 1u); }
			st_dv(vo3, 1u, x);
		}
	}
}
