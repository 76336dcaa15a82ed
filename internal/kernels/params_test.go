package kernels

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testBlock has a word of each type, an embedded struct and metadata.
type testBlock struct {
	Range
	SrcOffset uint32
	Bias      int32
	Scale     float32
	Dims      []uint32
	AStrides  []uint32
}

func (p *testBlock) Bytes() []byte { return encodeParams(p) }

// A block's WGSL struct and its bytes come from one layout: words in field
// order (an embedded struct's fields in place), each slice an array of
// whole vec4s aligned to 16 bytes, the size rounded up to 16.
func TestParamsLayout(t *testing.T) {
	p := &testBlock{Range: Range{First: 1, End: 2, Row: 3}, SrcOffset: 4, Bias: -5, Scale: 0.5,
		Dims: []uint32{7, 8, 9, 10, 11}, AStrides: []uint32{12}}
	assert.Equal(t, `struct Params {
	first: u32,
	end: u32,
	row: u32,
	src_offset: u32,
	bias: i32,
	scale: f32,
	dims: array<vec4<u32>, 2>,
	a_strides: array<vec4<u32>, 1>,
}
`, declareParams(p))
	b := p.Bytes()
	require.Len(t, b, 32+32+16, "six words padded to 32 bytes, then 2 and 1 vec4s")
	assert.EqualValues(t, len(b), paramsSizeOf(p))
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }
	assert.Equal(t, []uint32{1, 2, 3, 4}, []uint32{word(0), word(1), word(2), word(3)})
	assert.Equal(t, int32(-5), int32(word(4)))
	assert.Equal(t, float32(0.5), math.Float32frombits(word(5)))
	assert.Equal(t, uint32(7), word(8), "dims at byte 32, the next multiple of 16")
	assert.Equal(t, uint32(11), word(12))
	assert.Equal(t, uint32(12), word(16), "a_strides after dims' two vec4s")
	assert.Equal(t, "p.dims[1][0]", at("dims", 4))

	empty := &testBlock{}
	assert.Contains(t, declareParams(empty), "dims: array<vec4<u32>, 1>,", "an empty slice still takes a vec4: WGSL has no empty arrays")
	assert.Len(t, empty.Bytes(), 64)
	assert.Len(t, (&GatherParams{}).Bytes(), 32, "six words, rounded up to 16 bytes")
}

// A field of a type the layout does not know is a programming error,
// reported with its name.
func TestParamsLayoutRefusesOtherTypes(t *testing.T) {
	assert.PanicsWithValue(t, "kernels: parameter field Big has type uint64", func() {
		encodeParams(&struct{ Big uint64 }{})
	})
	assert.PanicsWithValue(t, "kernels: parameter field Xs is a slice of float32, not of uint32", func() {
		encodeParams(&struct{ Xs []float32 }{})
	})
}

// The dispatcher fills a block's Range through Ranged.
func TestRangedBlocks(t *testing.T) {
	for _, p := range []Ranged{&CopyParams{}, &GatherParams{}, &RowParams{}} {
		*p.ItemRange() = Range{First: 5, End: 9, Row: 256}
		b := p.Bytes()
		assert.Equal(t, []uint32{5, 9, 256}, []uint32{binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:])})
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"M": "m", "KEnd": "k_end", "SrcOffset": "src_offset", "AStrides": "a_strides", "first": "first"} {
		assert.Equal(t, want, snake(in))
	}
}

// The MatMul kernels' shapes hang together: the tiled kernel's threads
// split evenly between staging A and B, its step of k and the register
// kernel's divide the ranges a split product sums (multiples of
// MatMulTileK), and both cover the tile that dispatch counts in.
func TestMatMulShapesAgree(t *testing.T) {
	assert.Equal(t, tiledThreads*tiledThreads, 2*tiledStage, "half the tiled kernel's threads stage A, half B")
	assert.Equal(t, MatMulTileM, MatMulTileN, "the tiled and register kernels' tiles are square")
	assert.Equal(t, MatMulTileM, 4*tiledThreads)
	assert.Equal(t, MatMulTileM, registerThreads*registerBlock)
	assert.Zero(t, MatMulTileK%tiledStepK)
	assert.Zero(t, MatMulKRange%MatMulTileK)
	assert.Zero(t, MatMulTileK%4, "the vec4 kernel reads k four at a time")
}
