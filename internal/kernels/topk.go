package kernels

import (
	"fmt"

	"github.com/wgtensor/wgtensor/wgpu"
)

// TopK ranks the elements of each row of a tensor viewed as [rows,
// Length] and writes the K first of them, in two kernels. The rank
// kernel (Write false) gives one thread per element the number of
// elements of its row that come before it: greater ones, and equal ones
// at a lower index; a NaN comes before every number and the NaNs among
// themselves by index (as in TensorFlow and PyTorch, a NaN is larger
// than everything). Each dispatch counts the columns [Begin, Stop), at
// most TopKChunk of them, adding to the ranks the dispatches before it
// counted (the first, Begin 0, writes them). The write kernel (Write
// true) puts each element whose rank is below K at that place of the
// row's values and its column at that place of the row's int32 indices.
// Ranks are a permutation of a row's columns, so no two threads write
// one place.
//
// The rank costs Length comparisons per element: suited to rows of up to
// some thousands (class scores, candidates), not to sorting millions.
//
// Its source is topk.wgsl; its parameters are TopKParams.
type TopK struct {
	T     Type
	Write bool
}

// TopKParams is the TopK kernels' parameter block: the row length, the
// columns [Begin, Stop) a rank dispatch counts, and K.
type TopKParams struct {
	Range
	Length, Begin, Stop, K uint32
}

// Bytes encodes p.
func (p *TopKParams) Bytes() []byte { return encodeParams(p) }

// TopKChunk is the most columns one rank dispatch counts.
const TopKChunk = 1 << 12

// Key identifies k's pipeline.
func (k TopK) Key() string { return fmt.Sprintf("top_k/%s/%v", k.T, k.Write) }

// Spec generates k's kernel.
func (k TopK) Spec() wgpu.KernelSpec {
	p := &TopKParams{}
	order := orderF32
	if k.T != F32 {
		order = fmt.Sprintf("fn is_nan(v: %[1]s) -> bool { return false; }\nfn ord(v: %[1]s) -> %[1]s { return v; }", k.T)
	}
	src := fill("topk.wgsl", map[string]any{"Params": declareParams(p), "WorkgroupSize": WorkgroupSize,
		"T": k.T, "Write": k.Write, "Order": order})
	bindings := []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}
	if k.Write {
		bindings = []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite, wgpu.ReadWrite}
	}
	return wgpu.KernelSpec{Name: "top_k", Key: k.Key(), Source: src,
		Bindings: bindings, Params: true, ParamsSize: paramsSizeOf(p)}
}

// ThreadWork is the work of one thread of k comparing its element with
// columns others (the write kernel: none).
func (TopK) ThreadWork(columns int) float64 { return 16 + 4*float64(columns) }
