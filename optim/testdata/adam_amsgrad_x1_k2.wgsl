struct Params { first: u32, end: u32, row: u32, threads: u32, trips: u32, info: array<vec4<u32>, 1>, hp: array<vec4<f32>, 4> }
struct Hyper { decay: f32, l2: f32, beta1: f32, beta2: f32, eps: f32, step_size: f32, bc2_sqrt: f32 }
@group(0) @binding(0) var<storage, read> grad_0: array<f32>;
@group(0) @binding(1) var<storage, read> grad_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> param_0: array<f32>;
@group(0) @binding(3) var<storage, read_write> exp_avg_0: array<f32>;
@group(0) @binding(4) var<storage, read_write> exp_avg_sq_0: array<f32>;
@group(0) @binding(5) var<storage, read_write> max_exp_avg_sq_0: array<f32>;
@group(0) @binding(6) var<storage, read_write> param_1: array<f32>;
@group(0) @binding(7) var<storage, read_write> exp_avg_1: array<f32>;
@group(0) @binding(8) var<storage, read_write> exp_avg_sq_1: array<f32>;
@group(0) @binding(9) var<storage, read_write> max_exp_avg_sq_1: array<f32>;
@group(0) @binding(10) var<uniform> u: Params;
fn update_0(t: u32) {
	let h = Hyper(u.hp[0][0], u.hp[0][1], u.hp[0][2], u.hp[0][3], u.hp[1][0], u.hp[1][1], u.hp[1][2]);
	let n = u.info[0][0];
	for (var k = 0u; k < u.trips; k++) {
	let i = t + k * u.threads;
	if (i >= n) { break; }
	var g = grad_0[i];
	var p = param_0[i];
	if (h.decay != 1.0f) { p = p * h.decay; }
	if (h.l2 != 0.0f) { g = g + h.l2 * p; }
	let m = exp_avg_0[i] + (1.0f - h.beta1) * (g - exp_avg_0[i]);
	var v = h.beta2 * exp_avg_sq_0[i] + (1.0f - h.beta2) * g * g;
	exp_avg_0[i] = m;
	exp_avg_sq_0[i] = v;
	v = max(max_exp_avg_sq_0[i], v);
	max_exp_avg_sq_0[i] = v;
	p = p - h.step_size * (m / (sqrt(v) / h.bc2_sqrt + h.eps));
	param_0[i] = p;
	}
}
fn update_1(t: u32) {
	let h = Hyper(u.hp[2][0], u.hp[2][1], u.hp[2][2], u.hp[2][3], u.hp[3][0], u.hp[3][1], u.hp[3][2]);
	let n = u.info[0][1];
	for (var k = 0u; k < u.trips; k++) {
	let i = t + k * u.threads;
	if (i >= n) { break; }
	var g = grad_1[i];
	var p = param_1[i];
	if (h.decay != 1.0f) { p = p * h.decay; }
	if (h.l2 != 0.0f) { g = g + h.l2 * p; }
	let m = exp_avg_1[i] + (1.0f - h.beta1) * (g - exp_avg_1[i]);
	var v = h.beta2 * exp_avg_sq_1[i] + (1.0f - h.beta2) * g * g;
	exp_avg_1[i] = m;
	exp_avg_sq_1[i] = v;
	v = max(max_exp_avg_sq_1[i], v);
	max_exp_avg_sq_1[i] = v;
	p = p - h.step_size * (m / (sqrt(v) / h.bc2_sqrt + h.eps));
	param_1[i] = p;
	}
}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let t = u.first + id.x + id.y * u.row;
	if (t >= u.end) { return; }
	update_0(t);
	update_1(t);
}
