package shaders

import (
	"fmt"
	"strings"

	"github.com/wgtensor/wgtensor/wgpu"
)

// Copy moves 32-bit words from a strided region of one buffer to a
// strided region of another: for each index c of a Rank-dimensional
// region, out[h3 + Σ c·outStride] = in[h2 + Σ c·inStride]. It serves
// transpose, slice, concat, pad and broadcast, for every 32-bit dtype.
//
// Metadata: Rank dimensions, Rank input strides, Rank output strides.
type Copy struct{ Rank int }

// Key identifies c's pipeline.
func (c Copy) Key() string { return fmt.Sprintf("copy/r%d", c.Rank) }

// MetaWords is how many metadata words c takes.
func (c Copy) MetaWords() int { return 3 * c.Rank }

// Spec generates c's kernel.
func (c Copy) Spec() wgpu.KernelSpec {
	var b strings.Builder
	b.WriteString(paramsStruct(c.MetaWords()))
	fmt.Fprintf(&b, `@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> p: Params;
@compute @workgroup_size(%d)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first.x;
	if (i >= p.n) { return; }
	var rem = i;
	var si = p.h2;
	var di = p.h3;
`, WorkgroupSize)
	for d := c.Rank - 1; d >= 0; d-- {
		fmt.Fprintf(&b, "\t{ let dim = %s; let c = rem %% dim; rem = rem / dim; si += c * %s; di += c * %s; }\n",
			meta(d), meta(c.Rank+d), meta(2*c.Rank+d))
	}
	b.WriteString("\tdst[di] = src[si];\n}\n")
	return wgpu.KernelSpec{Name: "copy", Key: c.Key(), Source: b.String(),
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSize(c.MetaWords())}
}

// Gather picks slices of a tensor viewed as [outer, axis, inner] by int32
// indices: out[o, j, k] = in[o, idx[j], k], with negative indices counted
// from the end and indices out of range giving 0 (as tfjs does on the GPU).
//
// Header: n, row, inner, count of indices. Metadata: the axis length.
type Gather struct{}

// Key identifies the gather pipeline.
func (Gather) Key() string { return "gather" }

// Spec generates the gather kernel.
func (Gather) Spec() wgpu.KernelSpec {
	src := paramsStruct(1) + fmt.Sprintf(`@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read> idx: array<i32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<uniform> p: Params;
@compute @workgroup_size(%d)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row + p.first.x;
	if (i >= p.n) { return; }
	let inner = p.h2;
	let count = p.h3;
	let axis = p.m[0][0];
	let k = i %% inner;
	let t = i / inner;
	let j = t %% count;
	let o = t / count;
	var x = idx[j];
	if (x < 0) { x = x + i32(axis); }
	if (x < 0 || u32(x) >= axis) { dst[i] = 0u; return; }
	dst[i] = src[(o * axis + u32(x)) * inner + k];
}
`, WorkgroupSize)
	return wgpu.KernelSpec{Name: "gather", Key: Gather{}.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSize(1)}
}
