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
@group(0) @binding(3) var<storage, read> out: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> dout: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> lse: array<f32>;
@group(0) @binding(6) var<storage, read_write> dq: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> delta: array<f32>;
@group(0) @binding(8) var<uniform> p: Params;

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
fn ld_dout(ro: u32, c: u32) -> vec4<f32> {
	return dout[ro + c];
}
fn ld_dq(ro: u32, c: u32) -> vec4<f32> {
	return dq[ro + c];
}
fn st_dq(ro: u32, c: u32, x: vec4<f32>) {
	dq[ro + c] = x;
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
	var dov0: vec4<f32>;
	var dov1: vec4<f32>;
	var dov2: vec4<f32>;
	var dov3: vec4<f32>;
	var dov4: vec4<f32>;
	var dov5: vec4<f32>;
	var dov6: vec4<f32>;
	var dov7: vec4<f32>;
	var dqa0: vec4<f32>;
	var dqa1: vec4<f32>;
	var dqa2: vec4<f32>;
	var dqa3: vec4<f32>;
	var dqa4: vec4<f32>;
	var dqa5: vec4<f32>;
	var dqa6: vec4<f32>;
	var dqa7: vec4<f32>;
	var lr0: f32;
	var lr1: f32;
	var lr2: f32;
	var lr3: f32;
	var dl0: f32;
	var dl1: f32;
	var dl2: f32;
	var dl3: f32;
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
	dov4 = ld_dout(oo2, 0u);
	dl2 += dot(dov4, ld_out(oo2, 0u));
	dov5 = ld_dout(oo2, 1u);
	dl2 += dot(dov5, ld_out(oo2, 1u));
	lr2 = lse[qrow + i2];
	dov6 = ld_dout(oo3, 0u);
	dl3 += dot(dov6, ld_out(oo3, 0u));
	dov7 = ld_dout(oo3, 1u);
	dl3 += dot(dov7, ld_out(oo3, 1u));
	lr3 = lse[qrow + i3];
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
				let pr = exp(s - lr0);
				var dp = dot(dov0, vc0) + dot(dov1, vc1);
				let ds = pr * (dp - dl0);
				dqa0 += ds * kc0;
				dqa1 += ds * kc1;
			}
		}
		{
			let s = (dot(q2, kc0) + dot(q3, kc1)) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && j > ib + 1u) { keep = false; }
			if (keep) {
				let pr = exp(s - lr1);
				var dp = dot(dov2, vc0) + dot(dov3, vc1);
				let ds = pr * (dp - dl1);
				dqa2 += ds * kc0;
				dqa3 += ds * kc1;
			}
		}
		{
			let s = (dot(q4, kc0) + dot(q5, kc1)) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && j > ib + 2u) { keep = false; }
			if (keep) {
				let pr = exp(s - lr2);
				var dp = dot(dov4, vc0) + dot(dov5, vc1);
				let ds = pr * (dp - dl2);
				dqa4 += ds * kc0;
				dqa5 += ds * kc1;
			}
		}
		{
			let s = (dot(q6, kc0) + dot(q7, kc1)) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && j > ib + 3u) { keep = false; }
			if (keep) {
				let pr = exp(s - lr3);
				var dp = dot(dov6, vc0) + dot(dov7, vc1);
				let ds = pr * (dp - dl3);
				dqa6 += ds * kc0;
				dqa7 += ds * kc1;
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
		{
			var x = dqa1 * p.scale;
			if (p.inner_first > 0u) { x += ld_dq(qo0, 1u); }
			st_dq(qo0, 1u, x);
		}
		delta[row] = dl0;
	}
	if (ib + 1u < p.tq) {
		let row = qrow + ib + 1u;
		{
			var x = dqa2 * p.scale;
			if (p.inner_first > 0u) { x += ld_dq(qo1, 0u); }
			st_dq(qo1, 0u, x);
		}
		{
			var x = dqa3 * p.scale;
			if (p.inner_first > 0u) { x += ld_dq(qo1, 1u); }
			st_dq(qo1, 1u, x);
		}
		delta[row] = dl1;
	}
	if (ib + 2u < p.tq) {
		let row = qrow + ib + 2u;
		{
			var x = dqa4 * p.scale;
			if (p.inner_first > 0u) { x += ld_dq(qo2, 0u); }
			st_dq(qo2, 0u, x);
		}
		{
			var x = dqa5 * p.scale;
			if (p.inner_first > 0u) { x += ld_dq(qo2, 1u); }
			st_dq(qo2, 1u, x);
		}
		delta[row] = dl2;
	}
	if (ib + 3u < p.tq) {
		let row = qrow + ib + 3u;
		{
			var x = dqa6 * p.scale;
			if (p.inner_first > 0u) { x += ld_dq(qo3, 0u); }
			st_dq(qo3, 0u, x);
		}
		{
			var x = dqa7 * p.scale;
			if (p.inner_first > 0u) { x += ld_dq(qo3, 1u); }
			st_dq(qo3, 1u, x);
		}
		delta[row] = dl3;
	}
}
