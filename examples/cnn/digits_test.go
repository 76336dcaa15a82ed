package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every glyph is 5×7; drawn digits are the same for a seed, differ between
// seeds, cover every label, and carry their ink inside the image.
func TestDrawDigits(t *testing.T) {
	for d, g := range glyphs {
		require.Len(t, g, 7, "digit %d", d)
		for _, row := range g {
			require.Len(t, row, 5, "digit %d", d)
		}
	}
	a, b := drawDigits(200, 3), drawDigits(200, 3)
	assert.Equal(t, a, b, "the same seed draws the same digits")
	assert.NotEqual(t, a.pixels, drawDigits(200, 4).pixels, "another seed draws others")
	seen := map[int32]int{}
	for i, l := range a.labels {
		require.True(t, l >= 0 && l < 10, "label %d", l)
		seen[l]++
		var ink float32
		for _, v := range a.pixels[i*side*side : (i+1)*side*side] {
			ink += v
		}
		assert.Greater(t, ink, float32(10), "image %d has its digit's ink", i)
	}
	assert.Len(t, seen, 10, "every digit is drawn")
	px, ls := a.batch(10, 5)
	assert.Equal(t, a.pixels[10*side*side:15*side*side], px)
	assert.Equal(t, a.labels[10:15], ls)
}
