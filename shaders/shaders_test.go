package shaders

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestParamsLayout(t *testing.T) {
	b := Params{Header: [4]uint32{1, 2, 3, 4}, Scalars: [4]float32{0.5}, Meta: []uint32{7, 8, 9, 10, 11}}.Bytes()
	require.Len(t, b, 4*(8+8), "metadata padded to whole vec4s")
	assert.Equal(t, uint32(3), binary.LittleEndian.Uint32(b[8:]))
	assert.Equal(t, float32(0.5), math.Float32frombits(binary.LittleEndian.Uint32(b[16:])))
	assert.Equal(t, uint32(11), binary.LittleEndian.Uint32(b[48:]))
	assert.Len(t, Params{}.Bytes(), 48, "at least one vec4 of metadata, as the block declares")
}

func TestKeysTellKernelsApart(t *testing.T) {
	keys := map[string]string{}
	for _, k := range []interface {
		Key() string
	}{
		Map{Name: "add", Out: F32, Inputs: []Operand{{F32, false}, {F32, false}}, Expr: "a0 + a1"},
		Map{Name: "add", Out: I32, Inputs: []Operand{{I32, false}, {I32, false}}, Expr: "a0 + a1"},
		Map{Name: "add", Out: F32, Rank: 2, Inputs: []Operand{{F32, true}, {F32, false}}, Expr: "a0 + a1"},
		Copy{Rank: 2}, Copy{Rank: 3}, Reduce{Op: Sum, In: F32}, Reduce{Op: Sum, In: F32, PerThread: true},
		MatMul{}, MatMul{TransA: true}, MatMul{BatchRank: 1}, Softmax{}, Softmax{Log: true}, Gather{},
	} {
		key := k.Key()
		_, dup := keys[key]
		assert.False(t, dup, "key %q names two kernels", key)
		keys[key] = key
	}
	m := Map{Name: "add", Out: F32, Rank: 2, Inputs: []Operand{{F32, true}, {F32, false}}, Expr: "a0 + a1"}
	spec := m.Spec()
	assert.Equal(t, m.Key(), spec.Key)
	assert.True(t, strings.Contains(spec.Source, "out[i] = a0 + a1;"))
}
