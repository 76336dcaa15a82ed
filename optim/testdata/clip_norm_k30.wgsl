struct Params { first: u32, end: u32, row: u32, threads: u32, base: u32, n0: u32, n1: u32, n2: u32, n3: u32, n4: u32, n5: u32, n6: u32, n7: u32, n8: u32, n9: u32, n10: u32, n11: u32, n12: u32, n13: u32, n14: u32, n15: u32, n16: u32, n17: u32, n18: u32, n19: u32, n20: u32, n21: u32, n22: u32, n23: u32, n24: u32, n25: u32, n26: u32, n27: u32, n28: u32, n29: u32, s1: u32, s2: u32, s3: u32, s4: u32, s5: u32, s6: u32, s7: u32, s8: u32, s9: u32, s10: u32, s11: u32, s12: u32, s13: u32, s14: u32, s15: u32, s16: u32, s17: u32, s18: u32, s19: u32, s20: u32, s21: u32, s22: u32, s23: u32, s24: u32, s25: u32, s26: u32, s27: u32, s28: u32, s29: u32 }
@group(0) @binding(0) var<storage, read> g0: array<f32>;
@group(0) @binding(1) var<storage, read> g1: array<f32>;
@group(0) @binding(2) var<storage, read> g2: array<f32>;
@group(0) @binding(3) var<storage, read> g3: array<f32>;
@group(0) @binding(4) var<storage, read> g4: array<f32>;
@group(0) @binding(5) var<storage, read> g5: array<f32>;
@group(0) @binding(6) var<storage, read> g6: array<f32>;
@group(0) @binding(7) var<storage, read> g7: array<f32>;
@group(0) @binding(8) var<storage, read> g8: array<f32>;
@group(0) @binding(9) var<storage, read> g9: array<f32>;
@group(0) @binding(10) var<storage, read> g10: array<f32>;
@group(0) @binding(11) var<storage, read> g11: array<f32>;
@group(0) @binding(12) var<storage, read> g12: array<f32>;
@group(0) @binding(13) var<storage, read> g13: array<f32>;
@group(0) @binding(14) var<storage, read> g14: array<f32>;
@group(0) @binding(15) var<storage, read> g15: array<f32>;
@group(0) @binding(16) var<storage, read> g16: array<f32>;
@group(0) @binding(17) var<storage, read> g17: array<f32>;
@group(0) @binding(18) var<storage, read> g18: array<f32>;
@group(0) @binding(19) var<storage, read> g19: array<f32>;
@group(0) @binding(20) var<storage, read> g20: array<f32>;
@group(0) @binding(21) var<storage, read> g21: array<f32>;
@group(0) @binding(22) var<storage, read> g22: array<f32>;
@group(0) @binding(23) var<storage, read> g23: array<f32>;
@group(0) @binding(24) var<storage, read> g24: array<f32>;
@group(0) @binding(25) var<storage, read> g25: array<f32>;
@group(0) @binding(26) var<storage, read> g26: array<f32>;
@group(0) @binding(27) var<storage, read> g27: array<f32>;
@group(0) @binding(28) var<storage, read> g28: array<f32>;
@group(0) @binding(29) var<storage, read> g29: array<f32>;
@group(0) @binding(30) var<storage, read_write> sums: array<f32>;
@group(0) @binding(31) var<storage, read_write> bits: array<u32>;
@group(0) @binding(32) var<uniform> u: Params;
var<workgroup> ws: array<f32, 256>;
var<workgroup> wb: array<u32, 256>;
fn load(j: u32, i: u32) -> f32 {
	switch j {
		case 0u: { return g0[i]; }
		case 1u: { return g1[i]; }
		case 2u: { return g2[i]; }
		case 3u: { return g3[i]; }
		case 4u: { return g4[i]; }
		case 5u: { return g5[i]; }
		case 6u: { return g6[i]; }
		case 7u: { return g7[i]; }
		case 8u: { return g8[i]; }
		case 9u: { return g9[i]; }
		case 10u: { return g10[i]; }
		case 11u: { return g11[i]; }
		case 12u: { return g12[i]; }
		case 13u: { return g13[i]; }
		case 14u: { return g14[i]; }
		case 15u: { return g15[i]; }
		case 16u: { return g16[i]; }
		case 17u: { return g17[i]; }
		case 18u: { return g18[i]; }
		case 19u: { return g19[i]; }
		case 20u: { return g20[i]; }
		case 21u: { return g21[i]; }
		case 22u: { return g22[i]; }
		case 23u: { return g23[i]; }
		case 24u: { return g24[i]; }
		case 25u: { return g25[i]; }
		case 26u: { return g26[i]; }
		case 27u: { return g27[i]; }
		case 28u: { return g28[i]; }
		default: { return g29[i]; }
	}
}
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) l: u32) {
	let t = u.first + id.x + id.y * u.row;
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
	var sum = 0.0f;
	var mb = 0u;
	if (t < u.end) {
		let e0 = (w - s) * 4096u + l;
		for (var q = 0u; q < 16u; q++) {
			let i = e0 + q * 256u;
			if (i < n) {
				let v = load(j, i);
				sum = sum + v * v;
				mb = max(mb, bitcast<u32>(v) & 0x7fffffffu);
			}
		}
	}
	ws[l] = sum;
	wb[l] = mb;
	workgroupBarrier();
	for (var st = 128u; st > 0u; st = st >> 1u) {
		if (l < st) {
			ws[l] = ws[l] + ws[l + st];
			wb[l] = max(wb[l], wb[l + st]);
		}
		workgroupBarrier();
	}
	if (l == 0u && t < u.end) {
		sums[u.base + w] = ws[0];
		bits[u.base + w] = wb[0];
	}
}
