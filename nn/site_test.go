package nn_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/wgpu"
)

// here is the "nn/site_test.go:N" of its caller's line.
func here() string {
	_, file, line, _ := runtime.Caller(1)
	return fmt.Sprintf("nn/%s:%d", file[strings.LastIndexByte(file, '/')+1:], line)
}

// lineOf is the line of this file that holds text.
func lineOf(t *testing.T, text string) int {
	_, file, _, _ := runtime.Caller(0)
	src, err := os.ReadFile(file)
	require.NoError(t, err)
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, text) && !strings.Contains(l, "lineOf") {
			return i + 1
		}
	}
	t.Fatalf("no line holds %q", text)
	return 0
}

// Issue 19, item 17: tensors that library helpers make for the user
// (a layer's parameters, an optimizer's state, the tape's saved tensors,
// gradients, losses) are reported at the user's line that called the
// helper, however deep the helper's own calls run, and so is the buffer
// under each.
func TestHelpersReportTheUsersLine(t *testing.T) {
	e := testgpu.Engine(t)
	sites := func(ids map[uint64]bool) map[string]int {
		out := map[string]int{}
		for _, ti := range e.LiveTensors() {
			if ids == nil || !ids[ti.ID] {
				out[ti.Site.String()]++
			}
		}
		return out
	}
	live := func() map[uint64]bool {
		out := map[uint64]bool{}
		for _, ti := range e.LiveTensors() {
			out[ti.ID] = true
		}
		return out
	}

	b := nn.NewBuilder(e, 1)
	model, built := nn.NewSequential(b.Linear(3, 4), nn.ReLU(), b.BatchNorm(4), b.Linear(4, 2)), here()
	require.NoError(t, b.Err())
	defer model.Dispose()
	assert.Equal(t, map[string]int{built: 8}, sites(nil), "weights, biases, BatchNorm's scale, shift and running statistics")
	for _, bi := range e.Device().LiveBuffers() {
		if bi.Usage == wgpu.UsageStorage { // the others are the runtime's (uniform blocks)
			assert.Equal(t, built, bi.Site, "buffer %d (%d B)", bi.ID, bi.Size)
		}
	}

	before := live()
	opt, err := optim.NewAdam(e, model.Params(), optim.AdamConfig{LR: 0.01})
	require.NoError(t, err)
	defer opt.Dispose()
	x := e.Ones(tensor.Float32, 5, 3)
	target := e.Zeros(tensor.Float32, 5, 2)
	defer x.Dispose()
	defer target.Dispose()
	before[x.ID()], before[target.ID()] = true, true

	tape := grad.NewTape(e)
	var l, y *tensor.Tensor
	var lossLine string
	require.NoError(t, tape.Record(func() error {
		y = model.Forward(x)
		l, lossLine = loss.MeanSquaredError(e, y, target, loss.Mean), here()
		return l.Err()
	}))
	defer l.Dispose()
	defer y.Dispose()
	before[y.ID()] = true
	assert.Equal(t, lossLine, l.Site().String(), "the loss")
	grads, err := tape.Gradients(l, nn.Tensors(model.Params()), nil)
	gradLine := fmt.Sprintf("nn/site_test.go:%d", lineOf(t, "grads, err := tape.Gradients"))
	require.NoError(t, err)
	for _, g := range grads {
		assert.Equal(t, gradLine, g.Site().String(), "a gradient")
	}
	require.NoError(t, opt.Step(grads))
	stepLine := fmt.Sprintf("nn/site_test.go:%d", lineOf(t, "require.NoError(t, opt.Step(grads))"))
	for _, g := range grads {
		g.Dispose()
		before[g.ID()] = true
	}
	before[l.ID()] = true
	got := sites(before)
	assert.Equal(t, map[string]int{stepLine: 2 * len(grads)}, got, "Adam's moments")
	tape.Dispose()
}
