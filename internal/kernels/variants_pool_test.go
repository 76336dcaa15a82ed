package kernels

import (
	"fmt"

	"github.com/wgtensor/wgtensor/wgpu"
)

// poolVariants lists the variants of the pooling, one-hot, cumulative sum,
// top-k and layer norm kernels.
func poolVariants() []variant {
	var vs []variant
	add := func(name string, k interface{ Spec() wgpu.KernelSpec }, block Block) {
		vs = append(vs, variant{Name: name, Kernel: k, Spec: k.Spec(), ParamsLen: len(block.Bytes())})
	}
	for _, k := range []Pool2D{{}, {Max: true}, {Max: true, Arg: true}, {Vec4: true}, {Max: true, Vec4: true},
		{Max: true, Storage: Float16}, {Vec4: true, Storage: BFloat16}, {Max: true, Arg: true, Storage: BFloat16}, {Max: true, Vec4: true, Storage: Float16}} {
		name := "pool2d" + flag(k.Max, "_max") + flag(!k.Max, "_avg") + flag(k.Arg, "_arg") + flag(k.Vec4, "_vec4")
		if k.Storage != Word {
			name += "_" + k.Storage.String()
		}
		add(name, k, &Pool2DParams{})
	}
	for _, max := range []bool{false, true} {
		add("pool2d_grad"+flag(max, "_max")+flag(!max, "_avg"), Pool2DGrad{Max: max}, &Pool2DParams{})
		add("pool2d_grad"+flag(max, "_max")+flag(!max, "_avg")+"_scatter", Pool2DGrad{Max: max, Scatter: true}, &Pool2DParams{})
		add("pool2d_grad"+flag(max, "_max")+flag(!max, "_avg")+"_scatter_vec4", Pool2DGrad{Max: max, Scatter: true, Vec4: true}, &Pool2DParams{})
	}
	add("one_hot", OneHot{}, &OneHotParams{})
	add("layer_norm", LayerNorm{}, &LayerNormParams{})
	for _, T := range types {
		add(fmt.Sprintf("scan_%s_totals", T), Scan{T: T, Totals: true}, &ScanParams{})
		for _, ex := range []bool{false, true} {
			for _, rev := range []bool{false, true} {
				for _, off := range []bool{false, true} {
					k := Scan{T: T, Exclusive: ex, Reverse: rev, Offset: off}
					add(fmt.Sprintf("scan_%s%s%s%s", T, flag(ex, "_exclusive"), flag(rev, "_reverse"), flag(off, "_offset")), k, &ScanParams{})
				}
			}
		}
		for _, write := range []bool{false, true} {
			add(fmt.Sprintf("top_k_%s%s", T, flag(write, "_write")), TopK{T: T, Write: write}, &TopKParams{})
		}
	}
	return vs
}
