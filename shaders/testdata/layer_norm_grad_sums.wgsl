struct Params {
	first: u32,
	end: u32,
	row: u32,
	length: u32,
	rows: u32,
	slices: u32,
	eps: f32,
	block: u32,
}
@group(0) @binding(0) var<storage, read> pg: array<f32>;
@group(0) @binding(1) var<storage, read> pb: array<f32>;
@group(0) @binding(2) var<storage, read_write> dgamma: array<f32>;
@group(0) @binding(3) var<storage, read_write> dbeta: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let c = g.x + g.y * p.row + p.first;
	if (c >= p.end) { return; }
	let n = p.length;
	let len = p.slices;
	var j: u32;
	var sg = 0.0;
	var sb = 0.0;
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; let i = k * n + c; sg += pg[i]; sb += pb[i]; }
		{ let k = j + 1u; let i = k * n + c; sg += pg[i]; sb += pb[i]; }
		{ let k = j + 2u; let i = k * n + c; sg += pg[i]; sb += pb[i]; }
		{ let k = j + 3u; let i = k * n + c; sg += pg[i]; sb += pb[i]; }
		{ let k = j + 4u; let i = k * n + c; sg += pg[i]; sb += pb[i]; }
		{ let k = j + 5u; let i = k * n + c; sg += pg[i]; sb += pb[i]; }
		{ let k = j + 6u; let i = k * n + c; sg += pg[i]; sb += pb[i]; }
		{ let k = j + 7u; let i = k * n + c; sg += pg[i]; sb += pb[i]; }
	}
	for (; j < len; j++) { let k = j; let i = k * n + c; sg += pg[i]; sb += pb[i]; }
	dgamma[c] = sg;
	dbeta[c] = sb;
}
