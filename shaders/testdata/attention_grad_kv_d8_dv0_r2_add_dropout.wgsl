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
@group(0) @binding(6) var<storage, read> mask: array<f32>;
@group(0) @binding(7) var<storage, read_write> dk: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> dv: array<vec4<f32>>;
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
	return v[ro + c];
}
fn ld_dout(ro: u32, c: u32) -> vec4<f32> {
	return dout[ro + c];
}
fn ld_dk(ro: u32, c: u32) -> vec4<f32> {
	return dk[ro + c];
}
fn st_dk(ro: u32, c: u32, x: vec4<f32>) {
	dk[ro + c] = x;
}
fn ld_dv(ro: u32, c: u32) -> vec4<f32> {
	return dv[ro + c];
}
fn st_dv(ro: u32, c: u32, x: vec4<f32>) {
	dv[ro + c] = x;
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
	let j1 = min(jb + 1u, p.tk - 1u);
	let ko1 = kb + j1 * lk.w;
	let vo1 = vb + j1 * lv.w;
	let mo1 = b * ms.x + h * ms.y + j1 * ms.w;
	var kr0: vec4<f32>;
	var kr1: vec4<f32>;
	var kr2: vec4<f32>;
	var kr3: vec4<f32>;
	
	var dka0: vec4<f32>;
	var dka1: vec4<f32>;
	var dka2: vec4<f32>;
	var dka3: vec4<f32>;
	
	kr0 = ld_k(ko0, 0u);
	kr1 = ld_k(ko0, 1u);
	kr2 = ld_k(ko1, 0u);
	kr3 = ld_k(ko1, 1u);
	for (var i = ibeg; i < p.inner_end; i++) {
		let qi = qb + i * lq.w;
		let oi = ob + i * lo.w;
		var qc0: vec4<f32>;
		var qc1: vec4<f32>;
		
		qc0 = ld_q(qi, 0u);
		qc1 = ld_q(qi, 1u);
		let li = lse[qrow + i];
		let di = delta[qrow + i];
		{
			let s = (dot(kr0, qc0) + dot(kr1, qc1)) * p.scale + mask[mo0 + i * ms.z];
			var keep = !(s < neg_max);
			if (p.causal != 0u && jb + 0u > i) { keep = false; }
			if (keep) {
				let pr = exp(s - li);
				var dp = 0.0;
				var w = pr;
				if (kept(qrow + i, j0)) { w = pr * p.drop_scale; dp = dp * p.drop_scale; } else { w = 0.0; dp = 0.0; }
				let ds = pr * (dp - di);
				dka0 += ds * qc0;
				dka1 += ds * qc1;
			}
		}
		{
			let s = (dot(kr2, qc0) + dot(kr3, qc1)) * p.scale + mask[mo1 + i * ms.z];
			var keep = !(s < neg_max);
			if (p.causal != 0u && jb + 1u > i) { keep = false; }
			if (keep) {
				let pr = exp(s - li);
				var dp = 0.0;
				var w = pr;
				if (kept(qrow + i, j1)) { w = pr * p.drop_scale; dp = dp * p.drop_scale; } else { w = 0.0; dp = 0.0; }
				let ds = pr * (dp - di);
				dka2 += ds * qc0;
				dka3 += ds * qc1;
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
	}
}
