package tensor

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWindow2DMatchesTensorFlowSizes(t *testing.T) {
	cases := []struct {
		name                   string
		in, k, stride, dil     int
		pad                    Padding
		out, before, afterward int
	}{
		{"valid 3x3", 5, 3, 1, 1, Valid(), 3, 0, 0},
		{"valid stride 2", 7, 3, 2, 1, Valid(), 3, 0, 0},
		{"valid stride leaves a tail", 6, 3, 2, 1, Valid(), 2, 0, 0},
		{"same 3x3", 5, 3, 1, 1, Same(), 5, 1, 1},
		{"same even window pads more after", 5, 4, 1, 1, Same(), 5, 1, 2},
		{"same stride 2 odd", 7, 3, 2, 1, Same(), 4, 1, 1},
		{"same stride 2 even", 6, 3, 2, 1, Same(), 3, 0, 1},
		{"same stride past window", 5, 1, 3, 1, Same(), 2, 0, 0},
		{"same dilation 2", 5, 3, 1, 2, Same(), 5, 2, 2},
		{"valid dilation 2", 7, 3, 1, 2, Valid(), 3, 0, 0},
		{"explicit", 5, 3, 2, 1, Explicit(2, 1, 2, 1), 3, 2, 1},
		{"window of the input", 4, 4, 1, 1, Valid(), 1, 0, 0},
		{"empty input", 0, 3, 1, 1, Same(), 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, err := NewWindow2D(c.in, c.in, c.k, c.k, [2]int{c.stride, c.stride}, [2]int{c.dil, c.dil}, c.pad)
			require.NoError(t, err)
			assert.Equal(t, c.out, w.OutH, "OutH")
			assert.Equal(t, c.out, w.OutW, "OutW")
			if c.in > 0 {
				assert.Equal(t, [2]int{c.before, c.afterward}, [2]int{w.PadTop, w.PadBottom}, "top, bottom")
				assert.Equal(t, [2]int{c.before, c.afterward}, [2]int{w.PadLeft, w.PadRight}, "left, right")
			}
		})
	}
}

func TestWindow2DDefaultsAreOne(t *testing.T) {
	w, err := NewWindow2D(4, 6, 2, 3, [2]int{}, [2]int{}, Padding{})
	require.NoError(t, err)
	assert.Equal(t, Window2D{InH: 4, InW: 6, KernelH: 2, KernelW: 3, StrideH: 1, StrideW: 1,
		DilationH: 1, DilationW: 1, OutH: 3, OutW: 4}, w)
}

func TestWindow2DRejects(t *testing.T) {
	cases := []struct {
		name        string
		in, k       int
		stride, dil [2]int
		pad         Padding
	}{
		{"negative input", -1, 3, [2]int{}, [2]int{}, Valid()},
		{"empty window", 5, 0, [2]int{}, [2]int{}, Valid()},
		{"negative stride", 5, 3, [2]int{-1, 1}, [2]int{}, Valid()},
		{"negative dilation", 5, 3, [2]int{}, [2]int{1, -2}, Valid()},
		{"negative padding", 5, 3, [2]int{}, [2]int{}, Explicit(0, -1, 0, 0)},
		{"window larger than input", 2, 3, [2]int{}, [2]int{}, Valid()},
		{"dilated window larger than input", 4, 3, [2]int{}, [2]int{2, 2}, Valid()},
		{"unknown mode", 5, 3, [2]int{}, [2]int{}, Padding{Mode: 7}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewWindow2D(c.in, c.in, c.k, c.k, c.stride, c.dil, c.pad)
			assert.Error(t, err)
		})
	}
}
