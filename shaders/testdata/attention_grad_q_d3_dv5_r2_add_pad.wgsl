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
@group(0) @binding(3) var<storage, read> out: array<f32>;
@group(0) @binding(4) var<storage, read> dout: array<f32>;
@group(0) @binding(5) var<storage, read> lse: array<f32>;
@group(0) @binding(6) var<storage, read> mask: array<f32>;
@group(0) @binding(7) var<storage, read> kpad: array<u32>;
@group(0) @binding(8) var<storage, read_write> dq: array<f32>;
@group(0) @binding(9) var<storage, read_write> delta: array<f32>;
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
fn ld_out(ro: u32, c: u32) -> vec4<f32> {
	let o = ro + 4u * c;
	let n = 5u - 4u * c;
	if (n >= 4u) { return vec4<f32>(out[o], out[o + 1u], out[o + 2u], out[o + 3u]); }
	if (n == 3u) { return vec4<f32>(out[o], out[o + 1u], out[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>(out[o], out[o + 1u], 0.0, 0.0); }
	return vec4<f32>(out[o], 0.0, 0.0, 0.0);
}
fn ld_dout(ro: u32, c: u32) -> vec4<f32> {
	let o = ro + 4u * c;
	let n = 5u - 4u * c;
	if (n >= 4u) { return vec4<f32>(dout[o], dout[o + 1u], dout[o + 2u], dout[o + 3u]); }
	if (n == 3u) { return vec4<f32>(dout[o], dout[o + 1u], dout[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>(dout[o], dout[o + 1u], 0.0, 0.0); }
	return vec4<f32>(dout[o], 0.0, 0.0, 0.0);
}
fn ld_dq(ro: u32, c: u32) -> vec4<f32> {
	let o = ro + 4u * c;
	let n = 3u - 4u * c;
	if (n >= 4u) { return vec4<f32>(dq[o], dq[o + 1u], dq[o + 2u], dq[o + 3u]); }
	if (n == 3u) { return vec4<f32>(dq[o], dq[o + 1u], dq[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>(dq[o], dq[o + 1u], 0.0, 0.0); }
	return vec4<f32>(dq[o], 0.0, 0.0, 0.0);
}
fn st_dq(ro: u32, c: u32, x: vec4<f32>) {
	let o = ro + 4u * c;
	dq[o] = x.x;
	if (4u * c + 1u < 3u) { dq[o + 1u] = x.y; }
	if (4u * c + 2u < 3u) { dq[o + 2u] = x.z; }
	if (4u * c + 3u < 3u) { dq[o + 3u] = x.w; }
}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let t = g.x + g.y * p.row + p.first;
	if (t >= p.end) { return; }
	let ms = p.mask_strides[0];
	let groups = (p.tq + 2u - 1u) / 2u;
	let bh = t / groups;
	let ib = (t % groups) * 2u;
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
	var kend = p.inner_end;
	if (p.causal != 0u) { kend = min(kend, ib + 2u); }
	if (p.inner_first > 0u && p.inner_first >= kend) { return; }
	let i0 = min(ib + 0u, p.tq - 1u);
	let qo0 = qb + i0 * lq.w;
	let oo0 = ob + i0 * lo.w;
	let mo0 = b * ms.x + h * ms.y + i0 * ms.z;
	let i1 = min(ib + 1u, p.tq - 1u);
	let qo1 = qb + i1 * lq.w;
	let oo1 = ob + i1 * lo.w;
	let mo1 = b * ms.x + h * ms.y + i1 * ms.z;
	var q0: vec4<f32>;
	var q1: vec4<f32>;
	q0 = ld_q(qo0, 0u);
	q1 = ld_q(qo1, 0u);
	var dov0: vec4<f32>;
	var dov1: vec4<f32>;
	var dov2: vec4<f32>;
	var dov3: vec4<f32>;
	var dqa0: vec4<f32>;
	var dqa1: vec4<f32>;
	var lr0: f32;
	var lr1: f32;
	var dl0: f32;
	var dl1: f32;
	dov0 = ld_dout(oo0, 0u);
	dl0 += dot(dov0, ld_out(oo0, 0u));
	dov1 = ld_dout(oo0, 1u);
	dl0 += dot(dov1, ld_out(oo0, 1u));
	lr0 = lse[qrow + i0];
	dov2 = ld_dout(oo1, 0u);
	dl1 += dot(dov2, ld_out(oo1, 0u));
	dov3 = ld_dout(oo1, 1u);
	dl1 += dot(dov3, ld_out(oo1, 1u));
	lr1 = lse[qrow + i1];
	for (var j = p.inner_first; j < kend; j++) {
		let kj = kb + j * lk.w;
		let vj = vb + j * lv.w;
		var kc0: vec4<f32>;
		var vc0: vec4<f32>;
		var vc1: vec4<f32>;
		kc0 = ld_k(kj, 0u);
		vc0 = ld_v(vj, 0u);
		vc1 = ld_v(vj, 1u);
		let padded = kpad[b * p.tk + j] != 0u;
		{
			let s = (dot(q0, kc0)) * p.scale + mask[mo0 + j * ms.w];
			var keep = !(s < neg_max) && !padded;
			if (p.causal != 0u && j > ib + 0u) { keep = false; }
			if (keep) {
				let pr = exp(s - lr0);
				var dp = dot(dov0, vc0) + dot(dov1, vc1);
				let ds = pr * (dp - dl0);
				dqa0 += ds * kc0;
			}
		}
		{
			let s = (dot(q1, kc0)) * p.scale + mask[mo1 + j * ms.w];
			var keep = !(s < neg_max) && !padded;
			if (p.causal != 0u && j > ib + 1u) { keep = false; }
			if (keep) {
				let pr = exp(s - lr1);
				var dp = dot(dov2, vc0) + dot(dov3, vc1);
				let ds = pr * (dp - dl1);
				dqa1 += ds * kc0;
			}
		}
	}
	if (ib + 0u < p.tq) {
		let row = qrow + ib + 0u;
		{
			var x = dqa0 * p.scale;
			if (p.inner_first > 0u) { x += ld_dq(qo0, 0u); }
			st_dq(qo0, 0u, x);
		}
		delta[row] = dl0;
	}
	if (ib + 1u < p.tq) {
		let row = qrow + ib + 1u;
		{
			var x = dqa1 * p.scale;
			if (p.inner_first > 0u) { x += ld_dq(qo1, 0u); }
			st_dq(qo1, 0u, x);
		}
		delta[row] = dl1;
	}
}
