// Package digits draws the examples' handwriting-like digits in Go and
// holds the convolutional network that reads them (wgbench's
// cnn_train_step), for examples/cnn and examples/ddp.
package digits

import (
	"context"
	"math/rand/v2"

	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Images are Side×Side pixels of one channel, NHWC.
const Side = 28

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

// Set is a labelled set of images: N images of Side×Side pixels, one
// after another, and their labels.
type Set struct {
	N      int
	Pixels []float32
	Labels []int32
}

// Draw draws n digits from the seed, each a random digit in the
// glyphs' font scaled 2 or 3 times (a pixel of the font becomes a block of
// pixels with a ragged edge), placed anywhere it fits, its ink of random
// strength, on a background of Gaussian noise.
func Draw(n int, seed uint64) Set {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	d := Set{N: n, Pixels: make([]float32, n*Side*Side), Labels: make([]int32, n)}
	for i := range n {
		label := r.IntN(10)
		d.Labels[i] = int32(label)
		img := d.Pixels[i*Side*Side : (i+1)*Side*Side]
		for p := range img {
			img[p] = float32(r.NormFloat64() * 0.15)
		}
		scale := 2 + r.IntN(2)
		w, h := 5*scale, 7*scale
		x0, y0 := r.IntN(Side-w+1), r.IntN(Side-h+1)
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
						img[(y0+gy*scale+dy)*Side+x0+gx*scale+dx] += ink
					}
				}
			}
		}
	}
	return d
}

// Batch returns images [from, from+size) of d and their labels.
func (d Set) Batch(from, size int) ([]float32, []int32) {
	px := make([]float32, 0, size*Side*Side)
	ls := make([]int32, 0, size)
	for k := range size {
		i := from + k
		px = append(px, d.Pixels[i*Side*Side:(i+1)*Side*Side]...)
		ls = append(ls, d.Labels[i])
	}
	return px, ls
}

// NewCNN builds the network on b's engine: two 3×3 convolutions (16 and
// 32 channels, same padding, ReLU), each followed by 2×2 max pooling,
// then a Linear layer from 7·7·32 features to the 10 digits.
func NewCNN(b *nn.Builder) *nn.Sequential {
	he := nn.WeightInit(nn.HeUniform)
	pool := tensor.Pool2DOptions{Window: [2]int{2, 2}}
	return nn.NewSequential(
		b.Conv2D(1, 16, [2]int{3, 3}, nn.Pad(tensor.Same()), he), nn.ReLU(), nn.MaxPool2D(pool),
		b.Conv2D(16, 32, [2]int{3, 3}, nn.Pad(tensor.Same()), he), nn.ReLU(), nn.MaxPool2D(pool),
		nn.NewFlatten(), b.Linear(7*7*32, 10, he))
}

// Predict returns the digit model reads in each image of d, batch images
// at a time, each batch's tensors freed by its scope.
func Predict(ctx context.Context, e *tensor.Engine, model nn.Module, d Set, batch int) ([]int32, error) {
	var out []int32
	for from := 0; from < d.N; from += batch {
		n := min(batch, d.N-from)
		px, _ := d.Batch(from, n)
		p, err := tidy.Run(e, func() ([]int32, error) {
			logits := model.Forward(e.FromFloat32s(px, n, Side, Side, 1))
			return e.ArgMax(logits, 1).Int32s(ctx)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, p...)
	}
	return out, nil
}

// Accuracy is the fraction of pred equal to labels.
func Accuracy(pred, labels []int32) float64 {
	right := 0
	for i, p := range pred {
		if p == labels[i] {
			right++
		}
	}
	return float64(right) / float64(len(labels))
}
