package main

import (
	"fmt"
	"html"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
)

var palette = []color.RGBA{{0x1f, 0x77, 0xb4, 255}, {0xff, 0x7f, 0x0e, 255}, {0x2c, 0xa0, 0x2c, 255}, {0xd6, 0x27, 0x28, 255}, {0x94, 0x67, 0xbd, 255}, {0x8c, 0x56, 0x4b, 255}}

const (
	panelW, panelH = 260, 180
	perRow         = 4
)

// plot draws one bar chart per workload, a bar per adapter. SVG charts
// carry titles, values and a legend; PNG charts are the same bars without
// text (the standard library has no font), in the legend's colours.
func plot(path, out string) error {
	rep, err := readReport(path)
	if err != nil {
		return err
	}
	adapters, workloads, at := columns(rep)
	if len(workloads) == 0 {
		return fmt.Errorf("%s holds no results", path)
	}
	rows := (len(workloads) + perRow - 1) / perRow
	width, height := perRow*panelW, rows*panelH+40
	switch strings.ToLower(filepath.Ext(out)) {
	case ".svg":
		var b strings.Builder
		fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, height)
		fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
		for i, a := range adapters {
			c := palette[i%len(palette)]
			fmt.Fprintf(&b, `<rect x="%d" y="10" width="12" height="12" fill="rgb(%d,%d,%d)"/><text x="%d" y="20">%s</text>`+"\n", 10+i*220, c.R, c.G, c.B, 26+i*220, html.EscapeString(a))
		}
		for wi, wl := range workloads {
			x0, y0 := (wi%perRow)*panelW, 40+(wi/perRow)*panelH
			top := 0.0
			unit := ""
			for _, a := range adapters {
				r := at[[2]string{wl, a}]
				top = max(top, r.Value)
				if r.Unit != "" {
					unit = r.Unit
				}
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s (%s)</text>`+"\n", x0+10, y0+14, html.EscapeString(wl), html.EscapeString(unit))
			barW := (panelW - 40) / max(len(adapters), 1)
			for i, a := range adapters {
				r := at[[2]string{wl, a}]
				h := 0
				if top > 0 {
					h = int(r.Value / top * float64(panelH-60))
				}
				c := palette[i%len(palette)]
				x := x0 + 20 + i*barW
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="rgb(%d,%d,%d)"/>`+"\n", x, y0+panelH-30-h, barW-6, h, c.R, c.G, c.B)
				fmt.Fprintf(&b, `<text x="%d" y="%d">%.3g</text>`+"\n", x, y0+panelH-34-h, r.Value)
			}
		}
		b.WriteString("</svg>\n")
		return os.WriteFile(out, []byte(b.String()), 0o644)
	case ".png":
		img := image.NewRGBA(image.Rect(0, 0, width, height))
		draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
		for i := range adapters {
			fill(img, image.Rect(10+i*220, 10, 22+i*220, 22), palette[i%len(palette)])
		}
		for wi, wl := range workloads {
			x0, y0 := (wi%perRow)*panelW, 40+(wi/perRow)*panelH
			top := 0.0
			for _, a := range adapters {
				top = max(top, at[[2]string{wl, a}].Value)
			}
			fill(img, image.Rect(x0+15, y0+panelH-30, x0+panelW-15, y0+panelH-29), color.RGBA{0x80, 0x80, 0x80, 255})
			barW := (panelW - 40) / max(len(adapters), 1)
			for i, a := range adapters {
				h := 0
				if top > 0 {
					h = int(at[[2]string{wl, a}].Value / top * float64(panelH-60))
				}
				x := x0 + 20 + i*barW
				fill(img, image.Rect(x, y0+panelH-30-h, x+barW-6, y0+panelH-30), palette[i%len(palette)])
			}
		}
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		if err := png.Encode(f, img); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return fmt.Errorf("plot: -o must name a .svg or .png file, not %q", out)
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}
