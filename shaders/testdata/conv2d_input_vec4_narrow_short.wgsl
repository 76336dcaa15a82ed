
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
@compute @workgroup_size(8)
fn main(@builtin(workgroup_id) w: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let lx = li % 2u; let ly = li / 2u;
	let M = p.m; let N4 = p.n / 4u;
	let g = w.z + p.first_group;
	let k_first = p.k_first; let k_end = p.k_end; let out0 = 0u;
	let row0 = ((w.y + p.first_row) * 4u + ly) * 16u;
	let cb0 = ((w.x + p.first_col) * 2u + lx) * 2u;
	let C4 = p.in_c / 4u; let O4 = p.out_c / 4u;
	let cs = C4;
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
	let gout = g * (p.group_out / 4u);
	let m0 = min(row0, M - 1u);
	var cx = m0 % p.in_w;
	var cy = m0 / p.in_w % p.in_h;
	var cn = m0 / p.in_w / p.in_h;
	let px0 = cx; let py0 = cy; let pn0 = cn;
	let st1 = row0 + 1u < M;
	cx += select(0u, 1u, st1);
	let wx1 = cx == p.in_w;
	cx = select(cx, 0u, wx1);
	cy += select(0u, 1u, wx1);
	let wy1 = cy == p.in_h;
	cy = select(cy, 0u, wy1);
	cn += select(0u, 1u, wy1);
	let px1 = cx; let py1 = cy; let pn1 = cn;
	let st2 = row0 + 2u < M;
	cx += select(0u, 1u, st2);
	let wx2 = cx == p.in_w;
	cx = select(cx, 0u, wx2);
	cy += select(0u, 1u, wx2);
	let wy2 = cy == p.in_h;
	cy = select(cy, 0u, wy2);
	cn += select(0u, 1u, wy2);
	let px2 = cx; let py2 = cy; let pn2 = cn;
	let st3 = row0 + 3u < M;
	cx += select(0u, 1u, st3);
	let wx3 = cx == p.in_w;
	cx = select(cx, 0u, wx3);
	cy += select(0u, 1u, wx3);
	let wy3 = cy == p.in_h;
	cy = select(cy, 0u, wy3);
	cn += select(0u, 1u, wy3);
	let px3 = cx; let py3 = cy; let pn3 = cn;
	let st4 = row0 + 4u < M;
	cx += select(0u, 1u, st4);
	let wx4 = cx == p.in_w;
	cx = select(cx, 0u, wx4);
	cy += select(0u, 1u, wx4);
	let wy4 = cy == p.in_h;
	cy = select(cy, 0u, wy4);
	cn += select(0u, 1u, wy4);
	let px4 = cx; let py4 = cy; let pn4 = cn;
	let st5 = row0 + 5u < M;
	cx += select(0u, 1u, st5);
	let wx5 = cx == p.in_w;
	cx = select(cx, 0u, wx5);
	cy += select(0u, 1u, wx5);
	let wy5 = cy == p.in_h;
	cy = select(cy, 0u, wy5);
	cn += select(0u, 1u, wy5);
	let px5 = cx; let py5 = cy; let pn5 = cn;
	let st6 = row0 + 6u < M;
	cx += select(0u, 1u, st6);
	let wx6 = cx == p.in_w;
	cx = select(cx, 0u, wx6);
	cy += select(0u, 1u, wx6);
	let wy6 = cy == p.in_h;
	cy = select(cy, 0u, wy6);
	cn += select(0u, 1u, wy6);
	let px6 = cx; let py6 = cy; let pn6 = cn;
	let st7 = row0 + 7u < M;
	cx += select(0u, 1u, st7);
	let wx7 = cx == p.in_w;
	cx = select(cx, 0u, wx7);
	cy += select(0u, 1u, wx7);
	let wy7 = cy == p.in_h;
	cy = select(cy, 0u, wy7);
	cn += select(0u, 1u, wy7);
	let px7 = cx; let py7 = cy; let pn7 = cn;
	let st8 = row0 + 8u < M;
	cx += select(0u, 1u, st8);
	let wx8 = cx == p.in_w;
	cx = select(cx, 0u, wx8);
	cy += select(0u, 1u, wx8);
	let wy8 = cy == p.in_h;
	cy = select(cy, 0u, wy8);
	cn += select(0u, 1u, wy8);
	let px8 = cx; let py8 = cy; let pn8 = cn;
	let st9 = row0 + 9u < M;
	cx += select(0u, 1u, st9);
	let wx9 = cx == p.in_w;
	cx = select(cx, 0u, wx9);
	cy += select(0u, 1u, wx9);
	let wy9 = cy == p.in_h;
	cy = select(cy, 0u, wy9);
	cn += select(0u, 1u, wy9);
	let px9 = cx; let py9 = cy; let pn9 = cn;
	let st10 = row0 + 10u < M;
	cx += select(0u, 1u, st10);
	let wx10 = cx == p.in_w;
	cx = select(cx, 0u, wx10);
	cy += select(0u, 1u, wx10);
	let wy10 = cy == p.in_h;
	cy = select(cy, 0u, wy10);
	cn += select(0u, 1u, wy10);
	let px10 = cx; let py10 = cy; let pn10 = cn;
	let st11 = row0 + 11u < M;
	cx += select(0u, 1u, st11);
	let wx11 = cx == p.in_w;
	cx = select(cx, 0u, wx11);
	cy += select(0u, 1u, wx11);
	let wy11 = cy == p.in_h;
	cy = select(cy, 0u, wy11);
	cn += select(0u, 1u, wy11);
	let px11 = cx; let py11 = cy; let pn11 = cn;
	let st12 = row0 + 12u < M;
	cx += select(0u, 1u, st12);
	let wx12 = cx == p.in_w;
	cx = select(cx, 0u, wx12);
	cy += select(0u, 1u, wx12);
	let wy12 = cy == p.in_h;
	cy = select(cy, 0u, wy12);
	cn += select(0u, 1u, wy12);
	let px12 = cx; let py12 = cy; let pn12 = cn;
	let st13 = row0 + 13u < M;
	cx += select(0u, 1u, st13);
	let wx13 = cx == p.in_w;
	cx = select(cx, 0u, wx13);
	cy += select(0u, 1u, wx13);
	let wy13 = cy == p.in_h;
	cy = select(cy, 0u, wy13);
	cn += select(0u, 1u, wy13);
	let px13 = cx; let py13 = cy; let pn13 = cn;
	let st14 = row0 + 14u < M;
	cx += select(0u, 1u, st14);
	let wx14 = cx == p.in_w;
	cx = select(cx, 0u, wx14);
	cy += select(0u, 1u, wx14);
	let wy14 = cy == p.in_h;
	cy = select(cy, 0u, wy14);
	cn += select(0u, 1u, wy14);
	let px14 = cx; let py14 = cy; let pn14 = cn;
	let st15 = row0 + 15u < M;
	cx += select(0u, 1u, st15);
	let wx15 = cx == p.in_w;
	cx = select(cx, 0u, wx15);
	cy += select(0u, 1u, wx15);
	let wy15 = cy == p.in_h;
	cy = select(cy, 0u, wy15);
	cn += select(0u, 1u, wy15);
	let px15 = cx; let py15 = cy; let pn15 = cn;
	let ry0 = py0 + p.pad_top;
	let rx0 = px0 + p.pad_left;
	let rb0 = pn0 * p.out_h;
	let ry1 = py1 + p.pad_top;
	let rx1 = px1 + p.pad_left;
	let rb1 = pn1 * p.out_h;
	let ry2 = py2 + p.pad_top;
	let rx2 = px2 + p.pad_left;
	let rb2 = pn2 * p.out_h;
	let ry3 = py3 + p.pad_top;
	let rx3 = px3 + p.pad_left;
	let rb3 = pn3 * p.out_h;
	let ry4 = py4 + p.pad_top;
	let rx4 = px4 + p.pad_left;
	let rb4 = pn4 * p.out_h;
	let ry5 = py5 + p.pad_top;
	let rx5 = px5 + p.pad_left;
	let rb5 = pn5 * p.out_h;
	let ry6 = py6 + p.pad_top;
	let rx6 = px6 + p.pad_left;
	let rb6 = pn6 * p.out_h;
	let ry7 = py7 + p.pad_top;
	let rx7 = px7 + p.pad_left;
	let rb7 = pn7 * p.out_h;
	let ry8 = py8 + p.pad_top;
	let rx8 = px8 + p.pad_left;
	let rb8 = pn8 * p.out_h;
	let ry9 = py9 + p.pad_top;
	let rx9 = px9 + p.pad_left;
	let rb9 = pn9 * p.out_h;
	let ry10 = py10 + p.pad_top;
	let rx10 = px10 + p.pad_left;
	let rb10 = pn10 * p.out_h;
	let ry11 = py11 + p.pad_top;
	let rx11 = px11 + p.pad_left;
	let rb11 = pn11 * p.out_h;
	let ry12 = py12 + p.pad_top;
	let rx12 = px12 + p.pad_left;
	let rb12 = pn12 * p.out_h;
	let ry13 = py13 + p.pad_top;
	let rx13 = px13 + p.pad_left;
	let rb13 = pn13 * p.out_h;
	let ry14 = py14 + p.pad_top;
	let rx14 = px14 + p.pad_left;
	let rb14 = pn14 * p.out_h;
	let ry15 = py15 + p.pad_top;
	let rx15 = px15 + p.pad_left;
	let rb15 = pn15 * p.out_h;
	let fc0 = min(cb0 * 4u + 0u, p.n - 1u);
	let fc1 = min(cb0 * 4u + 1u, p.n - 1u);
	let fc2 = min(cb0 * 4u + 2u, p.n - 1u);
	let fc3 = min(cb0 * 4u + 3u, p.n - 1u);
	let fc4 = min(cb0 * 4u + 4u, p.n - 1u);
	let fc5 = min(cb0 * 4u + 5u, p.n - 1u);
	let fc6 = min(cb0 * 4u + 6u, p.n - 1u);
	let fc7 = min(cb0 * 4u + 7u, p.n - 1u);
	for (var tap = p.k_first / p.group_out; tap * p.group_out < p.k_end; tap++) {
		let ky = tap / p.kernel_w * p.dilation_h;
		let kx = tap % p.kernel_w * p.dilation_w;
		let y0 = ry0 - ky;
		let x0 = rx0 - kx;
		let ok0 = ry0 >= ky && rx0 >= kx && y0 % p.stride_h == 0u && x0 % p.stride_w == 0u && y0 / p.stride_h < p.out_h && x0 / p.stride_w < p.out_w;
		let o0 = select(0u, ((rb0 + y0 / p.stride_h) * p.out_w + x0 / p.stride_w) * O4 + gout, ok0);
		let y1 = ry1 - ky;
		let x1 = rx1 - kx;
		let ok1 = ry1 >= ky && rx1 >= kx && y1 % p.stride_h == 0u && x1 % p.stride_w == 0u && y1 / p.stride_h < p.out_h && x1 / p.stride_w < p.out_w;
		let o1 = select(0u, ((rb1 + y1 / p.stride_h) * p.out_w + x1 / p.stride_w) * O4 + gout, ok1);
		let y2 = ry2 - ky;
		let x2 = rx2 - kx;
		let ok2 = ry2 >= ky && rx2 >= kx && y2 % p.stride_h == 0u && x2 % p.stride_w == 0u && y2 / p.stride_h < p.out_h && x2 / p.stride_w < p.out_w;
		let o2 = select(0u, ((rb2 + y2 / p.stride_h) * p.out_w + x2 / p.stride_w) * O4 + gout, ok2);
		let y3 = ry3 - ky;
		let x3 = rx3 - kx;
		let ok3 = ry3 >= ky && rx3 >= kx && y3 % p.stride_h == 0u && x3 % p.stride_w == 0u && y3 / p.stride_h < p.out_h && x3 / p.stride_w < p.out_w;
		let o3 = select(0u, ((rb3 + y3 / p.stride_h) * p.out_w + x3 / p.stride_w) * O4 + gout, ok3);
		let y4 = ry4 - ky;
		let x4 = rx4 - kx;
		let ok4 = ry4 >= ky && rx4 >= kx && y4 % p.stride_h == 0u && x4 % p.stride_w == 0u && y4 / p.stride_h < p.out_h && x4 / p.stride_w < p.out_w;
		let o4 = select(0u, ((rb4 + y4 / p.stride_h) * p.out_w + x4 / p.stride_w) * O4 + gout, ok4);
		let y5 = ry5 - ky;
		let x5 = rx5 - kx;
		let ok5 = ry5 >= ky && rx5 >= kx && y5 % p.stride_h == 0u && x5 % p.stride_w == 0u && y5 / p.stride_h < p.out_h && x5 / p.stride_w < p.out_w;
		let o5 = select(0u, ((rb5 + y5 / p.stride_h) * p.out_w + x5 / p.stride_w) * O4 + gout, ok5);
		let y6 = ry6 - ky;
		let x6 = rx6 - kx;
		let ok6 = ry6 >= ky && rx6 >= kx && y6 % p.stride_h == 0u && x6 % p.stride_w == 0u && y6 / p.stride_h < p.out_h && x6 / p.stride_w < p.out_w;
		let o6 = select(0u, ((rb6 + y6 / p.stride_h) * p.out_w + x6 / p.stride_w) * O4 + gout, ok6);
		let y7 = ry7 - ky;
		let x7 = rx7 - kx;
		let ok7 = ry7 >= ky && rx7 >= kx && y7 % p.stride_h == 0u && x7 % p.stride_w == 0u && y7 / p.stride_h < p.out_h && x7 / p.stride_w < p.out_w;
		let o7 = select(0u, ((rb7 + y7 / p.stride_h) * p.out_w + x7 / p.stride_w) * O4 + gout, ok7);
		let y8 = ry8 - ky;
		let x8 = rx8 - kx;
		let ok8 = ry8 >= ky && rx8 >= kx && y8 % p.stride_h == 0u && x8 % p.stride_w == 0u && y8 / p.stride_h < p.out_h && x8 / p.stride_w < p.out_w;
		let o8 = select(0u, ((rb8 + y8 / p.stride_h) * p.out_w + x8 / p.stride_w) * O4 + gout, ok8);
		let y9 = ry9 - ky;
		let x9 = rx9 - kx;
		let ok9 = ry9 >= ky && rx9 >= kx && y9 % p.stride_h == 0u && x9 % p.stride_w == 0u && y9 / p.stride_h < p.out_h && x9 / p.stride_w < p.out_w;
		let o9 = select(0u, ((rb9 + y9 / p.stride_h) * p.out_w + x9 / p.stride_w) * O4 + gout, ok9);
		let y10 = ry10 - ky;
		let x10 = rx10 - kx;
		let ok10 = ry10 >= ky && rx10 >= kx && y10 % p.stride_h == 0u && x10 % p.stride_w == 0u && y10 / p.stride_h < p.out_h && x10 / p.stride_w < p.out_w;
		let o10 = select(0u, ((rb10 + y10 / p.stride_h) * p.out_w + x10 / p.stride_w) * O4 + gout, ok10);
		let y11 = ry11 - ky;
		let x11 = rx11 - kx;
		let ok11 = ry11 >= ky && rx11 >= kx && y11 % p.stride_h == 0u && x11 % p.stride_w == 0u && y11 / p.stride_h < p.out_h && x11 / p.stride_w < p.out_w;
		let o11 = select(0u, ((rb11 + y11 / p.stride_h) * p.out_w + x11 / p.stride_w) * O4 + gout, ok11);
		let y12 = ry12 - ky;
		let x12 = rx12 - kx;
		let ok12 = ry12 >= ky && rx12 >= kx && y12 % p.stride_h == 0u && x12 % p.stride_w == 0u && y12 / p.stride_h < p.out_h && x12 / p.stride_w < p.out_w;
		let o12 = select(0u, ((rb12 + y12 / p.stride_h) * p.out_w + x12 / p.stride_w) * O4 + gout, ok12);
		let y13 = ry13 - ky;
		let x13 = rx13 - kx;
		let ok13 = ry13 >= ky && rx13 >= kx && y13 % p.stride_h == 0u && x13 % p.stride_w == 0u && y13 / p.stride_h < p.out_h && x13 / p.stride_w < p.out_w;
		let o13 = select(0u, ((rb13 + y13 / p.stride_h) * p.out_w + x13 / p.stride_w) * O4 + gout, ok13);
		let y14 = ry14 - ky;
		let x14 = rx14 - kx;
		let ok14 = ry14 >= ky && rx14 >= kx && y14 % p.stride_h == 0u && x14 % p.stride_w == 0u && y14 / p.stride_h < p.out_h && x14 / p.stride_w < p.out_w;
		let o14 = select(0u, ((rb14 + y14 / p.stride_h) * p.out_w + x14 / p.stride_w) * O4 + gout, ok14);
		let y15 = ry15 - ky;
		let x15 = rx15 - kx;
		let ok15 = ry15 >= ky && rx15 >= kx && y15 % p.stride_h == 0u && x15 % p.stride_w == 0u && y15 / p.stride_h < p.out_h && x15 / p.stride_w < p.out_w;
		let o15 = select(0u, ((rb15 + y15 / p.stride_h) * p.out_w + x15 / p.stride_w) * O4 + gout, ok15);
		let fo0 = (tap * p.group_in + fc0) * O4 + gout;
		let fo1 = (tap * p.group_in + fc1) * O4 + gout;
		let fo2 = (tap * p.group_in + fc2) * O4 + gout;
		let fo3 = (tap * p.group_in + fc3) * O4 + gout;
		let fo4 = (tap * p.group_in + fc4) * O4 + gout;
		let fo5 = (tap * p.group_in + fc5) * O4 + gout;
		let fo6 = (tap * p.group_in + fc6) * O4 + gout;
		let fo7 = (tap * p.group_in + fc7) * O4 + gout;
		let kbase = tap * p.group_out;
		let cend = (min(p.k_end, kbase + p.group_out) - kbase) / 4u;
		for (var c4 = (max(p.k_first, kbase) - kbase) / 4u; c4 < cend; c4++) {
			let a0 = select(vec4<f32>(0.0), la(o0 + c4), ok0);
			let a1 = select(vec4<f32>(0.0), la(o1 + c4), ok1);
			let a2 = select(vec4<f32>(0.0), la(o2 + c4), ok2);
			let a3 = select(vec4<f32>(0.0), la(o3 + c4), ok3);
			let a4 = select(vec4<f32>(0.0), la(o4 + c4), ok4);
			let a5 = select(vec4<f32>(0.0), la(o5 + c4), ok5);
			let a6 = select(vec4<f32>(0.0), la(o6 + c4), ok6);
			let a7 = select(vec4<f32>(0.0), la(o7 + c4), ok7);
			let a8 = select(vec4<f32>(0.0), la(o8 + c4), ok8);
			let a9 = select(vec4<f32>(0.0), la(o9 + c4), ok9);
			let a10 = select(vec4<f32>(0.0), la(o10 + c4), ok10);
			let a11 = select(vec4<f32>(0.0), la(o11 + c4), ok11);
			let a12 = select(vec4<f32>(0.0), la(o12 + c4), ok12);
			let a13 = select(vec4<f32>(0.0), la(o13 + c4), ok13);
			let a14 = select(vec4<f32>(0.0), la(o14 + c4), ok14);
			let a15 = select(vec4<f32>(0.0), la(o15 + c4), ok15);
			let f0 = bm[fo0 + c4];
			let f1 = bm[fo1 + c4];
			let f2 = bm[fo2 + c4];
			let f3 = bm[fo3 + c4];
			let f4 = bm[fo4 + c4];
			let f5 = bm[fo5 + c4];
			let f6 = bm[fo6 + c4];
			let f7 = bm[fo7 + c4];
			let b0_0 = vec4<f32>(f0.x, f1.x, f2.x, f3.x);
			s0_0 = select(s0_0, fma(vec4<f32>(a0.x), b0_0, s0_0), ok0);
			s1_0 = select(s1_0, fma(vec4<f32>(a1.x), b0_0, s1_0), ok1);
			s2_0 = select(s2_0, fma(vec4<f32>(a2.x), b0_0, s2_0), ok2);
			s3_0 = select(s3_0, fma(vec4<f32>(a3.x), b0_0, s3_0), ok3);
			s4_0 = select(s4_0, fma(vec4<f32>(a4.x), b0_0, s4_0), ok4);
			s5_0 = select(s5_0, fma(vec4<f32>(a5.x), b0_0, s5_0), ok5);
			s6_0 = select(s6_0, fma(vec4<f32>(a6.x), b0_0, s6_0), ok6);
			s7_0 = select(s7_0, fma(vec4<f32>(a7.x), b0_0, s7_0), ok7);
			s8_0 = select(s8_0, fma(vec4<f32>(a8.x), b0_0, s8_0), ok8);
			s9_0 = select(s9_0, fma(vec4<f32>(a9.x), b0_0, s9_0), ok9);
			s10_0 = select(s10_0, fma(vec4<f32>(a10.x), b0_0, s10_0), ok10);
			s11_0 = select(s11_0, fma(vec4<f32>(a11.x), b0_0, s11_0), ok11);
			s12_0 = select(s12_0, fma(vec4<f32>(a12.x), b0_0, s12_0), ok12);
			s13_0 = select(s13_0, fma(vec4<f32>(a13.x), b0_0, s13_0), ok13);
			s14_0 = select(s14_0, fma(vec4<f32>(a14.x), b0_0, s14_0), ok14);
			s15_0 = select(s15_0, fma(vec4<f32>(a15.x), b0_0, s15_0), ok15);
			let b0_1 = vec4<f32>(f4.x, f5.x, f6.x, f7.x);
			s0_1 = select(s0_1, fma(vec4<f32>(a0.x), b0_1, s0_1), ok0);
			s1_1 = select(s1_1, fma(vec4<f32>(a1.x), b0_1, s1_1), ok1);
			s2_1 = select(s2_1, fma(vec4<f32>(a2.x), b0_1, s2_1), ok2);
			s3_1 = select(s3_1, fma(vec4<f32>(a3.x), b0_1, s3_1), ok3);
			s4_1 = select(s4_1, fma(vec4<f32>(a4.x), b0_1, s4_1), ok4);
			s5_1 = select(s5_1, fma(vec4<f32>(a5.x), b0_1, s5_1), ok5);
			s6_1 = select(s6_1, fma(vec4<f32>(a6.x), b0_1, s6_1), ok6);
			s7_1 = select(s7_1, fma(vec4<f32>(a7.x), b0_1, s7_1), ok7);
			s8_1 = select(s8_1, fma(vec4<f32>(a8.x), b0_1, s8_1), ok8);
			s9_1 = select(s9_1, fma(vec4<f32>(a9.x), b0_1, s9_1), ok9);
			s10_1 = select(s10_1, fma(vec4<f32>(a10.x), b0_1, s10_1), ok10);
			s11_1 = select(s11_1, fma(vec4<f32>(a11.x), b0_1, s11_1), ok11);
			s12_1 = select(s12_1, fma(vec4<f32>(a12.x), b0_1, s12_1), ok12);
			s13_1 = select(s13_1, fma(vec4<f32>(a13.x), b0_1, s13_1), ok13);
			s14_1 = select(s14_1, fma(vec4<f32>(a14.x), b0_1, s14_1), ok14);
			s15_1 = select(s15_1, fma(vec4<f32>(a15.x), b0_1, s15_1), ok15);
			let b1_0 = vec4<f32>(f0.y, f1.y, f2.y, f3.y);
			s0_0 = select(s0_0, fma(vec4<f32>(a0.y), b1_0, s0_0), ok0);
			s1_0 = select(s1_0, fma(vec4<f32>(a1.y), b1_0, s1_0), ok1);
			s2_0 = select(s2_0, fma(vec4<f32>(a2.y), b1_0, s2_0), ok2);
			s3_0 = select(s3_0, fma(vec4<f32>(a3.y), b1_0, s3_0), ok3);
			s4_0 = select(s4_0, fma(vec4<f32>(a4.y), b1_0, s4_0), ok4);
			s5_0 = select(s5_0, fma(vec4<f32>(a5.y), b1_0, s5_0), ok5);
			s6_0 = select(s6_0, fma(vec4<f32>(a6.y), b1_0, s6_0), ok6);
			s7_0 = select(s7_0, fma(vec4<f32>(a7.y), b1_0, s7_0), ok7);
			s8_0 = select(s8_0, fma(vec4<f32>(a8.y), b1_0, s8_0), ok8);
			s9_0 = select(s9_0, fma(vec4<f32>(a9.y), b1_0, s9_0), ok9);
			s10_0 = select(s10_0, fma(vec4<f32>(a10.y), b1_0, s10_0), ok10);
			s11_0 = select(s11_0, fma(vec4<f32>(a11.y), b1_0, s11_0), ok11);
			s12_0 = select(s12_0, fma(vec4<f32>(a12.y), b1_0, s12_0), ok12);
			s13_0 = select(s13_0, fma(vec4<f32>(a13.y), b1_0, s13_0), ok13);
			s14_0 = select(s14_0, fma(vec4<f32>(a14.y), b1_0, s14_0), ok14);
			s15_0 = select(s15_0, fma(vec4<f32>(a15.y), b1_0, s15_0), ok15);
			let b1_1 = vec4<f32>(f4.y, f5.y, f6.y, f7.y);
			s0_1 = select(s0_1, fma(vec4<f32>(a0.y), b1_1, s0_1), ok0);
			s1_1 = select(s1_1, fma(vec4<f32>(a1.y), b1_1, s1_1), ok1);
			s2_1 = select(s2_1, fma(vec4<f32>(a2.y), b1_1, s2_1), ok2);
			s3_1 = select(s3_1, fma(vec4<f32>(a3.y), b1_1, s3_1), ok3);
			s4_1 = select(s4_1, fma(vec4<f32>(a4.y), b1_1, s4_1), ok4);
			s5_1 = select(s5_1, fma(vec4<f32>(a5.y), b1_1, s5_1), ok5);
			s6_1 = select(s6_1, fma(vec4<f32>(a6.y), b1_1, s6_1), ok6);
			s7_1 = select(s7_1, fma(vec4<f32>(a7.y), b1_1, s7_1), ok7);
			s8_1 = select(s8_1, fma(vec4<f32>(a8.y), b1_1, s8_1), ok8);
			s9_1 = select(s9_1, fma(vec4<f32>(a9.y), b1_1, s9_1), ok9);
			s10_1 = select(s10_1, fma(vec4<f32>(a10.y), b1_1, s10_1), ok10);
			s11_1 = select(s11_1, fma(vec4<f32>(a11.y), b1_1, s11_1), ok11);
			s12_1 = select(s12_1, fma(vec4<f32>(a12.y), b1_1, s12_1), ok12);
			s13_1 = select(s13_1, fma(vec4<f32>(a13.y), b1_1, s13_1), ok13);
			s14_1 = select(s14_1, fma(vec4<f32>(a14.y), b1_1, s14_1), ok14);
			s15_1 = select(s15_1, fma(vec4<f32>(a15.y), b1_1, s15_1), ok15);
			let b2_0 = vec4<f32>(f0.z, f1.z, f2.z, f3.z);
			s0_0 = select(s0_0, fma(vec4<f32>(a0.z), b2_0, s0_0), ok0);
			s1_0 = select(s1_0, fma(vec4<f32>(a1.z), b2_0, s1_0), ok1);
			s2_0 = select(s2_0, fma(vec4<f32>(a2.z), b2_0, s2_0), ok2);
			s3_0 = select(s3_0, fma(vec4<f32>(a3.z), b2_0, s3_0), ok3);
			s4_0 = select(s4_0, fma(vec4<f32>(a4.z), b2_0, s4_0), ok4);
			s5_0 = select(s5_0, fma(vec4<f32>(a5.z), b2_0, s5_0), ok5);
			s6_0 = select(s6_0, fma(vec4<f32>(a6.z), b2_0, s6_0), ok6);
			s7_0 = select(s7_0, fma(vec4<f32>(a7.z), b2_0, s7_0), ok7);
			s8_0 = select(s8_0, fma(vec4<f32>(a8.z), b2_0, s8_0), ok8);
			s9_0 = select(s9_0, fma(vec4<f32>(a9.z), b2_0, s9_0), ok9);
			s10_0 = select(s10_0, fma(vec4<f32>(a10.z), b2_0, s10_0), ok10);
			s11_0 = select(s11_0, fma(vec4<f32>(a11.z), b2_0, s11_0), ok11);
			s12_0 = select(s12_0, fma(vec4<f32>(a12.z), b2_0, s12_0), ok12);
			s13_0 = select(s13_0, fma(vec4<f32>(a13.z), b2_0, s13_0), ok13);
			s14_0 = select(s14_0, fma(vec4<f32>(a14.z), b2_0, s14_0), ok14);
			s15_0 = select(s15_0, fma(vec4<f32>(a15.z), b2_0, s15_0), ok15);
			let b2_1 = vec4<f32>(f4.z, f5.z, f6.z, f7.z);
			s0_1 = select(s0_1, fma(vec4<f32>(a0.z), b2_1, s0_1), ok0);
			s1_1 = select(s1_1, fma(vec4<f32>(a1.z), b2_1, s1_1), ok1);
			s2_1 = select(s2_1, fma(vec4<f32>(a2.z), b2_1, s2_1), ok2);
			s3_1 = select(s3_1, fma(vec4<f32>(a3.z), b2_1, s3_1), ok3);
			s4_1 = select(s4_1, fma(vec4<f32>(a4.z), b2_1, s4_1), ok4);
			s5_1 = select(s5_1, fma(vec4<f32>(a5.z), b2_1, s5_1), ok5);
			s6_1 = select(s6_1, fma(vec4<f32>(a6.z), b2_1, s6_1), ok6);
			s7_1 = select(s7_1, fma(vec4<f32>(a7.z), b2_1, s7_1), ok7);
			s8_1 = select(s8_1, fma(vec4<f32>(a8.z), b2_1, s8_1), ok8);
			s9_1 = select(s9_1, fma(vec4<f32>(a9.z), b2_1, s9_1), ok9);
			s10_1 = select(s10_1, fma(vec4<f32>(a10.z), b2_1, s10_1), ok10);
			s11_1 = select(s11_1, fma(vec4<f32>(a11.z), b2_1, s11_1), ok11);
			s12_1 = select(s12_1, fma(vec4<f32>(a12.z), b2_1, s12_1), ok12);
			s13_1 = select(s13_1, fma(vec4<f32>(a13.z), b2_1, s13_1), ok13);
			s14_1 = select(s14_1, fma(vec4<f32>(a14.z), b2_1, s14_1), ok14);
			s15_1 = select(s15_1, fma(vec4<f32>(a15.z), b2_1, s15_1), ok15);
			let b3_0 = vec4<f32>(f0.w, f1.w, f2.w, f3.w);
			s0_0 = select(s0_0, fma(vec4<f32>(a0.w), b3_0, s0_0), ok0);
			s1_0 = select(s1_0, fma(vec4<f32>(a1.w), b3_0, s1_0), ok1);
			s2_0 = select(s2_0, fma(vec4<f32>(a2.w), b3_0, s2_0), ok2);
			s3_0 = select(s3_0, fma(vec4<f32>(a3.w), b3_0, s3_0), ok3);
			s4_0 = select(s4_0, fma(vec4<f32>(a4.w), b3_0, s4_0), ok4);
			s5_0 = select(s5_0, fma(vec4<f32>(a5.w), b3_0, s5_0), ok5);
			s6_0 = select(s6_0, fma(vec4<f32>(a6.w), b3_0, s6_0), ok6);
			s7_0 = select(s7_0, fma(vec4<f32>(a7.w), b3_0, s7_0), ok7);
			s8_0 = select(s8_0, fma(vec4<f32>(a8.w), b3_0, s8_0), ok8);
			s9_0 = select(s9_0, fma(vec4<f32>(a9.w), b3_0, s9_0), ok9);
			s10_0 = select(s10_0, fma(vec4<f32>(a10.w), b3_0, s10_0), ok10);
			s11_0 = select(s11_0, fma(vec4<f32>(a11.w), b3_0, s11_0), ok11);
			s12_0 = select(s12_0, fma(vec4<f32>(a12.w), b3_0, s12_0), ok12);
			s13_0 = select(s13_0, fma(vec4<f32>(a13.w), b3_0, s13_0), ok13);
			s14_0 = select(s14_0, fma(vec4<f32>(a14.w), b3_0, s14_0), ok14);
			s15_0 = select(s15_0, fma(vec4<f32>(a15.w), b3_0, s15_0), ok15);
			let b3_1 = vec4<f32>(f4.w, f5.w, f6.w, f7.w);
			s0_1 = select(s0_1, fma(vec4<f32>(a0.w), b3_1, s0_1), ok0);
			s1_1 = select(s1_1, fma(vec4<f32>(a1.w), b3_1, s1_1), ok1);
			s2_1 = select(s2_1, fma(vec4<f32>(a2.w), b3_1, s2_1), ok2);
			s3_1 = select(s3_1, fma(vec4<f32>(a3.w), b3_1, s3_1), ok3);
			s4_1 = select(s4_1, fma(vec4<f32>(a4.w), b3_1, s4_1), ok4);
			s5_1 = select(s5_1, fma(vec4<f32>(a5.w), b3_1, s5_1), ok5);
			s6_1 = select(s6_1, fma(vec4<f32>(a6.w), b3_1, s6_1), ok6);
			s7_1 = select(s7_1, fma(vec4<f32>(a7.w), b3_1, s7_1), ok7);
			s8_1 = select(s8_1, fma(vec4<f32>(a8.w), b3_1, s8_1), ok8);
			s9_1 = select(s9_1, fma(vec4<f32>(a9.w), b3_1, s9_1), ok9);
			s10_1 = select(s10_1, fma(vec4<f32>(a10.w), b3_1, s10_1), ok10);
			s11_1 = select(s11_1, fma(vec4<f32>(a11.w), b3_1, s11_1), ok11);
			s12_1 = select(s12_1, fma(vec4<f32>(a12.w), b3_1, s12_1), ok12);
			s13_1 = select(s13_1, fma(vec4<f32>(a13.w), b3_1, s13_1), ok13);
			s14_1 = select(s14_1, fma(vec4<f32>(a14.w), b3_1, s14_1), ok14);
			s15_1 = select(s15_1, fma(vec4<f32>(a15.w), b3_1, s15_1), ok15);
		}
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
