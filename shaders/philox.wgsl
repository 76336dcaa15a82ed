
fn mulhilo(a: u32, b: u32) -> vec2<u32> {
	let al = a & 0xffffu; let ah = a >> 16u;
	let bl = b & 0xffffu; let bh = b >> 16u;
	let ll = al * bl; let lh = al * bh; let hl = ah * bl; let hh = ah * bh;
	let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
	return vec2<u32>(hh + (lh >> 16u) + (hl >> 16u) + (mid >> 16u), (mid << 16u) | (ll & 0xffffu));
}
fn philox(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
	var c = counter;
	var k = key;
	for (var r = 0u; r < 10u; r++) {
		let p0 = mulhilo(0xD2511F53u, c.x);
		let p1 = mulhilo(0xCD9E8D57u, c.z);
		c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y);
		k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
	}
	return c;
}
fn unit(x: u32) -> f32 { return f32(x >> 8u) * (1.0 / 16777216.0); }
