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
fn ld_q(row: u32, c: u32) -> vec4<f32> {
	return q[row * 2u + c];
}
fn ld_k(row: u32, c: u32) -> vec4<f32> {
	return k[row * 2u + c];
}
fn ld_v(row: u32, c: u32) -> vec4<f32> {
	return v[row * 0u + c];
}
fn ld_dout(row: u32, c: u32) -> vec4<f32> {
	return dout[row * 0u + c];
}
fn ld_dk(row: u32, c: u32) -> vec4<f32> {
	return dk[row * 2u + c];
}
fn st_dk(row: u32, c: u32, x: vec4<f32>) {
	dk[row * 2u + c] = x;
}
fn ld_dv(row: u32, c: u32) -> vec4<f32> {
	return dv[row * 0u + c];
}
fn st_dv(row: u32, c: u32, x: vec4<f32>) {
	dv[row * 0u + c] = x;
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
	let krow = bh * p.tk;
	var ibeg = p.inner_first;
	if (p.causal != 0u) { ibeg = max(ibeg, jb); }
	if (p.inner_first > 0u && ibeg >= p.inner_end) { return; }
	let j0 = min(jb + 0u, p.tk - 1u);
	let mo0 = b * ms.x + h * ms.y + j0 * ms.w;
	let j1 = min(jb + 1u, p.tk - 1u);
	let mo1 = b * ms.x + h * ms.y + j1 * ms.w;
	var kr0: vec4<f32>;
	var kr1: vec4<f32>;
	var kr2: vec4<f32>;
	var kr3: vec4<f32>;
	
	var dka0: vec4<f32>;
	var dka1: vec4<f32>;
	var dka2: vec4<f32>;
	var dka3: vec4<f32>;
	
	kr0 = ld_k(krow + j0, 0u);
	kr1 = ld_k(krow + j0, 1u);
	kr2 = ld_k(krow + j1, 0u);
	kr3 = ld_k(krow + j1, 1u);
	for (var i = ibeg; i < p.inner_end; i++) {
		var qc0: vec4<f32>;
		var qc1: vec4<f32>;
		
		qc0 = ld_q(qrow + i, 0u);
		qc1 = ld_q(qrow + i, 1u);
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
		let row = krow + jb + 0u;
		{
			var x = dka0 * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(row, 0u); }
			st_dk(row, 0u, x);
		}
		{
			var x = dka1 * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(row, 1u); }
			st_dk(row, 1u, x);
		}
	}
	if (jb + 1u < p.tk) {
		let row = krow + jb + 1u;
		{
			var x = dka2 * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(row, 0u); }
			st_dk(row, 0u, x);
		}
		{
			var x = dka3 * p.scale;
			if (p.inner_first > 0u) { x += ld_dk(row, 1u); }
			st_dk(row, 1u, x);
		}
	}
}
