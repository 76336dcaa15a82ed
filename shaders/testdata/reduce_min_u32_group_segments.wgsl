struct Params {
	first: u32,
	end: u32,
	row: u32,
	length: u32,
	segments: u32,
	scale: f32,
	stride: u32,
}
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;
const none = 0xffffffffu;
fn row_base(r: u32) -> u32 { let st = max(p.stride, 1u); return (r / st) * p.length * st + r % st; }
fn is_nan(x: u32) -> bool { return false; }
fn ord(x: u32) -> u32 { return x; }
fn beats(v: u32, j: u32, w: u32, k: u32) -> bool {
	if (k == none) { return true; }
	if (is_nan(w)) { return is_nan(v) && j < k; }
	if (is_nan(v)) { return true; }
	return ord(v) < ord(w) || (ord(v) == ord(w) && j < k);
}
var<workgroup> sv: array<u32, 64>;
var<workgroup> si: array<u32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let row = w.x + w.y * p.row + p.first;
	if (row >= p.end) { return; }
	let len = p.length;
	let base = row_base(row / p.segments);
	let out = row; let lo = (row % p.segments) * 65536u; let hi = min(lo + 65536u, len);
	let st = max(p.stride, 1u);
	var acc = u32(0);
	var ai = none;
	for (var b0 = lo; b0 < hi; b0 += 1024u) {
		for (var u = 0u; u < 16u; u++) {
			let j = b0 + u * 64u + l;
			if (j >= hi) { break; }
			let v = u32(src[base + j * st]);
			if (beats(v, j, acc, ai)) { acc = v; ai = j; }
		}
	}
	sv[l] = acc;
	si[l] = ai;
	workgroupBarrier();
	for (var h = 32u; h > 0u; h = h >> 1u) {
		if (l < h) {
			let v = sv[l + h]; let j = si[l + h];
			if (j != none && beats(v, j, sv[l], si[l])) { sv[l] = v; si[l] = j; }
		}
		workgroupBarrier();
	}
	if (l == 0u) {
		let acc = sv[0];
		let ai = si[0];
		dst[out] = acc;
	}
}
