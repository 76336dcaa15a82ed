package wgpu_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/wgpu"
)

// A batch is submitted before a dispatch would take its estimated work past
// the budget, and a dispatch over the budget by itself goes alone.
func TestBatchesStayWithinTheWorkBudget(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.WorkBudget = 1000
	d := testgpu.OpenWith(t, opts)
	require.Equal(t, wgpu.Work(1000), d.WorkBudget())
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(64, 1))
	defer x.Release()
	y, err := d.NewBuffer(256, wgpu.UsageStorage)
	require.NoError(t, err)
	defer y.Release()
	require.NoError(t, d.Flush())
	submits := func() uint64 { return d.Stats().Submits }
	before := submits()
	dispatch := func(work wgpu.Work) {
		t.Helper()
		require.NoError(t, d.DispatchWork(k, groupsFor(64), work, scaleParams(2, 64), x, y))
	}
	dispatch(400)
	dispatch(400)
	assert.Equal(t, before, submits(), "800 of 1000: still open")
	dispatch(400)
	assert.Equal(t, before+1, submits(), "1200 would pass the budget: the first two went first")
	dispatch(5000)
	assert.Equal(t, before+3, submits(), "over the budget alone: the open batch, then it alone")
	dispatch(600)
	dispatch(400)
	assert.Equal(t, before+4, submits(), "exactly at the budget: submitted")
	st := d.Stats()
	assert.Equal(t, wgpu.Work(7200), st.Work)
	assert.Equal(t, wgpu.Work(1000), st.PeakBatchWork, "the lone dispatch over the budget is not a batch of several")
	assert.Equal(t, ramp(64, 2), readF32(t, d, y))
}

// Dispatch, which has no estimate from its caller, assumes a bounded
// amount per workgroup.
func TestDispatchEstimatesItsWork(t *testing.T) {
	d := testgpu.Open(t)
	k := scaleKernel(t, d)
	x := upload(t, d, ramp(64, 1))
	defer x.Release()
	y, err := d.NewBuffer(256, wgpu.UsageStorage)
	require.NoError(t, err)
	defer y.Release()
	before := d.Stats().Work
	require.NoError(t, d.Dispatch(k, [3]uint32{2, 3, 1}, scaleParams(2, 64), x, y))
	perGroup := (d.Stats().Work - before) / 6
	assert.Positive(t, perGroup)
	assert.Equal(t, 6*perGroup, d.Stats().Work-before, "the same for each of the six workgroups")
	assert.Equal(t, ramp(64, 2), readF32(t, d, y))
}

func TestWorkOfCapsEstimates(t *testing.T) {
	assert.Equal(t, wgpu.Work(5), wgpu.WorkOf(5.5))
	assert.Equal(t, wgpu.Work(0), wgpu.WorkOf(-3))
	assert.Equal(t, wgpu.Work(0), wgpu.WorkOf(math.NaN()))
	huge := wgpu.WorkOf(1e300)
	assert.Equal(t, huge, wgpu.WorkOf(math.Inf(1)))
	assert.Greater(t, huge+huge, huge, "two capped estimates add without overflow")
}

// CPU adapters get the small budget; GPUs a budget so large that their
// batches are cut by Options.BatchSize alone, as before budgets existed.
func TestGPUsKeepBatchingByBatchSize(t *testing.T) {
	assert.Equal(t, wgpu.CPUWorkBudget, wgpu.DefaultWorkBudget(wgpu.AdapterCPU))
	for _, typ := range []wgpu.AdapterType{wgpu.AdapterDiscrete, wgpu.AdapterIntegrated, wgpu.AdapterUnknown} {
		assert.Equal(t, wgpu.GPUWorkBudget, wgpu.DefaultWorkBudget(typ), "%v", typ)
	}
	assert.GreaterOrEqual(t, wgpu.GPUWorkBudget/wgpu.CPUWorkBudget, wgpu.Work(100))

	d := testgpu.Open(t)
	if d.Info().Type == wgpu.AdapterCPU {
		assert.Equal(t, wgpu.CPUWorkBudget, d.WorkBudget())
	}
	opts := testgpu.DefaultOptions()
	opts.WorkBudget = wgpu.GPUWorkBudget
	opts.BatchSize = 8
	g := testgpu.OpenWith(t, opts)
	k := scaleKernel(t, g)
	x := upload(t, g, ramp(64, 1))
	defer x.Release()
	y, err := g.NewBuffer(256, wgpu.UsageStorage)
	require.NoError(t, err)
	defer y.Release()
	require.NoError(t, g.Flush())
	before := g.Stats().Submits
	for range 7 {
		// Each a second and a half of a CPU adapter's work, were it real.
		require.NoError(t, g.DispatchWork(k, groupsFor(64), 3*wgpu.CPUWorkBudget/2, scaleParams(2, 64), x, y))
	}
	assert.Equal(t, before, g.Stats().Submits, "within the GPU budget, only the batch size submits")
	require.NoError(t, g.DispatchWork(k, groupsFor(64), 3*wgpu.CPUWorkBudget/2, scaleParams(2, 64), x, y))
	assert.Equal(t, before+1, g.Stats().Submits, "the eighth dispatch fills the batch")
	assert.Equal(t, ramp(64, 2), readF32(t, g, y))
}

// Copies count too: a batch of readbacks or staged uploads is submitted
// once their bytes reach the budget.
func TestCopiesCountTowardTheBudget(t *testing.T) {
	opts := testgpu.DefaultOptions()
	opts.WorkBudget = 3000
	d := testgpu.OpenWith(t, opts)
	b := upload(t, d, ramp(256, 1)) // 1 KiB
	defer b.Release()
	require.NoError(t, d.Flush())
	before := d.Stats().Submits
	var ps []*wgpu.Promise[[]byte]
	for range 2 {
		ps = append(ps, d.ReadAsync(b, 0, b.Size()))
	}
	assert.Equal(t, before, d.Stats().Submits, "2 KiB of copies: still open")
	ps = append(ps, d.ReadAsync(b, 0, b.Size()))
	assert.Equal(t, before+1, d.Stats().Submits, "3 KiB would pass the budget: the first two went first")
	for _, p := range ps {
		got, err := p.Await(ctxT(t))
		require.NoError(t, err)
		assert.Equal(t, ramp(256, 1), bytesF32(got))
	}

	big := ramp(1<<18, 1) // 1 MiB: staged through an upload buffer
	c, err := d.NewBuffer(uint64(4*len(big)), wgpu.UsageStorage)
	require.NoError(t, err)
	defer c.Release()
	require.NoError(t, d.Flush())
	before = d.Stats().Submits
	require.NoError(t, d.Write(c, 0, f32bytes(big)))
	assert.Equal(t, before+1, d.Stats().Submits, "a staged upload past the budget goes at once")
	assert.Equal(t, big, readF32(t, d, c))
}
