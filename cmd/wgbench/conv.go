package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/wgtensor/wgtensor/internal/cputime"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// The conv2d_3x3 workload's convolution: an NHWC batch of 32 56×56 images
// of 64 channels, a 3×3 filter to 64 channels, stride 1, same padding (a
// ResNet stage's convolution).
const (
	convBatch, convSide, convIn, convOut, convKernel = 32, 56, 64, 64, 3
)

// convFlops is the work of one conv2d_3x3 convolution, counted as peers
// count it: 2·N·OH·OW·outC·kh·kw·inC/groups.
const convFlops = 2.0 * convBatch * convSide * convSide * convOut * convKernel * convKernel * convIn

// convK is how many convolutions conv2d_3x3 times: one is 7.4 GFLOP,
// about the 8 GFLOP matmul_n times.
const convK = 1

// conv2d_3x3: K back-to-back Conv2D of the same input and filter (uniform
// in [-1, 1), fixed seed), then one readback of the last result; GFLOP/s
// by convFlops, the processor time per convolution (cpuMetric: comparable
// with matmul_n's on a shared machine), and 64 sampled outputs checked
// against float64 sums. A warm-up convolution of one image compiles the
// kernel, which the profile names.
var conv2D3x3 = workload{name: "conv2d_3x3", run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
	r := rand.New(rand.NewPCG(7, 8))
	xShape := []int{convBatch, convSide, convSide, convIn}
	fShape := []int{convKernel, convKernel, convIn, convOut}
	xv, fv := randF32(r, convBatch*convSide*convSide*convIn), randF32(r, convKernel*convKernel*convIn*convOut)
	x, f := e.FromFloat32s(xv, xShape...), e.FromFloat32s(fv, fShape...)
	defer tidy.Dispose([]*tensor.Tensor{x, f})
	opts := tensor.Conv2DOptions{Padding: tensor.Same()}
	one := e.Slice(x, []int{0, 0, 0, 0}, []int{1, convSide, convSide, convIn})
	defer one.Dispose()
	warm, err := e.Profile(ctx, func() error {
		w := e.Conv2D(one, f, opts)
		defer w.Dispose()
		_, err := w.Float32s(ctx)
		return err
	})
	if err != nil {
		return Result{}, err
	}
	k := convK
	cpu0, cpuOK := cputime.Process()
	start := time.Now()
	var y *tensor.Tensor
	for range k {
		y.Dispose()
		y = e.Conv2D(x, f, opts)
	}
	got, err := y.Float32s(ctx)
	el := time.Since(start)
	cpu1, _ := cputime.Process()
	y.Dispose()
	if err != nil {
		return Result{}, err
	}
	bad := 0
	for range 64 {
		n, oy, ox, o := r.IntN(convBatch), r.IntN(convSide), r.IntN(convSide), r.IntN(convOut)
		want := conv3x3At(xv, fv, n, oy, ox, o)
		if math.Abs(want-float64(got[((n*convSide+oy)*convSide+ox)*convOut+o])) > 1e-5*convKernel*convKernel*convIn {
			bad++
		}
	}
	per := el / time.Duration(k)
	return Result{Value: convFlops / per.Seconds() / 1e9, Unit: "GFLOP/s", NsPerOp: float64(per.Nanoseconds()),
		Ok: bad == 0, Check: fmt.Sprintf("%d of 64 sampled outputs off", bad), Ops: k, Kernel: warm.Total("conv2d_forward").Key,
		Extra: cpuOpMetric(cpu1-cpu0, k, cpuOK)}, nil
}}

// conv3x3At is output (n, oy, ox, o) of conv2d_3x3, in float64.
func conv3x3At(x, f []float32, n, oy, ox, o int) float64 {
	return conv3x3SameAt(x, f, convSide, convIn, convOut, n, oy, ox, o)
}

// conv3x3SameAt is output (n, oy, ox, o) of a 3×3 convolution, stride 1,
// same padding, no bias, in float64: x is NHWC of side×side×in, f HWIO of
// 3×3×in×out.
func conv3x3SameAt[T float32 | float64](x []T, f []float32, side, in, out, n, oy, ox, o int) float64 {
	var sum float64
	for ky := range 3 {
		for kx := range 3 {
			iy, ix := oy+ky-1, ox+kx-1
			if iy < 0 || iy >= side || ix < 0 || ix >= side {
				continue
			}
			for i := range in {
				sum += float64(x[((n*side+iy)*side+ix)*in+i]) * float64(f[((ky*3+kx)*in+i)*out+o])
			}
		}
	}
	return sum
}

// cpuOpMetric is cpuMetric per operation: the processor time the process
// used per op, named cpu.
func cpuOpMetric(used time.Duration, ops int, ok bool) Metrics {
	ms := cpuMetric(used, ops, ok)
	for i := range ms {
		ms[i].Unit = "ms/op"
	}
	return ms
}
