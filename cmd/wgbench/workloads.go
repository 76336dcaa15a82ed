package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/wgtensor/wgtensor/internal/cputime"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Result is one workload's measurement on one adapter: the median of its
// samples, and every sample.
type Result struct {
	Adapter  string   `json:"adapter"`
	Workload string   `json:"workload"`
	Value    float64  `json:"value"` // the median sample's
	Unit     string   `json:"unit"`
	NsPerOp  float64  `json:"ns_per_op,omitempty"` // the median sample's; none for a workload that is a count
	Ops      int      `json:"ops,omitempty"`       // operations timed in each sample
	Kernel   string   `json:"kernel,omitempty"`    // the matmul kernel the engine chose, or the kernels its products took (sampleRounds)
	Ok       bool     `json:"ok"`                  // every sample passed its check
	Check    string   `json:"check"`               // what was checked, or how the first wrong sample failed
	Extra    Metrics  `json:"extra,omitempty"`     // the median sample's
	Samples  []Sample `json:"samples"`             // every sample, in the order taken
}

// Sample is one measurement of a workload.
type Sample struct {
	Value   float64 `json:"value"`
	NsPerOp float64 `json:"ns_per_op,omitempty"`
	Extra   Metrics `json:"extra,omitempty"`
}

// UnmarshalJSON reads a sample, or a bare number: the value of a sample as
// files written before samples had fields hold them.
func (s *Sample) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &s.Value); err == nil {
		return nil
	}
	type plain Sample
	return json.Unmarshal(b, (*plain)(s))
}

// Metric is a figure a workload reports besides its value, such as bytes
// reserved.
type Metric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"` // "B" for bytes
}

// Metrics are a workload's figures besides its value.
type Metrics []Metric

// UnmarshalJSON reads metrics; files written before metrics had units held
// an object of strings instead, which it drops.
func (ms *Metrics) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		*ms = nil
		return nil
	}
	return json.Unmarshal(b, (*[]Metric)(ms))
}

// better returns +1 if a higher value of unit is an improvement and -1 if a
// lower one is: rates ("/s") and counts of correct results go up, times and
// bytes down.
func better(unit string) int {
	if strings.HasSuffix(unit, "/s") || unit == "correct" {
		return 1
	}
	return -1
}

// timeUnits are the units of values that are times, which ns_per_op holds
// too.
var timeUnits = map[string]bool{"ns/op": true, "µs/op": true, "µs": true, "ms/iter": true, "ms/step": true, "ms/pass": true, "ms/cycle": true}

// workload is a named measurement. run takes one sample, warming up first,
// and checks what it computed.
type workload struct {
	name string
	run  func(ctx context.Context, e *tensor.Engine) (Result, error)
}

// bytesMetric returns a metric of n bytes.
func bytesMetric(name string, n uint64) Metric {
	return Metric{Name: name, Value: float64(n), Unit: "B"}
}

// matmulWarmMax is the largest side of the matmul workloads' warm-up
// product: a larger one would cost more than the products it warms up.
const matmulWarmMax = 1024

// matmulK is how many products matmul_n times: about 8 GFLOP of work, at
// least one product.
func matmulK(n int) int { return max(1, int(8e9/(2*float64(n)*float64(n)*float64(n)))) }

// matmul: K back-to-back float32 C = A·B, each flushed (a product disposed
// unread is not computed), then one readback of the last C.
func matmul(n int) workload {
	return workload{name: fmt.Sprintf("matmul_%d", n), run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
		r := rand.New(rand.NewPCG(uint64(n), 1))
		av, bv := randF32(r, n*n), randF32(r, n*n)
		a, b := e.FromFloat32s(av, n, n), e.FromFloat32s(bv, n, n)
		defer tidy.Dispose([]*tensor.Tensor{a, b})
		// Where the autotuner is on, the timed shape is tuned first (on
		// scratch operands), so that no tuning lands in the timing; the key
		// names the kernel the timed products take (the tuned one, or the
		// heuristic's).
		kernel, err := e.TuneMatMul(n, n, n, 1, false, false)
		if err != nil {
			return Result{}, err
		}
		// Warm up: compile the kernel. The engine chooses a kernel by
		// shape (a 64×64 product takes the Small kernel, and the timed ones
		// then compiled theirs), so up to matmulWarmMax the warm-up has the
		// timed products' shape; above it, a matmulWarmMax-square corner's,
		// whose kernel family (vec4 or tiled) larger squares share. Under
		// the profile nothing is tuned: the corner's class is not tuned for
		// nothing.
		side := min(n, matmulWarmMax)
		ws := e.Slice(a, []int{0, 0}, []int{side, side})
		defer ws.Dispose()
		_, err = e.Profile(ctx, func() error {
			w := e.MatMul(ws, ws)
			defer w.Dispose()
			_, err := w.Float32s(ctx)
			return err
		})
		if err != nil {
			return Result{}, err
		}
		k := matmulK(n)
		cpu0, cpuOK := cputime.Process()
		start := time.Now()
		var c *tensor.Tensor
		for range k {
			c.Dispose()
			c = e.MatMul(a, b)
			if err = e.Flush(); err != nil { // else a product disposed unread is not computed
				break
			}
		}
		got, err := c.Float32s(ctx)
		el := time.Since(start)
		cpu1, _ := cputime.Process()
		c.Dispose()
		if err != nil {
			return Result{}, err
		}
		// Check 64 entries against float64 dot products.
		bad := 0
		for range 64 {
			i, j := r.IntN(n), r.IntN(n)
			var want float64
			for kk := range n {
				want += float64(av[i*n+kk]) * float64(bv[kk*n+j])
			}
			if math.Abs(want-float64(got[i*n+j])) > 1e-5*float64(n) {
				bad++
			}
		}
		per := el / time.Duration(k)
		return Result{Value: 2 * float64(n*n*n) / per.Seconds() / 1e9, Unit: "GFLOP/s", NsPerOp: float64(per.Nanoseconds()),
			Ok: bad == 0, Check: fmt.Sprintf("%d of 64 sampled entries off", bad),
			Ops: k, Kernel: kernel, Extra: cpuOpMetric(cpu1-cpu0, k, cpuOK)}, nil
	}}
}

// ewChainK is how many chains ew_chain_1M times before its readback.
const ewChainK = 20

// ew_chain_1M: y = relu(a*b + a) on 2^20 float32 as three ops, the
// intermediates disposed; K chains, then one readback of the last y.
// Each chain is flushed: fusion runs its three ops as one kernel, and would
// otherwise skip the chains whose results are disposed unread, which no
// eager library does.
var ewChain = workload{name: "ew_chain_1M", run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
	const n = 1 << 20
	r := rand.New(rand.NewPCG(2, 3))
	av, bv := randF32(r, n), randF32(r, n)
	a, b := e.FromFloat32s(av), e.FromFloat32s(bv)
	defer tidy.Dispose([]*tensor.Tensor{a, b})
	chain := func() (*tensor.Tensor, error) {
		p := e.Mul(a, b)
		s := e.Add(p, a)
		y := e.Relu(s)
		p.Dispose()
		s.Dispose()
		return y, e.Flush()
	}
	w, err := chain()
	if err == nil {
		_, err = w.Float32s(ctx)
	}
	w.Dispose()
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	var y *tensor.Tensor
	for range ewChainK {
		y.Dispose()
		if y, err = chain(); err != nil {
			return Result{}, err
		}
	}
	got, err := y.Float32s(ctx)
	el := time.Since(start)
	y.Dispose()
	if err != nil {
		return Result{}, err
	}
	bad := 0
	for i := range got {
		if want := max(av[i]*bv[i]+av[i], 0); math.Abs(float64(want-got[i])) > 1e-6 {
			bad++
		}
	}
	per := el / ewChainK
	return Result{Value: 32 * n / per.Seconds() / 1e9, Unit: "GB/s", NsPerOp: float64(per.Nanoseconds()),
		Ok: bad == 0, Check: fmt.Sprintf("%d of %d elements off", bad, n), Ops: ewChainK}, nil
}}

// small_ops_1k: 1,000 sequential x = x + y on 1,024 floats, the old x
// disposed, then one readback; µs per op.
var smallOps = workload{name: "small_ops_1k", run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
	y := e.Ones(tensor.Float32, 1024)
	defer y.Dispose()
	// y is made before the warm-up round, so that the round compiles the
	// kernels the timed round runs.
	if err := e.Flush(); err != nil {
		return Result{}, err
	}
	var el time.Duration
	ok := true
	for round := range 2 { // the first round warms up
		start := time.Now()
		x := e.Zeros(tensor.Float32, 1024)
		for range 1000 {
			nx := e.Add(x, y)
			x.Dispose()
			x = nx
		}
		v, err := x.Float32s(ctx)
		x.Dispose()
		if err != nil {
			return Result{}, err
		}
		if round > 0 {
			el = time.Since(start)
		}
		ok = ok && v[0] == 1000 && v[1023] == 1000
	}
	per := el / 1000
	return Result{Value: float64(per.Nanoseconds()) / 1e3, Unit: "µs/op", NsPerOp: float64(per.Nanoseconds()),
		Ops: 1000, Ok: ok, Check: "x = 1000 after 1,000 adds"}, nil
}}

// readback_4KB: the median latency of reading back an already computed
// 1,024-float tensor.
var readback4KB = workload{name: "readback_4KB", run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
	x := e.Range(tensor.Float32, 0, 1024, 1)
	defer x.Dispose()
	if _, err := x.Float32s(ctx); err != nil {
		return Result{}, err
	}
	times := make([]time.Duration, 0, 200)
	ok := true
	for range cap(times) {
		start := time.Now()
		v, err := x.Float32s(ctx)
		times = append(times, time.Since(start))
		if err != nil {
			return Result{}, err
		}
		ok = ok && v[1023] == 1023
	}
	slices.Sort(times)
	med := times[len(times)/2]
	return Result{Value: float64(med.Nanoseconds()) / 1e3, Unit: "µs", NsPerOp: float64(med.Nanoseconds()),
		Ops: 1, Ok: ok, Check: "values 0..1023"}, nil
}}

const n64MB = 16 << 20

// readback_64MB: GB/s for a 16M-float tensor read back, into a host slice
// the loop reuses (tensor.ReadInto), as a program that reads large tensors
// repeatedly would.
var readback64MB = workload{name: "readback_64MB", run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
	x := e.Range(tensor.Float32, 0, n64MB, 1)
	defer x.Dispose()
	v := make([]float32, n64MB)
	if err := tensor.ReadInto(ctx, x, v); err != nil { // warm up
		return Result{}, err
	}
	const k = 3
	ok := true
	start := time.Now()
	for range k {
		v[12345], v[n64MB-1] = -1, -1 // poisoned: the read must overwrite them
		if err := tensor.ReadInto(ctx, x, v); err != nil {
			return Result{}, err
		}
		ok = ok && v[12345] == 12345 && v[n64MB-1] == n64MB-1
	}
	per := time.Since(start) / k
	return Result{Value: 4 * n64MB / per.Seconds() / 1e9, Unit: "GB/s", NsPerOp: float64(per.Nanoseconds()),
		Ok: ok, Check: "sampled values of a range", Ops: k}, nil
}}

// upload_64MB: GB/s for a 16M-float tensor created from a Go slice, timed
// until the data is on the device.
var upload64MB = workload{name: "upload_64MB", run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
	data := make([]float32, n64MB)
	for i := range data {
		data[i] = float32(i % 1000)
	}
	const k = 3
	var el time.Duration
	ok := true
	for i := range k + 1 { // the first upload warms up
		start := time.Now()
		x := e.FromFloat32s(data)
		err := e.Device().Sync(ctx)
		d := time.Since(start)
		if err == nil {
			var v []float32
			v, err = x.Float32s(ctx)
			ok = ok && err == nil && v[n64MB-1] == float32((n64MB-1)%1000) && v[4321] == 321
		}
		x.Dispose()
		if err != nil {
			return Result{}, err
		}
		if i > 0 {
			el += d
		}
	}
	per := el / k
	return Result{Value: 4 * n64MB / per.Seconds() / 1e9, Unit: "GB/s", NsPerOp: float64(per.Nanoseconds()),
		Ok: ok, Check: "read back what was uploaded", Ops: k}, nil
}}

// churn: iters scopes, each creating two tensors from host data (sizes
// cycling 1K, 4K, 64K, 256K floats) and adding them; ms per iteration, the
// memory report before and after, the peak reserved bytes in between, and
// reserved bytes after Trim. Each scope flushes, so that its add runs
// although its result is disposed unread.
func churn(iters int) workload {
	name := "churn_10k"
	if iters != 10000 {
		name = fmt.Sprintf("churn_smoke_%d", iters)
	}
	return workload{name: name, run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
		sizes := []int{1 << 10, 4 << 10, 64 << 10, 256 << 10}
		host := make([]float32, sizes[3])
		for i := range host {
			host[i] = float32(i % 7)
		}
		d := e.Device()
		// Start from an empty pool, so that the figures are the churn's own.
		if err := d.Pool().Trim(); err != nil {
			return Result{}, err
		}
		d.Pool().ResetPeaks()
		before := e.Memory()
		start := time.Now()
		var last []float32
		for i := range iters {
			n := sizes[i%len(sizes)]
			err := tidy.Do(e, func() error {
				s := e.Add(e.FromFloat32s(host[:n]), e.FromFloat32s(host[:n]))
				if i == iters-1 {
					v, err := s.Float32s(ctx)
					last = v
					return err
				}
				return e.Flush()
			})
			if err != nil {
				return Result{}, err
			}
		}
		if err := d.Sync(ctx); err != nil {
			return Result{}, err
		}
		el := time.Since(start)
		after := e.Memory()
		if err := d.Pool().Trim(); err != nil {
			return Result{}, err
		}
		trimmed := d.Pool().Stats()
		ok := len(last) > 0 && last[len(last)-1] == 2*host[len(last)-1] && after.Tensors == before.Tensors
		per := el / time.Duration(iters)
		return Result{Value: float64(per.Nanoseconds()) / 1e6, Unit: "ms/iter", NsPerOp: float64(per.Nanoseconds()), Ops: iters, Ok: ok,
			Check: "last sum right, no tensor left",
			Extra: Metrics{bytesMetric("live_before", before.Bytes), bytesMetric("live_after", after.Bytes),
				bytesMetric("reserved_before", before.Pool.ReservedBytes), bytesMetric("reserved_after", after.Pool.ReservedBytes),
				bytesMetric("peak_reserved", after.Pool.PeakReservedBytes), bytesMetric("reserved_after_trim", trimmed.ReservedBytes)}}, nil
	}}
}

// async_dispose_leak: 1,000 iterations of { t = x + i on 16,384 floats;
// p = read t; dispose t before awaiting p; await p }: how many promises
// resolve with the right values, and live memory before and after.
var asyncDispose = workload{name: "async_dispose_leak", run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
	const n = 16384
	x := e.Range(tensor.Float32, 0, n, 1)
	defer x.Dispose()
	before := e.Memory()
	correct := 0
	for i := range 1000 {
		inc := e.Fill(tensor.Float32, float64(i), 1)
		t := e.Add(x, inc)
		p := t.Data()
		t.Dispose() // before awaiting
		inc.Dispose()
		b, err := p.Await(ctx)
		if err != nil {
			return Result{}, err
		}
		v := tensor.Float32sFromBytes(b)
		if v[0] == float32(i) && v[n-1] == float32(n-1+i) {
			correct++
		}
	}
	after := e.Memory()
	return Result{Value: float64(correct), Unit: "correct", Ok: correct == 1000 && after.Bytes == before.Bytes,
		Check: fmt.Sprintf("%d of 1000 promises correct; live bytes %d → %d", correct, before.Bytes, after.Bytes),
		Ops:   1000, Extra: Metrics{bytesMetric("live_before", before.Bytes), bytesMetric("live_after", after.Bytes)}}, nil
}}

func randF32(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 2*r.Float32() - 1
	}
	return v
}

// suite returns a suite's workloads and how many samples each takes by
// default.
func suite(name string) ([]workload, int, error) {
	switch name {
	case "smoke":
		return append([]workload{matmul(256), ewChain, smallOps, readback4KB, churn(200), asyncDispose, mlpTrainStep(mlpSmokeSteps)}, ddpWorkloads()...), 1, nil
	case "quick":
		return append([]workload{matmul(256), matmul(512), matmul(1024), matmul(2048), ewChain, smallOps, readback4KB,
			readback64MB, upload64MB, churn(10000), asyncDispose, mlpTrainStep(mlpSteps), cnnTrainStep, cnnTrainStepAutocast, mlpForward, mlpForwardHalf, mlpForwardInt8, conv2D3x3, modelReload, modelReloadHalf,
			transformerTrainStep, transformerTrainStepAutocast}, ddpWorkloads()...), 6, nil
	case "full":
		return append([]workload{matmul(256), matmul(512), matmul(1024), matmul(2048), matmul(4096), ewChain, smallOps, readback4KB,
			readback64MB, upload64MB, churn(10000), asyncDispose, mlpTrainStep(mlpSteps), cnnTrainStep, cnnTrainStepAutocast, mlpForward, mlpForwardHalf, mlpForwardInt8, conv2D3x3, modelReload, modelReloadHalf,
			transformerTrainStep, transformerTrainStepAutocast}, ddpWorkloads()...), 10, nil
	}
	return nil, 0, fmt.Errorf("unknown suite %q (smoke, quick, full)", name)
}

// summarize returns the median of a workload's samples rs, taken in this
// order, with every sample. A wrong sample makes the result wrong.
func summarize(rs []Result) Result {
	sorted := slices.SortedStableFunc(slices.Values(rs), func(a, b Result) int { return cmp.Compare(a.Value, b.Value) })
	med := sorted[len(sorted)/2]
	med.Samples = make([]Sample, len(rs))
	med.Ok = true
	for i, r := range rs {
		med.Samples[i] = Sample{Value: r.Value, NsPerOp: r.NsPerOp, Extra: r.Extra}
		if !r.Ok && med.Ok {
			med.Ok, med.Check = false, r.Check
		}
	}
	return med
}
