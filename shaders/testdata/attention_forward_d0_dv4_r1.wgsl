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
	let groups = (p.tq + 1u - 1u) / 1u;
	let bh = t / groups;
	let ib = (t % groups) * 1u;
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
	if (p.causal != 0u) { kend = min(kend, ib + 1u); }
	if (p.inner_first > 0u && p.inner_first >= kend) { return; }
	let i0 = min(ib + 0u, p.tq - 1u);
	let qo0 = qb + i0 * lq.w;
	let oo0 = ob + i0 * lo.w;
	
	var acc0: vec4<f32>;
	var m0: f32;
	var l0: f32;
	m0 = neg_max;
	if (p.inner_first > 0u) {
		// Resume from the keys before: O and L are the state m = L, l = 1,
		// acc = O, or no key yet where L is +Inf.
		{
			let lr = lse[qrow + i0];
			if (!(lr > 3.4028234e38)) {
				m0 = lr;
				l0 = 1.0;
				acc0 = ld_out(oo0, 0u);
			}
		}
	}
	for (var j = p.inner_first; j < kend; j++) {
		let kj = kb + j * lk.w;
		let vj = vb + j * lv.w;
		
		var vc0: vec4<f32>;
		vc0 = ld_v(vj, 0u);
		{
			let s = (0.0) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && j > ib + 0u) { keep = false; }
			if (keep) {
				let mn = max(m0, s);
				let corr = exp(m0 - mn);
				let pr = exp(s - mn);
				l0 = l0 * corr + pr;
				let w = pr;
				acc0 = acc0 * corr + w * vc0;
				m0 = mn;
			}
		}
	}
	if (ib + 0u < p.tq) {
		let row = qrow + ib + 0u;
		if (l0 == 0.0) {
			lse[row] = bitcast<f32>(inf_bits);
			st_out(oo0, 0u, vec4<f32>(0.0));
		} else {
			st_out(oo0, 0u, acc0 / l0);
			lse[row] = m0 + log(l0);
		}
	}
}
