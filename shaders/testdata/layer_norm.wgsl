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
	let n = p.length;
	let base = r * n;
	var sum = 0.0;
	var j = 0u;
	for (; j + 8u <= n; j += 8u) {
		sum += x[base + j + 0u];
		sum += x[base + j + 1u];
		sum += x[base + j + 2u];
		sum += x[base + j + 3u];
		sum += x[base + j + 4u];
		sum += x[base + j + 5u];
		sum += x[base + j + 6u];
		sum += x[base + j + 7u];
	}
	for (; j < n; j++) { sum += x[base + j]; }
	let mean = sum / f32(n);
	var sq = 0.0;
	j = 0u;
	for (; j + 8u <= n; j += 8u) {
		let d0 = x[base + j + 0u] - mean;
		sq += d0 * d0;
		let d1 = x[base + j + 1u] - mean;
		sq += d1 * d1;
		let d2 = x[base + j + 2u] - mean;
		sq += d2 * d2;
		let d3 = x[base + j + 3u] - mean;
		sq += d3 * d3;
		let d4 = x[base + j + 4u] - mean;
		sq += d4 * d4;
		let d5 = x[base + j + 5u] - mean;
		sq += d5 * d5;
		let d6 = x[base + j + 6u] - mean;
		sq += d6 * d6;
		let d7 = x[base + j + 7u] - mean;
		sq += d7 * d7;
	}
	for (; j < n; j++) {
		let d = x[base + j] - mean;
		sq += d * d;
	}
	let rstd = inverseSqrt(sq / f32(n) + p.eps);
	j = 0u;
	for (; j + 8u <= n; j += 8u) {
		y[base + j + 0u] = (x[base + j + 0u] - mean) * rstd * gamma[j + 0u] + beta[j + 0u];
		y[base + j + 1u] = (x[base + j + 1u] - mean) * rstd * gamma[j + 1u] + beta[j + 1u];
		y[base + j + 2u] = (x[base + j + 2u] - mean) * rstd * gamma[j + 2u] + beta[j + 2u];
		y[base + j + 3u] = (x[base + j + 3u] - mean) * rstd * gamma[j + 3u] + beta[j + 3u];
		y[base + j + 4u] = (x[base + j + 4u] - mean) * rstd * gamma[j + 4u] + beta[j + 4u];
		y[base + j + 5u] = (x[base + j + 5u] - mean) * rstd * gamma[j + 5u] + beta[j + 5u];
		y[base + j + 6u] = (x[base + j + 6u] - mean) * rstd * gamma[j + 6u] + beta[j + 6u];
		y[base + j + 7u] = (x[base + j + 7u] - mean) * rstd * gamma[j + 7u] + beta[j + 7u];
	}
	for (; j < n; j++) {
		y[base + j] = (x[base + j] - mean) * rstd * gamma[j] + beta[j];
	}
}
