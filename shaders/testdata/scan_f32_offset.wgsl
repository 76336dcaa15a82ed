struct Params {
	first: u32,
	end: u32,
	row: u32,
	inner: u32,
	length: u32,
	segment: u32,
	segs: u32,
}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read> off: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	let inner = p.inner;
	let k = i % inner;
	let t = i / inner;
	let s = t % p.segs;
	let base = (t / p.segs) * p.length;
	let lo = s * p.segment;
	let hi = min(lo + p.segment, p.length);
	var acc = off[i];
	for (var q = 0u; q < hi - lo; q++) {
		let at = (base + lo + q) * inner + k;
		let v = x[at];
		acc += v;
		y[at] = acc;
	}
}
