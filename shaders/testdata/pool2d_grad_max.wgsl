struct Params {
	first: u32,
	end: u32,
	row: u32,
	c: u32,
	in_h: u32,
	in_w: u32,
	out_h: u32,
	out_w: u32,
	kernel_h: u32,
	kernel_w: u32,
	stride_h: u32,
	stride_w: u32,
	pad_top: u32,
	pad_left: u32,
	dilation_h: u32,
	dilation_w: u32,
	count_top: u32,
	count_bottom: u32,
	count_left: u32,
	count_right: u32,
}

@group(0) @binding(0) var<storage, read> arg: array<i32>;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read_write> dx: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

// first is the first window, of those stride apart, whose extent of
// ext covers the padded position at.
fn first(at: u32, ext: u32, stride: u32) -> u32 {
	if (at < ext) { return 0u; }
	return (at - ext + stride) / stride;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first;
	if (i >= p.end) { return; }
	let c = i % p.c;
	var t = i / p.c;
	let ix = t % p.in_w;
	t = t / p.in_w;
	let iy = t % p.in_h;
	let n = t / p.in_h;
	let py = iy + p.pad_top;
	let px = ix + p.pad_left;
	// The windows whose dilated extent covers the element (with Max, the
	// arg names it only where a tap of the window falls on it).
	let oylo = first(py, (p.kernel_h - 1u) * p.dilation_h + 1u, p.stride_h);
	let oyhi = min(py / p.stride_h + 1u, p.out_h);
	let oxlo = first(px, (p.kernel_w - 1u) * p.dilation_w + 1u, p.stride_w);
	let oxhi = min(px / p.stride_w + 1u, p.out_w);
	// The windows [oylo, oyhi) × [oxlo, oxhi), walked as one span in
	// row-major order, .Unroll a trip (see LoopTrips).
	let ww = select(0u, oxhi - oxlo, oxhi > oxlo);
	let count = select(0u, oyhi - oylo, oyhi > oylo) * ww;
	var oy = oylo;
	var ox = oxlo;
	var o = ((n * p.out_h + oy) * p.out_w + ox) * p.c + c;
	let skip = (p.out_w - ww + 1u) * p.c;
	let me = i32(iy * p.in_w + ix);
	var sum = 0.0;
	var k = 0u;
	for (; k + 4u <= count; k += 4u) {
		{
			if (arg[o] == me) { sum += dy[o]; }
			ox++;
			let wrap = ox == oxhi;
			ox = select(ox, oxlo, wrap);
			oy = select(oy, oy + 1u, wrap);
			o += select(p.c, skip, wrap);
		}
		{
			if (arg[o] == me) { sum += dy[o]; }
			ox++;
			let wrap = ox == oxhi;
			ox = select(ox, oxlo, wrap);
			oy = select(oy, oy + 1u, wrap);
			o += select(p.c, skip, wrap);
		}
		{
			if (arg[o] == me) { sum += dy[o]; }
			ox++;
			let wrap = ox == oxhi;
			ox = select(ox, oxlo, wrap);
			oy = select(oy, oy + 1u, wrap);
			o += select(p.c, skip, wrap);
		}
		{
			if (arg[o] == me) { sum += dy[o]; }
			ox++;
			let wrap = ox == oxhi;
			ox = select(ox, oxlo, wrap);
			oy = select(oy, oy + 1u, wrap);
			o += select(p.c, skip, wrap);
		}
	}
	for (; k < count; k++)
		{
			if (arg[o] == me) { sum += dy[o]; }
			ox++;
			let wrap = ox == oxhi;
			ox = select(ox, oxlo, wrap);
			oy = select(oy, oy + 1u, wrap);
			o += select(p.c, skip, wrap);
		}
	dx[i] = sum;
}
