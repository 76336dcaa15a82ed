package main

import (
	"fmt"
	"html"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

const plotUsage = "wgbench plot -o FILE.svg|FILE.png RESULTS.json [AFTER.json]"

func plotCmd(args []string, stdout io.Writer) error {
	fs := newFlagSet("plot", plotUsage)
	out := fs.String("o", "", "output file (.svg or .png)")
	pos, err := parseArgs(fs, args, stdout)
	if err != nil || fs.helped {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usagef(fs.usage, "plot takes one result file, or two to draw side by side, not %d", len(pos))
	}
	if ext := strings.ToLower(filepath.Ext(*out)); ext != ".svg" && ext != ".png" {
		return usagef(fs.usage, "-o must name a .svg or .png file, not %q", *out)
	}
	return plot(*out, pos...)
}

var palette = []color.RGBA{{0x1f, 0x77, 0xb4, 255}, {0xff, 0x7f, 0x0e, 255}, {0x2c, 0xa0, 0x2c, 255}, {0xd6, 0x27, 0x28, 255}, {0x94, 0x67, 0xbd, 255}, {0x8c, 0x56, 0x4b, 255}}

var (
	ink  = color.RGBA{0, 0, 0, 255}          // text
	axis = color.RGBA{0x40, 0x40, 0x40, 255} // axes and ticks
	grid = color.RGBA{0xe0, 0xe0, 0xe0, 255} // gridlines
)

// The layout, in pixels: panels of panelW × panelH, perRow to a row, under
// a legend of legendRow-high rows.
const (
	panelW, panelH = 340, 230
	perRow         = 3
	legendRow      = 18
	plotLeft       = 56 // the y axis, from the panel's left
	plotTop        = 44 // the highest tick, from the panel's top
	plotBottom     = 30 // the x axis, from the panel's bottom
)

// series is one bar of every panel: an adapter in one of the files.
type series struct {
	adapter string
	label   string // in the legend
	color   color.RGBA
	at      map[key]Result
}

// canvas is what a chart is drawn on: SVG or an image.
type canvas interface {
	rect(r image.Rectangle, c color.RGBA)
	line(x0, y0, x1, y1 int, c color.RGBA)
	// text draws s with its baseline at y, starting at x (anchor "start"),
	// centred on x ("middle") or ending at x ("end").
	text(x, y int, s, anchor string, bold bool)
}

// plot draws one bar chart per workload, with a bar per adapter of each
// file (two files: each adapter's bars side by side, the first file's
// lighter), to out, an .svg or .png file. Each chart has its unit and
// whether higher or lower is better in its title, a y axis with ticks, and
// each bar's value above it.
func plot(out string, paths ...string) error {
	ss, workloads, err := seriesOf(paths)
	if err != nil {
		return err
	}
	rows := (len(workloads) + perRow - 1) / perRow
	legendH := 10 + legendRow*len(ss)
	width, height := perRow*panelW, legendH+rows*panelH
	switch strings.ToLower(filepath.Ext(out)) {
	case ".svg":
		c := newSVG(width, height)
		drawChart(c, ss, workloads, legendH)
		return os.WriteFile(out, c.bytes(), 0o644)
	case ".png":
		c := newPNG(width, height)
		drawChart(c, ss, workloads, legendH)
		return c.write(out)
	}
	return fmt.Errorf("plot: -o must name a .svg or .png file, not %q", out)
}

// seriesOf reads the result files at paths and returns their series, in
// the order they are drawn, and every workload, in first-seen order.
func seriesOf(paths []string) ([]series, []string, error) {
	var ss []series
	var workloads []string
	adapterColor := map[string]color.RGBA{}
	names := fileNames(paths)
	for i, p := range paths {
		rep, err := readReport(p)
		if err != nil {
			return nil, nil, err
		}
		if len(rep.Results) == 0 {
			return nil, nil, fmt.Errorf("%s holds no results", p)
		}
		adapters, ws, at := columns(rep)
		for _, w := range ws {
			if !slices.Contains(workloads, w) {
				workloads = append(workloads, w)
			}
		}
		for _, a := range adapters {
			c, ok := adapterColor[a]
			if !ok {
				c = palette[len(adapterColor)%len(palette)]
				adapterColor[a] = c
			}
			label := a
			if len(paths) > 1 {
				label = fmt.Sprintf("%s (%s)", a, names[i])
				if i == 0 {
					c = lighter(c)
				}
			}
			ss = append(ss, series{adapter: a, label: label, color: c, at: at})
		}
	}
	if len(paths) > 1 { // each adapter's bars side by side: before, after
		ss = pairUp(ss)
	}
	return ss, workloads, nil
}

// fileNames returns the base names of paths, or the paths themselves where
// two base names are the same.
func fileNames(paths []string) []string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
		if i > 0 && slices.Contains(names[:i], names[i]) {
			return paths
		}
	}
	return names
}

// pairUp orders series so that each adapter's bars from every file stand
// together, in file order.
func pairUp(ss []series) []series {
	var adapters []string
	byAdapter := map[string][]series{}
	for _, s := range ss {
		if _, ok := byAdapter[s.adapter]; !ok {
			adapters = append(adapters, s.adapter)
		}
		byAdapter[s.adapter] = append(byAdapter[s.adapter], s)
	}
	var out []series
	for _, a := range adapters {
		out = append(out, byAdapter[a]...)
	}
	return out
}

func lighter(c color.RGBA) color.RGBA {
	return color.RGBA{c.R/2 + 0x80, c.G/2 + 0x80, c.B/2 + 0x80, 255}
}

// drawChart draws the legend and a panel per workload on c.
func drawChart(c canvas, ss []series, workloads []string, legendH int) {
	c.rect(image.Rect(0, 0, perRow*panelW, legendH+(len(workloads)+perRow-1)/perRow*panelH), color.RGBA{255, 255, 255, 255})
	for i, s := range ss {
		y := 8 + i*legendRow
		c.rect(image.Rect(10, y, 22, y+12), s.color)
		c.text(28, y+11, s.label, "start", false)
	}
	for wi, wl := range workloads {
		drawPanel(c, ss, wl, (wi%perRow)*panelW, legendH+(wi/perRow)*panelH)
	}
}

// drawPanel draws workload's chart with its top-left corner at x0, y0.
func drawPanel(c canvas, ss []series, workload string, x0, y0 int) {
	unit, top := "", 0.0
	for _, s := range ss {
		r := s.at[key{workload, s.adapter}]
		top = max(top, r.Value)
		unit = cmpOr(unit, r.Unit)
	}
	direction := "lower is better"
	if better(unit) > 0 {
		direction = "higher is better"
	}
	c.text(x0+10, y0+16, workload, "start", true)
	c.text(x0+10, y0+30, fmt.Sprintf("%s, %s", cmpOr(unit, "no value"), direction), "start", false)
	step := tickStep(top)
	ticks := int(math.Ceil(top/step - 1e-9))
	ticks = max(ticks, 1)
	axisTop := float64(ticks) * step
	left, bottom, right := x0+plotLeft, y0+panelH-plotBottom, x0+panelW-12
	height := bottom - (y0 + plotTop)
	yOf := func(v float64) int { return bottom - int(math.Round(v/axisTop*float64(height))) }
	for t := 0; t <= ticks; t++ {
		v := float64(t) * step
		y := yOf(v)
		if t > 0 {
			c.line(left+1, y, right, y, grid)
		}
		c.line(left-4, y, left, y, axis)
		c.text(left-6, y+4, strconv.FormatFloat(v, 'f', tickDecimals(step), 64), "end", false)
	}
	c.line(left, y0+plotTop-4, left, bottom, axis)
	c.line(left, bottom, right, bottom, axis)
	barW := (right - left - 8) / max(len(ss), 1)
	for i, s := range ss {
		r, ok := s.at[key{workload, s.adapter}]
		x := left + 6 + i*barW
		label := "-"
		switch {
		case ok && r.Unit == "":
			label = "error"
		case ok:
			label = formatNumber(r.Value)
			c.rect(image.Rect(x, yOf(r.Value), x+barW-4, bottom), s.color)
		}
		y := bottom - 3
		if ok && r.Unit != "" {
			y = yOf(r.Value) - 3
		}
		c.text(x+(barW-4)/2, y, label, "middle", false)
	}
}

// tickStep returns a round step (1, 2 or 5 times a power of ten) that
// divides 0..top into at most 5 ticks.
func tickStep(top float64) float64 {
	if top <= 0 {
		return 1
	}
	raw := top / 5
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*pow >= raw {
			return m * pow
		}
	}
	return 10 * pow
}

// tickDecimals returns how many decimals tick labels step apart need.
func tickDecimals(step float64) int {
	return max(0, -int(math.Floor(math.Log10(step)+1e-9)))
}

// svgCanvas draws SVG elements.
type svgCanvas struct{ b strings.Builder }

func newSVG(width, height int) *svgCanvas {
	c := &svgCanvas{}
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, height)
	return c
}

func (c *svgCanvas) rect(r image.Rectangle, col color.RGBA) {
	fmt.Fprintf(&c.b, `<rect x="%d" y="%d" width="%d" height="%d" fill="rgb(%d,%d,%d)"/>`+"\n", r.Min.X, r.Min.Y, r.Dx(), r.Dy(), col.R, col.G, col.B)
}

func (c *svgCanvas) line(x0, y0, x1, y1 int, col color.RGBA) {
	fmt.Fprintf(&c.b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="rgb(%d,%d,%d)"/>`+"\n", x0, y0, x1, y1, col.R, col.G, col.B)
}

func (c *svgCanvas) text(x, y int, s, anchor string, bold bool) {
	weight := ""
	if bold {
		weight = ` font-weight="bold"`
	}
	fmt.Fprintf(&c.b, `<text x="%d" y="%d" text-anchor="%s"%s>%s</text>`+"\n", x, y, anchor, weight, html.EscapeString(s))
}

func (c *svgCanvas) bytes() []byte { return []byte(c.b.String() + "</svg>\n") }

// pngCanvas draws into an image, text in the 7×13 fixed font of
// golang.org/x/image/font/basicfont, which covers ASCII.
type pngCanvas struct{ img *image.RGBA }

func newPNG(width, height int) *pngCanvas {
	return &pngCanvas{image.NewRGBA(image.Rect(0, 0, width, height))}
}

func (c *pngCanvas) rect(r image.Rectangle, col color.RGBA) {
	draw.Draw(c.img, r, &image.Uniform{col}, image.Point{}, draw.Src)
}

// line draws a horizontal or vertical line, the only ones charts have.
func (c *pngCanvas) line(x0, y0, x1, y1 int, col color.RGBA) {
	c.rect(image.Rect(min(x0, x1), min(y0, y1), max(x0, x1)+1, max(y0, y1)+1), col)
}

func (c *pngCanvas) text(x, y int, s, anchor string, bold bool) {
	s = asciiText(s)
	d := font.Drawer{Dst: c.img, Src: image.NewUniform(ink), Face: basicfont.Face7x13}
	width := d.MeasureString(s).Round()
	switch anchor {
	case "middle":
		x -= width / 2
	case "end":
		x -= width
	}
	d.Dot = fixed.P(x, y)
	d.DrawString(s)
	if bold { // drawn again a pixel to the right
		d.Dot = fixed.P(x+1, y)
		d.DrawString(s)
	}
}

// asciiText spells s in ASCII, which the PNG font has: µ as u.
func asciiText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == 'µ':
			return 'u'
		case r > 0x7e:
			return '?'
		}
		return r
	}, s)
}

func (c *pngCanvas) write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, c.img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
