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

@group(0) @binding(0) var<storage, read> q: array<f32>;
@group(0) @binding(1) var<storage, read> k: array<f32>;
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> dout: array<f32>;
@group(0) @binding(4) var<storage, read> lse: array<f32>;
@group(0) @binding(5) var<storage, read> delta: array<f32>;
@group(0) @binding(6) var<storage, read> mask: array<f32>;
@group(0) @binding(7) var<storage, read> kpad: array<u32>;
@group(0) @binding(8) var<storage, read_write> dk: array<f32>;
@group(0) @binding(9) var<storage, read_write> dv: array<f32>;
@group(0) @binding(10) var<uniform> p: Params;

const neg_max = -3.4028234e38;
const inf_bits = 0x7f800000u;
fn ld_q(ro: u32, c: u32) -> vec4<f32> {
	let o = ro + 4u * c;
	let n = 3u - 4u * c;
	if (n >= 4u) { return vec4<f32>(q[o], q[o + 1u], q[o + 2u], q[o + 3u]); }
	if (n == 3u) { return vec4<f32>(q[o], q[o + 1u], q[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>(q[o], q[o + 1u], 0.0, 0.0); }
	return vec4<f32>(q[o], 0.0, 0.0, 0.0);
}
fn ld_k(ro: u32, c: u32) -> vec4<f32> {
	let o = ro + 4u * c;
	let n = 3u - 4u * c;
	if (n >= 4u) { return vec4<f32>(k[o], k[o + 1u], k[o + 2u], k[o + 3u]); }
	if (n == 3u) { return vec4<f32>(k[o], k[o + 1u], k[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>(k[o], k[o + 1u], 0.0, 0.0); }
	return vec4<f32>(k[o], 0.0, 0.0, 0.0);
}
fn ld_v(ro: u32, c: u32) -> vec4<f32> {
	let o = ro + 4u * c;
	let n = 5u - 4u * c;
	if (n >= 4u) { return vec4<f32>(v[o], v[o + 1u], v[o + 2u], v[o + 3u]); }
	if (n == 3u) { return vec4<f32>(v[o], v[o + 1u], v[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>(v[o], v[o + 1u], 0.0, 0.0); }
	return vec4<f32>(v[o], 0.0, 0.0, 0.0);
}
fn ld_dout(ro: u32, c: u32) -> vec4<f32> {
	let o = ro + 4u * c;
	let n = 5u - 4u * c;
	if (n >= 4u) { return vec4<f32>(dout[o], dout[o + 1u], dout[o + 2u], dout[o + 3u]); }
	if (n == 3u) { return vec4<f32>(dout[o], dout[o + 1u], dout[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>(dout[o], dout[o + 1u], 0.0, 0.0); }
	return vec4<f32>(dout[o], 0.0, 0.0, 0.0);
}
fn ld_dk(ro: u32, c: u32) -> vec4<f32> {
	let o = ro + 4u * c;
	let n = 3u - 4u * c;
	if (n >= 4u) { return vec4<f32>(dk[o], dk[o + 1u], dk[o + 2u], dk[o + 3u]); }
	if (n == 3u) { return vec4<f32>(dk[o], dk[o + 1u], dk[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>(dk[o], dk[o + 1u], 0.0, 0.0); }
	return vec4<f32>(dk[o], 0.0, 0.0, 0.0);
}
fn st_dk(ro: u32, c: u32, x: vec4<f32>) {
	let o = ro + 4u * c;
	dk[o] = x.x;
	if (4u * c + 1u < 3u) { dk[o + 1u] = x.y; }
	if (4u * c + 2u < 3u) { dk[o + 2u] = x.z; }
	if (4u * c + 3u < 3u) { dk[o + 3u] = x.w; }
}
fn ld_dv(ro: u32, c: u32) -> vec4<f32> {
	let o = ro + 4u * c;
	let n = 5u - 4u * c;
	if (n >= 4u) { return vec4<f32>(dv[o], dv[o + 1u], dv[o + 2u], dv[o + 3u]); }
	if (n == 3u) { return vec4<f32>(dv[o], dv[o + 1u], dv[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>(dv[o], dv[o + 1u], 0.0, 0.0); }
	return vec4<f32>(dv[o], 0.0, 0.0, 0.0);
}
fn st_dv(ro: u32, c: u32, x: vec4<f32>) {
	let o = ro + 4u * c;
	dv[o] = x.x;
	if (4u * c + 1u < 5u) { dv[o + 1u] = x.y; }
	if (4u * c + 2u < 5u) { dv[o + 2u] = x.z; }
	if (4u * c + 3u < 5u) { dv[o + 3u] = x.w; }
}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let t = g.x + g.y * p.row + p.first;
	if (t >= p.end) { return; }
	let ms = p.mask_strides[0];
	let groups = (p.tk + 2u - 1u) / 2u;
	let bh = t / groups;
	let jb = (t % groups) * 2u;
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
	let mo0 = b * ms.x + h * ms.y + j0 * ms.w;
	let padded0 = kpad[b * p.tk + j0] != 0u;
	let j1 = min(jb + 1u, p.tk - 1u);
	let ko1 = kb + j1 * lk.w;
	let vo1 = vb + j1 * lv.w;
	let mo1 = b * ms.x + h * ms.y + j1 * ms.w;
	let padded1 = kpad[b * p.tk + j1] != 0u;
	var kr0: vec4<f32>;
	var kr1: vec4<f32>;
	var vr0: vec4<f32>;
	var vr1: vec4<f32>;
	var vr2: vec4<f32>;
	var vr3: vec4<f32>;
	var dka0: vec4<f32>;
	var dka1: vec4<f32>;
	var dva0: vec4<f32>;
	var dva1: vec4<f32>;
	var dva2: vec4<f32>;
	var dva3: vec4<f32>;
	kr0 = ld_k(ko0, 0u);
	vr0 = ld_v(vo0, 0u);
	vr1 = ld_v(vo0, 1u);
	kr1 = ld_k(ko1, 0u);
	vr2 = ld_v(vo1, 0u);
	vr3 = ld_v(vo1, 1u);
	for (var i = ibeg; i < p.inner_end; i++) {
		let qi = qb + i * lq.w;
		let oi = ob + i * lo.w;
		var qc0: vec4<f32>;
		var doc0: vec4<f32>;
		var doc1: vec4<f32>;
		qc0 = ld_q(qi, 0u);
		doc0 = ld_dout(oi, 0u);
		doc1 = ld_dout(oi, 1u);
		let li = lse[qrow + i];
		let di = delta[qrow + i];
		{
			let s = (dot(kr0, qc0)) * p.scale + mask[mo0 + i * ms.z];
			var keep = !(s < neg_max) && !padded0;
			if (p.causal != 0u && jb + 0u > i) { keep = false; }
			if (keep) {
				let pr = exp(s - li);
				var dp = dot(vr0, doc0) + dot(vr1, doc1);
				var w = pr;
				let ds = pr * (dp - di);
				dva0 += w * doc0;
				dva1 += w * doc1;
				dka0 += ds * qc0;
			}
		}
		{
			let s = (dot(kr1, qc0)) * p.scale + mask[mo1 + i * ms.z];
			var keep = !(s < neg_max) && !padded1;
			if (p.causal != 0u && jb + 1u > i) { keep = false; }
			if (keep) {
				let pr = exp(s - li);
				var dp = dot(vr2, doc0) + dot(vr3, doc1);
				var w = pr;
				let ds = pr * (dp - di);
				dva2 += w * doc0;
				dva3 += w * doc1;
				dka1 += ds * qc0;
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
			var x = dka1 * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(ko1, 0u); }
			st_dk(ko1, 0u, x);
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
}
