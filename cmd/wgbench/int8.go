package main

import (
	"context"
	"fmt"
	"math"

	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// mlp_forward_int8: mlp_forward's model with its weights quantized to
// int8 per output channel (tensor.Engine.QuantizeInt8, as nn.QuantizeInt8
// does for a model), the biases and the batch float32: each product reads
// the int8 weights as they are and its result is scaled. It reports ms a
// pass and the bytes the model's weights take (the int8 weights, their
// scales and the biases, by Engine.ByDType: the goal is at most 26% of
// float32's), and checks the loss within 2% of the host's float64 loss of
// the float32 model.
var mlpForwardInt8 = workload{name: "mlp_forward_int8", run: func(ctx context.Context, e *tensor.Engine) (Result, error) {
	m := newMLP(e, mlpData())
	defer m.dispose()
	f32 := float32Bytes(m.params())
	i8, fl := dtypeBytes(e, tensor.Int8), dtypeBytes(e, tensor.Float32)
	q1, s1 := e.QuantizeInt8(m.w1, 1) // [in, out]: a column a channel
	q2, s2 := e.QuantizeInt8(m.w2, 1)
	defer tidy.Dispose([]*tensor.Tensor{q1, s1, q2, s2})
	if err := e.Flush(); err != nil {
		return Result{}, err
	}
	weights := dtypeBytes(e, tensor.Int8) - i8 + dtypeBytes(e, tensor.Float32) - fl + uint64(4*(m.b1.Size()+m.b2.Size()))
	perPass, got, err := timePasses(ctx, e, func() (*tensor.Tensor, error) {
		return tidy.Run(e, func() (*tensor.Tensor, error) {
			h := e.Relu(e.Add(e.Mul(e.MatMul(m.x, q1), s1), m.b1))
			l := loss.SoftmaxCrossEntropy(e, e.Add(e.Mul(e.MatMul(h, q2), s2), m.b2), m.labels, loss.Mean)
			return l, l.Err()
		})
	})
	if err != nil {
		return Result{}, err
	}
	res := Result{Unit: "ms/pass", Ops: mlpForwardBlocks * mlpBlockPasses, Ok: true,
		Value: float64(perPass.Nanoseconds()) / 1e6, NsPerOp: float64(perPass.Nanoseconds()),
		Extra: Metrics{bytesMetric("weights_int8", weights), Metric{Name: "weights_int8_share", Value: 100 * float64(weights) / float64(f32), Unit: "%"},
			bytesMetric("weights_float32", f32)}}
	if want := mlpWantLoss(); math.Abs(float64(got)-want) > 0.02*max(1, math.Abs(want)) {
		res.Ok, res.Check = false, fmt.Sprintf("the int8 loss %.6f is off the host's %.6f", got, want)
	}
	return res, nil
}}
