package tensor

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A program reads four elements per thread when each strided leaf is
// constant along the last axis or aligned vec4s along it.
func TestVec4ReadsThroughStrides(t *testing.T) {
	cases := []struct {
		name    string
		shape   Shape
		strides [][]int
		want    bool
	}{
		{"no strided leaf", Shape{3, 8}, nil, true},
		{"no strided leaf, size not a multiple of four", Shape{3, 5}, nil, false},
		{"a row broadcast over rows (a bias)", Shape{128, 256}, [][]int{{0, 1}}, true},
		{"a scalar", Shape{128, 256}, [][]int{{0, 0}}, true},
		{"a column broadcast along rows", Shape{3, 8}, [][]int{{1, 0}}, true},
		{"a middle axis broadcast", Shape{3, 2, 8}, [][]int{{8, 0, 1}}, true},
		{"a row and a scalar", Shape{4, 4}, [][]int{{0, 1}, {0, 0}}, true},
		{"a last dimension not a multiple of four", Shape{4, 6}, [][]int{{0, 1}}, false},
		{"a scalar over a last dimension not a multiple of four", Shape{4, 6}, [][]int{{0, 0}}, false},
		{"rows of a leaf not aligned to four", Shape{3, 4}, [][]int{{6, 1}}, false},
		{"a transposed leaf", Shape{4, 4}, [][]int{{1, 4}}, false},
		{"a scalar output", Shape{}, [][]int{{}}, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, vec4Reads(c.shape, c.strides), c.name)
	}
}
