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
@group(0) @binding(6) var<storage, read_write> dk: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> dv: array<vec4<f32>>;
@group(0) @binding(8) var<uniform> p: Params;

const neg_max = -3.4028234e38;
const inf_bits = 0x7f800000u;
fn ld_q(row: u32, c: u32) -> vec4<f32> {
	return q[row * 0u + c];
}
fn ld_k(row: u32, c: u32) -> vec4<f32> {
	return k[row * 0u + c];
}
fn ld_v(row: u32, c: u32) -> vec4<f32> {
	return v[row * 1u + c];
}
fn ld_dout(row: u32, c: u32) -> vec4<f32> {
	return dout[row * 1u + c];
}
fn ld_dk(row: u32, c: u32) -> vec4<f32> {
	return dk[row * 0u + c];
}
fn st_dk(row: u32, c: u32, x: vec4<f32>) {
	dk[row * 0u + c] = x;
}
fn ld_dv(row: u32, c: u32) -> vec4<f32> {
	return dv[row * 1u + c];
}
fn st_dv(row: u32, c: u32, x: vec4<f32>) {
	dv[row * 1u + c] = x;
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
	let krow = bh * p.tk;
	var ibeg = p.inner_first;
	if (p.causal != 0u) { ibeg = max(ibeg, jb); }
	if (p.inner_first > 0u && ibeg >= p.inner_end) { return; }
	let j0 = min(jb + 0u, p.tk - 1u);
	
	var vr0: vec4<f32>;
	
	var dva0: vec4<f32>;
	vr0 = ld_v(krow + j0, 0u);
	for (var i = ibeg; i < p.inner_end; i++) {
		
		var doc0: vec4<f32>;
		doc0 = ld_dout(qrow + i, 0u);
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
		let row = krow + jb + 0u;
		{
			var x = dva0;
			if (p.inner_first > 0u) { x += ld_dv(row, 0u); }
			st_dv(row, 0u, x);
		}
	}
}
