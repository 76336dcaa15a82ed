package shaders

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every kernel declares the size of its uniform block, and the blocks the
// package encodes for it are exactly that size: Dispatch refuses shorter
// ones, and compiling checks the WGSL struct against the declaration.
func TestSpecsDeclareTheirParamsSize(t *testing.T) {
	for name, c := range map[string]struct {
		spec  func() uint64
		block []byte
	}{
		"copy rank 0":  {func() uint64 { return Copy{}.Spec().ParamsSize }, Params{}.Bytes()},
		"copy rank 3":  {func() uint64 { return Copy{Rank: 3}.Spec().ParamsSize }, Params{Meta: make([]uint32, Copy{Rank: 3}.MetaWords())}.Bytes()},
		"gather":       {func() uint64 { return Gather{}.Spec().ParamsSize }, Params{Meta: []uint32{5}}.Bytes()},
		"matmul":       {func() uint64 { return MatMul{}.Spec().ParamsSize }, Params{Meta: make([]uint32, MatMul{}.MetaWords())}.Bytes()},
		"matmul batch": {func() uint64 { return MatMul{BatchRank: 2, Register: true}.Spec().ParamsSize }, Params{Meta: make([]uint32, MatMul{BatchRank: 2}.MetaWords())}.Bytes()},
		"matmul vec4":  {func() uint64 { return MatMul{BatchRank: 1, Vec4: true}.Spec().ParamsSize }, Params{Meta: make([]uint32, MatMul{BatchRank: 1}.MetaWords())}.Bytes()},
		"reduce":       {func() uint64 { return Reduce{Op: Sum, In: F32}.Spec().ParamsSize }, Params{}.Bytes()},
		"softmax":      {func() uint64 { return Softmax{}.Spec().ParamsSize }, Params{}.Bytes()},
	} {
		assert.EqualValues(t, len(c.block), c.spec(), name)
	}
	k := Elementwise{Rank: 2, Leaves: []Leaf{{F32, true}},
		Nodes: []Node{
			{Name: "clip", Out: F32, Expr: "clamp(a0, s.x, s.y)", Args: []Ref{{true, 0}}},
			{Name: "fill", Out: U32, Expr: "h2", Store: true},
		}}
	spec := k.Spec()
	assert.True(t, spec.Params)
	assert.EqualValues(t, len(k.Params(0, 1, 1, make([]NodeParams, 2), make([]uint32, k.MetaWords()))), spec.ParamsSize)
}
