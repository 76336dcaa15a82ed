package kernels

import (
	"fmt"

	"github.com/wgtensor/wgtensor/wgpu"
)

// Copy moves 32-bit words from a strided region of one buffer to a
// strided region of another: for each index c of a Rank-dimensional
// region, out[DstOffset + Σ c·DstStrides] = in[SrcOffset + Σ c·SrcStrides].
// It serves transpose, slice, concat, pad and broadcast, for every 32-bit
// dtype; with Half, for the 16-bit ones, whose elements are the halves of
// words (offsets and strides count elements, and two threads may write
// the two halves of one word, with atomic AND and OR). Its source is
// copy.wgsl; its parameters are CopyParams.
type Copy struct {
	Rank int
	Half bool
}

// CopyParams is the Copy kernel's parameter block. Dims, SrcStrides and
// DstStrides have one word per dimension of the region.
type CopyParams struct {
	Range
	SrcOffset, DstOffset         uint32
	Dims, SrcStrides, DstStrides []uint32
}

// Bytes encodes p.
func (p *CopyParams) Bytes() []byte { return encodeParams(p) }

// Key identifies c's pipeline.
func (c Copy) Key() string {
	if c.Half {
		return fmt.Sprintf("copy/r%d/half", c.Rank)
	}
	return fmt.Sprintf("copy/r%d", c.Rank)
}

// params is an empty block of c's shape.
func (c Copy) params() *CopyParams {
	return &CopyParams{Dims: make([]uint32, c.Rank), SrcStrides: make([]uint32, c.Rank), DstStrides: make([]uint32, c.Rank)}
}

// Spec generates c's kernel.
func (c Copy) Spec() wgpu.KernelSpec {
	p := c.params()
	src := fill("copy.wgsl", map[string]any{"Params": declareParams(p), "WorkgroupSize": WorkgroupSize, "Rank": c.Rank, "Half": c.Half})
	return wgpu.KernelSpec{Name: "copy", Key: c.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
}

// Gather picks slices of a tensor viewed as [outer, axis, inner] by int32
// indices: out[o, j, k] = in[o, idx[j], k], with negative indices counted
// from the end and indices out of range giving 0 (as tfjs does on the GPU).
// With Half its elements are 16-bit halves of words, written as Copy's
// Half writes them. Its source is gather.wgsl; its parameters are
// GatherParams.
type Gather struct{ Half bool }

// GatherParams is the Gather kernel's parameter block: the inner size, the
// count of indices, and the length of the axis gathered along.
type GatherParams struct {
	Range
	Inner, Count, Axis uint32
}

// Bytes encodes p.
func (p *GatherParams) Bytes() []byte { return encodeParams(p) }

// Key identifies the gather pipeline.
func (g Gather) Key() string {
	if g.Half {
		return "gather/half"
	}
	return "gather"
}

// Spec generates the gather kernel.
func (g Gather) Spec() wgpu.KernelSpec {
	p := &GatherParams{}
	src := fill("gather.wgsl", map[string]any{"Params": declareParams(p), "WorkgroupSize": WorkgroupSize, "Half": g.Half})
	return wgpu.KernelSpec{Name: "gather", Key: g.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
}
