struct Params { first: u32, end: u32, row: u32, threads: u32, n0: u32 }
@group(0) @binding(0) var<storage, read> scale: array<f32>;
@group(0) @binding(1) var<storage, read_write> g0: array<f32>;
@group(0) @binding(2) var<uniform> u: Params;
fn mul(j: u32, i: u32, f: f32) {
	switch j {
		default: { g0[i] = g0[i] * f; }
	}
}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let t = u.first + id.x + id.y * u.row;
	if (t >= u.end) { return; }
	let f = scale[0];
	if (f == 1.0f) { return; }
	let w = t / 256u;
	var j = 0u;
	var s = 0u;
	var n = u.n0;
	let e0 = (w - s) * 4096u + t % 256u;
	for (var q = 0u; q < 16u; q++) {
		let i = e0 + q * 256u;
		if (i < n) { mul(j, i, f); }
	}
}
