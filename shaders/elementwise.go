package shaders

import (
	"fmt"
	"strings"

	"github.com/wgtensor/wgtensor/wgpu"
)

// Operand is one input of an elementwise kernel.
type Operand struct {
	Type Type
	// Strided inputs are read through per-dimension strides (0 where the
	// input is broadcast); the others have the output's shape and are read
	// at the output's flat index.
	Strided bool
}

// Map is an elementwise kernel: out[i] = Expr, where Expr is a WGSL
// expression of type Out over the inputs' values a0, a1, ..., the flat
// index i (u32) and the scalars s (vec4<f32>).
//
// Its metadata words are the output's Rank dimensions, then Rank strides for
// each strided input, in input order. Header word 2 is free for the
// expression's use as p.h2, word 3 as p.h3.
type Map struct {
	Name    string // names the kernel in errors: the op, e.g. "add"
	Inputs  []Operand
	Out     Type
	Rank    int // the output's rank; used only when an input is strided
	Expr    string
	Helpers string // extra WGSL functions Expr calls
}

// Key identifies m's pipeline.
func (m Map) Key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "map/%s/%s/r%d", m.Name, m.Out, m.Rank)
	for _, in := range m.Inputs {
		fmt.Fprintf(&b, "/%s", in.Type)
		if in.Strided {
			b.WriteString("s")
		}
	}
	fmt.Fprintf(&b, "/%s/%s", m.Expr, m.Helpers)
	return b.String()
}

func (m Map) strided() int {
	n := 0
	for _, in := range m.Inputs {
		if in.Strided {
			n++
		}
	}
	return n
}

// MetaWords is how many metadata words m takes.
func (m Map) MetaWords() int {
	if m.strided() == 0 {
		return 0
	}
	return m.Rank * (1 + m.strided())
}

// Spec generates m's kernel.
func (m Map) Spec() wgpu.KernelSpec {
	var b strings.Builder
	b.WriteString(paramsStruct(m.MetaWords()))
	access := make([]wgpu.Access, 0, len(m.Inputs)+1)
	for k, in := range m.Inputs {
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read> in%d: array<%s>;\n", k, k, in.Type)
		access = append(access, wgpu.ReadOnly)
	}
	fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read_write> out: array<%s>;\n", len(m.Inputs), m.Out)
	fmt.Fprintf(&b, "@group(0) @binding(%d) var<uniform> p: Params;\n", len(m.Inputs)+1)
	access = append(access, wgpu.ReadWrite)
	b.WriteString(m.Helpers)
	fmt.Fprintf(&b, `
@compute @workgroup_size(%d)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
	let i = g.x + g.y * p.row;
	if (i >= p.n) { return; }
	let s = p.s;
`, WorkgroupSize)
	if ns := m.strided(); ns > 0 {
		// Walk the output's dimensions from the innermost, accumulating each
		// strided input's offset.
		b.WriteString("\tvar rem = i;\n")
		for k := range ns {
			fmt.Fprintf(&b, "\tvar o%d = 0u;\n", k)
		}
		for d := m.Rank - 1; d >= 0; d-- {
			fmt.Fprintf(&b, "\t{ let dim = %s; let c = rem %% dim; rem = rem / dim;", meta(d))
			for k := range ns {
				fmt.Fprintf(&b, " o%d += c * %s;", k, meta(m.Rank*(1+k)+d))
			}
			b.WriteString(" }\n")
		}
	}
	k := 0
	for j, in := range m.Inputs {
		if in.Strided {
			fmt.Fprintf(&b, "\tlet a%d = in%d[o%d];\n", j, j, k)
			k++
		} else {
			fmt.Fprintf(&b, "\tlet a%d = in%d[i];\n", j, j)
		}
	}
	fmt.Fprintf(&b, "\tout[i] = %s;\n}\n", m.Expr)
	return wgpu.KernelSpec{Name: m.Name, Key: m.Key(), Source: b.String(), Bindings: access, Params: true}
}

// Philox is the WGSL of the Philox4x32-10 counter-based generator (Salmon
// et al., "Parallel random numbers: as easy as 1, 2, 3", 2011):
// philox(counter, key) returns four independent 32-bit words. It uses only
// 32-bit integer arithmetic, so every backend produces the same bits.
const Philox = `
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
`
