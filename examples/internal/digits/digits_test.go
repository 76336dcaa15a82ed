package digits

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
	a, b := Draw(200, 3), Draw(200, 3)
	assert.Equal(t, a, b, "the same seed draws the same digits")
	assert.NotEqual(t, a.Pixels, Draw(200, 4).Pixels, "another seed draws others")
	seen := map[int32]int{}
	for i, l := range a.Labels {
		require.True(t, l >= 0 && l < 10, "label %d", l)
		seen[l]++
		var ink float32
		for _, v := range a.Pixels[i*Side*Side : (i+1)*Side*Side] {
			ink += v
		}
		assert.Greater(t, ink, float32(10), "image %d has its digit's ink", i)
	}
	assert.Len(t, seen, 10, "every digit is drawn")
	px, ls := a.Batch(10, 5)
	assert.Equal(t, a.Pixels[10*Side*Side:15*Side*Side], px)
	assert.Equal(t, a.Labels[10:15], ls)
}
