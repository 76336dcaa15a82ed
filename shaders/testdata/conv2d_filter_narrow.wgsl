
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
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> bm: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;
fn la(i: u32) -> f32 { return a[i]; }
fn lbm(i: u32) -> f32 { return bm[i]; }
@compute @workgroup_size(16)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let lx = li % 2u; let ly = li / 2u;
	let M = p.m; let N = p.n;
	let z = w.z + p.first_group;
	let g = z % p.groups;
	let slice = z / p.groups;
	let k_first = p.k_first + slice * p.k_slice;
	let k_end = min(p.k_end + slice * p.k_slice, p.k);
	let out0 = slice * p.slice_size;
	let row0 = ((w.y + p.first_row) * 8u + ly) * 8u;
	let col0 = ((w.x + p.first_col) * 2u + lx) * 8u;
	let cstride = p.out_c;
	let m0 = min(row0, M - 1u);
	var tci = m0 % p.group_in;
	var tkx = m0 / p.group_in % p.kernel_w;
	var tky = m0 / p.group_in / p.kernel_w;
	let tc0 = tci; let tx0 = tkx; let ty0 = tky;
	let st1 = row0 + 1u * 1u < M;
	tci += select(0u, 1u, st1);
	let wc1 = tci == p.group_in;
	tci = select(tci, 0u, wc1);
	tkx += select(0u, 1u, wc1);
	let wx1 = tkx == p.kernel_w;
	tkx = select(tkx, 0u, wx1);
	tky += select(0u, 1u, wx1);
	let tc1 = tci; let tx1 = tkx; let ty1 = tky;
	let st2 = row0 + 2u * 1u < M;
	tci += select(0u, 1u, st2);
	let wc2 = tci == p.group_in;
	tci = select(tci, 0u, wc2);
	tkx += select(0u, 1u, wc2);
	let wx2 = tkx == p.kernel_w;
	tkx = select(tkx, 0u, wx2);
	tky += select(0u, 1u, wx2);
	let tc2 = tci; let tx2 = tkx; let ty2 = tky;
	let st3 = row0 + 3u * 1u < M;
	tci += select(0u, 1u, st3);
	let wc3 = tci == p.group_in;
	tci = select(tci, 0u, wc3);
	tkx += select(0u, 1u, wc3);
	let wx3 = tkx == p.kernel_w;
	tkx = select(tkx, 0u, wx3);
	tky += select(0u, 1u, wx3);
	let tc3 = tci; let tx3 = tkx; let ty3 = tky;
	let st4 = row0 + 4u * 1u < M;
	tci += select(0u, 1u, st4);
	let wc4 = tci == p.group_in;
	tci = select(tci, 0u, wc4);
	tkx += select(0u, 1u, wc4);
	let wx4 = tkx == p.kernel_w;
	tkx = select(tkx, 0u, wx4);
	tky += select(0u, 1u, wx4);
	let tc4 = tci; let tx4 = tkx; let ty4 = tky;
	let st5 = row0 + 5u * 1u < M;
	tci += select(0u, 1u, st5);
	let wc5 = tci == p.group_in;
	tci = select(tci, 0u, wc5);
	tkx += select(0u, 1u, wc5);
	let wx5 = tkx == p.kernel_w;
	tkx = select(tkx, 0u, wx5);
	tky += select(0u, 1u, wx5);
	let tc5 = tci; let tx5 = tkx; let ty5 = tky;
	let st6 = row0 + 6u * 1u < M;
	tci += select(0u, 1u, st6);
	let wc6 = tci == p.group_in;
	tci = select(tci, 0u, wc6);
	tkx += select(0u, 1u, wc6);
	let wx6 = tkx == p.kernel_w;
	tkx = select(tkx, 0u, wx6);
	tky += select(0u, 1u, wx6);
	let tc6 = tci; let tx6 = tkx; let ty6 = tky;
	let st7 = row0 + 7u * 1u < M;
	tci += select(0u, 1u, st7);
	let wc7 = tci == p.group_in;
	tci = select(tci, 0u, wc7);
	tkx += select(0u, 1u, wc7);
	let wx7 = tkx == p.kernel_w;
	tkx = select(tkx, 0u, wx7);
	tky += select(0u, 1u, wx7);
	let tc7 = tci; let tx7 = tkx; let ty7 = tky;
	let ry0 = ty0 * p.dilation_h - p.pad_top;
	let rx0 = tx0 * p.dilation_w - p.pad_left;
	let rb0 = 0u;
	let rc0 = g * p.group_in + tc0;
	let ry1 = ty1 * p.dilation_h - p.pad_top;
	let rx1 = tx1 * p.dilation_w - p.pad_left;
	let rb1 = 0u;
	let rc1 = g * p.group_in + tc1;
	let ry2 = ty2 * p.dilation_h - p.pad_top;
	let rx2 = tx2 * p.dilation_w - p.pad_left;
	let rb2 = 0u;
	let rc2 = g * p.group_in + tc2;
	let ry3 = ty3 * p.dilation_h - p.pad_top;
	let rx3 = tx3 * p.dilation_w - p.pad_left;
	let rb3 = 0u;
	let rc3 = g * p.group_in + tc3;
	let ry4 = ty4 * p.dilation_h - p.pad_top;
	let rx4 = tx4 * p.dilation_w - p.pad_left;
	let rb4 = 0u;
	let rc4 = g * p.group_in + tc4;
	let ry5 = ty5 * p.dilation_h - p.pad_top;
	let rx5 = tx5 * p.dilation_w - p.pad_left;
	let rb5 = 0u;
	let rc5 = g * p.group_in + tc5;
	let ry6 = ty6 * p.dilation_h - p.pad_top;
	let rx6 = tx6 * p.dilation_w - p.pad_left;
	let rb6 = 0u;
	let rc6 = g * p.group_in + tc6;
	let ry7 = ty7 * p.dilation_h - p.pad_top;
	let rx7 = tx7 * p.dilation_w - p.pad_left;
	let rb7 = 0u;
	let rc7 = g * p.group_in + tc7;
	let c0 = min(col0 + 0u, N - 1u);
	let c1 = min(col0 + 1u, N - 1u);
	let c2 = min(col0 + 2u, N - 1u);
	let c3 = min(col0 + 3u, N - 1u);
	let c4 = min(col0 + 4u, N - 1u);
	let c5 = min(col0 + 5u, N - 1u);
	let c6 = min(col0 + 6u, N - 1u);
	let c7 = min(col0 + 7u, N - 1u);
	var s0_0 = 0.0;
	var s0_1 = 0.0;
	var s0_2 = 0.0;
	var s0_3 = 0.0;
	var s0_4 = 0.0;
	var s0_5 = 0.0;
	var s0_6 = 0.0;
	var s0_7 = 0.0;
	var s1_0 = 0.0;
	var s1_1 = 0.0;
	var s1_2 = 0.0;
	var s1_3 = 0.0;
	var s1_4 = 0.0;
	var s1_5 = 0.0;
	var s1_6 = 0.0;
	var s1_7 = 0.0;
	var s2_0 = 0.0;
	var s2_1 = 0.0;
	var s2_2 = 0.0;
	var s2_3 = 0.0;
	var s2_4 = 0.0;
	var s2_5 = 0.0;
	var s2_6 = 0.0;
	var s2_7 = 0.0;
	var s3_0 = 0.0;
	var s3_1 = 0.0;
	var s3_2 = 0.0;
	var s3_3 = 0.0;
	var s3_4 = 0.0;
	var s3_5 = 0.0;
	var s3_6 = 0.0;
	var s3_7 = 0.0;
	var s4_0 = 0.0;
	var s4_1 = 0.0;
	var s4_2 = 0.0;
	var s4_3 = 0.0;
	var s4_4 = 0.0;
	var s4_5 = 0.0;
	var s4_6 = 0.0;
	var s4_7 = 0.0;
	var s5_0 = 0.0;
	var s5_1 = 0.0;
	var s5_2 = 0.0;
	var s5_3 = 0.0;
	var s5_4 = 0.0;
	var s5_5 = 0.0;
	var s5_6 = 0.0;
	var s5_7 = 0.0;
	var s6_0 = 0.0;
	var s6_1 = 0.0;
	var s6_2 = 0.0;
	var s6_3 = 0.0;
	var s6_4 = 0.0;
	var s6_5 = 0.0;
	var s6_6 = 0.0;
	var s6_7 = 0.0;
	var s7_0 = 0.0;
	var s7_1 = 0.0;
	var s7_2 = 0.0;
	var s7_3 = 0.0;
	var s7_4 = 0.0;
	var s7_5 = 0.0;
	var s7_6 = 0.0;
	var s7_7 = 0.0;
	if (p.k_first > 0u) {
		if (row0 + 0u < M && col0 + 0u < N) { s0_0 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 0u < M && col0 + 1u < N) { s0_1 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 0u < M && col0 + 2u < N) { s0_2 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 0u < M && col0 + 3u < N) { s0_3 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 0u < M && col0 + 4u < N) { s0_4 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 0u < M && col0 + 5u < N) { s0_5 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 0u < M && col0 + 6u < N) { s0_6 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 0u < M && col0 + 7u < N) { s0_7 = c[out0 + (row0 + 0u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 1u < M && col0 + 0u < N) { s1_0 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 1u < M && col0 + 1u < N) { s1_1 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 1u < M && col0 + 2u < N) { s1_2 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 1u < M && col0 + 3u < N) { s1_3 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 1u < M && col0 + 4u < N) { s1_4 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 1u < M && col0 + 5u < N) { s1_5 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 1u < M && col0 + 6u < N) { s1_6 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 1u < M && col0 + 7u < N) { s1_7 = c[out0 + (row0 + 1u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 2u < M && col0 + 0u < N) { s2_0 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 2u < M && col0 + 1u < N) { s2_1 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 2u < M && col0 + 2u < N) { s2_2 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 2u < M && col0 + 3u < N) { s2_3 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 2u < M && col0 + 4u < N) { s2_4 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 2u < M && col0 + 5u < N) { s2_5 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 2u < M && col0 + 6u < N) { s2_6 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 2u < M && col0 + 7u < N) { s2_7 = c[out0 + (row0 + 2u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 3u < M && col0 + 0u < N) { s3_0 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 3u < M && col0 + 1u < N) { s3_1 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 3u < M && col0 + 2u < N) { s3_2 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 3u < M && col0 + 3u < N) { s3_3 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 3u < M && col0 + 4u < N) { s3_4 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 3u < M && col0 + 5u < N) { s3_5 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 3u < M && col0 + 6u < N) { s3_6 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 3u < M && col0 + 7u < N) { s3_7 = c[out0 + (row0 + 3u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 4u < M && col0 + 0u < N) { s4_0 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 4u < M && col0 + 1u < N) { s4_1 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 4u < M && col0 + 2u < N) { s4_2 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 4u < M && col0 + 3u < N) { s4_3 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 4u < M && col0 + 4u < N) { s4_4 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 4u < M && col0 + 5u < N) { s4_5 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 4u < M && col0 + 6u < N) { s4_6 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 4u < M && col0 + 7u < N) { s4_7 = c[out0 + (row0 + 4u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 5u < M && col0 + 0u < N) { s5_0 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 5u < M && col0 + 1u < N) { s5_1 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 5u < M && col0 + 2u < N) { s5_2 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 5u < M && col0 + 3u < N) { s5_3 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 5u < M && col0 + 4u < N) { s5_4 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 5u < M && col0 + 5u < N) { s5_5 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 5u < M && col0 + 6u < N) { s5_6 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 5u < M && col0 + 7u < N) { s5_7 = c[out0 + (row0 + 5u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 6u < M && col0 + 0u < N) { s6_0 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 6u < M && col0 + 1u < N) { s6_1 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 6u < M && col0 + 2u < N) { s6_2 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 6u < M && col0 + 3u < N) { s6_3 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 6u < M && col0 + 4u < N) { s6_4 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 6u < M && col0 + 5u < N) { s6_5 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 6u < M && col0 + 6u < N) { s6_6 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 6u < M && col0 + 7u < N) { s6_7 = c[out0 + (row0 + 6u) * cstride + g * N + col0 + 7u]; }
		if (row0 + 7u < M && col0 + 0u < N) { s7_0 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 0u]; }
		if (row0 + 7u < M && col0 + 1u < N) { s7_1 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 1u]; }
		if (row0 + 7u < M && col0 + 2u < N) { s7_2 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 2u]; }
		if (row0 + 7u < M && col0 + 3u < N) { s7_3 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 3u]; }
		if (row0 + 7u < M && col0 + 4u < N) { s7_4 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 4u]; }
		if (row0 + 7u < M && col0 + 5u < N) { s7_5 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 5u]; }
		if (row0 + 7u < M && col0 + 6u < N) { s7_6 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 6u]; }
		if (row0 + 7u < M && col0 + 7u < N) { s7_7 = c[out0 + (row0 + 7u) * cstride + g * N + col0 + 7u]; }
	}
	let lim0 = p.out_w; let lim1 = p.out_h;
	var k0 = k_first % lim0;
	var k1 = k_first / lim0 % lim1;
	var k2 = k_first / lim0 / lim1;
	for (var k = k_first; k < k_end; k++) {
		let ky = k1 * p.stride_h;
		let kx = k0 * p.stride_w;
		let kb = k2 * p.in_h;
		let kc = 0u;
		let y0 = ry0 + ky;
		let x0 = rx0 + kx;
		let ok0 = y0 < p.in_h && x0 < p.in_w;
		let a0 = select(0.0, la(select(0u, ((rb0 + kb + y0) * p.in_w + x0) * p.in_c + rc0 + kc, ok0)), ok0);
		let y1 = ry1 + ky;
		let x1 = rx1 + kx;
		let ok1 = y1 < p.in_h && x1 < p.in_w;
		let a1 = select(0.0, la(select(0u, ((rb1 + kb + y1) * p.in_w + x1) * p.in_c + rc1 + kc, ok1)), ok1);
		let y2 = ry2 + ky;
		let x2 = rx2 + kx;
		let ok2 = y2 < p.in_h && x2 < p.in_w;
		let a2 = select(0.0, la(select(0u, ((rb2 + kb + y2) * p.in_w + x2) * p.in_c + rc2 + kc, ok2)), ok2);
		let y3 = ry3 + ky;
		let x3 = rx3 + kx;
		let ok3 = y3 < p.in_h && x3 < p.in_w;
		let a3 = select(0.0, la(select(0u, ((rb3 + kb + y3) * p.in_w + x3) * p.in_c + rc3 + kc, ok3)), ok3);
		let y4 = ry4 + ky;
		let x4 = rx4 + kx;
		let ok4 = y4 < p.in_h && x4 < p.in_w;
		let a4 = select(0.0, la(select(0u, ((rb4 + kb + y4) * p.in_w + x4) * p.in_c + rc4 + kc, ok4)), ok4);
		let y5 = ry5 + ky;
		let x5 = rx5 + kx;
		let ok5 = y5 < p.in_h && x5 < p.in_w;
		let a5 = select(0.0, la(select(0u, ((rb5 + kb + y5) * p.in_w + x5) * p.in_c + rc5 + kc, ok5)), ok5);
		let y6 = ry6 + ky;
		let x6 = rx6 + kx;
		let ok6 = y6 < p.in_h && x6 < p.in_w;
		let a6 = select(0.0, la(select(0u, ((rb6 + kb + y6) * p.in_w + x6) * p.in_c + rc6 + kc, ok6)), ok6);
		let y7 = ry7 + ky;
		let x7 = rx7 + kx;
		let ok7 = y7 < p.in_h && x7 < p.in_w;
		let a7 = select(0.0, la(select(0u, ((rb7 + kb + y7) * p.in_w + x7) * p.in_c + rc7 + kc, ok7)), ok7);
		let b0 = lbm(k * p.out_c + g * N + c0);
		let b1 = lbm(k * p.out_c + g * N + c1);
		let b2 = lbm(k * p.out_c + g * N + c2);
		let b3 = lbm(k * p.out_c + g * N + c3);
		let b4 = lbm(k * p.out_c + g * N + c4);
		let b5 = lbm(k * p.out_c + g * N + c5);
		let b6 = lbm(k * p.out_c + g * N + c6);
		let b7 = lbm(k * p.out_c + g * N + c7);
		s0_0 = fma(a0, b0, s0_0);
		s0_1 = fma(a0, b1, s0_1);
		s0_2 = fma(a0, b2, s0_2);
		s0_3 = fma(a0, b3, s0_3);
		s0_4 = fma(a0, b4, s0_4);
		s0_5 = fma(a0, b5, s0_5);
		s0_6 = fma(a0, b6, s0_6);
		s0_7 = fma(a0, b7, s0_7);
		s1_0 = fma(a1, b0, s1_0);
		s1_1 = fma(a1, b1, s1_1);
		s1_2 = fma(a1, b2, s1_2);
		s1_3 = fma(a1, b3, s1_3);
		s1_4 = fma(a1, b4, s1_4);
		s1_5 = fma(a1, b5, s1_5);
		s1_6 = fma(a1, b6, s1_6);
		s1_7 = fma(a1, b7, s1_7);
		s2_0 = fma(a2, b0, s2_0);
		s2_1 = fma(a2, b1, s2_1);
		s2_2 = fma(a2, b2, s2_2);
		s2_3 = fma(a2, b3, s2_3);
		s2_4 = fma(a2, b4, s2_4);
		s2_5 = fma(a2, b5, s2_5);
		s2_6 = fma(a2, b6, s2_6);
		s2_7 = fma(a2, b7, s2_7);
		s3_0 = fma(a3, b0, s3_0);
		s3_1 = fma(a3, b1, s3_1);
		s3_2 = fma(a3, b2, s3_2);
		s3_3 = fma(a3, b3, s3_3);
		s3_4 = fma(a3, b4, s3_4);
		s3_5 = fma(a3, b5, s3_5);
		s3_6 = fma(a3, b6, s3_6);
		s3_7 = fma(a3, b7, s3_7);
		s4_0 = fma(a4, b0, s4_0);
		s4_1 = fma(a4, b1, s4_1);
		s4_2 = fma(a4, b2, s4_2);
		s4_3 = fma(a4, b3, s4_3);
		s4_4 = fma(a4, b4, s4_4);
		s4_5 = fma(a4, b5, s4_5);
		s4_6 = fma(a4, b6, s4_6);
		s4_7 = fma(a4, b7, s4_7);
		s5_0 = fma(a5, b0, s5_0);
		s5_1 = fma(a5, b1, s5_1);
		s5_2 = fma(a5, b2, s5_2);
		s5_3 = fma(a5, b3, s5_3);
		s5_4 = fma(a5, b4, s5_4);
		s5_5 = fma(a5, b5, s5_5);
		s5_6 = fma(a5, b6, s5_6);
		s5_7 = fma(a5, b7, s5_7);
		s6_0 = fma(a6, b0, s6_0);
		s6_1 = fma(a6, b1, s6_1);
		s6_2 = fma(a6, b2, s6_2);
		s6_3 = fma(a6, b3, s6_3);
		s6_4 = fma(a6, b4, s6_4);
		s6_5 = fma(a6, b5, s6_5);
		s6_6 = fma(a6, b6, s6_6);
		s6_7 = fma(a6, b7, s6_7);
		s7_0 = fma(a7, b0, s7_0);
		s7_1 = fma(a7, b1, s7_1);
		s7_2 = fma(a7, b2, s7_2);
		s7_3 = fma(a7, b3, s7_3);
		s7_4 = fma(a7, b4, s7_4);
		s7_5 = fma(a7, b5, s7_5);
		s7_6 = fma(a7, b6, s7_6);
		s7_7 = fma(a7, b7, s7_7);
		k0 += 1u;
		let wrap0 = k0 == lim0;
		k0 = select(k0, 0u, wrap0);
		k1 += select(0u, 1u, wrap0);
		let wrap1 = k1 == lim1;
		k1 = select(k1, 0u, wrap1);
		k2 += select(0u, 1u, wrap1);
	}
	if (row0 + 0u < M && col0 + 0u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 0u] = s0_0; }
	if (row0 + 0u < M && col0 + 1u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 1u] = s0_1; }
	if (row0 + 0u < M && col0 + 2u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 2u] = s0_2; }
	if (row0 + 0u < M && col0 + 3u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 3u] = s0_3; }
	if (row0 + 0u < M && col0 + 4u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 4u] = s0_4; }
	if (row0 + 0u < M && col0 + 5u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 5u] = s0_5; }
	if (row0 + 0u < M && col0 + 6u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 6u] = s0_6; }
	if (row0 + 0u < M && col0 + 7u < N) { c[out0 + (row0 + 0u) * cstride + g * N + col0 + 7u] = s0_7; }
	if (row0 + 1u < M && col0 + 0u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 0u] = s1_0; }
	if (row0 + 1u < M && col0 + 1u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 1u] = s1_1; }
	if (row0 + 1u < M && col0 + 2u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 2u] = s1_2; }
	if (row0 + 1u < M && col0 + 3u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 3u] = s1_3; }
	if (row0 + 1u < M && col0 + 4u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 4u] = s1_4; }
	if (row0 + 1u < M && col0 + 5u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 5u] = s1_5; }
	if (row0 + 1u < M && col0 + 6u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 6u] = s1_6; }
	if (row0 + 1u < M && col0 + 7u < N) { c[out0 + (row0 + 1u) * cstride + g * N + col0 + 7u] = s1_7; }
	if (row0 + 2u < M && col0 + 0u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 0u] = s2_0; }
	if (row0 + 2u < M && col0 + 1u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 1u] = s2_1; }
	if (row0 + 2u < M && col0 + 2u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 2u] = s2_2; }
	if (row0 + 2u < M && col0 + 3u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 3u] = s2_3; }
	if (row0 + 2u < M && col0 + 4u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 4u] = s2_4; }
	if (row0 + 2u < M && col0 + 5u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 5u] = s2_5; }
	if (row0 + 2u < M && col0 + 6u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 6u] = s2_6; }
	if (row0 + 2u < M && col0 + 7u < N) { c[out0 + (row0 + 2u) * cstride + g * N + col0 + 7u] = s2_7; }
	if (row0 + 3u < M && col0 + 0u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 0u] = s3_0; }
	if (row0 + 3u < M && col0 + 1u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 1u] = s3_1; }
	if (row0 + 3u < M && col0 + 2u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 2u] = s3_2; }
	if (row0 + 3u < M && col0 + 3u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 3u] = s3_3; }
	if (row0 + 3u < M && col0 + 4u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 4u] = s3_4; }
	if (row0 + 3u < M && col0 + 5u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 5u] = s3_5; }
	if (row0 + 3u < M && col0 + 6u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 6u] = s3_6; }
	if (row0 + 3u < M && col0 + 7u < N) { c[out0 + (row0 + 3u) * cstride + g * N + col0 + 7u] = s3_7; }
	if (row0 + 4u < M && col0 + 0u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 0u] = s4_0; }
	if (row0 + 4u < M && col0 + 1u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 1u] = s4_1; }
	if (row0 + 4u < M && col0 + 2u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 2u] = s4_2; }
	if (row0 + 4u < M && col0 + 3u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 3u] = s4_3; }
	if (row0 + 4u < M && col0 + 4u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 4u] = s4_4; }
	if (row0 + 4u < M && col0 + 5u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 5u] = s4_5; }
	if (row0 + 4u < M && col0 + 6u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 6u] = s4_6; }
	if (row0 + 4u < M && col0 + 7u < N) { c[out0 + (row0 + 4u) * cstride + g * N + col0 + 7u] = s4_7; }
	if (row0 + 5u < M && col0 + 0u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 0u] = s5_0; }
	if (row0 + 5u < M && col0 + 1u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 1u] = s5_1; }
	if (row0 + 5u < M && col0 + 2u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 2u] = s5_2; }
	if (row0 + 5u < M && col0 + 3u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 3u] = s5_3; }
	if (row0 + 5u < M && col0 + 4u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 4u] = s5_4; }
	if (row0 + 5u < M && col0 + 5u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 5u] = s5_5; }
	if (row0 + 5u < M && col0 + 6u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 6u] = s5_6; }
	if (row0 + 5u < M && col0 + 7u < N) { c[out0 + (row0 + 5u) * cstride + g * N + col0 + 7u] = s5_7; }
	if (row0 + 6u < M && col0 + 0u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 0u] = s6_0; }
	if (row0 + 6u < M && col0 + 1u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 1u] = s6_1; }
	if (row0 + 6u < M && col0 + 2u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 2u] = s6_2; }
	if (row0 + 6u < M && col0 + 3u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 3u] = s6_3; }
	if (row0 + 6u < M && col0 + 4u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 4u] = s6_4; }
	if (row0 + 6u < M && col0 + 5u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 5u] = s6_5; }
	if (row0 + 6u < M && col0 + 6u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 6u] = s6_6; }
	if (row0 + 6u < M && col0 + 7u < N) { c[out0 + (row0 + 6u) * cstride + g * N + col0 + 7u] = s6_7; }
	if (row0 + 7u < M && col0 + 0u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 0u] = s7_0; }
	if (row0 + 7u < M && col0 + 1u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 1u] = s7_1; }
	if (row0 + 7u < M && col0 + 2u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 2u] = s7_2; }
	if (row0 + 7u < M && col0 + 3u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 3u] = s7_3; }
	if (row0 + 7u < M && col0 + 4u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 4u] = s7_4; }
	if (row0 + 7u < M && col0 + 5u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 5u] = s7_5; }
	if (row0 + 7u < M && col0 + 6u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 6u] = s7_6; }
	if (row0 + 7u < M && col0 + 7u < N) { c[out0 + (row0 + 7u) * cstride + g * N + col0 + 7u] = s7_7; }
}
