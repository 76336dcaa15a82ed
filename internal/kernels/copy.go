package kernels

import (
	"fmt"

	"github.com/wgtensor/wgtensor/wgpu"
)

// Copy moves 32-bit words from a strided region of one buffer to a
// strided region of another: for each index c of a Rank-dimensional
// region, out[DstOffset + Σ c·DstStrides] = in[SrcOffset + Σ c·SrcStrides].
// It serves transpose, slice, concat, pad and broadcast, for every 32-bit
// dtype; with PerWord 2 or 4, for the 16-bit or 8-bit ones, whose
// elements are the halves or bytes of words (offsets and strides count
// elements, and threads may write the parts of one word together, each
// with atomic AND and OR on its own bits). Its source is copy.wgsl; its
// parameters are CopyParams.
type Copy struct {
	Rank    int
	PerWord int // elements a word holds: 1 (or 0), 2 or 4
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
	return fmt.Sprintf("copy/r%d%s", c.Rank, narrowKey(c.PerWord))
}

// params is an empty block of c's shape.
func (c Copy) params() *CopyParams {
	return &CopyParams{Dims: make([]uint32, c.Rank), SrcStrides: make([]uint32, c.Rank), DstStrides: make([]uint32, c.Rank)}
}

// Spec generates c's kernel.
func (c Copy) Spec() wgpu.KernelSpec {
	p := c.params()
	src := fill("copy.wgsl", map[string]any{"Params": declareParams(p), "WorkgroupSize": WorkgroupSize, "Rank": c.Rank, "Narrow": narrowOf(c.PerWord)})
	return wgpu.KernelSpec{Name: "copy", Key: c.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
}

// Gather picks slices of a tensor viewed as [outer, axis, inner] by int32
// indices: out[o, j, k] = in[o, idx[j], k], with negative indices counted
// from the end and indices out of range giving 0 (as tfjs does on the GPU).
// With PerWord 2 or 4 its elements are the 16-bit halves or the bytes of
// words, written as Copy's are. Its source is gather.wgsl; its parameters
// are GatherParams.
type Gather struct {
	PerWord int // elements a word holds: 1 (or 0), 2 or 4
}

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
	return "gather" + narrowKey(g.PerWord)
}

// Spec generates the gather kernel.
func (g Gather) Spec() wgpu.KernelSpec {
	p := &GatherParams{}
	src := fill("gather.wgsl", map[string]any{"Params": declareParams(p), "WorkgroupSize": WorkgroupSize, "Narrow": narrowOf(g.PerWord)})
	return wgpu.KernelSpec{Name: "gather", Key: g.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
}

// narrowKey is the key part of a Copy or Gather of perWord elements a
// word: "/half", "/byte", or none for words.
func narrowKey(perWord int) string {
	switch perWord {
	case 2:
		return "/half"
	case 4:
		return "/byte"
	}
	return ""
}

// narrowElems is the template data of copy.wgsl's narrow_elements: how
// element i of an array of words holding perWord elements is found (word
// i >> Shift, bits (i & Lane) * Bits on, Ones its mask), or nil for words.
type narrowElems struct {
	Shift, Lane, Bits int
	Ones              string
}

func narrowOf(perWord int) *narrowElems {
	switch perWord {
	case 2:
		return &narrowElems{Shift: 1, Lane: 1, Bits: 16, Ones: "0xffffu"}
	case 4:
		return &narrowElems{Shift: 2, Lane: 3, Bits: 8, Ones: "0xffu"}
	}
	return nil
}
