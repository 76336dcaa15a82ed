package kernels

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// epilogueVariants lists a MatMulEpilogue of each matmul kernel, with C
// stored and not: a projection's bias (strided), a parametrised scale, a
// residual (read at the flat index), the product and the sum both used.
func epilogueVariants() []variant {
	prog := Elementwise{Rank: 3,
		Leaves: []Leaf{{Type: F32, Product: true}, {Type: F32, Strided: true}, {Type: F32}},
		Nodes: []Node{
			{Name: "add", Out: F32, Expr: "a0 + a1", Args: []Ref{{true, 0}, {true, 1}}},
			{Name: "mul_scalar", Out: F32, Expr: "a0 * s.x", Args: []Ref{{false, 0}}, Store: true},
			{Name: "add", Out: F32, Expr: "a0 + a1", Args: []Ref{{false, 1}, {true, 2}}, Store: true},
		}}
	var vs []variant
	for _, kind := range []string{"tiled", "register", "vec4", "small"} {
		for _, storeC := range []bool{false, true} {
			m := MatMulEpilogue{MatMul: MatMul{BatchRank: 1, TransB: kind == "vec4", Register: kind == "register", Vec4: kind == "vec4", Small: kind == "small"},
				Program: prog, StoreC: storeC}
			p := m.Params(m.MatMul.params(), make([]NodeParams, len(prog.Nodes)), make([]uint32, prog.MetaWords()))
			vs = append(vs, variant{Name: fmt.Sprintf("matmul_epilogue_%s%s", kind, flag(storeC, "_c")), Kernel: m, Spec: m.Spec(), ParamsLen: len(p)})
		}
	}
	// The sums of A's rows and B's columns, with each transpose of their
	// operand, alone and with an epilogue.
	for _, kind := range []string{"tiled", "register", "vec4", "small"} {
		for _, sumA := range []bool{false, true} {
			for _, trans := range []bool{false, true} {
				m := MatMul{Register: kind == "register", Vec4: kind == "vec4", Small: kind == "small", SumA: sumA, SumB: !sumA}
				m.TransA, m.TransB = sumA && trans, !sumA && trans
				name := fmt.Sprintf("matmul_%s%s%s_sum_%s", kind, flag(m.TransA, "_ta"), flag(m.TransB, "_tb"), map[bool]string{true: "a", false: "b"}[sumA])
				vs = append(vs, variant{Name: name, Kernel: m, Spec: m.Spec(), ParamsLen: len(m.params().Bytes())})
			}
			ep := MatMulEpilogue{MatMul: MatMul{Register: kind == "register", Vec4: kind == "vec4", Small: kind == "small", SumA: sumA, SumB: !sumA},
				Program: Elementwise{Rank: 2, Leaves: prog.Leaves[:2], Nodes: prog.Nodes[:1]}}
			ep.Program.Nodes = []Node{{Name: "add", Out: F32, Expr: "a0 + a1", Args: []Ref{{true, 0}, {true, 1}}, Store: true}}
			p := ep.Params(ep.MatMul.params(), make([]NodeParams, 1), make([]uint32, ep.Program.MetaWords()))
			vs = append(vs, variant{Name: fmt.Sprintf("matmul_epilogue_%s_sum_%s", kind, map[bool]string{true: "a", false: "b"}[sumA]), Kernel: ep, Spec: ep.Spec(), ParamsLen: len(p)})
		}
	}
	return vs
}

// An epilogue kernel binds A, B, C when stored, the program's leaves but
// the product, and its stored nodes; it never reads C, and it stores
// only through put.
func TestMatMulEpilogueBindings(t *testing.T) {
	for _, v := range epilogueVariants() {
		m, ok := v.Kernel.(MatMulEpilogue)
		if !ok || m.SumA || m.SumB {
			continue
		}
		want := 6 // A, B, the bias and the residual, two stored nodes
		if m.StoreC {
			want++
		}
		assert.Len(t, v.Spec.Bindings, want, v.Name)
		src := v.Spec.Source
		assert.Equal(t, m.StoreC, strings.Contains(src, "var<storage, read_write> c:"), v.Name)
		assert.NotContains(t, src, "= c[", v.Name)
		assert.NotContains(t, src, "k_first > 0u", v.Name)
		// put calls the epilogue once, and the kernel calls put once: each
		// call inlines the program.
		assert.Equal(t, 2, strings.Count(src, "epilogue("), v.Name)
		assert.Equal(t, 2, strings.Count(src, "put("), v.Name)
	}
}
