package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Result is one workload's measurement on one adapter.
type Result struct {
	Adapter  string            `json:"adapter"`
	Workload string            `json:"workload"`
	Value    float64           `json:"value"`
	Unit     string            `json:"unit"`
	NsPerOp  float64           `json:"ns_per_op"`
	Ok       bool              `json:"ok"`
	Check    string            `json:"check"`
	Extra    map[string]string `json:"extra,omitempty"`
}

// higherIsBetter reports whether a bigger value of unit is an improvement.
func higherIsBetter(unit string) bool {
	return unit == "GFLOP/s" || unit == "GB/s" || unit == "correct"
}

// workload is a named measurement; reps scales how long it runs.
type workload struct {
	name string
	run  func(ctx context.Context, e *tensor.Engine, reps int) (Result, error)
}

func matmul(n int) workload {
	return workload{fmt.Sprintf("matmul_%d", n), func(ctx context.Context, e *tensor.Engine, reps int) (Result, error) {
		r := rand.New(rand.NewPCG(uint64(n), 1))
		av, bv := randF32(r, n*n), randF32(r, n*n)
		a, b := e.FromFloat32s(av, n, n), e.FromFloat32s(bv, n, n)
		defer tidy.Dispose([]*tensor.Tensor{a, b})
		// Warm up: compile the kernel (a small product shares it).
		ws := e.Slice(a, []int{0, 0}, []int{min(n, 64), min(n, 64)})
		defer ws.Dispose()
		w := e.MatMul(ws, ws)
		if _, err := w.Float32s(ctx); err != nil {
			return Result{}, err
		}
		w.Dispose()
		start := time.Now()
		var c *tensor.Tensor
		for range reps {
			c.Dispose()
			c = e.MatMul(a, b)
		}
		got, err := c.Float32s(ctx)
		el := time.Since(start)
		c.Dispose()
		if err != nil {
			return Result{}, err
		}
		// Check 64 entries against float64 dot products.
		bad := 0
		for range 64 {
			i, j := r.IntN(n), r.IntN(n)
			var want float64
			for k := range n {
				want += float64(av[i*n+k]) * float64(bv[k*n+j])
			}
			if math.Abs(want-float64(got[i*n+j])) > 1e-5*float64(n) {
				bad++
			}
		}
		per := el / time.Duration(reps)
		return Result{Value: 2 * float64(n*n*n) / per.Seconds() / 1e9, Unit: "GFLOP/s", NsPerOp: float64(per.Nanoseconds()),
			Ok: bad == 0, Check: fmt.Sprintf("%d of 64 sampled entries off", bad),
			Extra: map[string]string{"kernel": e.MatMulKernel()}}, nil
	}}
}

var ewChain = workload{"ew_chain_1M", func(ctx context.Context, e *tensor.Engine, reps int) (Result, error) {
	const n = 1 << 20
	r := rand.New(rand.NewPCG(2, 3))
	av, bv := randF32(r, n), randF32(r, n)
	a, b := e.FromFloat32s(av), e.FromFloat32s(bv)
	defer tidy.Dispose([]*tensor.Tensor{a, b})
	chain := func() *tensor.Tensor {
		p := e.Mul(a, b)
		s := e.Add(p, a)
		y := e.Relu(s)
		p.Dispose()
		s.Dispose()
		return y
	}
	w := chain()
	if _, err := w.Float32s(ctx); err != nil {
		return Result{}, err
	}
	w.Dispose()
	start := time.Now()
	var y *tensor.Tensor
	for range reps {
		y.Dispose()
		y = chain()
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
	per := el / time.Duration(reps)
	return Result{Value: 32 * n / per.Seconds() / 1e9, Unit: "GB/s", NsPerOp: float64(per.Nanoseconds()),
		Ok: bad == 0, Check: fmt.Sprintf("%d of %d elements off", bad, n)}, nil
}}

var smallOps = workload{"small_ops_1k", func(ctx context.Context, e *tensor.Engine, reps int) (Result, error) {
	y := e.Ones(tensor.Float32, 1024)
	defer y.Dispose()
	var el time.Duration
	ok := true
	for rep := range reps + 1 { // the first round warms up
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
		if rep > 0 {
			el += time.Since(start)
		}
		ok = ok && v[0] == 1000 && v[1023] == 1000
	}
	per := el / time.Duration(reps*1000)
	return Result{Value: float64(per.Nanoseconds()) / 1e3, Unit: "µs/op", NsPerOp: float64(per.Nanoseconds()),
		Ok: ok, Check: "x = 1000 after 1,000 adds"}, nil
}}

var readback4KB = workload{"readback_4KB", func(ctx context.Context, e *tensor.Engine, reps int) (Result, error) {
	x := e.Range(tensor.Float32, 0, 1024, 1)
	defer x.Dispose()
	if _, err := x.Float32s(ctx); err != nil {
		return Result{}, err
	}
	times := make([]time.Duration, 0, 100*reps)
	ok := true
	for range 100 * reps {
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
		Ok: ok, Check: "values 0..1023"}, nil
}}

const n64MB = 16 << 20

var readback64MB = workload{"readback_64MB", func(ctx context.Context, e *tensor.Engine, reps int) (Result, error) {
	x := e.Range(tensor.Float32, 0, n64MB, 1)
	defer x.Dispose()
	if _, err := x.Float32s(ctx); err != nil {
		return Result{}, err
	}
	var el time.Duration
	ok := true
	for range reps {
		start := time.Now()
		v, err := x.Float32s(ctx)
		el += time.Since(start)
		if err != nil {
			return Result{}, err
		}
		ok = ok && v[12345] == 12345 && v[n64MB-1] == n64MB-1
	}
	per := el / time.Duration(reps)
	return Result{Value: 4 * n64MB / per.Seconds() / 1e9, Unit: "GB/s", NsPerOp: float64(per.Nanoseconds()),
		Ok: ok, Check: "sampled values of a range"}, nil
}}

var upload64MB = workload{"upload_64MB", func(ctx context.Context, e *tensor.Engine, reps int) (Result, error) {
	data := make([]float32, n64MB)
	for i := range data {
		data[i] = float32(i % 1000)
	}
	var el time.Duration
	ok := true
	for range reps + 1 {
		start := time.Now()
		x := e.FromFloat32s(data)
		err := e.Device().Sync(ctx) // timed until the data is on the device
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
		el += d
	}
	per := el / time.Duration(reps+1)
	return Result{Value: 4 * n64MB / per.Seconds() / 1e9, Unit: "GB/s", NsPerOp: float64(per.Nanoseconds()),
		Ok: ok, Check: "read back what was uploaded"}, nil
}}

func churn(iters int) workload {
	name := "churn_10k"
	if iters != 10000 {
		name = fmt.Sprintf("churn_smoke_%d", iters)
	}
	return workload{name, func(ctx context.Context, e *tensor.Engine, reps int) (Result, error) {
		sizes := []int{1 << 10, 4 << 10, 64 << 10, 256 << 10}
		host := make([]float32, sizes[3])
		for i := range host {
			host[i] = float32(i % 7)
		}
		d := e.Device()
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
				return s.Err()
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
		return Result{Value: float64(per.Nanoseconds()) / 1e6, Unit: "ms/iter", NsPerOp: float64(per.Nanoseconds()), Ok: ok,
			Check: "last sum right, no tensor left",
			Extra: map[string]string{
				"live_before": fmt.Sprint(before.Bytes), "live_after": fmt.Sprint(after.Bytes),
				"reserved_before": fmt.Sprint(before.Pool.ReservedBytes), "reserved_after": fmt.Sprint(after.Pool.ReservedBytes),
				"peak_reserved": fmt.Sprint(after.Pool.PeakReservedBytes), "reserved_after_trim": fmt.Sprint(trimmed.ReservedBytes),
			}}, nil
	}}
}

var asyncDispose = workload{"async_dispose_leak", func(ctx context.Context, e *tensor.Engine, reps int) (Result, error) {
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
		Extra: map[string]string{"live_before": fmt.Sprint(before.Bytes), "live_after": fmt.Sprint(after.Bytes)}}, nil
}}

func randF32(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 2*r.Float32() - 1
	}
	return v
}

// suites name the workloads and their repetitions.
func suite(name string) ([]workload, int, error) {
	switch name {
	case "smoke":
		return []workload{matmul(256), ewChain, smallOps, readback4KB, churn(200), asyncDispose}, 1, nil
	case "quick":
		return []workload{matmul(256), matmul(512), matmul(1024), matmul(2048), ewChain, smallOps, readback4KB,
			readback64MB, upload64MB, churn(10000), asyncDispose}, 1, nil
	case "full":
		return []workload{matmul(256), matmul(512), matmul(1024), matmul(2048), matmul(4096), ewChain, smallOps, readback4KB,
			readback64MB, upload64MB, churn(10000), asyncDispose}, 3, nil
	}
	return nil, 0, fmt.Errorf("unknown suite %q (smoke, quick, full)", name)
}
