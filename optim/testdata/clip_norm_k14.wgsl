struct Params { first: u32, end: u32, row: u32, threads: u32, base: u32, n0: u32, n1: u32, n2: u32, n3: u32, n4: u32, n5: u32, n6: u32, n7: u32, n8: u32, n9: u32, n10: u32, n11: u32, n12: u32, n13: u32, s1: u32, s2: u32, s3: u32, s4: u32, s5: u32, s6: u32, s7: u32, s8: u32, s9: u32, s10: u32, s11: u32, s12: u32, s13: u32 }
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
@group(0) @binding(14) var<storage, read_write> sums: array<f32>;
@group(0) @binding(15) var<storage, read_write> bits: array<u32>;
@group(0) @binding(16) var<uniform> u: Params;
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
		default: { return g13[i]; }
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
