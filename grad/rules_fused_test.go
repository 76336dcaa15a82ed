package grad

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// LayerNorm's fused backward against central differences at the edge
// shapes of its kernels: one row, rows of one element, odd widths and
// widths of a multiple of 4 (the one-dispatch kernel's vec4 form), one
// slice of 64 rows and one more (the one-dispatch kernel's column
// workgroup sums the slices), with eps 0 on rows that are not constant.
// (Rows of two or three elements whose values lie closer than √eps bend
// too sharply for central differences: those take a larger eps.)
func TestLayerNormGradientsAtEdgeShapes(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, c := range []struct {
		shape []int
		eps   float32
	}{{[]int{1, 7}, 1e-5}, {[]int{1, 8}, 1e-5}, {[]int{4, 1}, 1e-5}, {[]int{3, 5}, 0}, {[]int{64, 3}, 0.1}, {[]int{65, 3}, 0.1},
		{[]int{63, 4}, 0.1}, {[]int{65, 4}, 0.1}, {[]int{70, 8}, 1e-3}, {[]int{5, 13, 2}, 0.5}} {
		n := c.shape[len(c.shape)-1]
		t.Run(fmt.Sprint(c.shape, c.eps), func(t *testing.T) {
			checkGradient(t, e, func(e *tensor.Engine, x []*tensor.Tensor) *tensor.Tensor {
				return e.LayerNorm(x[0], x[1], x[2], c.eps)
			}, randIn(rng, -2, 2, c.shape...), randIn(rng, 0.5, 1.5, n), randIn(rng, -1, 1, n))
		})
	}
}

// profiled runs f under a profile and returns the kernels it dispatched.
func profiled(t *testing.T, e *tensor.Engine, f func() error) []string {
	t.Helper()
	p, err := e.Profile(context.Background(), f)
	require.NoError(t, err)
	var names []string
	for _, d := range p.Dispatches {
		names = append(names, d.Kernel)
	}
	return names
}

// A LayerNorm's forward and backward, seeded with an uploaded dy: one
// dispatch forward, one backward (the composed rule took eleven): for
// rows of a multiple of 4 the one-dispatch kernel's vec4 form, for others
// the kernel of one slice up to 64 rows and the one-dispatch kernel's
// scalar form beyond; asking only for dx runs the same kernels.
func TestLayerNormStepDispatches(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, c := range []struct {
		rows, n int
		want    []string
	}{
		{64, 32, []string{"layer_norm", "layer_norm_grad_columns_vec4"}},
		{1024, 32, []string{"layer_norm", "layer_norm_grad_columns_vec4"}},
		{2048, 128, []string{"layer_norm", "layer_norm_grad_columns_vec4"}},
		{64, 31, []string{"layer_norm", "layer_norm_grad"}},
		{1024, 31, []string{"layer_norm", "layer_norm_grad_columns"}},
	} {
		err := tidy.Do(e, func() error {
			in := randIn(rng, -2, 2, c.rows, c.n)
			x := e.FromFloat32s(f32(in.data), c.rows, c.n)
			g, b := e.FromFloat32s(f32(randIn(rng, 0.5, 1.5, c.n).data), c.n), e.FromFloat32s(make([]float32, c.n), c.n)
			seed := e.FromFloat32s(f32(randIn(rng, -1, 1, c.rows, c.n).data), c.rows, c.n)
			for _, wrt := range [][]*tensor.Tensor{{x, g, b}, {x}} {
				names := profiled(t, e, func() error {
					tape := NewTape(e)
					defer tape.Dispose()
					var y *tensor.Tensor
					if err := tape.Record(func() error { y = e.LayerNorm(x, g, b, 1e-5); return y.Err() }); err != nil {
						return err
					}
					gs, err := tape.Gradients(y, wrt, &Options{Seed: seed})
					if err != nil {
						return err
					}
					_, err = gs[0].Float32s(context.Background())
					return err
				})
				assert.Equal(t, c.want, names, "%d rows of %d, %d gradients", c.rows, c.n, len(wrt))
			}
			return nil
		})
		require.NoError(t, err)
	}
	r := ruleFor("layer_norm_grad")
	require.NotNil(t, r)
	assert.Contains(t, r.NoGrad, "second derivatives")
}

// f32 converts host values to float32.
func f32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// loss.SoftmaxCrossEntropy with Mean is the fused mean: its value and its
// gradients (the logits', and the probabilities') are bit for bit those of
// Mean over the per-row losses, differentiated by Mean's rule and the
// per-row rule; its step is three dispatches (losses, mean, gradient)
// where the composed one took four (and a log-softmax for the targets'
// gradient, only when asked for).
func TestSoftmaxCrossEntropyMeanIsTheComposedMean(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, shape := range [][]int{{4, 5}, {2, 3, 4}, {1, 1}, {3}, {130, 10}, {0, 3}} {
		rows := size(shape[:len(shape)-1])
		classes := shape[len(shape)-1]
		labels := make([]int32, rows)
		for i := range labels {
			labels[i] = int32(rng.IntN(classes))
		}
		xv := f32(randIn(rng, -3, 3, shape...).data)
		pv := f32(randIn(rng, 0, 1, shape...).data)
		for _, dense := range []bool{false, true} {
			var fused, composed [][]float32
			for _, mean := range []func(e *tensor.Engine, x, t *tensor.Tensor) *tensor.Tensor{
				func(e *tensor.Engine, x, t *tensor.Tensor) *tensor.Tensor {
					return loss.SoftmaxCrossEntropy(e, x, t, loss.Mean)
				},
				func(e *tensor.Engine, x, t *tensor.Tensor) *tensor.Tensor {
					return loss.SoftmaxCrossEntropy(e, x, t, func(e *tensor.Engine, l *tensor.Tensor) *tensor.Tensor { return e.Mean(l, false) })
				},
			} {
				var got [][]float32
				var names []string
				err := tidy.Do(e, func() error {
					x := e.FromFloat32s(xv, shape...)
					tt := e.FromInt32s(labels, shape[:len(shape)-1]...)
					wrt := []*tensor.Tensor{x}
					if dense {
						tt = e.FromFloat32s(pv, shape...)
						wrt = append(wrt, tt)
					}
					names = profiled(t, e, func() error {
						tape := NewTape(e)
						defer tape.Dispose()
						var l *tensor.Tensor
						if err := tape.Record(func() error { l = mean(e, x, tt); return l.Err() }); err != nil {
							return err
						}
						gs, err := tape.Gradients(l, wrt, nil)
						if err != nil {
							return err
						}
						for _, v := range append([]*tensor.Tensor{l}, gs...) {
							f, err := v.Float32s(context.Background())
							if err != nil {
								return err
							}
							got = append(got, f)
						}
						return nil
					})
					return nil
				})
				require.NoError(t, err)
				if fused == nil {
					fused = got
					if !dense && rows > 0 {
						assert.Equal(t, []string{"softmax_xent", "mean", "softmax_xent_grad_mean"}, names, "%v", shape)
					}
					continue
				}
				composed = got
			}
			require.Len(t, fused, len(composed))
			for i := range fused {
				assert.Equal(t, bitsOf(composed[i]), bitsOf(fused[i]), "%v dense %v: result %d", shape, dense, i)
			}
			if rows == 0 {
				assert.True(t, math.IsNaN(float64(fused[0][0])), "the mean of no rows: %v", fused[0])
			}
		}
	}
}

// bitsOf is v's bits, so that NaNs compare equal.
func bitsOf(v []float32) []uint32 {
	out := make([]uint32, len(v))
	for i, x := range v {
		out[i] = math.Float32bits(x)
	}
	return out
}

// crossEntropyComposed is loss.CrossEntropy's int32-label path without
// label smoothing as it was composed before the weighted sum: the losses
// times each row's weight (0 where ignored), then their sum, or their sum
// over the weights' (Mean).
func crossEntropyComposed(e *tensor.Engine, x, labels, weight *tensor.Tensor, ignore int32, mean bool) *tensor.Tensor {
	kept := e.NotEqual(labels, e.Fill(tensor.Int32, float64(ignore)))
	safe := e.Where(kept, labels, e.Zeros(tensor.Int32))
	scale := e.Cast(kept, tensor.Float32)
	if weight != nil {
		scale = e.Mul(scale, e.Gather(weight, safe, 0))
	}
	per := e.Mul(e.SoftmaxCrossEntropy(x, safe), scale)
	if !mean {
		return e.Sum(per, false)
	}
	return e.Div(e.Sum(per, false), e.Sum(scale, false))
}

// loss.CrossEntropy over int32 labels, with Mean or Sum and no label
// smoothing, is the weighted sum's op: its value and its gradients (the
// logits', the class weights') are bit for bit those of the ops it
// replaces, with and without weights, with rows ignored (by the default
// index and by a class), and with a label out of range (NaN); the
// default options take six dispatches forward and backward, where the
// composed ops took twelve.
func TestCrossEntropyLabelsIsTheComposedLoss(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	for _, shape := range [][]int{{6, 4}, {2, 3, 5}, {1, 3}, {130, 10}} {
		rowShape, classes := shape[:len(shape)-1], shape[len(shape)-1]
		rows := size(rowShape)
		xv := f32(randIn(rng, -3, 3, shape...).data)
		wv := f32(randIn(rng, 0.2, 2, classes).data)
		for _, c := range []struct {
			name     string
			ignore   int32
			weighted bool
			mean     bool
			bad      bool // a label out of range
		}{
			{"mean", loss.DefaultIgnoreIndex, false, true, false},
			{"sum", loss.DefaultIgnoreIndex, false, false, false},
			{"weighted mean", loss.DefaultIgnoreIndex, true, true, false},
			{"weighted sum, class 0 ignored", 0, true, false, false},
			{"mean, class 1 ignored", 1, false, true, false},
			{"weighted mean, a label out of range", loss.DefaultIgnoreIndex, true, true, true},
		} {
			labels := make([]int32, rows)
			for i := range labels {
				labels[i] = int32(rng.IntN(classes))
				if i%3 == 1 {
					labels[i] = loss.DefaultIgnoreIndex
				}
			}
			if c.bad {
				labels[rows-1] = int32(classes)
			}
			var results [2][][]float32
			var names []string
			for k := range 2 {
				err := tidy.Do(e, func() error {
					x := e.FromFloat32s(xv, shape...)
					y := e.FromInt32s(labels, rowShape...)
					wrt := []*tensor.Tensor{x}
					var w *tensor.Tensor
					if c.weighted {
						w = e.FromFloat32s(wv, classes)
						wrt = append(wrt, w)
					}
					f := func() *tensor.Tensor {
						r := loss.Sum
						if c.mean {
							r = loss.Mean
						}
						return loss.CrossEntropy(e, x, y, loss.CrossEntropyOptions{Reduction: r, Weight: w, IgnoreIndex: loss.Ignore(int(c.ignore))})
					}
					if k == 1 {
						f = func() *tensor.Tensor { return crossEntropyComposed(e, x, y, w, c.ignore, c.mean) }
					}
					got := profiled(t, e, func() error {
						tape := NewTape(e)
						defer tape.Dispose()
						var l *tensor.Tensor
						if err := tape.Record(func() error { l = f(); return l.Err() }); err != nil {
							return err
						}
						gs, err := tape.Gradients(l, wrt, nil)
						if err != nil {
							return err
						}
						for _, v := range append([]*tensor.Tensor{l}, gs...) {
							vals, err := v.Float32s(context.Background())
							if err != nil {
								return err
							}
							results[k] = append(results[k], vals)
						}
						return nil
					})
					if k == 0 {
						names = got
					}
					return nil
				})
				require.NoError(t, err)
			}
			require.Len(t, results[0], len(results[1]))
			for i := range results[0] {
				assert.Equal(t, bitsOf(results[1][i]), bitsOf(results[0][i]), "%v %s: result %d", shape, c.name, i)
			}
			if c.bad {
				assert.True(t, math.IsNaN(float64(results[0][0][0])), "%v %s: the loss %v", shape, c.name, results[0][0])
			}
			if c.name == "mean" {
				assert.LessOrEqual(t, len(names), 6, "%v: %v", shape, names)
				assert.Contains(t, names, "softmax_xent_grad_weighted")
			}
		}
	}
}

// BenchmarkFusedSteps times a forward and backward pass on a tape, read
// back, of the fused ops against the composed ones they replace: a
// LayerNorm over [1024 128] (transformer_train_step's size) as nn
// composed it (Mean, Sub, Square, Rsqrt, Mul, Add) and fused; softmax
// cross-entropy's mean over [1024 64] logits through Mean's rule and
// fused; loss.CrossEntropy's default options composed and fused.
func BenchmarkFusedSteps(b *testing.B) {
	const rows = 1024
	type stepFn func(e *tensor.Engine, x, g, bt, y *tensor.Tensor) *tensor.Tensor
	for _, c := range []struct {
		name string
		f    stepFn
	}{
		{"layer_norm/composed", func(e *tensor.Engine, x, g, bt, _ *tensor.Tensor) *tensor.Tensor {
			d := e.Sub(x, e.Mean(x, true, -1))
			v := e.Mean(e.Square(d), true, -1)
			return e.Add(e.Mul(e.Mul(d, e.Rsqrt(e.Add(v, e.Scalar(1e-5)))), g), bt)
		}},
		{"layer_norm/fused", func(e *tensor.Engine, x, g, bt, _ *tensor.Tensor) *tensor.Tensor { return e.LayerNorm(x, g, bt, 1e-5) }},
		{"xent_mean/composed", func(e *tensor.Engine, x, _, _, y *tensor.Tensor) *tensor.Tensor {
			return e.Mean(e.SoftmaxCrossEntropy(x, y), false)
		}},
		{"xent_mean/fused", func(e *tensor.Engine, x, _, _, y *tensor.Tensor) *tensor.Tensor {
			return loss.SoftmaxCrossEntropy(e, x, y, loss.Mean)
		}},
		{"cross_entropy/composed", func(e *tensor.Engine, x, _, _, y *tensor.Tensor) *tensor.Tensor {
			return crossEntropyComposed(e, x, y, nil, loss.DefaultIgnoreIndex, true)
		}},
		{"cross_entropy/fused", func(e *tensor.Engine, x, _, _, y *tensor.Tensor) *tensor.Tensor {
			return loss.CrossEntropy(e, x, y, loss.CrossEntropyOptions{})
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := testgpu.Engine(b)
			rng := rngFor(&testing.T{})
			d := 128
			if c.name[0] != 'l' {
				d = 64
			}
			labels := make([]int32, rows)
			for i := range labels {
				labels[i] = int32(rng.IntN(d))
			}
			x := e.FromFloat32s(f32(randIn(rng, -2, 2, rows, d).data), rows, d)
			g := e.FromFloat32s(f32(randIn(rng, 0.5, 1.5, d).data), d)
			bt := e.FromFloat32s(make([]float32, d), d)
			y := e.FromInt32s(labels, rows)
			seed := e.FromFloat32s(f32(randIn(rng, -1, 1, rows, d).data), rows, d)
			defer tidy.Dispose([]*tensor.Tensor{x, g, bt, y, seed})
			step := func() {
				err := tidy.Do(e, func() error {
					tape := NewTape(e)
					var l *tensor.Tensor
					if err := tape.Record(func() error { l = c.f(e, x, g, bt, y); return l.Err() }); err != nil {
						return err
					}
					var o *Options
					if l.Rank() > 0 {
						o = &Options{Seed: seed}
					}
					gs, err := tape.Gradients(l, []*tensor.Tensor{x}, o)
					if err != nil {
						return err
					}
					_, err = gs[0].Float32s(context.Background())
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			step()
			for b.Loop() {
				step()
			}
		})
	}
}
