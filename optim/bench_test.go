package optim_test

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// transformerShapes are the 29 parameters of wgbench's
// transformer_train_step (../shared/bench/TRANSFORMER-DEF.md): 421,376
// floats, every size a multiple of four.
func transformerShapes() [][]int {
	s := [][]int{{64, 128}, {64, 128}}
	for range 2 {
		s = append(s, []int{128}, []int{128}, []int{128, 384}, []int{384}, []int{128, 128}, []int{128},
			[]int{128}, []int{128}, []int{128, 512}, []int{512}, []int{512, 128}, []int{128})
	}
	return append(s, []int{128}, []int{128}, []int{128, 64})
}

// smallShapes are 29 parameters of 64 to 1,024 floats, as a small
// model's: a step over them costs its dispatches more than its work.
func smallShapes() [][]int {
	var s [][]int
	for i := range 29 {
		s = append(s, [][]int{{64}, {128}, {16, 16}, {32, 32}}[i%4])
	}
	return s
}

// transformerParams makes parameters of shapes (transformerShapes()
// unless given), random, and their gradients, uploaded and flushed; free
// disposes both.
func transformerParams(tb testing.TB, e *tensor.Engine, shapes ...[]int) (ps []optim.Param, grads []*tensor.Tensor, free func()) {
	if len(shapes) == 0 {
		shapes = transformerShapes()
	}
	r := rand.New(rand.NewPCG(29, 29))
	for i, s := range shapes {
		n := s[0] * last(s)
		p := e.FromFloat32s(uniform(r, n), s...)
		g := e.FromFloat32s(uniform(r, n), s...)
		p.Keep()
		g.Keep()
		ps = append(ps, optim.Param{Name: fmt.Sprintf("p%d", i), T: p})
		grads = append(grads, g)
	}
	require.NoError(tb, e.Flush())
	return ps, grads, func() {
		disposeParams(ps)
		for _, g := range grads {
			g.Dispose()
		}
	}
}

// step29Cases are the optimizers BenchmarkStep29 and
// TestStep29Dispatches run, as a transformer is trained: AdamW over two
// groups (no decay for vectors), Adam, SGD with momentum, centered
// RMSProp with momentum.
func step29Cases() []struct {
	name string
	make func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error)
} {
	return []struct {
		name string
		make func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error)
	}{
		{"adamw", func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error) {
			var decay, none []optim.Param
			for _, p := range ps {
				if len(p.T.Shape()) > 1 {
					decay = append(decay, p)
				} else {
					none = append(none, p)
				}
			}
			c := optim.AdamWDefaults()
			nc := c
			nc.WeightDecay = 0
			o, err := optim.NewAdamWGroups(e, []optim.AdamGroup{{Params: decay, Config: c}, {Params: none, Config: nc}})
			return o, err
		}},
		{"adam", func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error) {
			return optim.NewAdam(e, ps, optim.AdamDefaults())
		}},
		{"sgd", func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error) {
			return optim.NewSGD(e, ps, optim.SGDConfig{LR: 0.01, Momentum: 0.9})
		}},
		{"rmsprop", func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error) {
			c := optim.RMSPropDefaults()
			c.Momentum, c.Centered = 0.9, true
			return optim.NewRMSProp(e, ps, c)
		}},
	}
}

// gradsInOrder returns grads in the order of o's Params (groups may
// reorder the parameters).
func gradsInOrder(o optim.Optimizer, ps []optim.Param, grads []*tensor.Tensor) []*tensor.Tensor {
	out := make([]*tensor.Tensor, 0, len(grads))
	for _, p := range o.Params() {
		out = append(out, grads[indexOf(ps, p.Name)])
	}
	return out
}

// cpuTime is the CPU time the process has used (user and system, every
// thread: a CPU adapter's too), in nanoseconds: on a machine that others
// load, the work of a step is steadier than its wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkStep29 times one optimizer step over the 29 parameters of the
// transformer benchmark (421,376 floats), submitted and waited for, and
// reports the dispatches a step records and the CPU time a step takes
// (cpu-ns/op: on lavapipe and llvmpipe the device's work is CPU time of
// this process, steadier than wall time on a loaded machine).
func BenchmarkStep29(b *testing.B) {
	for _, c := range step29Cases() {
		b.Run(c.name, func(b *testing.B) { benchmarkStep(b, c.make, transformerShapes()) })
	}
}

// BenchmarkStep29Small is BenchmarkStep29 over 29 small parameters
// (smallShapes), where dispatches cost more than the work.
func BenchmarkStep29Small(b *testing.B) {
	for _, c := range step29Cases() {
		b.Run(c.name, func(b *testing.B) { benchmarkStep(b, c.make, smallShapes()) })
	}
}

func benchmarkStep(b *testing.B, make func(e *tensor.Engine, ps []optim.Param) (optim.Optimizer, error), shapes [][]int) {
	e := testgpu.Engine(b)
	ps, grads, free := transformerParams(b, e, shapes...)
	defer free()
	o, err := make(e, ps)
	require.NoError(b, err)
	defer o.Dispose()
	gs := gradsInOrder(o, ps, grads)
	d := e.Device()
	wait := func() {
		require.NoError(b, e.Flush())
		_, err := d.WorkDone().Await(ctxT(b))
		require.NoError(b, err)
	}
	for range 3 { // state created, kernels compiled
		require.NoError(b, o.Step(gs))
	}
	wait()
	before, cpu := d.Stats().Dispatches, cpuTime()
	b.ResetTimer()
	for range b.N {
		require.NoError(b, o.Step(gs))
		wait()
	}
	b.StopTimer()
	b.ReportMetric(float64(d.Stats().Dispatches-before)/float64(b.N), "dispatches/step")
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
