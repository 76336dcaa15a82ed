package main

import (
	"math/rand/v2"
)

// Images are side×side pixels of one channel, NHWC.
const side = 28

// glyphs are the digits 0 to 9 in a 5×7 pixel font, '#' for ink.
var glyphs = [10][7]string{
	{".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."},
	{"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."},
	{".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"},
	{"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."},
	{"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."},
	{"#####", "#....", "####.", "....#", "....#", "#...#", ".###."},
	{"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."},
	{"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."},
	{".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."},
	{".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."},
}

// digits is a labelled set of images: n images of side×side pixels, one
// after another, and their labels.
type digits struct {
	n      int
	pixels []float32
	labels []int32
}

// drawDigits draws n digits from the seed, each a random digit in the
// glyphs' font scaled 2 or 3 times (a pixel of the font becomes a block of
// pixels with a ragged edge), placed anywhere it fits, its ink of random
// strength, on a background of Gaussian noise.
func drawDigits(n int, seed uint64) digits {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	d := digits{n: n, pixels: make([]float32, n*side*side), labels: make([]int32, n)}
	for i := range n {
		label := r.IntN(10)
		d.labels[i] = int32(label)
		img := d.pixels[i*side*side : (i+1)*side*side]
		for p := range img {
			img[p] = float32(r.NormFloat64() * 0.15)
		}
		scale := 2 + r.IntN(2)
		w, h := 5*scale, 7*scale
		x0, y0 := r.IntN(side-w+1), r.IntN(side-h+1)
		ink := 0.6 + 0.4*r.Float32()
		for gy, row := range glyphs[label] {
			for gx, c := range row {
				if c != '#' {
					continue
				}
				for dy := range scale {
					for dx := range scale {
						if r.IntN(10) == 0 { // a ragged stroke
							continue
						}
						img[(y0+gy*scale+dy)*side+x0+gx*scale+dx] += ink
					}
				}
			}
		}
	}
	return d
}

// batch returns images [from, from+size) of d and their labels.
func (d digits) batch(from, size int) ([]float32, []int32) {
	px := make([]float32, 0, size*side*side)
	ls := make([]int32, 0, size)
	for k := range size {
		i := from + k
		px = append(px, d.pixels[i*side*side:(i+1)*side*side]...)
		ls = append(ls, d.labels[i])
	}
	return px, ls
}
