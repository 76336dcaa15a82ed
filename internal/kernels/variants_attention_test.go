package kernels

import (
	"fmt"

	"github.com/wgtensor/wgtensor/wgpu"
)

// attentionPasses are the constants of AttentionPass, in order.
var attentionPasses = []AttentionPass{AttentionForward, AttentionGradQ, AttentionGradKV}

// attentionSizes are the values of Attention's sizes that
// attentionVariants covers: head dimensions of none, of whole vec4s and
// of a partial one (scalar loads), and each row count.
var attentionSizes = map[string][]string{
	"D":    {"0", "3", "4", "8"},
	"Dv":   {"0", "3", "4", "5", "8"},
	"Rows": {"1", "2", "4"},
}

// attentionVariants lists representative variants of each Attention
// kernel: every pass with each mask, key padding, dropout, row count and
// kind of head dimension (D and Dv are part of a variant: these are small
// ones).
func attentionVariants() []variant {
	var vs []variant
	for _, pass := range attentionPasses {
		for _, a := range []Attention{
			{D: 8, Dv: 8, Rows: 4},
			{D: 3, Dv: 5, Rows: 2, MaskAdd: true, KeyPadding: true},
			{D: 4, Dv: 3, Rows: 1, MaskBool: true, Dropout: true},
			{D: 0, Dv: 4, Rows: 1},
			{D: 8, Dv: 0, Rows: 2, MaskAdd: true, Dropout: true},
		} {
			a.Pass = pass
			name := fmt.Sprintf("attention_%s_d%d_dv%d_r%d%s%s%s%s", pass, a.D, a.Dv, a.Rows,
				flag(a.MaskAdd, "_add"), flag(a.MaskBool, "_bool"), flag(a.KeyPadding, "_pad"), flag(a.Dropout, "_dropout"))
			var k interface{ Spec() wgpu.KernelSpec } = a
			vs = append(vs, variant{Name: name, Kernel: a, Spec: k.Spec(), ParamsLen: len(a.params().Bytes())})
		}
	}
	// The gradient of a packed q, k, v: grad_kv writes dk and dv to one
	// binding, whole vec4s and scalar rows.
	for _, a := range []Attention{
		{Pass: AttentionGradKV, D: 8, Dv: 8, Rows: 4, PackedKV: true},
		{Pass: AttentionGradKV, D: 3, Dv: 3, Rows: 2, PackedKV: true, MaskAdd: true, KeyPadding: true, Dropout: true},
	} {
		name := fmt.Sprintf("attention_%s_d%d_dv%d_r%d%s%s%s_packed", a.Pass, a.D, a.Dv, a.Rows,
			flag(a.MaskAdd, "_add"), flag(a.KeyPadding, "_pad"), flag(a.Dropout, "_dropout"))
		vs = append(vs, variant{Name: name, Kernel: a, Spec: a.Spec(), ParamsLen: len(a.params().Bytes())})
	}
	// The mask ops of package tensor are elementwise programs whose
	// nodes read the element's position (Tril, Triu) or a mask and a
	// fill value's bits (MaskedFill).
	for _, p := range []namedProgram{
		{"elementwise_f32_tril", Elementwise{
			Leaves: []Leaf{{Type: F32}},
			Nodes: []Node{{Name: "tril", Out: F32, Args: []Ref{{true, 0}}, Store: true,
				Expr: "select(f32(0), a0, i32(i % h2) - i32((i % h3) / h2) <= i32(s.x) * 65536 + i32(s.y))"}}}},
		{"elementwise_i32_masked_fill_broadcast_vec4", Elementwise{Vec4: true, Rank: 2,
			Leaves: []Leaf{{Type: I32}, {Type: U32, Strided: true, Splat: true}},
			Nodes: []Node{{Name: "masked_fill", Out: I32, Args: []Ref{{true, 0}, {true, 1}}, Store: true,
				Expr: "select(a0, bitcast<i32>(h2), a1 != 0u)"}}}},
	} {
		vs = append(vs, variant{Name: p.name, Kernel: p.k, Spec: p.k.Spec(),
			ParamsLen: len(p.k.Params(0, 0, 0, make([]NodeParams, len(p.k.Nodes)), make([]uint32, p.k.MetaWords())))})
	}
	return vs
}
