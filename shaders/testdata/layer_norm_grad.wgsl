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
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> gamma: array<f32>;
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;
@group(0) @binding(4) var<storage, read_write> dgamma: array<f32>;
@group(0) @binding(5) var<storage, read_write> dbeta: array<f32>;
@group(0) @binding(6) var<uniform> p: Params;
var<workgroup> means: array<f32, 64>;
var<workgroup> rstds: array<f32, 64>;
fn row_grad(r: u32) -> vec2<f32> {
	let len = p.length;
	let base = r * len;
	var j: u32;
	var sum = 0.0;
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; sum += x[base + k]; }
		{ let k = j + 1u; sum += x[base + k]; }
		{ let k = j + 2u; sum += x[base + k]; }
		{ let k = j + 3u; sum += x[base + k]; }
		{ let k = j + 4u; sum += x[base + k]; }
		{ let k = j + 5u; sum += x[base + k]; }
		{ let k = j + 6u; sum += x[base + k]; }
		{ let k = j + 7u; sum += x[base + k]; }
	}
	for (; j < len; j++) { let k = j; sum += x[base + k]; }
	let mean = sum / f32(len);
	var sq = 0.0;
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; let d = x[base + k] - mean; sq += d * d; }
		{ let k = j + 1u; let d = x[base + k] - mean; sq += d * d; }
		{ let k = j + 2u; let d = x[base + k] - mean; sq += d * d; }
		{ let k = j + 3u; let d = x[base + k] - mean; sq += d * d; }
		{ let k = j + 4u; let d = x[base + k] - mean; sq += d * d; }
		{ let k = j + 5u; let d = x[base + k] - mean; sq += d * d; }
		{ let k = j + 6u; let d = x[base + k] - mean; sq += d * d; }
		{ let k = j + 7u; let d = x[base + k] - mean; sq += d * d; }
	}
	for (; j < len; j++) { let k = j; let d = x[base + k] - mean; sq += d * d; }
	let rstd = inverseSqrt(sq / f32(len) + p.eps);
	var sg = 0.0;
	var sgx = 0.0;
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; let g = dy[base + k] * gamma[k]; sg += g; sgx += g * ((x[base + k] - mean) * rstd); }
		{ let k = j + 1u; let g = dy[base + k] * gamma[k]; sg += g; sgx += g * ((x[base + k] - mean) * rstd); }
		{ let k = j + 2u; let g = dy[base + k] * gamma[k]; sg += g; sgx += g * ((x[base + k] - mean) * rstd); }
		{ let k = j + 3u; let g = dy[base + k] * gamma[k]; sg += g; sgx += g * ((x[base + k] - mean) * rstd); }
		{ let k = j + 4u; let g = dy[base + k] * gamma[k]; sg += g; sgx += g * ((x[base + k] - mean) * rstd); }
		{ let k = j + 5u; let g = dy[base + k] * gamma[k]; sg += g; sgx += g * ((x[base + k] - mean) * rstd); }
		{ let k = j + 6u; let g = dy[base + k] * gamma[k]; sg += g; sgx += g * ((x[base + k] - mean) * rstd); }
		{ let k = j + 7u; let g = dy[base + k] * gamma[k]; sg += g; sgx += g * ((x[base + k] - mean) * rstd); }
	}
	for (; j < len; j++) { let k = j; let g = dy[base + k] * gamma[k]; sg += g; sgx += g * ((x[base + k] - mean) * rstd); }
	let mg = sg / f32(len);
	let mgx = sgx / f32(len);
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
	return vec2<f32>(mean, rstd);
}
@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let slice = w.x + w.y * p.row + p.first;
	if (slice >= p.end) { return; }
	let len = p.length;
	let first = slice * 64u;
	var stats = vec2<f32>(0.0, 0.0);
	if (first + l < p.rows) { stats = row_grad(first + l); }
	means[l] = stats.x;
	rstds[l] = stats.y;
	workgroupBarrier();
	let count = min(64u, p.rows - first);
	let out = slice * len;
	for (var c = l; c < len; c += 64u) {
		var sg = 0.0;
		var sb = 0.0;
		var q = 0u;
		for (; q + 8u <= count; q += 8u) {
			{ let s = q + 0u; let i = (first + s) * len + c; let d = dy[i]; sb += d; sg += d * ((x[i] - means[s]) * rstds[s]); }
			{ let s = q + 1u; let i = (first + s) * len + c; let d = dy[i]; sb += d; sg += d * ((x[i] - means[s]) * rstds[s]); }
			{ let s = q + 2u; let i = (first + s) * len + c; let d = dy[i]; sb += d; sg += d * ((x[i] - means[s]) * rstds[s]); }
			{ let s = q + 3u; let i = (first + s) * len + c; let d = dy[i]; sb += d; sg += d * ((x[i] - means[s]) * rstds[s]); }
			{ let s = q + 4u; let i = (first + s) * len + c; let d = dy[i]; sb += d; sg += d * ((x[i] - means[s]) * rstds[s]); }
			{ let s = q + 5u; let i = (first + s) * len + c; let d = dy[i]; sb += d; sg += d * ((x[i] - means[s]) * rstds[s]); }
			{ let s = q + 6u; let i = (first + s) * len + c; let d = dy[i]; sb += d; sg += d * ((x[i] - means[s]) * rstds[s]); }
			{ let s = q + 7u; let i = (first + s) * len + c; let d = dy[i]; sb += d; sg += d * ((x[i] - means[s]) * rstds[s]); }
		}
		for (; q < count; q++) { let s = q; let i = (first + s) * len + c; let d = dy[i]; sb += d; sg += d * ((x[i] - means[s]) * rstds[s]); }
		dgamma[out + c] = sg;
		dbeta[out + c] = sb;
	}
}
