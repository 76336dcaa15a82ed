struct Params {
	first: u32,
	end: u32,
	row: u32,
	length: u32,
	begin: u32,
	stop: u32,
	k: u32,
}
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> rank: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;
fn is_nan(v: u32) -> bool { return false; }
fn ord(v: u32) -> u32 { return v; }

// before reports whether a, at column ia, comes before b, at column ib.
fn before(a: u32, ia: u32, b: u32, ib: u32) -> bool {
	if (is_nan(a)) { return !is_nan(b) || ia < ib; }
	if (is_nan(b)) { return false; }
	return ord(a) > ord(b) || (ord(a) == ord(b) && ia < ib);
}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	let j = i % p.length;
	let base = i - j;
	let v = x[i];
	var r = 0u;
	if (p.begin > 0u) { r = rank[i]; }
	for (var q = p.begin; q < p.stop; q++) {
		if (before(x[base + q], q, v, j)) { r++; }
	}
	rank[i] = r;
}
