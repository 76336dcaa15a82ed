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
@group(0) @binding(3) var<storage, read> out: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> dout: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> lse: array<f32>;
@group(0) @binding(6) var<storage, read_write> dq: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> delta: array<f32>;
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
fn ld_out(row: u32, c: u32) -> vec4<f32> {
	return out[row * 1u + c];
}
fn ld_dout(row: u32, c: u32) -> vec4<f32> {
	return dout[row * 1u + c];
}
fn ld_dq(row: u32, c: u32) -> vec4<f32> {
	return dq[row * 0u + c];
}
fn st_dq(row: u32, c: u32, x: vec4<f32>) {
	dq[row * 0u + c] = x;
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
	let krow = bh * p.tk;
	var kend = p.inner_end;
	if (p.causal != 0u) { kend = min(kend, ib + 1u); }
	if (p.inner_first > 0u && p.inner_first >= kend) { return; }
	let i0 = min(ib + 0u, p.tq - 1u);
	
	var dov0: vec4<f32>;
	
	var lr0: f32;
	var dl0: f32;
	dov0 = ld_dout(qrow + i0, 0u);
	dl0 += dot(dov0, ld_out(qrow + i0, 0u));
	lr0 = lse[qrow + i0];
	for (var j = p.inner_first; j < kend; j++) {
		
		var vc0: vec4<f32>;
		vc0 = ld_v(krow + j, 0u);
		{
			let s = (0.0) * p.scale;
			var keep = !(s < neg_max);
			if (p.causal != 0u && j > ib + 0u) { keep = false; }
			if (keep) {
				let pr = exp(s - lr0);
				var dp = dot(dov0, vc0);
				let ds = pr * (dp - dl0);
			}
		}
	}
	if (ib + 0u < p.tq) {
		let row = qrow + ib + 0u;
		delta[row] = dl0;
	}
}
