package kernels

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/wgpu"
)

func TestGridStaysWithinTheLimit(t *testing.T) {
	for _, n := range []uint64{1, 255, 256, 257, 65535 * 256, 65535*256 + 1, 1 << 26} {
		g, row, err := Grid(n, 256, 65535)
		require.NoError(t, err)
		assert.LessOrEqual(t, g[0], uint32(65535))
		assert.LessOrEqual(t, g[1], uint32(65535))
		assert.Equal(t, g[0]*256, row)
		assert.GreaterOrEqual(t, uint64(g[0])*uint64(g[1])*256, n, "covers every thread")
		assert.Less(t, uint64(g[0])*uint64(g[1]-1)*256, n, "no whole row of workgroups idle")
	}
	g, _, err := Grid(0, 256, 65535)
	require.NoError(t, err)
	assert.Zero(t, g[0])
	_, _, err = Grid(1<<40, 256, 65535)
	assert.Error(t, err)
}

func TestSplitKeepsEachDispatchWithinTheBudget(t *testing.T) {
	for _, c := range []struct {
		n      int
		each   float64
		budget uint64
		limit  int
		want   int
	}{
		{n: 100, each: 10, budget: 1000, limit: 1 << 30, want: 100},        // fits
		{n: 100, each: 10, budget: 999, limit: 1 << 30, want: 99},          // one over
		{n: 100, each: 5000, budget: 1000, limit: 1 << 30, want: 1},        // an item alone passes it
		{n: 100, each: 1, budget: 1 << 40, limit: 30, want: 30},            // the grid's limit
		{n: 0, each: 1, budget: 1, limit: 1, want: 1},                      // nothing to split
		{n: 1 << 40, each: 1e9, budget: 1 << 35, limit: 1 << 30, want: 34}, // huge
	} {
		assert.Equal(t, c.want, Split(c.n, c.each, c.budget, c.limit), "%+v", c)
	}
}

// A segment's partial result keeps the accumulator's type and, for the arg
// reductions, its index in a third binding; the second step reads it back.
func TestReduceSegmentsBindings(t *testing.T) {
	part := Reduce{Op: ArgMin, In: I32, Segments: true}
	assert.Equal(t, I32, part.Out(), "the segment's value, not its index")
	spec := part.Spec()
	assert.Equal(t, []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite, wgpu.ReadWrite}, spec.Bindings)
	assert.Contains(t, spec.Source, "idx[out] = ai;")
	assert.Equal(t, F32, Reduce{Op: Mean, In: I32, Segments: true}.Out(), "Mean's sums are float32")
	combine := Reduce{Op: ArgMin, In: I32, PerThread: true, Indexed: true}
	assert.Equal(t, I32, combine.Out())
	assert.Equal(t, []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, combine.Spec().Bindings)
	assert.Contains(t, combine.Spec().Source, "let j = idx[base + s];")
}

func TestWorkEstimatesGrowWithTheWork(t *testing.T) {
	add := Elementwise{Leaves: []Leaf{{Type: F32, Strided: false}, {Type: F32, Strided: false}}, Nodes: []Node{{Name: "add", Out: F32, Expr: "a0 + a1", Store: true}}}
	strided := add
	strided.Leaves = []Leaf{{Type: F32, Strided: true}, {Type: F32, Strided: false}}
	rand := Elementwise{Nodes: []Node{{Name: "rand", Out: F32, Expr: "unit(philox(vec4(i), h2).x)", Helpers: Philox, Store: true}}}
	assert.Less(t, add.ThreadWork(), strided.ThreadWork())
	assert.Less(t, add.ThreadWork(), rand.ThreadWork())
	vec := add
	vec.Vec4 = true
	assert.Less(t, vec.ThreadWork()/4, add.ThreadWork(), "per element, vec4 is cheaper")
	assert.Less(t, Copy{Rank: 1}.ThreadWork(), Copy{Rank: 4}.ThreadWork())
	assert.Less(t, Softmax{PerThread: true}.RowWork(4), Softmax{}.RowWork(4), "a workgroup per row pays for its barriers")
	assert.Less(t, Reduce{PerThread: true}.RowWork(4), Reduce{}.RowWork(4))
	assert.Less(t, MatMul{Vec4: true}.GroupWork(64)/(128*128), MatMul{}.GroupWork(64)/(64*64), "vec4 is the fastest per multiply-add")
}

func TestKeysTellKernelsApart(t *testing.T) {
	add := func(T Type, strided bool) Elementwise {
		return Elementwise{Rank: 2, Leaves: []Leaf{{Type: T, Strided: strided}, {Type: T, Strided: false}},
			Nodes: []Node{{Name: "add", Out: T, Expr: "a0 + a1", Args: []Ref{{true, 0}, {true, 1}}, Store: true}}}
	}
	chain := add(F32, false)
	chain.Nodes = append(chain.Nodes, Node{Name: "relu", Out: F32, Expr: "max(a0, 0.0)", Args: []Ref{{false, 0}}, Store: true})
	unstored := chain
	unstored.Nodes = []Node{chain.Nodes[0], chain.Nodes[1]}
	unstored.Nodes[0].Store = false
	keys := map[string]string{}
	for _, k := range []interface {
		Key() string
	}{
		add(F32, false), add(I32, false), add(F32, true), chain, unstored,
		Copy{Rank: 2}, Copy{Rank: 3}, Reduce{Op: Sum, In: F32}, Reduce{Op: Sum, In: F32, PerThread: true},
		Reduce{Op: Sum, In: F32, Segments: true}, Reduce{Op: ArgMax, In: F32, Segments: true},
		Reduce{Op: ArgMax, In: F32, PerThread: true}, Reduce{Op: ArgMax, In: F32, PerThread: true, Indexed: true},
		MatMul{}, MatMul{TransA: true}, MatMul{BatchRank: 1}, Softmax{}, Softmax{Log: true}, Softmax{PerThread: true}, Gather{},
	} {
		key := k.Key()
		_, dup := keys[key]
		assert.False(t, dup, "key %q names two kernels", key)
		keys[key] = key
	}
	assert.Equal(t, add(F32, true).Key(), add(F32, true).Key(), "keys are stable")
}

func TestElementwiseSource(t *testing.T) {
	k := Elementwise{Rank: 2,
		Leaves: []Leaf{{Type: F32, Strided: true}, {Type: F32, Strided: false}, {Type: U32, Strided: false}},
		Nodes: []Node{
			{Name: "mul", Out: F32, Expr: "a0 * a1", Args: []Ref{{true, 0}, {true, 1}}},
			{Name: "add", Out: F32, Expr: "a0 + a1", Args: []Ref{{false, 0}, {true, 1}}, Store: true},
			{Name: "leaky_relu", Out: F32, Expr: "select(a0 * s.x, a0, a0 > 0.0)", Args: []Ref{{false, 1}}, Store: true},
			{Name: "where", Out: F32, Expr: "select(a2, a1, a0 != 0u)", Args: []Ref{{true, 2}, {false, 2}, {false, 0}}},
			{Name: "fill", Out: I32, Expr: "bitcast<i32>(h2)", Store: true},
		}}
	spec := k.Spec()
	src := spec.Source
	assert.Equal(t, k.Key(), spec.Key)
	assert.Equal(t, "mul+add+leaky_relu+where+fill", spec.Name)
	assert.Equal(t, 3+3, len(spec.Bindings), "three leaves, three stored nodes")
	assert.Contains(t, src, "let l0 = in0[o0];", "the strided leaf is read through the strides")
	assert.Contains(t, src, "let l1 = in1[i];")
	assert.Contains(t, src, "let v1 = node1(bitcast<f32>(bitcast<u32>(v0) ^ p.zero), l1, ", "a value passed between nodes goes through the runtime zero")
	assert.Contains(t, src, "let v3 = node3(l2, bitcast<f32>(bitcast<u32>(v2) ^ p.zero), bitcast<f32>(bitcast<u32>(v0) ^ p.zero), ")
	assert.Contains(t, src, "out1[i] = v1;")
	assert.NotContains(t, src, "out0[", "an unstored node is not written")
	assert.Contains(t, src, "node2(bitcast<f32>(bitcast<u32>(v1) ^ p.zero), i, p.s[0], p.w[0].x, p.w[0].y)", "the first node with parameters has slot 0")
	assert.Contains(t, src, "node4(i, p.s[1], p.w[1].x, p.w[1].y)")
	assert.Equal(t, 6, strings.Count(src, "@group(0) @binding(")-1, "six storage bindings and the uniform block")
}

func TestElementwiseParamsLayout(t *testing.T) {
	k := Elementwise{Rank: 2, Leaves: []Leaf{{Type: F32, Strided: true}},
		Nodes: []Node{
			{Name: "neg", Out: F32, Expr: "-a0", Args: []Ref{{true, 0}}},
			{Name: "clip", Out: F32, Expr: "clamp(a0, s.x, s.y)", Args: []Ref{{false, 0}}, Store: true},
			{Name: "fill", Out: U32, Expr: "h2", Store: true},
		}}
	assert.False(t, k.Nodes[0].HasParams())
	assert.True(t, k.Nodes[1].HasParams())
	assert.True(t, k.Nodes[2].HasParams())
	assert.False(t, Node{Expr: "abs(a0) + sign(a0)"}.HasParams(), "names that merely contain s")
	b := k.Params(600, 1000, 256*4, []NodeParams{{}, {Scalars: [4]float32{-1, 1}}, {Words: [2]uint32{7, 9}}}, []uint32{4, 250, 1, 0})
	require.Len(t, b, 16+32*2+16, "header, two parameter slots, one vec4 of metadata")
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }
	assert.Equal(t, uint32(1000), word(0))
	assert.Equal(t, uint32(1024), word(1))
	assert.Equal(t, uint32(0), word(2), "the runtime zero")
	assert.Equal(t, uint32(600), word(3), "the first thread")
	assert.Equal(t, float32(-1), math.Float32frombits(word(4)), "clip's scalars in slot 0")
	assert.Equal(t, float32(1), math.Float32frombits(word(5)))
	assert.Equal(t, uint32(7), word(4+8+4), "fill's words in slot 1 of the word array")
	assert.Equal(t, uint32(9), word(4+8+5))
	assert.Equal(t, uint32(250), word(4+16+1), "metadata after the slots")
	assert.Equal(t, 4, k.MetaWords(), "dimensions and one leaf's strides")
}

func TestElementwiseVec4Source(t *testing.T) {
	k := Elementwise{Vec4: true,
		Leaves: []Leaf{{Type: F32, Strided: false}, {Type: F32, Strided: false}},
		Nodes: []Node{
			{Name: "mul", Out: F32, Expr: "a0 * a1", Args: []Ref{{true, 0}, {true, 1}}},
			{Name: "greater", Out: U32, Expr: "select(0u, 1u, a0 > a1)", Args: []Ref{{false, 0}, {true, 0}}, Store: true},
			{Name: "range", Out: F32, Expr: "s.x + f32(i) * s.y", Store: true},
		}}
	src := k.Spec().Source
	assert.NotEqual(t, k.Key(), Elementwise{Leaves: k.Leaves, Nodes: k.Nodes}.Key(), "vec4 is part of the key")
	assert.Contains(t, src, "var<storage, read> in0: array<vec4<f32>>;")
	assert.Contains(t, src, "var<storage, read_write> out1: array<vec4<u32>>;")
	assert.Contains(t, src, "let l1 = in1[t];")
	assert.Contains(t, src, "let v1_z = node1(bitcast<f32>(bitcast<u32>(v0_z) ^ p.zero), l0.z, i2, ", "each lane calls the scalar op on its component")
	assert.Contains(t, src, "let i3 = 4u * t + 3u;", "ops see each element's own index")
	assert.Contains(t, src, "node2(i3, p.s[0], ")
	assert.Contains(t, src, "out1[t] = vec4<u32>(v1_x, v1_y, v1_z, v1_w);")
}

func TestHelperFuncsSplitsTopLevelDeclarations(t *testing.T) {
	src := "\nfn a() -> u32 {\n\treturn 1u;\n}\nconst k = 2u;\nfn b() -> u32 { return a() + k; }\n"
	got := helperFuncs(src)
	want := []string{"fn a() -> u32 {\n\treturn 1u;\n}", "const k = 2u;", "fn b() -> u32 { return a() + k; }"}
	if len(got) != len(want) {
		t.Fatalf("helperFuncs = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("helperFuncs[%d] = %q, want %q", i, got[i], want[i])
		}
	}
	// Philox's functions appear once in a program of both generators.
	k := Elementwise{Nodes: []Node{
		{Name: "u", Out: F32, Expr: "f32(philox(vec4<u32>(i), vec2<u32>(h2, h3)).x)", Helpers: Philox},
		{Name: "n", Out: F32, Expr: "f32(philox(vec4<u32>(i), vec2<u32>(h3, h2)).y)", Helpers: Philox + "\nfn extra() -> f32 { return 1.0; }\n", Store: true},
	}}
	if n := strings.Count(k.Spec().Source, "fn mulhilo("); n != 1 {
		t.Fatalf("mulhilo is defined %d times", n)
	}
}

// TestElementwisePassesEveryTypeOpaquely checks that values of every type
// cross from node to node through the runtime zero, so that no compiler
// folds one node into the next (a compare and a select into a max, a
// conversion into the next conversion).
func TestElementwisePassesEveryTypeOpaquely(t *testing.T) {
	k := Elementwise{Leaves: []Leaf{{Type: F32, Strided: false}, {Type: F32, Strided: false}},
		Nodes: []Node{
			{Name: "greater", Out: U32, Expr: "select(0u, 1u, a0 > a1)", Args: []Ref{{true, 0}, {true, 1}}},
			{Name: "cast", Out: I32, Expr: "i32(a0)", Args: []Ref{{true, 0}}},
			{Name: "where", Out: F32, Expr: "select(a2, a1, a0 != 0u)", Args: []Ref{{false, 0}, {true, 0}, {true, 1}}},
			{Name: "cast", Out: F32, Expr: "f32(a0)", Args: []Ref{{false, 1}}, Store: true},
			{Name: "add", Out: F32, Expr: "a0 + a1", Args: []Ref{{false, 2}, {false, 3}}, Store: true},
		}}
	src := k.Spec().Source
	assert.Contains(t, src, "node2((v0 ^ p.zero), l0, l1, ")
	assert.Contains(t, src, "node3(bitcast<i32>(bitcast<u32>(v1) ^ p.zero), ")
	assert.Contains(t, src, "node4(bitcast<f32>(bitcast<u32>(v2) ^ p.zero), bitcast<f32>(bitcast<u32>(v3) ^ p.zero), ")
	assert.Contains(t, src, "n: u32, row: u32, zero: u32, first: u32,")
}

// The Small kernel's work estimate is in proportion to the product's:
// twice the batches, twice the work; a batch of 6×6 products costs a
// small fraction of what the register kernel's 64×64 tiles would.
func TestSmallMatMulWorkIsInProportion(t *testing.T) {
	work := func(m MatMul, M, K, N, batches int) float64 {
		cols, rows, zs := m.Groups(M, N, batches)
		return float64(cols*rows*zs) * m.GroupWork(K)
	}
	small, register := MatMul{Small: true, BatchRank: 1}, MatMul{Register: true, BatchRank: 1}
	assert.InDelta(t, 2, work(small, 6, 6, 6, 2*65536)/work(small, 6, 6, 6, 65536), 0.01)
	assert.InDelta(t, 4, work(small, 16, 8, 16, 4096)/work(small, 8, 8, 8, 4096), 0.01, "four times the elements")
	assert.Less(t, 20*work(small, 6, 6, 6, 65537), work(register, 6, 6, 6, 65537))
	assert.Less(t, work(MatMul{Vec4: true}, 1024, 1024, 1024, 1), work(small, 1024, 1024, 1024, 1), "a large product keeps its tiles")
}
