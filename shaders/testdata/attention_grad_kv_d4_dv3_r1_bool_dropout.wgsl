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
@group(0) @binding(3) var<storage, read> dout: array<f32>;
@group(0) @binding(4) var<storage, read> lse: array<f32>;
@group(0) @binding(5) var<storage, read> delta: array<f32>;
@group(0) @binding(6) var<storage, read> mask: array<u32>;
@group(0) @binding(7) var<storage, read_write> dk: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> dv: array<f32>;
@group(0) @binding(9) var<uniform> p: Params;

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
fn ld_dout(ro: u32, c: u32) -> vec4<f32> {
	let o = ro + 4u * c;
	let n = 3u - 4u * c;
	if (n >= 4u) { return vec4<f32>(dout[o], dout[o + 1u], dout[o + 2u], dout[o + 3u]); }
	if (n == 3u) { return vec4<f32>(dout[o], dout[o + 1u], dout[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>(dout[o], dout[o + 1u], 0.0, 0.0); }
	return vec4<f32>(dout[o], 0.0, 0.0, 0.0);
}
fn ld_dk(ro: u32, c: u32) -> vec4<f32> {
	return dk[ro + c];
}
fn st_dk(ro: u32, c: u32, x: vec4<f32>) {
	dk[ro + c] = x;
}
fn ld_dv(ro: u32, c: u32) -> vec4<f32> {
	let o = ro + 4u * c;
	let n = 3u - 4u * c;
	if (n >= 4u) { return vec4<f32>(dv[o], dv[o + 1u], dv[o + 2u], dv[o + 3u]); }
	if (n == 3u) { return vec4<f32>(dv[o], dv[o + 1u], dv[o + 2u], 0.0); }
	if (n == 2u) { return vec4<f32>(dv[o], dv[o + 1u], 0.0, 0.0); }
	return vec4<f32>(dv[o], 0.0, 0.0, 0.0);
}
fn st_dv(ro: u32, c: u32, x: vec4<f32>) {
	let o = ro + 4u * c;
	dv[o] = x.x;
	if (4u * c + 1u < 3u) { dv[o + 1u] = x.y; }
	if (4u * c + 2u < 3u) { dv[o + 2u] = x.z; }
	if (4u * c + 3u < 3u) { dv[o + 3u] = x.w; }
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
	let groups = (p.tk + 1u - 1u) / 1u;
	let bh = t / groups;
	let jb = (t % groups) * 1u;
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
	var kr0: vec4<f32>;
	var vr0: vec4<f32>;
	var dka0: vec4<f32>;
	var dva0: vec4<f32>;
	kr0 = ld_k(ko0, 0u);
	vr0 = ld_v(vo0, 0u);
	for (var i = ibeg; i < p.inner_end; i++) {
		let qi = qb + i * lq.w;
		let oi = ob + i * lo.w;
		var qc0: vec4<f32>;
		var doc0: vec4<f32>;
		qc0 = ld_q(qi, 0u);
		doc0 = ld_dout(oi, 0u);
		let li = lse[qrow + i];
		let di = delta[qrow + i];
		{
			let s = (dot(kr0, qc0)) * p.scale;
			var keep = !(s < neg_max) && mask[mo0 + i * ms.z] != 0u;
			if (p.causal != 0u && jb + 0u > i) { keep = false; }
			if (keep) {
				let pr = exp(s - li);
				var dp = dot(vr0, doc0);
				var w = pr;
				if (kept(qrow + i, j0)) { w = pr * p.drop_scale; dp = dp * p.drop_scale; } else { w = 0.0; dp = 0.0; }
				let ds = pr * (dp - di);
				dva0 += w * doc0;
				dka0 += ds * qc0;
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
	}
}
