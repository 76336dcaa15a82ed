package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// mlp_forward_half: mlp_forward's model (the 784-256-10 MLP on a batch of
// 128) with its weights and batch cast to float16, then to bfloat16, as a
// model converted for inference (nn.ToDtype) holds them. It reports the
// float16 pass's ms, the bfloat16 pass's, and the bytes each dtype's
// weights take beside float32's (Engine.ByDType: to the byte, the goal
// being at most 50.1%). Each pass's logits are widened for the loss, which
// must stay within 1% (float16) or 5% (bfloat16) of the host's float64
// loss. A warm-up pass of each dtype comes first.
var mlpForwardHalf = workload{name: "mlp_forward_half", run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
	m := newMLP(e, mlpData())
	defer m.dispose()
	want := mlpWantLoss()
	bytesOf := func(d tensor.DType) uint64 { return dtypeBytes(e, d) }
	f32 := float32Bytes(m.params())
	res := Result{Unit: "ms/pass", Ops: mlpForwardBlocks * mlpBlockPasses, Ok: true}
	for _, dt := range []tensor.DType{tensor.Float16, tensor.BFloat16} {
		before := bytesOf(dt)
		h := mlp{labels: m.labels}
		ts := []**tensor.Tensor{&h.w1, &h.b1, &h.w2, &h.b2}
		for i, t := range m.params() {
			*ts[i] = e.Cast(t, dt)
		}
		weights := bytesOf(dt) - before
		h.x = e.Cast(m.x, dt)
		perPass, got, err := timePasses(ctx, e, func() (*tensor.Tensor, error) {
			return tidy.Run(e, func() (*tensor.Tensor, error) {
				hid := e.Relu(e.Add(e.MatMul(h.x, h.w1), h.b1))
				logits := e.Cast(e.Add(e.MatMul(hid, h.w2), h.b2), tensor.Float32)
				l := loss.SoftmaxCrossEntropy(e, logits, h.labels, loss.Mean)
				return l, l.Err()
			})
		})
		tidy.Dispose([]*tensor.Tensor{h.x, h.w1, h.b1, h.w2, h.b2})
		if err != nil {
			return Result{}, err
		}
		ms := float64(perPass.Nanoseconds()) / 1e6
		tol := 0.01
		if dt == tensor.BFloat16 {
			tol = 0.05
		}
		if math.Abs(float64(got)-want) > tol*max(1, math.Abs(want)) && res.Ok {
			res.Ok, res.Check = false, fmt.Sprintf("the %s loss %.6f is off the host's %.6f", dt, got, want)
		}
		if dt == tensor.Float16 {
			res.Value, res.NsPerOp = ms, float64(perPass.Nanoseconds())
		} else {
			res.Extra = append(res.Extra, Metric{Name: "bfloat16", Value: ms, Unit: "ms/pass"})
		}
		res.Extra = append(res.Extra, bytesMetric("weights_"+dt.String(), weights),
			Metric{Name: "weights_" + dt.String() + "_share", Value: 100 * float64(weights) / float64(f32), Unit: "%"})
	}
	res.Extra = append(res.Extra, bytesMetric("weights_float32", f32))
	return res, nil
}}

// dtypeBytes is the bytes e's tensors of dtype d hold (Engine.ByDType).
func dtypeBytes(e *tensor.Engine, d tensor.DType) uint64 {
	for _, s := range e.ByDType() {
		if s.DType == d {
			return s.Bytes
		}
	}
	return 0
}

// float32Bytes is the bytes ts take as float32.
func float32Bytes(ts []*tensor.Tensor) uint64 {
	var n uint64
	for _, t := range ts {
		n += uint64(4 * t.Size())
	}
	return n
}

// timePasses times pass, which returns a scalar loss, as the forward
// workloads do: mlpForwardBlocks blocks of mlpBlockPasses passes after a
// block that warms up, each pass flushed, each block's last loss read
// back. It returns the time a pass takes and the last loss.
func timePasses(ctx context.Context, e *tensor.Engine, pass func() (*tensor.Tensor, error)) (time.Duration, float32, error) {
	var elapsed time.Duration
	var got float32
	for b := range 1 + mlpForwardBlocks { // the first block warms up
		start := time.Now()
		var err error
		if got, err = passBlock(ctx, e, pass); err != nil {
			return 0, 0, err
		}
		if b > 0 {
			elapsed += time.Since(start)
		}
	}
	return elapsed / (mlpForwardBlocks * mlpBlockPasses), got, nil
}
