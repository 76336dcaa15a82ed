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
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> gamma: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> dy: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> dx: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> dgamma: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> dbeta: array<vec4<f32>>;
@group(0) @binding(6) var<uniform> p: Params;
var<workgroup> stats: array<vec2<f32>, 128>;
fn row_grad(r: u32) {
	let n = p.length;
	let len = n / 4u;
	let base = r * len;
	var j: u32;
	var sum = 0.0;
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 1u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 2u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 3u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 4u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 5u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 6u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 7u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
	}
	for (; j < len; j++) { let k = j; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
	let mean = sum / f32(n);
	var sq = 0.0;
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 1u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 2u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 3u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 4u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 5u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 6u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 7u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
	}
	for (; j < len; j++) { let k = j; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
	let rstd = inverseSqrt(sq / f32(n) + p.eps);
	var sg = 0.0;
	var sgx = 0.0;
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; let g = dy[base + k] * gamma[k]; let h = (x[base + k] - mean) * rstd; sg += g.x; sgx += g.x * h.x; sg += g.y; sgx += g.y * h.y; sg += g.z; sgx += g.z * h.z; sg += g.w; sgx += g.w * h.w; }
		{ let k = j + 1u; let g = dy[base + k] * gamma[k]; let h = (x[base + k] - mean) * rstd; sg += g.x; sgx += g.x * h.x; sg += g.y; sgx += g.y * h.y; sg += g.z; sgx += g.z * h.z; sg += g.w; sgx += g.w * h.w; }
		{ let k = j + 2u; let g = dy[base + k] * gamma[k]; let h = (x[base + k] - mean) * rstd; sg += g.x; sgx += g.x * h.x; sg += g.y; sgx += g.y * h.y; sg += g.z; sgx += g.z * h.z; sg += g.w; sgx += g.w * h.w; }
		{ let k = j + 3u; let g = dy[base + k] * gamma[k]; let h = (x[base + k] - mean) * rstd; sg += g.x; sgx += g.x * h.x; sg += g.y; sgx += g.y * h.y; sg += g.z; sgx += g.z * h.z; sg += g.w; sgx += g.w * h.w; }
		{ let k = j + 4u; let g = dy[base + k] * gamma[k]; let h = (x[base + k] - mean) * rstd; sg += g.x; sgx += g.x * h.x; sg += g.y; sgx += g.y * h.y; sg += g.z; sgx += g.z * h.z; sg += g.w; sgx += g.w * h.w; }
		{ let k = j + 5u; let g = dy[base + k] * gamma[k]; let h = (x[base + k] - mean) * rstd; sg += g.x; sgx += g.x * h.x; sg += g.y; sgx += g.y * h.y; sg += g.z; sgx += g.z * h.z; sg += g.w; sgx += g.w * h.w; }
		{ let k = j + 6u; let g = dy[base + k] * gamma[k]; let h = (x[base + k] - mean) * rstd; sg += g.x; sgx += g.x * h.x; sg += g.y; sgx += g.y * h.y; sg += g.z; sgx += g.z * h.z; sg += g.w; sgx += g.w * h.w; }
		{ let k = j + 7u; let g = dy[base + k] * gamma[k]; let h = (x[base + k] - mean) * rstd; sg += g.x; sgx += g.x * h.x; sg += g.y; sgx += g.y * h.y; sg += g.z; sgx += g.z * h.z; sg += g.w; sgx += g.w * h.w; }
	}
	for (; j < len; j++) { let k = j; let g = dy[base + k] * gamma[k]; let h = (x[base + k] - mean) * rstd; sg += g.x; sgx += g.x * h.x; sg += g.y; sgx += g.y * h.y; sg += g.z; sgx += g.z * h.z; sg += g.w; sgx += g.w * h.w; }
	let mg = sg / f32(n);
	let mgx = sgx / f32(n);
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; dx[base + k] = rstd * ((dy[base + k] * gamma[k] - mg) - (x[base + k] - mean) * rstd * mgx); }
		{ let k = j + 1u; dx[base + k] = rstd * ((dy[base + k] * gamma[k] - mg) - (x[base + k] - mean) * rstd * mgx); }
		{ let k = j + 2u; dx[base + k] = rstd * ((dy[base + k] * gamma[k] - mg) - (x[base + k] - mean) * rstd * mgx); }
		{ let k = j + 3u; dx[base + k] = rstd * ((dy[base + k] * gamma[k] - mg) - (x[base + k] - mean) * rstd * mgx); }
		{ let k = j + 4u; dx[base + k] = rstd * ((dy[base + k] * gamma[k] - mg) - (x[base + k] - mean) * rstd * mgx); }
		{ let k = j + 5u; dx[base + k] = rstd * ((dy[base + k] * gamma[k] - mg) - (x[base + k] - mean) * rstd * mgx); }
		{ let k = j + 6u; dx[base + k] = rstd * ((dy[base + k] * gamma[k] - mg) - (x[base + k] - mean) * rstd * mgx); }
		{ let k = j + 7u; dx[base + k] = rstd * ((dy[base + k] * gamma[k] - mg) - (x[base + k] - mean) * rstd * mgx); }
	}
	for (; j < len; j++) { let k = j; dx[base + k] = rstd * ((dy[base + k] * gamma[k] - mg) - (x[base + k] - mean) * rstd * mgx); }
}
fn row_stats(r: u32) -> vec2<f32> {
	let n = p.length;
	let len = n / 4u;
	let base = r * len;
	var j: u32;
	var sum = 0.0;
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 1u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 2u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 3u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 4u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 5u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 6u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
		{ let k = j + 7u; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
	}
	for (; j < len; j++) { let k = j; let v = x[base + k]; sum += v.x; sum += v.y; sum += v.z; sum += v.w; }
	let mean = sum / f32(n);
	var sq = 0.0;
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 1u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 2u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 3u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 4u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 5u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 6u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
		{ let k = j + 7u; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
	}
	for (; j < len; j++) { let k = j; let d = x[base + k] - mean; sq += d.x * d.x; sq += d.y * d.y; sq += d.z * d.z; sq += d.w * d.w; }
	let rstd = inverseSqrt(sq / f32(n) + p.eps);
	return vec2<f32>(mean, rstd);
}
fn columns(block: u32, l: u32) {
	let len = p.length / 4u;
	let c0 = block * p.block / 4u;
	let c1 = min(c0 + p.block / 4u, len);
	for (var c = c0 + l; c < c1; c += 64u) {
		dgamma[c] = vec4<f32>(0.0);
		dbeta[c] = vec4<f32>(0.0);
	}
	for (var slice = 0u; slice < p.slices; slice++) {
		let first = slice * 64u;
		let h = (slice & 1u) * 64u;
		var st = vec2<f32>(0.0, 0.0);
		if (first + l < p.rows) { st = row_stats(first + l); }
		stats[h + l] = st;
		workgroupBarrier();
		let count = min(64u, p.rows - first);
		for (var c = c0 + l; c < c1; c += 64u) {
			var sg = vec4<f32>(0.0);
			var sb = vec4<f32>(0.0);
			var q = 0u;
			for (; q + 16u <= count; q += 16u) {
				{ let s = q + 0u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 1u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 2u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 3u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 4u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 5u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 6u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 7u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 8u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 9u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 10u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 11u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 12u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 13u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 14u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
				{ let s = q + 15u; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
			}
			for (; q < count; q++) { let s = q; let i = (first + s) * len + c; let d = dy[i]; let m = stats[h + s]; sb += d; sg += d * ((x[i] - m.x) * m.y); }
			dgamma[c] = dgamma[c] + sg;
			dbeta[c] = dbeta[c] + sb;
		}
	}
}
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let item = w.x + w.y * p.row + p.first;
	if (item >= p.end) { return; }
	let blocks = (p.length + p.block - 1u) / p.block;
	if (item < blocks) {
		columns(item, l);
		return;
	}
	let r = (item - blocks) * 64u + l;
	if (r < p.rows) { row_grad(r); }
}
