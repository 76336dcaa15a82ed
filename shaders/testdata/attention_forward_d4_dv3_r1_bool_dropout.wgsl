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
@group(0) @binding(2) var<storage, read> v: array<f32>;
@group(0) @binding(3) var<storage, read> mask: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;
@group(0) @binding(5) var<storage, read_write> lse: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;

const neg_max = -3.4028234e38;
const inf_bits = 0x7f800000u;
fn ld_q(ro: u32, c: u32) -> vec4<f32> {
	return q[ro + c];
}
fn ld_k(ro: u32, c: u32) -> vec4<f32> {
	return k[ro + c];
}
fn ld_v(ro: u32, c: u32) -> vec4<f32> {
	let o = ro + 4u * c;
	let n = 3u - 4u * c;
	if (n >= 4u) { return vec4<f32>(v[o], v[o + 1u], v[o + 2u], v[o + 3u]); }
	if (n == 3u) { return vec4<f32>(v[o], v[o + 1u], v[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>(v[o], v[o + 1u], 0.0, 0.0); }
	return vec4<f32>(v[o], 0.0, 0.0, 0.0);
}
fn ld_out(ro: u32, c: u32) -> vec4<f32> {
	let o = ro + 4u * c;
	let n = 3u - 4u * c;
	if (n >= 4u) { return vec4<f32>(out[o], out[o + 1u], out[o + 2u], out[o + 3u]); }
	if (n == 3u) { return vec4<f32>(out[o], out[o + 1u], out[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>(out[o], out[o + 1u], 0.0, 0.0); }
	return vec4<f32>(out[o], 0.0, 0.0, 0.0);
}
fn st_out(ro: u32, c: u32, x: vec4<f32>) {
	let o = ro + 4u * c;
	out[o] = x.x;
	if (4u * c + 1u < 3u) { out[o + 1u] = x.y; }
	if (4u * c + 2u < 3u) { out[o + 2u] = x.z; }
	if (4u * c + 3u < 3u) { out[o + 3u] = x.w; }
}

fn mulhilo(a: u32, b: u32) -> vec2<u32> {
	let al = a & 0xffffu; let ah = a >> 16u;
	let bl = b & 0xffffu; let bh = b >> 16u;
	let ll = al * bl; let lh = al * bh; let hl = ah * bl; let hh = ah * bh;
	let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
	return vec2<u32>(hh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u), (mid << 16u) | (ll & 0xffffu));
}
fn philox(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
	var c = counter;
	var k = key;
	for (var r = 0u; r < 10u; r++) {
		let p0 = mulhilo(0xD2511F53u, c.x);
		let p1 = mulhilo(0xCD9E8D57u, c.z);
		c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y);
		k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
	}
	return c;
}
fn unit(x: u32) -> f32 { return f32(x >> 8u) * (1.0 / 16777216.0); }

// philox10 is philox, its ten rounds unrolled: a loop would spend the
// invocation's loop trips (see LoopTrips).
fn philox10(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
	var c = counter;
	var k = key;
	{ let p0 = mulhilo(0xD2511F53u, c.x); let p1 = mulhilo(0xCD9E8D57u, c.z); c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y); k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u); }
	{ let p0 = mulhilo(0xD2511F53u, c.x); let p1 = mulhilo(0xCD9E8D57u, c.z); c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y); k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u); }
	{ let p0 = mulhilo(0xD2511F53u, c.x); let p1 = mulhilo(0xCD9E8D57u, c.z); c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y); k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u); }
	{ let p0 = mulhilo(0xD2511F53u, c.x); let p1 = mulhilo(0xCD9E8D57u, c.z); c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y); k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u); }
	{ let p0 = mulhilo(0xD2511F53u, c.x); let p1 = mulhilo(0xCD9E8D57u, c.z); c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y); k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u); }
	{ let p0 = mulhilo(0xD2511F53u, c.x); let p1 = mulhilo(0xCD9E8D57u, c.z); c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y); k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u); }
	{ let p0 = mulhilo(0xD2511F53u, c.x); let p1 = mulhilo(0xCD9E8D57u, c.z); c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y); k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u); }
	{ let p0 = mulhilo(0xD2511F53u, c.x); let p1 = mulhilo(0xCD9E8D57u, c.z); c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y); k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u); }
	{ let p0 = mulhilo(0xD2511F53u, c.x); let p1 = mulhilo(0xCD9E8D57u, c.z); c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y); k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u); }
	{ let p0 = mulhilo(0xD2511F53u, c.x); let p1 = mulhilo(0xCD9E8D57u, c.z); c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y); k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u); }
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
	let mo0 = b * ms.x + h * ms.y + i0 * ms.z;
	var q0: vec4<f32>;
	q0 = ld_q(qo0, 0u);
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
		var kc0: vec4<f32>;
		var vc0: vec4<f32>;
		kc0 = ld_k(kj, 0u);
		vc0 = ld_v(vj, 0u);
		{
			let s = (dot(q0, kc0)) * p.scale;
			var keep = !(s < neg_max) && mask[mo0 + j * ms.w] != 0u;
			if (p.causal != 0u && j > ib + 0u) { keep = false; }
			if (keep) {
				let mn = max(m0, s);
				let corr = exp(m0 - mn);
				let pr = exp(s - mn);
				l0 = l0 * corr + pr;
				let w = select(0.0, pr * p.drop_scale, kept(qrow + i0, j));
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
