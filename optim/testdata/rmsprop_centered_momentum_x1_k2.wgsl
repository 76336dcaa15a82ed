struct Params { first: u32, end: u32, row: u32, threads: u32, trips: u32, info: array<vec4<u32>, 1>, hp: array<vec4<f32>, 4> }
struct Hyper { lr: f32, alpha: f32, eps: f32, wd: f32, momentum: f32 }
@group(0) @binding(0) var<storage, read> grad_0: array<f32>;
@group(0) @binding(1) var<storage, read> grad_1: array<f32>;
@group(0) @binding(2) var<storage, read_write> param_0: array<f32>;
@group(0) @binding(3) var<storage, read_write> square_avg_0: array<f32>;
@group(0) @binding(4) var<storage, read_write> grad_avg_0: array<f32>;
@group(0) @binding(5) var<storage, read_write> momentum_buffer_0: array<f32>;
@group(0) @binding(6) var<storage, read_write> param_1: array<f32>;
@group(0) @binding(7) var<storage, read_write> square_avg_1: array<f32>;
@group(0) @binding(8) var<storage, read_write> grad_avg_1: array<f32>;
@group(0) @binding(9) var<storage, read_write> momentum_buffer_1: array<f32>;
@group(0) @binding(10) var<uniform> u: Params;
fn update_0(t: u32) {
	let h = Hyper(u.hp[0][0], u.hp[0][1], u.hp[0][2], u.hp[0][3], u.hp[1][0]);
	let n = u.info[0][0];
	for (var k = 0u; k < u.trips; k++) {
	let i = t + k * u.threads;
	if (i >= n) { break; }
	var g = grad_0[i];
	var p = param_0[i];
	if (h.wd != 0.0f) { g = g + h.wd * p; }
	let s = h.alpha * square_avg_0[i] + (1.0f - h.alpha) * g * g;
	square_avg_0[i] = s;
	let ga = grad_avg_0[i] + (1.0f - h.alpha) * (g - grad_avg_0[i]);
	grad_avg_0[i] = ga;
	let avg = sqrt(s - ga * ga) + h.eps;
	let b = h.momentum * momentum_buffer_0[i] + g / avg;
	momentum_buffer_0[i] = b;
	p = p - h.lr * b;
	param_0[i] = p;
	}
}
fn update_1(t: u32) {
	let h = Hyper(u.hp[2][0], u.hp[2][1], u.hp[2][2], u.hp[2][3], u.hp[3][0]);
	let n = u.info[0][1];
	for (var k = 0u; k < u.trips; k++) {
	let i = t + k * u.threads;
	if (i >= n) { break; }
	var g = grad_1[i];
	var p = param_1[i];
	if (h.wd != 0.0f) { g = g + h.wd * p; }
	let s = h.alpha * square_avg_1[i] + (1.0f - h.alpha) * g * g;
	square_avg_1[i] = s;
	let ga = grad_avg_1[i] + (1.0f - h.alpha) * (g - grad_avg_1[i]);
	grad_avg_1[i] = ga;
	let avg = sqrt(s - ga * ga) + h.eps;
	let b = h.momentum * momentum_buffer_1[i] + g / avg;
	momentum_buffer_1[i] = b;
	p = p - h.lr * b;
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
