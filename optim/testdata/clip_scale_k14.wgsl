struct Params { first: u32, end: u32, row: u32, threads: u32, n0: u32, n1: u32, n2: u32, n3: u32, n4: u32, n5: u32, n6: u32, n7: u32, n8: u32, n9: u32, n10: u32, n11: u32, n12: u32, n13: u32, s1: u32, s2: u32, s3: u32, s4: u32, s5: u32, s6: u32, s7: u32, s8: u32, s9: u32, s10: u32, s11: u32, s12: u32, s13: u32 }
@group(0) @binding(0) var<storage, read> scale: array<f32>;
@group(0) @binding(1) var<storage, read_write> g0: array<f32>;
@group(0) @binding(2) var<storage, read_write> g1: array<f32>;
@group(0) @binding(3) var<storage, read_write> g2: array<f32>;
@group(0) @binding(4) var<storage, read_write> g3: array<f32>;
@group(0) @binding(5) var<storage, read_write> g4: array<f32>;
@group(0) @binding(6) var<storage, read_write> g5: array<f32>;
@group(0) @binding(7) var<storage, read_write> g6: array<f32>;
@group(0) @binding(8) var<storage, read_write> g7: array<f32>;
@group(0) @binding(9) var<storage, read_write> g8: array<f32>;
@group(0) @binding(10) var<storage, read_write> g9: array<f32>;
@group(0) @binding(11) var<storage, read_write> g10: array<f32>;
@group(0) @binding(12) var<storage, read_write> g11: array<f32>;
@group(0) @binding(13) var<storage, read_write> g12: array<f32>;
@group(0) @binding(14) var<storage, read_write> g13: array<f32>;
@group(0) @binding(15) var<uniform> u: Params;
fn mul(j: u32, i: u32, f: f32) {
	switch j {
		case 0u: { g0[i] = g0[i] * f; }
		case 1u: { g1[i] = g1[i] * f; }
		case 2u: { g2[i] = g2[i] * f; }
		case 3u: { g3[i] = g3[i] * f; }
		case 4u: { g4[i] = g4[i] * f; }
		case 5u: { g5[i] = g5[i] * f; }
		case 6u: { g6[i] = g6[i] * f; }
		case 7u: { g7[i] = g7[i] * f; }
		case 8u: { g8[i] = g8[i] * f; }
		case 9u: { g9[i] = g9[i] * f; }
		case 10u: { g10[i] = g10[i] * f; }
		case 11u: { g11[i] = g11[i] * f; }
		case 12u: { g12[i] = g12[i] * f; }
		default: { g13[i] = g13[i] * f; }
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
	if (w >= u.s1) { j = 1u; s = u.s1; n = u.n1; }
	if (w >= u.s2) { j = 2u; s = u.s2; n = u.n2; }
	if (w >= u.s3) { j = 3u; s = u.s3; n = u.n3; }
	if (w >= u.s4) { j = 4u; s = u.s4; n = u.n4; }
	if (w >= u.s5) { j = 5u; s = u.s5; n = u.n5; }
	if (w >= u.s6) { j = 6u; s = u.s6; n = u.n6; }
	if (w >= u.s7) { j = 7u; s = u.s7; n = u.n7; }
	if (w >= u.s8) { j = 8u; s = u.s8; n = u.n8; }
	if (w >= u.s9) { j = 9u; s = u.s9; n = u.n9; }
	if (w >= u.s10) { j = 10u; s = u.s10; n = u.n10; }
	if (w >= u.s11) { j = 11u; s = u.s11; n = u.n11; }
	if (w >= u.s12) { j = 12u; s = u.s12; n = u.n12; }
	if (w >= u.s13) { j = 13u; s = u.s13; n = u.n13; }
	let e0 = (w - s) * 4096u + t % 256u;
	for (var q = 0u; q < 16u; q++) {
		let i = e0 + q * 256u;
		if (i < n) { mul(j, i, f); }
	}
}
