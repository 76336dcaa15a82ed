struct Params {
	first: u32,
	end: u32,
	row: u32,
	length: u32,
	eps: f32,
}
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> gamma: array<f32>;
@group(0) @binding(2) var<storage, read> beta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<uniform> p: Params;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let r = g.x + g.y * p.row + p.first;
	if (r >= p.end) { return; }
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
	j = 0u;
	for (; j + 8u <= len; j += 8u) {
		{ let k = j + 0u; y[base + k] = (x[base + k] - mean) * rstd * gamma[k] + beta[k]; }
		{ let k = j + 1u; y[base + k] = (x[base + k] - mean) * rstd * gamma[k] + beta[k]; }
		{ let k = j + 2u; y[base + k] = (x[base + k] - mean) * rstd * gamma[k] + beta[k]; }
		{ let k = j + 3u; y[base + k] = (x[base + k] - mean) * rstd * gamma[k] + beta[k]; }
		{ let k = j + 4u; y[base + k] = (x[base + k] - mean) * rstd * gamma[k] + beta[k]; }
		{ let k = j + 5u; y[base + k] = (x[base + k] - mean) * rstd * gamma[k] + beta[k]; }
		{ let k = j + 6u; y[base + k] = (x[base + k] - mean) * rstd * gamma[k] + beta[k]; }
		{ let k = j + 7u; y[base + k] = (x[base + k] - mean) * rstd * gamma[k] + beta[k]; }
	}
	for (; j < len; j++) { let k = j; y[base + k] = (x[base + k] - mean) * rstd * gamma[k] + beta[k]; }
}
