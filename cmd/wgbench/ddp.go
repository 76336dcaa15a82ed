package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wgtensor/wgtensor/dist"
	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// ddp_train_step_N: cnn_train_step's CNN and batch of 64, trained
// data-parallel (package dist) by N ranks that mpirun starts on this
// machine, each on 64/N of the batch, with buckets of ddpBucketBytes (so
// that the linear layer's gradient is exchanged while backward computes
// the convolutions'). A sample is one job: ddpWarmup steps, then
// ddpSteps timed ones. ms/step is rank 0's median step; waited is how
// long its Step waited for the exchange (what data parallelism added to
// the step, the device finishing backward included), exchange the time
// from a bucket's readback to its average, summed over buckets,
// collective the part of that in MPI's all-reduce, and hidden the share
// of collective that ran while the device still computed backward;
// peak_live is
// rank 0's device peak over the timed steps. It passes when every rank's
// live tensors and bytes after the timed steps are those after the
// warm-up and its weights are rank 0's, bit for bit.
//
// The ranks share this machine's cores (and, on lavapipe, its one
// device): N ranks cannot be faster here, they show the exchange's cost
// and how much of it backward hides. The workloads exist in a wgbench
// built with -tags mpi.
const (
	ddpWarmup, ddpSteps = 3, 10
	ddpBucketBytes      = 32 << 10
)

// ddpWorkloads are the data-parallel workloads, where MPI is built in.
func ddpWorkloads() []workload {
	if !dist.MPIBuiltIn() {
		return nil
	}
	return []workload{ddpTrainStep(1), ddpTrainStep(2), ddpTrainStep(4)}
}

func ddpTrainStep(ranks int) workload {
	name := fmt.Sprintf("ddp_train_step_%d", ranks)
	return workload{name: name, run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
		r, err := ddpJob(ctx, e.Device().Info(), ranks)
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", name, err)
		}
		res := Result{Value: r.MsStep, Unit: "ms/step", NsPerOp: r.MsStep * 1e6, Ops: ddpSteps, Ok: r.Ok, Check: r.Check,
			Extra: Metrics{
				{Name: "waited", Value: r.WaitedMs, Unit: "ms/step"},
				{Name: "exchange", Value: r.ExchangeMs, Unit: "ms/step"},
				{Name: "collective", Value: r.CollectiveMs, Unit: "ms/step"},
				{Name: "hidden", Value: r.HiddenPct, Unit: "%"},
				bytesMetric("exchanged", uint64(r.Bytes)),
				bytesMetric("peak_live", r.PeakLive),
			}}
		return res, nil
	}}
}

// ddpResult is what rank 0 of a job reports, on a line of its own after
// ddpResultPrefix.
type ddpResult struct {
	MsStep       float64 `json:"ms_step"`
	WaitedMs     float64 `json:"waited_ms"`
	ExchangeMs   float64 `json:"exchange_ms"`
	CollectiveMs float64 `json:"collective_ms"`
	HiddenPct    float64 `json:"hidden_pct"`
	Bytes        int64   `json:"bytes"`
	PeakLive     uint64  `json:"peak_live"`
	Ok           bool    `json:"ok"`
	Check        string  `json:"check"`
}

const ddpResultPrefix = "wgbench-ddp-result: "

// ddpJob runs one job of ranks ranks under mpirun on the adapter info
// names, and returns rank 0's report.
func ddpJob(ctx context.Context, info wgpu.AdapterInfo, ranks int) (ddpResult, error) {
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		return ddpResult{}, errors.New("mpirun is not on PATH (apt-get install openmpi-bin)")
	}
	self, err := os.Executable()
	if err != nil {
		return ddpResult{}, err
	}
	args := []string{"--oversubscribe", "-np", strconv.Itoa(ranks)}
	if os.Getuid() == 0 {
		args = append(args, "--allow-run-as-root")
	}
	args = append(args, self, "ddp-rank")
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, mpirun, args...)
	cmd.Env = append(os.Environ(), "WGT_ADAPTER="+info.Name, "WGT_BACKEND="+info.Backend.String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		return ddpResult{}, fmt.Errorf("mpirun: %w: %s", err, tail(out, 2000))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), ddpResultPrefix); ok {
			var r ddpResult
			if err := json.Unmarshal([]byte(rest), &r); err != nil {
				return ddpResult{}, fmt.Errorf("rank 0's report %q: %w", rest, err)
			}
			return r, nil
		}
	}
	return ddpResult{}, fmt.Errorf("no report from rank 0: %s", tail(out, 2000))
}

// tail returns the last n bytes of b, as text.
func tail(b []byte, n int) string {
	return string(b[max(0, len(b)-n):])
}

// ddpRankCmd is one rank of a ddp_train_step job (wgbench ddp-rank, which
// ddpJob starts under mpirun): it trains, checks, and rank 0 prints its
// report.
func ddpRankCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ddp-rank", flag.ContinueOnError)
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := dist.Init(dist.Options{Timeout: 2 * time.Minute})
	if err != nil {
		return err
	}
	r, err := ddpRank(c)
	if err != nil {
		return fmt.Errorf("rank %d: %w", c.Rank(), err) // no Close: after a fault it would wait for the rank that failed
	}
	if c.Rank() == 0 {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s%s\n", ddpResultPrefix, b)
	}
	return c.Close()
}

func ddpRank(c *dist.Comm) (ddpResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if cnnBatch%c.Size() != 0 {
		return ddpResult{}, fmt.Errorf("%d ranks do not share a batch of %d", c.Size(), cnnBatch)
	}
	d, err := wgpu.Open(ctx, dist.AdapterFor(c, wgpu.Options{})) // the parent's adapter, through WGT_ADAPTER
	if err != nil {
		return ddpResult{}, err
	}
	defer d.Close()
	e := tensor.New(d)
	b := nn.NewBuilder(e, cnnSeed)
	model := newCNN(b)
	defer model.Dispose()
	if err := b.Err(); err != nil {
		return ddpResult{}, err
	}
	share := cnnBatch / c.Size()
	h := cnnData()
	from := c.Rank() * share * cnnSide * cnnSide
	x := e.FromFloat32s(h.x[from:from+share*cnnSide*cnnSide], share, cnnSide, cnnSide, 1)
	labels := e.FromInt32s(h.labels[c.Rank()*share:(c.Rank()+1)*share], share)
	defer tidy.Dispose([]*tensor.Tensor{x, labels})
	opt, err := optim.NewSGD(e, model.Params(), optim.SGDConfig{LR: cnnLR})
	if err != nil {
		return ddpResult{}, err
	}
	defer opt.Dispose()
	ddp, err := dist.NewDataParallel(ctx, c, e, opt, &dist.DataParallelOptions{BucketBytes: ddpBucketBytes})
	if err != nil {
		return ddpResult{}, err
	}
	defer ddp.Close()
	params := nn.Tensors(model.Params())
	step := func() error {
		return tidy.Do(e, func() error {
			_, gs, err := grad.ValueAndGrad(e, func([]*tensor.Tensor) (*tensor.Tensor, error) {
				l := loss.SoftmaxCrossEntropy(e, model.Forward(x), labels, loss.Mean)
				return l, l.Err()
			}, params, &grad.Options{Ready: ddp.Ready})
			if err != nil {
				return err
			}
			return ddp.Step(ctx, gs)
		})
	}
	for range ddpWarmup {
		if err := step(); err != nil {
			return ddpResult{}, err
		}
	}
	if err := e.Flush(); err != nil {
		return ddpResult{}, err
	}
	before, s0 := e.Memory(), ddp.Stats()
	d.Pool().ResetPeaks()
	times := make([]float64, ddpSteps)
	for i := range times {
		start := time.Now()
		if err := step(); err != nil {
			return ddpResult{}, err
		}
		if _, err := d.WorkDone().Await(ctx); err != nil { // the step's work on the device, not only recorded
			return ddpResult{}, err
		}
		times[i] = float64(time.Since(start).Microseconds()) / 1e3
	}
	after, s1 := e.Memory(), ddp.Stats()
	r := ddpResult{PeakLive: d.Pool().Stats().PeakLiveBytes, Bytes: s1.Bytes, Ok: true}
	slices.Sort(times)
	r.MsStep = times[len(times)/2]
	r.WaitedMs = ms(s1.Waited-s0.Waited) / ddpSteps
	r.ExchangeMs = ms(s1.Exchange-s0.Exchange) / ddpSteps
	r.CollectiveMs = ms(s1.Collective-s0.Collective) / ddpSteps
	if coll := s1.Collective - s0.Collective; coll > 0 {
		r.HiddenPct = 100 * (s1.Hidden - s0.Hidden).Seconds() / coll.Seconds()
	}
	differs, err := c.Differs(ctx, params)
	if err != nil {
		return ddpResult{}, err
	}
	switch {
	case after.Tensors != before.Tensors || after.Bytes != before.Bytes:
		r.Ok, r.Check = false, fmt.Sprintf("rank %d: %d tensors of %d B after the timed steps, %d of %d B before", c.Rank(), after.Tensors, after.Bytes, before.Tensors, before.Bytes)
	case differs >= 0:
		r.Ok, r.Check = false, fmt.Sprintf("rank %d's weights differ from rank 0's", differs)
	default:
		r.Check = fmt.Sprintf("%d ranks: memory flat over the timed steps, weights equal bit for bit", c.Size())
	}
	return r, nil
}

func ms(d time.Duration) float64 { return d.Seconds() * 1e3 }
