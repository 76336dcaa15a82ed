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
@group(0) @binding(6) var<storage, read_write> dk: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> dv: array<vec4<f32>>;
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
	
	var vr0: vec4<f32>;
	
	var dva0: vec4<f32>;
	vr0 = ld_v(vo0, 0u);
	for (var i = ibeg; i < p.inner_end; i++) {
		let qi = qb + i * lq.w;
		let oi = ob + i * lo.w;
		
		var doc0: vec4<f32>;
		doc0 = ld_dout(oi, 0u);
		let li = lse[qrow + i];
		let di = delta[qrow + i];
		{
			let s = (0.0) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && jb + 0u > i) { keep = false; }
			if (keep) {
				let pr = exp(s - li);
				var dp = dot(vr0, doc0);
				var w = pr;
				let ds = pr * (dp - di);
				dva0 += w * doc0;
			}
		}
	}
	if (jb + 0u < p.tk) {
		{
			var x = dva0;
			if (p.inner_first > 0u) { x += ld_dv(vo0, 0u); }
			st_dv(vo0, 0u, x);
		}
	}
}
