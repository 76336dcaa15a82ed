package kernels

import (
	"fmt"

	"github.com/wgtensor/wgtensor/wgpu"
)

// Scan computes cumulative sums along the axis of a tensor viewed as
// [outer, Length, inner], in segments of at most ScanSegment elements: one
// thread per (outer, segment, inner) runs through its segment in order
// (from its end with Reverse), adding up. With Exclusive an element's sum
// leaves the element itself out. With Offset the thread starts from
// off[thread] instead of zero (the sum of the segments before it); with
// Totals it writes only its segment's sum, to dst[thread]. A long axis so
// takes three steps (totals, a scan of the totals, the offset scan), and
// no thread loops more than ScanSegment times.
//
// Its source is cumsum.wgsl; its parameters are ScanParams.
type Scan struct {
	T                                  Type
	Exclusive, Reverse, Offset, Totals bool
}

// ScanParams is the Scan kernel's parameter block: the inner size, the
// axis length, the segment length and the number of segments.
type ScanParams struct {
	Range
	Inner, Length, Segment, Segs uint32
}

// Bytes encodes p.
func (p *ScanParams) Bytes() []byte { return encodeParams(p) }

// ScanSegment is the most elements one Scan thread adds up.
const ScanSegment = 1 << 10

// Key identifies k's pipeline.
func (k Scan) Key() string {
	return fmt.Sprintf("scan/%s/%v/%v/%v/%v", k.T, k.Exclusive, k.Reverse, k.Offset, k.Totals)
}

// Spec generates k's kernel.
func (k Scan) Spec() wgpu.KernelSpec {
	p := &ScanParams{}
	src := fill("cumsum.wgsl", map[string]any{"Params": declareParams(p), "WorkgroupSize": WorkgroupSize,
		"T": k.T, "Exclusive": k.Exclusive, "Reverse": k.Reverse, "Offset": k.Offset && !k.Totals, "Totals": k.Totals})
	bindings := []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}
	if k.Offset && !k.Totals {
		bindings = append(bindings, wgpu.ReadOnly)
	}
	return wgpu.KernelSpec{Name: "scan", Key: k.Key(), Source: src,
		Bindings: bindings, Params: true, ParamsSize: paramsSizeOf(p)}
}

// ThreadWork is the work of one thread of k over a segment of length
// elements.
func (Scan) ThreadWork(length int) float64 { return 24 + 4*float64(length) }
