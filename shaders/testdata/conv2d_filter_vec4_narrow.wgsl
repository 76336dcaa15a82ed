
struct Params {
	in_h: u32,
	in_w: u32,
	in_c: u32,
	out_h: u32,
	out_w: u32,
	out_c: u32,
	kernel_w: u32,
	stride_h: u32,
	stride_w: u32,
	dilation_h: u32,
	dilation_w: u32,
	pad_top: u32,
	pad_left: u32,
	group_in: u32,
	group_out: u32,
	m: u32,
	n: u32,
	k: u32,
	first_col: u32,
	first_row: u32,
	first_group: u32,
	k_first: u32,
	k_end: u32,
	groups: u32,
	k_slice: u32,
	slice_size: u32,
}
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> bm: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> c: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> p: Params;
fn la(i: u32) -> vec4<f32> { return a[i]; }
fn lbm(i: u32) -> vec4<f32> { return bm[i]; }
@compute @workgroup_size(16)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let lx = li % 2u; let ly = li / 2u;
	let M = p.m; let N4 = p.n / 4u;
	let z = w.z + p.first_group;
	let g = z % p.groups;
	let slice = z / p.groups;
	let k_first = p.k_first + slice * p.k_slice;
	let k_end = min(p.k_end + slice * p.k_slice, p.k);
	let out0 = slice * (p.slice_size / 4u);
	let row0 = ((w.y + p.first_row) * 8u + ly) * 16u;
	let cb0 = ((w.x + p.first_col) * 2u + lx) * 2u;
	let C4 = p.in_c / 4u; let O4 = p.out_c / 4u;
	let cs = O4;
	let bc0 = g * N4 + min(cb0 + 0u, N4 - 1u);
	let bc1 = g * N4 + min(cb0 + 1u, N4 - 1u);
	var s0_0 = vec4<f32>(0.0);
	var s0_1 = vec4<f32>(0.0);
	var s1_0 = vec4<f32>(0.0);
	var s1_1 = vec4<f32>(0.0);
	var s2_0 = vec4<f32>(0.0);
	var s2_1 = vec4<f32>(0.0);
	var s3_0 = vec4<f32>(0.0);
	var s3_1 = vec4<f32>(0.0);
	var s4_0 = vec4<f32>(0.0);
	var s4_1 = vec4<f32>(0.0);
	var s5_0 = vec4<f32>(0.0);
	var s5_1 = vec4<f32>(0.0);
	var s6_0 = vec4<f32>(0.0);
	var s6_1 = vec4<f32>(0.0);
	var s7_0 = vec4<f32>(0.0);
	var s7_1 = vec4<f32>(0.0);
	var s8_0 = vec4<f32>(0.0);
	var s8_1 = vec4<f32>(0.0);
	var s9_0 = vec4<f32>(0.0);
	var s9_1 = vec4<f32>(0.0);
	var s10_0 = vec4<f32>(0.0);
	var s10_1 = vec4<f32>(0.0);
	var s11_0 = vec4<f32>(0.0);
	var s11_1 = vec4<f32>(0.0);
	var s12_0 = vec4<f32>(0.0);
	var s12_1 = vec4<f32>(0.0);
	var s13_0 = vec4<f32>(0.0);
	var s13_1 = vec4<f32>(0.0);
	var s14_0 = vec4<f32>(0.0);
	var s14_1 = vec4<f32>(0.0);
	var s15_0 = vec4<f32>(0.0);
	var s15_1 = vec4<f32>(0.0);
	if (p.k_first > 0u) {
		if (row0 + 0u < M && cb0 + 0u < N4) { s0_0 = c[out0 + (row0 + 0u) * cs + bc0]; }
		if (row0 + 0u < M && cb0 + 1u < N4) { s0_1 = c[out0 + (row0 + 0u) * cs + bc1]; }
		if (row0 + 1u < M && cb0 + 0u < N4) { s1_0 = c[out0 + (row0 + 1u) * cs + bc0]; }
		if (row0 + 1u < M && cb0 + 1u < N4) { s1_1 = c[out0 + (row0 + 1u) * cs + bc1]; }
		if (row0 + 2u < M && cb0 + 0u < N4) { s2_0 = c[out0 + (row0 + 2u) * cs + bc0]; }
		if (row0 + 2u < M && cb0 + 1u < N4) { s2_1 = c[out0 + (row0 + 2u) * cs + bc1]; }
		if (row0 + 3u < M && cb0 + 0u < N4) { s3_0 = c[out0 + (row0 + 3u) * cs + bc0]; }
		if (row0 + 3u < M && cb0 + 1u < N4) { s3_1 = c[out0 + (row0 + 3u) * cs + bc1]; }
		if (row0 + 4u < M && cb0 + 0u < N4) { s4_0 = c[out0 + (row0 + 4u) * cs + bc0]; }
		if (row0 + 4u < M && cb0 + 1u < N4) { s4_1 = c[out0 + (row0 + 4u) * cs + bc1]; }
		if (row0 + 5u < M && cb0 + 0u < N4) { s5_0 = c[out0 + (row0 + 5u) * cs + bc0]; }
		if (row0 + 5u < M && cb0 + 1u < N4) { s5_1 = c[out0 + (row0 + 5u) * cs + bc1]; }
		if (row0 + 6u < M && cb0 + 0u < N4) { s6_0 = c[out0 + (row0 + 6u) * cs + bc0]; }
		if (row0 + 6u < M && cb0 + 1u < N4) { s6_1 = c[out0 + (row0 + 6u) * cs + bc1]; }
		if (row0 + 7u < M && cb0 + 0u < N4) { s7_0 = c[out0 + (row0 + 7u) * cs + bc0]; }
		if (row0 + 7u < M && cb0 + 1u < N4) { s7_1 = c[out0 + (row0 + 7u) * cs + bc1]; }
		if (row0 + 8u < M && cb0 + 0u < N4) { s8_0 = c[out0 + (row0 + 8u) * cs + bc0]; }
		if (row0 + 8u < M && cb0 + 1u < N4) { s8_1 = c[out0 + (row0 + 8u) * cs + bc1]; }
		if (row0 + 9u < M && cb0 + 0u < N4) { s9_0 = c[out0 + (row0 + 9u) * cs + bc0]; }
		if (row0 + 9u < M && cb0 + 1u < N4) { s9_1 = c[out0 + (row0 + 9u) * cs + bc1]; }
		if (row0 + 10u < M && cb0 + 0u < N4) { s10_0 = c[out0 + (row0 + 10u) * cs + bc0]; }
		if (row0 + 10u < M && cb0 + 1u < N4) { s10_1 = c[out0 + (row0 + 10u) * cs + bc1]; }
		if (row0 + 11u < M && cb0 + 0u < N4) { s11_0 = c[out0 + (row0 + 11u) * cs + bc0]; }
		if (row0 + 11u < M && cb0 + 1u < N4) { s11_1 = c[out0 + (row0 + 11u) * cs + bc1]; }
		if (row0 + 12u < M && cb0 + 0u < N4) { s12_0 = c[out0 + (row0 + 12u) * cs + bc0]; }
		if (row0 + 12u < M && cb0 + 1u < N4) { s12_1 = c[out0 + (row0 + 12u) * cs + bc1]; }
		if (row0 + 13u < M && cb0 + 0u < N4) { s13_0 = c[out0 + (row0 + 13u) * cs + bc0]; }
		if (row0 + 13u < M && cb0 + 1u < N4) { s13_1 = c[out0 + (row0 + 13u) * cs + bc1]; }
		if (row0 + 14u < M && cb0 + 0u < N4) { s14_0 = c[out0 + (row0 + 14u) * cs + bc0]; }
		if (row0 + 14u < M && cb0 + 1u < N4) { s14_1 = c[out0 + (row0 + 14u) * cs + bc1]; }
		if (row0 + 15u < M && cb0 + 0u < N4) { s15_0 = c[out0 + (row0 + 15u) * cs + bc0]; }
		if (row0 + 15u < M && cb0 + 1u < N4) { s15_1 = c[out0 + (row0 + 15u) * cs + bc1]; }
	}
	let m0 = min(row0, M - 4u);
	var tci = m0 % p.group_in;
	var tkx = m0 / p.group_in % p.kernel_w;
	var tky = m0 / p.group_in / p.kernel_w;
	let tc0 = tci; let tx0 = tkx; let ty0 = tky;
	let st1 = row0 + 1u * 4u < M;
	tci += select(0u, 4u, st1);
	let wc1 = tci == p.group_in;
	tci = select(tci, 0u, wc1);
	tkx += select(0u, 1u, wc1);
	let wx1 = tkx == p.kernel_w;
	tkx = select(tkx, 0u, wx1);
	tky += select(0u, 1u, wx1);
	let tc1 = tci; let tx1 = tkx; let ty1 = tky;
	let st2 = row0 + 2u * 4u < M;
	tci += select(0u, 4u, st2);
	let wc2 = tci == p.group_in;
	tci = select(tci, 0u, wc2);
	tkx += select(0u, 1u, wc2);
	let wx2 = tkx == p.kernel_w;
	tkx = select(tkx, 0u, wx2);
	tky += select(0u, 1u, wx2);
	let tc2 = tci; let tx2 = tkx; let ty2 = tky;
	let st3 = row0 + 3u * 4u < M;
	tci += select(0u, 4u, st3);
	let wc3 = tci == p.group_in;
	tci = select(tci, 0u, wc3);
	tkx += select(0u, 1u, wc3);
	let wx3 = tkx == p.kernel_w;
	tkx = select(tkx, 0u, wx3);
	tky += select(0u, 1u, wx3);
	let tc3 = tci; let tx3 = tkx; let ty3 = tky;
	let ry0 = ty0 * p.dilation_h - p.pad_top;
	let rx0 = tx0 * p.dilation_w - p.pad_left;
	let rc0 = (g * p.group_in + tc0) / 4u;
	let ry1 = ty1 * p.dilation_h - p.pad_top;
	let rx1 = tx1 * p.dilation_w - p.pad_left;
	let rc1 = (g * p.group_in + tc1) / 4u;
	let ry2 = ty2 * p.dilation_h - p.pad_top;
	let rx2 = tx2 * p.dilation_w - p.pad_left;
	let rc2 = (g * p.group_in + tc2) / 4u;
	let ry3 = ty3 * p.dilation_h - p.pad_top;
	let rx3 = tx3 * p.dilation_w - p.pad_left;
	let rc3 = (g * p.group_in + tc3) / 4u;
	let lim0 = p.out_w; let lim1 = p.out_h;
	var k0 = k_first % lim0;
	var k1 = k_first / lim0 % lim1;
	var k2 = k_first / lim0 / lim1;
	for (var k = k_first; k < k_end; k++) {
		let ky = k1 * p.stride_h;
		let kx = k0 * p.stride_w;
		let kb = k2 * p.in_h;
		let y0 = ry0 + ky;
		let x0 = rx0 + kx;
		let ok0 = y0 < p.in_h && x0 < p.in_w;
		let a0 = select(vec4<f32>(0.0), la(select(0u, ((kb + y0) * p.in_w + x0) * C4 + rc0, ok0)), ok0);
		let y1 = ry1 + ky;
		let x1 = rx1 + kx;
		let ok1 = y1 < p.in_h && x1 < p.in_w;
		let a1 = select(vec4<f32>(0.0), la(select(0u, ((kb + y1) * p.in_w + x1) * C4 + rc1, ok1)), ok1);
		let y2 = ry2 + ky;
		let x2 = rx2 + kx;
		let ok2 = y2 < p.in_h && x2 < p.in_w;
		let a2 = select(vec4<f32>(0.0), la(select(0u, ((kb + y2) * p.in_w + x2) * C4 + rc2, ok2)), ok2);
		let y3 = ry3 + ky;
		let x3 = rx3 + kx;
		let ok3 = y3 < p.in_h && x3 < p.in_w;
		let a3 = select(vec4<f32>(0.0), la(select(0u, ((kb + y3) * p.in_w + x3) * C4 + rc3, ok3)), ok3);
		let b0 = bm[k * O4 + bc0];
		s0_0 = fma(vec4<f32>(a0.x), b0, s0_0);
		s1_0 = fma(vec4<f32>(a0.y), b0, s1_0);
		s2_0 = fma(vec4<f32>(a0.z), b0, s2_0);
		s3_0 = fma(vec4<f32>(a0.w), b0, s3_0);
		s4_0 = fma(vec4<f32>(a1.x), b0, s4_0);
		s5_0 = fma(vec4<f32>(a1.y), b0, s5_0);
		s6_0 = fma(vec4<f32>(a1.z), b0, s6_0);
		s7_0 = fma(vec4<f32>(a1.w), b0, s7_0);
		s8_0 = fma(vec4<f32>(a2.x), b0, s8_0);
		s9_0 = fma(vec4<f32>(a2.y), b0, s9_0);
		s10_0 = fma(vec4<f32>(a2.z), b0, s10_0);
		s11_0 = fma(vec4<f32>(a2.w), b0, s11_0);
		s12_0 = fma(vec4<f32>(a3.x), b0, s12_0);
		s13_0 = fma(vec4<f32>(a3.y), b0, s13_0);
		s14_0 = fma(vec4<f32>(a3.z), b0, s14_0);
		s15_0 = fma(vec4<f32>(a3.w), b0, s15_0);
		let b1 = bm[k * O4 + bc1];
		s0_1 = fma(vec4<f32>(a0.x), b1, s0_1);
		s1_1 = fma(vec4<f32>(a0.y), b1, s1_1);
		s2_1 = fma(vec4<f32>(a0.z), b1, s2_1);
		s3_1 = fma(vec4<f32>(a0.w), b1, s3_1);
		s4_1 = fma(vec4<f32>(a1.x), b1, s4_1);
		s5_1 = fma(vec4<f32>(a1.y), b1, s5_1);
		s6_1 = fma(vec4<f32>(a1.z), b1, s6_1);
		s7_1 = fma(vec4<f32>(a1.w), b1, s7_1);
		s8_1 = fma(vec4<f32>(a2.x), b1, s8_1);
		s9_1 = fma(vec4<f32>(a2.y), b1, s9_1);
		s10_1 = fma(vec4<f32>(a2.z), b1, s10_1);
		s11_1 = fma(vec4<f32>(a2.w), b1, s11_1);
		s12_1 = fma(vec4<f32>(a3.x), b1, s12_1);
		s13_1 = fma(vec4<f32>(a3.y), b1, s13_1);
		s14_1 = fma(vec4<f32>(a3.z), b1, s14_1);
		s15_1 = fma(vec4<f32>(a3.w), b1, s15_1);
		k0 += 1u;
		let wrap0 = k0 == lim0;
		k0 = select(k0, 0u, wrap0);
		k1 += select(0u, 1u, wrap0);
		let wrap1 = k1 == lim1;
		k1 = select(k1, 0u, wrap1);
		k2 += select(0u, 1u, wrap1);
	}
	if (row0 + 0u < M && cb0 + 0u < N4) { c[out0 + (row0 + 0u) * cs + bc0] = s0_0; }
	if (row0 + 0u < M && cb0 + 1u < N4) { c[out0 + (row0 + 0u) * cs + bc1] = s0_1; }
	if (row0 + 1u < M && cb0 + 0u < N4) { c[out0 + (row0 + 1u) * cs + bc0] = s1_0; }
	if (row0 + 1u < M && cb0 + 1u < N4) { c[out0 + (row0 + 1u) * cs + bc1] = s1_1; }
	if (row0 + 2u < M && cb0 + 0u < N4) { c[out0 + (row0 + 2u) * cs + bc0] = s2_0; }
	if (row0 + 2u < M && cb0 + 1u < N4) { c[out0 + (row0 + 2u) * cs + bc1] = s2_1; }
	if (row0 + 3u < M && cb0 + 0u < N4) { c[out0 + (row0 + 3u) * cs + bc0] = s3_0; }
	if (row0 + 3u < M && cb0 + 1u < N4) { c[out0 + (row0 + 3u) * cs + bc1] = s3_1; }
	if (row0 + 4u < M && cb0 + 0u < N4) { c[out0 + (row0 + 4u) * cs + bc0] = s4_0; }
	if (row0 + 4u < M && cb0 + 1u < N4) { c[out0 + (row0 + 4u) * cs + bc1] = s4_1; }
	if (row0 + 5u < M && cb0 + 0u < N4) { c[out0 + (row0 + 5u) * cs + bc0] = s5_0; }
	if (row0 + 5u < M && cb0 + 1u < N4) { c[out0 + (row0 + 5u) * cs + bc1] = s5_1; }
	if (row0 + 6u < M && cb0 + 0u < N4) { c[out0 + (row0 + 6u) * cs + bc0] = s6_0; }
	if (row0 + 6u < M && cb0 + 1u < N4) { c[out0 + (row0 + 6u) * cs + bc1] = s6_1; }
	if (row0 + 7u < M && cb0 + 0u < N4) { c[out0 + (row0 + 7u) * cs + bc0] = s7_0; }
	if (row0 + 7u < M && cb0 + 1u < N4) { c[out0 + (row0 + 7u) * cs + bc1] = s7_1; }
	if (row0 + 8u < M && cb0 + 0u < N4) { c[out0 + (row0 + 8u) * cs + bc0] = s8_0; }
	if (row0 + 8u < M && cb0 + 1u < N4) { c[out0 + (row0 + 8u) * cs + bc1] = s8_1; }
	if (row0 + 9u < M && cb0 + 0u < N4) { c[out0 + (row0 + 9u) * cs + bc0] = s9_0; }
	if (row0 + 9u < M && cb0 + 1u < N4) { c[out0 + (row0 + 9u) * cs + bc1] = s9_1; }
	if (row0 + 10u < M && cb0 + 0u < N4) { c[out0 + (row0 + 10u) * cs + bc0] = s10_0; }
	if (row0 + 10u < M && cb0 + 1u < N4) { c[out0 + (row0 + 10u) * cs + bc1] = s10_1; }
	if (row0 + 11u < M && cb0 + 0u < N4) { c[out0 + (row0 + 11u) * cs + bc0] = s11_0; }
	if (row0 + 11u < M && cb0 + 1u < N4) { c[out0 + (row0 + 11u) * cs + bc1] = s11_1; }
	if (row0 + 12u < M && cb0 + 0u < N4) { c[out0 + (row0 + 12u) * cs + bc0] = s12_0; }
	if (row0 + 12u < M && cb0 + 1u < N4) { c[out0 + (row0 + 12u) * cs + bc1] = s12_1; }
	if (row0 + 13u < M && cb0 + 0u < N4) { c[out0 + (row0 + 13u) * cs + bc0] = s13_0; }
	if (row0 + 13u < M && cb0 + 1u < N4) { c[out0 + (row0 + 13u) * cs + bc1] = s13_1; }
	if (row0 + 14u < M && cb0 + 0u < N4) { c[out0 + (row0 + 14u) * cs + bc0] = s14_0; }
	if (row0 + 14u < M && cb0 + 1u < N4) { c[out0 + (row0 + 14u) * cs + bc1] = s14_1; }
	if (row0 + 15u < M && cb0 + 0u < N4) { c[out0 + (row0 + 15u) * cs + bc0] = s15_0; }
	if (row0 + 15u < M && cb0 + 1u < N4) { c[out0 + (row0 + 15u) * cs + bc1] = s15_1; }
}
