//go:build mpi

package dist_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/checkpoint"
	"github.com/wgtensor/wgtensor/dist"
	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// The tests below start ranks: this test binary again, under mpirun, as
// TestRank with WGT_DIST_SCENARIO naming what each rank does. A rank
// reports its outcome on a line "RESULT rank=R ..." that the launching
// test reads; its own assertions fail the rank, which fails mpirun.

// mpirun runs scenario on n ranks (oversubscribed: this machine has
// fewer cores) and returns their output and mpirun's error.
// --enable-recovery keeps the other ranks running when one dies, so that
// they can report how they failed.
func mpirun(t *testing.T, n int, scenario string, extra ...string) (string, error) {
	t.Helper()
	bin := testgpu.MPIRun(t)
	args := []string{"--oversubscribe", "--enable-recovery", "-np", strconv.Itoa(n)}
	if os.Getuid() == 0 {
		args = append(args, "--allow-run-as-root")
	}
	args = append(args, os.Args[0], "-test.run=^TestRank$", "-test.count=1", "-test.v")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "WGT_DIST_SCENARIO="+scenario, "WGT_DIST_TMP="+t.TempDir(),
		"WGT_MATMUL=tiled") // one product kernel on every rank: no timing-tuned choice
	cmd.Env = append(cmd.Env, extra...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// results returns the RESULT lines of out, by rank: their key=value
// fields, a value quoted where it has spaces.
func results(out string) map[int]map[string]string {
	r := map[int]map[string]string{}
	for _, line := range resultLine.FindAllString(out, -1) {
		f := map[string]string{}
		for _, m := range resultField.FindAllStringSubmatch(line, -1) {
			v := m[2]
			if u, err := strconv.Unquote(v); err == nil {
				v = u
			}
			f[m[1]] = v
		}
		if rank, err := strconv.Atoi(f["rank"]); err == nil {
			r[rank] = f
		}
	}
	return r
}

var (
	resultLine  = regexp.MustCompile(`RESULT [^\n]*`)
	resultField = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*"|\S+)`)
)

// report prints a RESULT line for the launching test.
func report(c *dist.Comm, fields ...any) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "RESULT rank=%d", c.Rank())
	for i := 0; i+1 < len(fields); i += 2 {
		fmt.Fprintf(&b, " %v=%v", fields[i], fields[i+1])
	}
	fmt.Println(b.String())
}

// TestRank is one rank of a scenario; outside mpirun it skips.
func TestRank(t *testing.T) {
	scenario := os.Getenv("WGT_DIST_SCENARIO")
	if scenario == "" {
		t.Skip("a rank of the tests that run mpirun")
	}
	c, err := dist.Init(dist.Options{Timeout: 3 * time.Second})
	require.NoError(t, err)
	e := testgpu.Engine(t)
	switch scenario {
	case "equivalence", "fixed":
		rankEquivalence(t, c, e, scenario == "fixed")
	case "mismatch":
		rankMismatch(t, c, e)
	case "stall", "kill":
		rankFault(t, c, e, scenario)
		return // the Comm is broken: no Finalize
	case "flat":
		rankFlat(t, c, e)
	default:
		t.Fatalf("unknown scenario %q", scenario)
	}
	require.NoError(t, c.Close())
}

// The model every scenario trains: y = tanh(x·w1 + b1)·w2 + b2, against
// targets by mean squared error, on a batch of batch rows of which each
// rank takes its share.
const (
	batch, in, hidden, out = 16, 8, 16, 2
)

type model struct {
	params []optim.Param
	x, y   *tensor.Tensor // the whole batch
}

func newModel(e *tensor.Engine, seed uint64) *model {
	m := &model{
		x: e.RandNormal(100, 0, 1, batch, in),
		y: e.RandNormal(101, 0, 1, batch, out),
	}
	for i, s := range []struct {
		name  string
		shape []int
	}{{"w1", []int{in, hidden}}, {"b1", []int{hidden}}, {"w2", []int{hidden, out}}, {"b2", []int{out}}} {
		m.params = append(m.params, optim.Param{Name: s.name, T: e.RandNormal(seed+uint64(i), 0, 0.5, s.shape...)})
	}
	return m
}

func (m *model) tensors() []*tensor.Tensor {
	ts := make([]*tensor.Tensor, len(m.params))
	for i, p := range m.params {
		ts[i] = p.T
	}
	return ts
}

func (m *model) dispose() {
	tidy.Dispose(append(m.tensors(), m.x, m.y))
}

// loss is the mean squared error over rows [lo, hi) of the batch.
func (m *model) loss(e *tensor.Engine, p []*tensor.Tensor, lo, hi int) (*tensor.Tensor, error) {
	x := e.Slice(m.x, []int{lo, 0}, []int{hi - lo, in})
	y := e.Slice(m.y, []int{lo, 0}, []int{hi - lo, out})
	h := e.Tanh(e.Add(e.MatMul(x, p[0]), p[1]))
	d := e.Sub(e.Add(e.MatMul(h, p[2]), p[3]), y)
	l := e.Mean(e.Mul(d, d), false)
	return l, l.Err()
}

// trainStep trains one data-parallel step on this rank's share of the
// batch.
func (m *model) trainStep(t *testing.T, e *tensor.Engine, c *dist.Comm, ddp *dist.DataParallel) {
	share := batch / c.Size()
	l, gs, err := grad.ValueAndGrad(e, func(p []*tensor.Tensor) (*tensor.Tensor, error) {
		return m.loss(e, p, c.Rank()*share, (c.Rank()+1)*share)
	}, m.tensors(), &grad.Options{Ready: ddp.Ready})
	require.NoError(t, err)
	require.NoError(t, ddp.Step(context.Background(), gs))
	tidy.Dispose(append(gs, l))
}

// sameOnEveryRank fails t unless every rank's values are rank 0's, bit
// for bit.
func sameOnEveryRank(t *testing.T, c *dist.Comm, values [][]float32) {
	var raw []byte
	for _, v := range values {
		raw = append(raw, floatsBytes(v)...)
	}
	all, err := c.AllGather(context.Background(), raw)
	require.NoError(t, err)
	for r := 1; r < c.Size(); r++ {
		require.Equal(t, raw, all[r*len(raw):(r+1)*len(raw)], "rank %d's parameters are rank 0's, bit for bit", r)
	}
}

func (m *model) values(t *testing.T) [][]float32 {
	var vs [][]float32
	for _, p := range m.params {
		v, err := p.T.Float32s(context.Background())
		require.NoError(t, err)
		vs = append(vs, v)
	}
	return vs
}

func newSGD(t *testing.T, e *tensor.Engine, m *model) optim.Optimizer {
	opt, err := optim.NewSGD(e, m.params, optim.SGDConfig{LR: 0.1, Momentum: 0.9})
	require.NoError(t, err)
	return opt
}

// rankEquivalence trains the model data-parallel for a few steps, each
// rank on its share of the batch, and compares the parameters with one
// process's on the whole batch (rank 0 trains that reference too, on the
// same device): within float32's rounding by default; with FixedOrder,
// bit for bit against one process that sums the ranks' micro-batch
// gradients in rank order.
func rankEquivalence(t *testing.T, c *dist.Comm, e *tensor.Engine, fixed bool) {
	ctx := context.Background()
	const steps = 5
	n := c.Size()
	// Every rank starts from its own random values: NewDataParallel
	// copies rank 0's.
	m := newModel(e, uint64(10+100*c.Rank()))
	defer m.dispose()
	opt := newSGD(t, e, m)
	defer opt.Dispose()
	ddp, err := dist.NewDataParallel(ctx, c, e, opt, &dist.DataParallelOptions{BucketBytes: 4 * (in*hidden + hidden), FixedOrder: fixed})
	require.NoError(t, err)
	defer ddp.Close()
	for range steps {
		m.trainStep(t, e, c, ddp)
	}
	got := m.values(t)
	sameOnEveryRank(t, c, got)
	r, err := c.Differs(ctx, m.tensors())
	require.NoError(t, err)
	assert.Equal(t, -1, r, "Differs finds none")
	if c.Rank() == n-1 { // one bit of one element on the last rank
		require.NoError(t, e.WriteBytes(m.params[1].T, 4, floatsBytes([]float32{math.Nextafter32(got[1][1], 1)})))
	}
	r, err = c.Differs(ctx, m.tensors())
	require.NoError(t, err)
	assert.Equal(t, n-1, r, "Differs names the last rank")
	if c.Rank() == n-1 {
		require.NoError(t, e.WriteBytes(m.params[1].T, 4, floatsBytes(got[1][1:2])))
	}
	s := ddp.Stats()
	assert.Equal(t, steps, s.Steps)
	assert.Equal(t, 2, s.Buckets, "w2 and b2 and b1 in one, w1 in the other")
	if c.Rank() != 0 {
		report(c, "ok", true)
		return
	}
	// The reference: one process from rank 0's initial values.
	ref := newModel(e, 10)
	defer ref.dispose()
	refOpt := newSGD(t, e, ref)
	defer refOpt.Dispose()
	for range steps {
		var gs []*tensor.Tensor
		if fixed {
			gs = microBatchMean(t, e, ref, n)
		} else {
			var l *tensor.Tensor
			var err error
			l, gs, err = grad.ValueAndGrad(e, func(p []*tensor.Tensor) (*tensor.Tensor, error) { return ref.loss(e, p, 0, batch) }, ref.tensors(), nil)
			require.NoError(t, err)
			l.Dispose()
		}
		require.NoError(t, refOpt.Step(gs))
		tidy.Dispose(gs)
	}
	want := ref.values(t)
	worst := 0.0
	for i := range want {
		for j := range want[i] {
			worst = max(worst, math.Abs(float64(got[i][j]-want[i][j]))/(1e-3+math.Abs(float64(want[i][j]))))
		}
	}
	if fixed {
		assert.Equal(t, want, got, "bit for bit")
	} else {
		assert.Less(t, worst, 1e-5, "within float32's rounding")
	}
	report(c, "ok", true, "worst", worst, "hidden", s.Hidden, "exchange", s.Exchange)
}

// microBatchMean is FixedOrder's reference gradient: the gradients of the
// n micro-batches, summed in order in float32 on the host, divided by n.
func microBatchMean(t *testing.T, e *tensor.Engine, m *model, n int) []*tensor.Tensor {
	ctx := context.Background()
	share := batch / n
	var sum [][]float32
	for r := range n {
		l, gs, err := grad.ValueAndGrad(e, func(p []*tensor.Tensor) (*tensor.Tensor, error) {
			return m.loss(e, p, r*share, (r+1)*share)
		}, m.tensors(), nil)
		require.NoError(t, err)
		for i, g := range gs {
			v, err := g.Float32s(ctx)
			require.NoError(t, err)
			if r == 0 {
				sum = append(sum, v)
				continue
			}
			for j := range v {
				sum[i][j] += v[j]
			}
		}
		tidy.Dispose(append(gs, l))
	}
	out := make([]*tensor.Tensor, len(sum))
	for i, v := range sum {
		for j := range v {
			v[j] /= float32(n)
		}
		out[i] = e.FromFloat32s(v, m.params[i].T.Shape()...)
	}
	return out
}

// rankMismatch: rank 1's w2 has another shape; every rank's
// NewDataParallel fails naming it.
func rankMismatch(t *testing.T, c *dist.Comm, e *tensor.Engine) {
	m := newModel(e, 10)
	defer m.dispose()
	if c.Rank() == 1 {
		m.params[2].T.Dispose()
		m.params[2].T = e.Zeros(tensor.Float32, hidden, out+1)
	}
	opt := newSGD(t, e, m)
	defer opt.Dispose()
	_, err := dist.NewDataParallel(context.Background(), c, e, opt, nil)
	require.ErrorIs(t, err, dist.ErrMismatch)
	assert.Contains(t, err.Error(), `rank 1's model differs from rank 0's at parameter 2: rank 0 has "w2" float32 [16 2], rank 1 has "w2" float32 [16 3]`)
	report(c, "ok", true)
}

// rankFault: rank 1 stalls (sleeps past the others' timeout) or dies
// (SIGKILL) in its forward pass; the others' Step returns within the
// timeout with ErrTimeout (or ErrFault, if MPI notices the death), and
// the Comm stays broken.
func rankFault(t *testing.T, c *dist.Comm, e *tensor.Engine, how string) {
	ctx := context.Background()
	m := newModel(e, 10)
	defer m.dispose()
	opt := newSGD(t, e, m)
	defer opt.Dispose()
	ddp, err := dist.NewDataParallel(ctx, c, e, opt, nil)
	require.NoError(t, err)
	defer ddp.Close()
	start := time.Now()
	l, gs, err := grad.ValueAndGrad(e, func(p []*tensor.Tensor) (*tensor.Tensor, error) {
		if c.Rank() == 1 {
			if how == "kill" {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
			time.Sleep(c.Timeout() + 2*time.Second)
		}
		return m.loss(e, p, 0, batch)
	}, m.tensors(), &grad.Options{Ready: ddp.Ready})
	require.NoError(t, err)
	defer tidy.Dispose(append(gs, l))
	err = ddp.Step(ctx, gs)
	took := time.Since(start)
	if c.Rank() != 1 || how == "stall" { // a stalled rank finds the others gone
		require.Error(t, err)
		assert.True(t, errorsIsAny(err, dist.ErrTimeout, dist.ErrFault), "%v", err)
		assert.ErrorIs(t, c.Err(), err)
		assert.Error(t, c.Barrier(ctx), "broken")
	}
	report(c, "err", strconv.Quote(fmt.Sprint(err)), "took", took.Seconds())
}

func errorsIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// floatsBytes returns v's little-endian bytes.
func floatsBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// rankFlat trains 1,000 steps: the engine's memory after the tenth step
// is its memory after the last, and after Close nothing is live (the
// leak check). Rank 0 then writes a checkpoint that every rank loads,
// and every rank holds the same parameters.
func rankFlat(t *testing.T, c *dist.Comm, e *tensor.Engine) {
	ctx := context.Background()
	m := newModel(e, 10)
	defer m.dispose()
	opt := newSGD(t, e, m)
	defer opt.Dispose()
	ddp, err := dist.NewDataParallel(ctx, c, e, opt, &dist.DataParallelOptions{BucketBytes: 256})
	require.NoError(t, err)
	defer ddp.Close()
	var at10 tensor.Memory
	for step := 1; step <= 1000; step++ {
		m.trainStep(t, e, c, ddp)
		if step == 10 {
			require.NoError(t, e.Flush())
			at10 = e.Memory()
		}
	}
	require.NoError(t, e.Flush())
	end := e.Memory()
	assert.Equal(t, at10.Tensors, end.Tensors)
	assert.Equal(t, at10.Bytes, end.Bytes)
	assert.Equal(t, at10.Pool.LiveBytes, end.Pool.LiveBytes)

	path := filepath.Join(os.Getenv("WGT_DIST_TMP"), "model.safetensors")
	if c.Rank() == 0 {
		require.NoError(t, checkpoint.SaveFile(ctx, path, m.params, checkpoint.SaveOptions{Optimizer: opt}))
	}
	require.NoError(t, c.Barrier(ctx))
	loaded := newModel(e, 77)
	defer loaded.dispose()
	_, err = checkpoint.LoadFile(ctx, e, path, loaded.params, checkpoint.LoadOptions{})
	require.NoError(t, err)
	mine := loaded.values(t)
	assert.Equal(t, m.values(t), mine)
	sameOnEveryRank(t, c, mine)
	report(c, "ok", true, "bytes", end.Bytes)
}

// N ranks each on 1/N of the batch train the parameters one process
// trains on the whole batch: within float32's rounding, and bit for bit
// with FixedOrder against the same sums in rank order; on 2 and 4 ranks.
func TestDataParallelMatchesOneProcess(t *testing.T) {
	for _, n := range []int{2, 4} {
		for _, scenario := range []string{"equivalence", "fixed"} {
			t.Run(fmt.Sprintf("%s %d ranks", scenario, n), func(t *testing.T) {
				out, err := mpirun(t, n, scenario)
				require.NoError(t, err, out)
				rs := results(out)
				require.Len(t, rs, n, out)
				t.Logf("rank 0: %v", rs[0])
			})
		}
	}
}

// Ranks whose models differ are refused by NewDataParallel on every rank,
// naming the first difference.
func TestDataParallelRefusesDifferentModels(t *testing.T) {
	out, err := mpirun(t, 2, "mismatch")
	require.NoError(t, err, out)
	require.Len(t, results(out), 2, out)
}

// A rank that stalls or dies mid-step makes the others' Step return an
// error within the timeout (3 s here) instead of hanging, on 2 and 4
// ranks.
func TestDataParallelFaultsReturnErrors(t *testing.T) {
	for _, n := range []int{2, 4} {
		for _, how := range []string{"stall", "kill"} {
			t.Run(fmt.Sprintf("%s of %d ranks", how, n), func(t *testing.T) {
				out, _ := mpirun(t, n, how) // mpirun fails: ranks end without finalising
				rs := results(out)
				for r := range n {
					if r == 1 {
						continue // the rank that fails
					}
					f, ok := rs[r]
					require.True(t, ok, "rank %d reported nothing:\n%s", r, out)
					took, err := strconv.ParseFloat(f["took"], 64)
					require.NoError(t, err)
					assert.Less(t, took, 3.0+20, "rank %d returned after %.1f s", r, took)
					assert.NotContains(t, f["err"], "<nil>", "rank %d", r)
				}
				assert.NotContains(t, out, "--- FAIL", out)
			})
		}
	}
}

// 1,000 steps leave the memory of the tenth; a checkpoint rank 0 writes
// loads on every rank; nothing is live after (the leak check).
func TestDataParallelMemoryIsFlat(t *testing.T) {
	out, err := mpirun(t, 2, "flat")
	require.NoError(t, err, out)
	require.Len(t, results(out), 2, out)
}
