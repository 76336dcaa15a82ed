package main

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlotSVGHasAxesLabelsAndDirections(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.svg")
	require.NoError(t, writeJSON(in, sampleReport(2, 70, true)))
	_, err := runArgs("plot", "-o", out, in)
	require.NoError(t, err)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	svg := string(b)
	assert.Contains(t, svg, ">matmul_256</text>")
	assert.Contains(t, svg, ">GFLOP/s, higher is better</text>")
	assert.Contains(t, svg, ">µs/op, lower is better</text>")
	assert.Contains(t, svg, ">llvmpipe/gl</text>", "the legend")
	assert.Contains(t, svg, `text-anchor="end">0.5</text>`, "a y tick label")
	assert.Contains(t, svg, `text-anchor="middle">2.00</text>`, "a value label")
	assert.Contains(t, svg, `text-anchor="middle">-</text>`, "a workload not run on an adapter")
	assert.Contains(t, svg, `text-anchor="end">2.0</text>`, "the top tick")
	assert.Contains(t, svg, "<line ", "axes")
}

func TestPlotTwoRunsSideBySide(t *testing.T) {
	dir := t.TempDir()
	before, after, out := filepath.Join(dir, "before.json"), filepath.Join(dir, "after.json"), filepath.Join(dir, "r.svg")
	require.NoError(t, writeJSON(before, sampleReport(2, 70, true)))
	require.NoError(t, writeJSON(after, sampleReport(3, 50, true)))
	_, err := runArgs("plot", before, after, "-o", out)
	require.NoError(t, err)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	svg := string(b)
	assert.Contains(t, svg, ">llvmpipe/vulkan (before.json)</text>")
	assert.Contains(t, svg, ">llvmpipe/vulkan (after.json)</text>")
	assert.Contains(t, svg, `text-anchor="middle">3.00</text>`)
	assert.Contains(t, svg, `text-anchor="middle">2.00</text>`)
}

// countInk counts the pixels of r that are text: black.
func countInk(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)) == ink {
				n++
			}
		}
	}
	return n
}

// PNG charts had bars only: the standard library has no font.
func TestPlotPNGHasText(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.png")
	require.NoError(t, writeJSON(in, sampleReport(2, 70, true)))
	_, err := runArgs("plot", "-o", out, in)
	require.NoError(t, err)
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	legendH := 10 + legendRow*2
	require.Equal(t, image.Rect(0, 0, perRow*panelW, legendH+panelH), img.Bounds())
	assert.Greater(t, countInk(img, image.Rect(28, 8, 200, 20)), 20, "the legend's first label")
	assert.Greater(t, countInk(img, image.Rect(0, legendH, panelW, legendH+plotTop-10)), 50, "the first panel's title")
	assert.Greater(t, countInk(img, image.Rect(0, legendH+plotTop, plotLeft, legendH+panelH)), 20, "tick labels")
	assert.Zero(t, countInk(img, image.Rect(perRow*panelW-8, 0, perRow*panelW, legendH+panelH)), "a blank margin")
}

func TestPlotUsage(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "r.json")
	require.NoError(t, writeJSON(in, sampleReport(2, 70, true)))
	for _, args := range [][]string{{"plot", in}, {"plot", "-o", filepath.Join(dir, "r.gif"), in}, {"plot", "-o", filepath.Join(dir, "r.svg")},
		{"plot", "-o", filepath.Join(dir, "r.svg"), in, in, in}} {
		_, err := runArgs(args...)
		assert.Equal(t, 2, exitStatus(err), "%q: %v", args, err)
	}
}

func TestPlotLegendTellsFilesOfOneNameApart(t *testing.T) {
	assert.Equal(t, []string{"before.json", "after.json"}, fileNames([]string{"x/before.json", "y/after.json"}))
	assert.Equal(t, []string{"x/r.json", "y/r.json"}, fileNames([]string{"x/r.json", "y/r.json"}))
}
