struct Params { first: u32, end: u32, row: u32, threads: u32, n0: u32, n1: u32, n2: u32, n3: u32, n4: u32, n5: u32, n6: u32, n7: u32, n8: u32, n9: u32, n10: u32, n11: u32, n12: u32, n13: u32, n14: u32, n15: u32, n16: u32, n17: u32, n18: u32, n19: u32, n20: u32, n21: u32, n22: u32, n23: u32, n24: u32, n25: u32, n26: u32, n27: u32, n28: u32, n29: u32, s1: u32, s2: u32, s3: u32, s4: u32, s5: u32, s6: u32, s7: u32, s8: u32, s9: u32, s10: u32, s11: u32, s12: u32, s13: u32, s14: u32, s15: u32, s16: u32, s17: u32, s18: u32, s19: u32, s20: u32, s21: u32, s22: u32, s23: u32, s24: u32, s25: u32, s26: u32, s27: u32, s28: u32, s29: u32 }
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
@group(0) @binding(15) var<storage, read_write> g14: array<f32>;
@group(0) @binding(16) var<storage, read_write> g15: array<f32>;
@group(0) @binding(17) var<storage, read_write> g16: array<f32>;
@group(0) @binding(18) var<storage, read_write> g17: array<f32>;
@group(0) @binding(19) var<storage, read_write> g18: array<f32>;
@group(0) @binding(20) var<storage, read_write> g19: array<f32>;
@group(0) @binding(21) var<storage, read_write> g20: array<f32>;
@group(0) @binding(22) var<storage, read_write> g21: array<f32>;
@group(0) @binding(23) var<storage, read_write> g22: array<f32>;
@group(0) @binding(24) var<storage, read_write> g23: array<f32>;
@group(0) @binding(25) var<storage, read_write> g24: array<f32>;
@group(0) @binding(26) var<storage, read_write> g25: array<f32>;
@group(0) @binding(27) var<storage, read_write> g26: array<f32>;
@group(0) @binding(28) var<storage, read_write> g27: array<f32>;
@group(0) @binding(29) var<storage, read_write> g28: array<f32>;
@group(0) @binding(30) var<storage, read_write> g29: array<f32>;
@group(0) @binding(31) var<uniform> u: Params;
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
		case 13u: { g13[i] = g13[i] * f; }
		case 14u: { g14[i] = g14[i] * f; }
		case 15u: { g15[i] = g15[i] * f; }
		case 16u: { g16[i] = g16[i] * f; }
		case 17u: { g17[i] = g17[i] * f; }
		case 18u: { g18[i] = g18[i] * f; }
		case 19u: { g19[i] = g19[i] * f; }
		case 20u: { g20[i] = g20[i] * f; }
		case 21u: { g21[i] = g21[i] * f; }
		case 22u: { g22[i] = g22[i] * f; }
		case 23u: { g23[i] = g23[i] * f; }
		case 24u: { g24[i] = g24[i] * f; }
		case 25u: { g25[i] = g25[i] * f; }
		case 26u: { g26[i] = g26[i] * f; }
		case 27u: { g27[i] = g27[i] * f; }
		case 28u: { g28[i] = g28[i] * f; }
		default: { g29[i] = g29[i] * f; }
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
	if (w >= u.s14) { j = 14u; s = u.s14; n = u.n14; }
	if (w >= u.s15) { j = 15u; s = u.s15; n = u.n15; }
	if (w >= u.s16) { j = 16u; s = u.s16; n = u.n16; }
	if (w >= u.s17) { j = 17u; s = u.s17; n = u.n17; }
	if (w >= u.s18) { j = 18u; s = u.s18; n = u.n18; }
	if (w >= u.s19) { j = 19u; s = u.s19; n = u.n19; }
	if (w >= u.s20) { j = 20u; s = u.s20; n = u.n20; }
	if (w >= u.s21) { j = 21u; s = u.s21; n = u.n21; }
	if (w >= u.s22) { j = 22u; s = u.s22; n = u.n22; }
	if (w >= u.s23) { j = 23u; s = u.s23; n = u.n23; }
	if (w >= u.s24) { j = 24u; s = u.s24; n = u.n24; }
	if (w >= u.s25) { j = 25u; s = u.s25; n = u.n25; }
	if (w >= u.s26) { j = 26u; s = u.s26; n = u.n26; }
	if (w >= u.s27) { j = 27u; s = u.s27; n = u.n27; }
	if (w >= u.s28) { j = 28u; s = u.s28; n = u.n28; }
	if (w >= u.s29) { j = 29u; s = u.s29; n = u.n29; }
	let e0 = (w - s) * 4096u + t % 256u;
	for (var q = 0u; q < 16u; q++) {
		let i = e0 + q * 256u;
		if (i < n) { mul(j, i, f); }
	}
}
