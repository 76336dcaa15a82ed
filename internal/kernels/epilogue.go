package kernels

import (
	"fmt"
	"math"
	"strings"

	"github.com/wgtensor/wgtensor/wgpu"
)

// MatMulEpilogue is a MatMul kernel that, where it would store an element
// of C, evaluates an Elementwise program on it instead: the bias added to
// a projection, its activation, a residual added, a scale, a gradient's
// mask, in the registers that hold the product, so that the ops after a
// product are not dispatches of their own and the product is not read
// back from memory.
//
// Program's leaves include exactly one Product leaf (the element of C);
// its other leaves and its stored nodes are the kernel's bindings after A
// and B (see Elementwise), C itself first among them when StoreC, then
// the sums of SumA or SumB. Strided
// leaves are read through strides over C's shape (the batch dimensions,
// M, N), of rank Program.Rank, at offsets worked out from the element's
// matrix, row and column (no division but over batch dimensions).
// Program.Vec4 is ignored: the program runs once per element of C, with i
// the element's flat index in C.
//
// Every node is evaluated by the function an Elementwise kernel evaluates
// it with, and the product reaches the first node through the same
// opaque identity as a value passed between nodes: the results are those
// of the product and the ops dispatched one after the other, bit for bit.
//
// An epilogue kernel sums the whole inner dimension in one dispatch: its
// parameters' range of k must be [0, K) (a product whose k is summed in
// ranges, see MatMulKRange, keeps its ops apart).
type MatMulEpilogue struct {
	MatMul
	Program Elementwise
	StoreC  bool
}

// epilogueParams is a MatMulEpilogue's uniform block: the product's, then
// the word values passed between nodes are XORed with (always 0), and the
// program's node parameters (each slot's scalars, as float bits, and its
// words, four words each) and metadata.
type epilogueParams struct {
	MatMulParams
	Zero                       uint32
	EpScalars, EpWords, EpMeta []uint32
}

// Key identifies m's pipeline.
func (m MatMulEpilogue) Key() string {
	return fmt.Sprintf("%s+%s/%v", m.MatMul.Key(), m.Program.Key(), m.StoreC)
}

// Name names m's kernel: "matmul+" and the program's ops, e.g.
// "matmul+add+gelu"; "matmul" for a program of no ops.
func (m MatMulEpilogue) Name() string {
	if len(m.Program.Nodes) == 0 {
		return "matmul"
	}
	return "matmul+" + m.Program.Name()
}

// params is an empty block of m's shape.
func (m MatMulEpilogue) params() *epilogueParams {
	slots := max(1, m.Program.paramSlots())
	return &epilogueParams{MatMulParams: *m.MatMul.params(),
		EpScalars: make([]uint32, 4*slots), EpWords: make([]uint32, 4*slots), EpMeta: make([]uint32, m.Program.MetaWords())}
}

// Params encodes m's uniform block: the product's parameters p, then the
// program's node parameters (one entry per node, as Elementwise.Params
// takes them) and metadata words.
func (m MatMulEpilogue) Params(p *MatMulParams, nodes []NodeParams, meta []uint32) []byte {
	q := m.params()
	q.MatMulParams = *p
	slot := 0
	for i, n := range m.Program.Nodes {
		if !n.HasParams() {
			continue
		}
		for j, f := range nodes[i].Scalars {
			q.EpScalars[4*slot+j] = math.Float32bits(f)
		}
		q.EpWords[4*slot], q.EpWords[4*slot+1] = nodes[i].Words[0], nodes[i].Words[1]
		slot++
	}
	copy(q.EpMeta, meta)
	return encodeParams(q)
}

// Spec generates m's kernel.
func (m MatMulEpilogue) Spec() wgpu.KernelSpec {
	elem := "f32"
	if m.Vec4 {
		elem = "vec4<f32>"
	}
	var b strings.Builder
	access := []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly}
	if m.StoreC {
		fmt.Fprintf(&b, "@group(0) @binding(2) var<storage, read_write> c: array<%s>;\n", elem)
		access = append(access, wgpu.ReadWrite)
	}
	if m.SumA || m.SumB {
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read_write> sums: array<f32>;\n", len(access))
		access = append(access, wgpu.ReadWrite)
	}
	access = append(access, m.Program.declare(&b, len(access))...)
	fmt.Fprintf(&b, "@group(0) @binding(%d) var<uniform> p: Params;\n", len(access))
	m.Program.functions(&b)
	b.WriteString("fn epilogue(i: u32, z: u32, r: u32, col: u32, v: f32) {\n")
	m.Program.matrixOffsets(&b, "ep_meta")
	m.Program.scalarElement(&b, func(slot int) string {
		return fmt.Sprintf("bitcast<vec4<f32>>(p.ep_scalars[%d]), p.ep_words[%d].x, p.ep_words[%d].y", slot, slot, slot)
	})
	b.WriteString("}\n")
	fmt.Fprintf(&b, "fn put(i: u32, z: u32, r: u32, col: u32, v: %s) {\n", elem)
	if m.StoreC {
		b.WriteString("\tc[i] = v;\n")
	}
	if m.Vec4 {
		// A loop, not four calls: each call inlines the program, and four
		// copies took lavapipe 0.4 s more to compile.
		b.WriteString("\tfor (var j = 0u; j < 4u; j++) { epilogue(4u * i + j, z, r, col + j, v[j]); }\n")
	} else {
		b.WriteString("\tepilogue(i, z, r, col, v);\n")
	}
	b.WriteString("}")
	src := m.source(matmulKernel{MatMul: m.MatMul, Params: declareParams(m.params()), Epilogue: b.String()})
	return wgpu.KernelSpec{Name: m.Name(), Key: m.Key(), Source: src, Bindings: access, Params: true, ParamsSize: paramsSizeOf(m.params())}
}

// ThreadWork is the work the epilogue adds to each element of C: its
// program's, with its index arithmetic.
func (m MatMulEpilogue) ThreadWork() float64 { return m.Program.ThreadWork() }

// GroupWork is the work of one workgroup of m: its product's (see
// MatMul.GroupWork) and its epilogue's for each element of its tile.
func (m MatMulEpilogue) GroupWork(K int) float64 {
	elems := m.TileRows() * m.TileCols()
	if m.Small {
		elems = SmallThreads * SmallBlock * SmallBlock
	}
	return m.MatMul.GroupWork(K) + float64(elems)*m.ThreadWork()
}
