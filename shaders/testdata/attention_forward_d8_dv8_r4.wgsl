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
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> lse: array<f32>;
@group(0) @binding(5) var<uniform> p: Params;

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
fn ld_out(ro: u32, c: u32) -> vec4<f32> {
	return out[ro + c];
}
fn st_out(ro: u32, c: u32, x: vec4<f32>) {
	out[ro + c] = x;
}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let t = g.x + g.y * p.row + p.first;
	if (t >= p.end) { return; }
	let ms = p.mask_strides[0];
	let groups = (p.tq + 4u - 1u) / 4u;
	let bh = t / groups;
	let ib = (t % groups) * 4u;
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
	if (p.causal != 0u) { kend = min(kend, ib + 4u); }
	if (p.inner_first > 0u && p.inner_first >= kend) { return; }
	let i0 = min(ib + 0u, p.tq - 1u);
	let qo0 = qb + i0 * lq.w;
	let oo0 = ob + i0 * lo.w;
	let i1 = min(ib + 1u, p.tq - 1u);
	let qo1 = qb + i1 * lq.w;
	let oo1 = ob + i1 * lo.w;
	let i2 = min(ib + 2u, p.tq - 1u);
	let qo2 = qb + i2 * lq.w;
	let oo2 = ob + i2 * lo.w;
	let i3 = min(ib + 3u, p.tq - 1u);
	let qo3 = qb + i3 * lq.w;
	let oo3 = ob + i3 * lo.w;
	var q0: vec4<f32>;
	var q1: vec4<f32>;
	var q2: vec4<f32>;
	var q3: vec4<f32>;
	var q4: vec4<f32>;
	var q5: vec4<f32>;
	var q6: vec4<f32>;
	var q7: vec4<f32>;
	q0 = ld_q(qo0, 0u);
	q1 = ld_q(qo0, 1u);
	q2 = ld_q(qo1, 0u);
	q3 = ld_q(qo1, 1u);
	q4 = ld_q(qo2, 0u);
	q5 = ld_q(qo2, 1u);
	q6 = ld_q(qo3, 0u);
	q7 = ld_q(qo3, 1u);
	var acc0: vec4<f32>;
	var acc1: vec4<f32>;
	var acc2: vec4<f32>;
	var acc3: vec4<f32>;
	var acc4: vec4<f32>;
	var acc5: vec4<f32>;
	var acc6: vec4<f32>;
	var acc7: vec4<f32>;
	var m0: f32;
	var m1: f32;
	var m2: f32;
	var m3: f32;
	var l0: f32;
	var l1: f32;
	var l2: f32;
	var l3: f32;
	m0 = neg_max;
	m1 = neg_max;
	m2 = neg_max;
	m3 = neg_max;
	if (p.inner_first > 0u) {
		// Resume from the keys before: O and L are the state m = L, l = 1,
		// acc = O, or no key yet where L is +Inf.
		{
			let lr = lse[qrow + i0];
			if (!(lr > 3.4028234e38)) {
				m0 = lr;
				l0 = 1.0;
				acc0 = ld_out(oo0, 0u);
				acc1 = ld_out(oo0, 1u);
			}
		}
		{
			let lr = lse[qrow + i1];
			if (!(lr > 3.4028234e38)) {
				m1 = lr;
				l1 = 1.0;
				acc2 = ld_out(oo1, 0u);
				acc3 = ld_out(oo1, 1u);
			}
		}
		{
			let lr = lse[qrow + i2];
			if (!(lr > 3.4028234e38)) {
				m2 = lr;
				l2 = 1.0;
				acc4 = ld_out(oo2, 0u);
				acc5 = ld_out(oo2, 1u);
			}
		}
		{
			let lr = lse[qrow + i3];
			if (!(lr > 3.4028234e38)) {
				m3 = lr;
				l3 = 1.0;
				acc6 = ld_out(oo3, 0u);
				acc7 = ld_out(oo3, 1u);
			}
		}
	}
	for (var j = p.inner_first; j < kend; j++) {
		let kj = kb + j * lk.w;
		let vj = vb + j * lv.w;
		var kc0: vec4<f32>;
		var kc1: vec4<f32>;
		var vc0: vec4<f32>;
		var vc1: vec4<f32>;
		kc0 = ld_k(kj, 0u);
		kc1 = ld_k(kj, 1u);
		vc0 = ld_v(vj, 0u);
		vc1 = ld_v(vj, 1u);
		{
			let s = (dot(q0, kc0) + dot(q1, kc1)) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && j > ib + 0u) { keep = false; }
			if (keep) {
				let mn = max(m0, s);
				let corr = exp(m0 - mn);
				let pr = exp(s - mn);
				l0 = l0 * corr + pr;
				let w = pr;
				acc0 = acc0 * corr + w * vc0;
				acc1 = acc1 * corr + w * vc1;
				m0 = mn;
			}
		}
		{
			let s = (dot(q2, kc0) + dot(q3, kc1)) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && j > ib + 1u) { keep = false; }
			if (keep) {
				let mn = max(m1, s);
				let corr = exp(m1 - mn);
				let pr = exp(s - mn);
				l1 = l1 * corr + pr;
				let w = pr;
				acc2 = acc2 * corr + w * vc0;
				acc3 = acc3 * corr + w * vc1;
				m1 = mn;
			}
		}
		{
			let s = (dot(q4, kc0) + dot(q5, kc1)) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && j > ib + 2u) { keep = false; }
			if (keep) {
				let mn = max(m2, s);
				let corr = exp(m2 - mn);
				let pr = exp(s - mn);
				l2 = l2 * corr + pr;
				let w = pr;
				acc4 = acc4 * corr + w * vc0;
				acc5 = acc5 * corr + w * vc1;
				m2 = mn;
			}
		}
		{
			let s = (dot(q6, kc0) + dot(q7, kc1)) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && j > ib + 3u) { keep = false; }
			if (keep) {
				let mn = max(m3, s);
				let corr = exp(m3 - mn);
				let pr = exp(s - mn);
				l3 = l3 * corr + pr;
				let w = pr;
				acc6 = acc6 * corr + w * vc0;
				acc7 = acc7 * corr + w * vc1;
				m3 = mn;
			}
		}
	}
	if (ib + 0u < p.tq) {
		let row = qrow + ib + 0u;
		if (l0 == 0.0) {
			lse[row] = bitcast<f32>(inf_bits);
			st_out(oo0, 0u, vec4<f32>(0.0));
			st_out(oo0, 1u, vec4<f32>(0.0));
		} else {
			st_out(oo0, 0u, acc0 / l0);
			st_out(oo0, 1u, acc1 / l0);
			lse[row] = m0 + log(l0);
		}
	}
	if (ib + 1u < p.tq) {
		let row = qrow + ib + 1u;
		if (l1 == 0.0) {
			lse[row] = bitcast<f32>(inf_bits);
			st_out(oo1, 0u, vec4<f32>(0.0));
			st_out(oo1, 1u, vec4<f32>(0.0));
		} else {
			st_out(oo1, 0u, acc2 / l1);
			st_out(oo1, 1u, acc3 / l1);
			lse[row] = m1 + log(l1);
		}
	}
	if (ib + 2u < p.tq) {
		let row = qrow + ib + 2u;
		if (l2 == 0.0) {
			lse[row] = bitcast<f32>(inf_bits);
			st_out(oo2, 0u, vec4<f32>(0.0));
			st_out(oo2, 1u, vec4<f32>(0.0));
		} else {
			st_out(oo2, 0u, acc4 / l2);
			st_out(oo2, 1u, acc5 / l2);
			lse[row] = m2 + log(l2);
		}
	}
	if (ib + 3u < p.tq) {
		let row = qrow + ib + 3u;
		if (l3 == 0.0) {
			lse[row] = bitcast<f32>(inf_bits);
			st_out(oo3, 0u, vec4<f32>(0.0));
			st_out(oo3, 1u, vec4<f32>(0.0));
		} else {
			st_out(oo3, 0u, acc6 / l3);
			st_out(oo3, 1u, acc7 / l3);
			lse[row] = m3 + log(l3);
		}
	}
}
