struct Params { first: u32, end: u32, row: u32, threads: u32, count: u32, decay: f32, l2: f32, beta1: f32, beta2: f32, eps: f32, step_size: f32, bc2_sqrt: f32 }
@group(0) @binding(0) var<storage, read> grad_: array<f32>;
@group(0) @binding(1) var<storage, read_write> param_: array<f32>;
@group(0) @binding(2) var<storage, read_write> exp_avg: array<f32>;
@group(0) @binding(3) var<storage, read_write> exp_avg_sq: array<f32>;
@group(0) @binding(4) var<storage, read_write> max_exp_avg_sq: array<f32>;
@group(0) @binding(5) var<uniform> u: Params;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let t = u.first + id.x + id.y * u.row;
	if (t >= u.end) { return; }
	for (var k = 0u; k < 4u; k++) {
	let i = t + k * u.threads;
	if (i >= u.count) { return; }
	var g = grad_[i];
	var p = param_[i];
	if (u.decay != 1.0f) { p = p * u.decay; }
	if (u.l2 != 0.0f) { g = g + u.l2 * p; }
	let m = exp_avg[i] + (1.0f - u.beta1) * (g - exp_avg[i]);
	var v = u.beta2 * exp_avg_sq[i] + (1.0f - u.beta2) * g * g;
	exp_avg[i] = m;
	exp_avg_sq[i] = v;
	v = max(max_exp_avg_sq[i], v);
	max_exp_avg_sq[i] = v;
	p = p - u.step_size * (m / (sqrt(v) / u.bc2_sqrt + u.eps));
	param_[i] = p;
	}
}
