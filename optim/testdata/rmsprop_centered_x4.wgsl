struct Params { first: u32, end: u32, row: u32, threads: u32, count: u32, lr: f32, alpha: f32, eps: f32, wd: f32, momentum: f32 }
@group(0) @binding(0) var<storage, read> grad_: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> param_: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> square_avg: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> grad_avg: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> u: Params;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let t = u.first + id.x + id.y * u.row;
	if (t >= u.end) { return; }
	for (var k = 0u; k < 4u; k++) {
	let i = t + k * u.threads;
	if (i >= u.count) { return; }
	var g = grad_[i];
	var p = param_[i];
	if (u.wd != 0.0f) { g = g + u.wd * p; }
	let s = u.alpha * square_avg[i] + (1.0f - u.alpha) * g * g;
	square_avg[i] = s;
	let ga = grad_avg[i] + (1.0f - u.alpha) * (g - grad_avg[i]);
	grad_avg[i] = ga;
	let avg = sqrt(s - ga * ga) + u.eps;
	p = p - u.lr * (g / avg);
	param_[i] = p;
	}
}
