struct Params {
	first: u32,
	end: u32,
	row: u32,
	length: u32,
	segments: u32,
	scale: f32,
	stride: u32,
}
@group(0) @binding(0) var<storage, read> src: array<i32>;
@group(0) @binding(1) var<storage, read_write> dst: array<i32>;
@group(0) @binding(2) var<uniform> p: Params;
const none = 0xffffffffu;
fn row_base(r: u32) -> u32 { let st = max(p.stride, 1u); return (r / st) * p.length * st + r % st; }
fn is_nan(x: i32) -> bool { return false; }
fn ord(x: i32) -> i32 { return x; }
fn beats(v: i32, j: u32, w: i32, k: u32) -> bool {
	if (k == none) { return true; }
	if (is_nan(w)) { return is_nan(v) && j < k; }
	if (is_nan(v)) { return true; }
	return ord(v) < ord(w) || (ord(v) == ord(w) && j < k);
}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let row = g.x + g.y * p.row + p.first;
	if (row >= p.end) { return; }
	let len = p.length;
	let base = row_base(row);
	let st = max(p.stride, 1u);
	var acc = i32(0);
	var ai = none;
	for (var s = 0u; s < len; s++) {
		let j = s; let v = i32(src[base + j * st]);
		if (beats(v, j, acc, ai)) { acc = v; ai = j; }
	}
	dst[row] = i32(ai);
}
