package grad

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// floats reads t back, failing the test on an error.
func floats(t *testing.T, x *tensor.Tensor) []float32 {
	t.Helper()
	v, err := x.Float32s(context.Background())
	if err != nil {
		t.Fatalf("read %v: %v", x, err)
	}
	return v
}

// disposeAll disposes ts.
func disposeAll(ts ...*tensor.Tensor) {
	for _, x := range ts {
		x.Dispose()
	}
}

// The gradient of x·w + b, seeded with ones, with respect to x, w and b,
// by hand.
func TestTapeGradientsOfALinearLayer(t *testing.T) {
	e := testgpu.Engine(t)
	err := tidy.Do(e, func() error {
		x := e.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
		w := e.FromFloat32s([]float32{1, -1, 2, 0, 0.5, 1}, 3, 2)
		b := e.FromFloat32s([]float32{0.5, -0.5}, 2)
		tape := NewTape(e)
		var loss *tensor.Tensor
		if err := tape.Record(func() error {
			loss = e.Add(e.MatMul(x, w), b)
			return loss.Err()
		}); err != nil {
			return err
		}
		gs, err := tape.Gradients(loss, []*tensor.Tensor{x, w, b}, &Options{Seed: e.Ones(tensor.Float32, 2, 2)})
		if err != nil {
			return err
		}
		// d/dx = ones(2,2)·wᵀ: row sums of w; d/dw = xᵀ·ones: column sums of x; d/db = 2.
		want := [][]float32{{0, 2, 1.5, 0, 2, 1.5}, {5, 5, 7, 7, 9, 9}, {2, 2}}
		for i, g := range gs {
			if got := floats(t, g); !slices.Equal(got, want[i]) {
				t.Errorf("gradient %d: got %v, want %v", i, got, want[i])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestIntegerResultsHaveNoGradient(t *testing.T) {
	e := testgpu.Engine(t)
	err := tidy.Do(e, func() error {
		x := e.FromFloat32s([]float32{1, -2, 3}, 3)
		tape := NewTape(e)
		var c *tensor.Tensor
		if err := tape.Record(func() error {
			c = e.Greater(x, e.Scalar(0))
			return c.Err()
		}); err != nil {
			return err
		}
		_, err := tape.Gradients(c, []*tensor.Tensor{x}, nil) // leaves the tape as it was
		if !errors.Is(err, ErrNoGradient) || !strings.Contains(err.Error(), "uint32") {
			t.Errorf("gradient of a comparison: got %v, want ErrNoGradient naming uint32", err)
		}
		_, err = tape.Gradients(x, []*tensor.Tensor{c}, &Options{Seed: x})
		if !errors.Is(err, ErrNoGradient) {
			t.Errorf("gradient with respect to a comparison: got %v, want ErrNoGradient", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A path through an op with no rule fails, naming the op; one with a rule
// that says why it has none says why.
func TestOpWithoutRuleFailsNamingIt(t *testing.T) {
	e := testgpu.Engine(t)
	err := tidy.Do(e, func() error {
		x := e.FromFloat32s([]float32{1, -2, 3}, 3)
		tape := NewTape(e)
		var y *tensor.Tensor
		if err := tape.Record(func() error {
			y = e.Exp(e.RunKernel(copyNoRule, tensor.Launch{
				Inputs:  []*tensor.Tensor{x},
				Outputs: []tensor.Out{{Shape: x.Shape(), DType: tensor.Float32}},
				Threads: x.Size(),
			})[0])
			return y.Err()
		}); err != nil {
			return err
		}
		_, err := tape.Gradients(y, []*tensor.Tensor{x}, &Options{Seed: x})
		if !errors.Is(err, ErrNoGradient) || !strings.Contains(err.Error(), "copy_no_rule") {
			t.Errorf("got %v, want ErrNoGradient naming the kernel", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// copyNoRule is failHalfway's kernel under a name no rule is registered for.
var copyNoRule = tensor.Kernel{Name: "copy_no_rule", Workgroup: failHalfway.Workgroup, Source: failHalfway.Source}

// Gradients are the caller's: created in its tidy scope, disposed when it
// ends; the tape's saved tensors go with the tape.
func TestGradientsBelongToTheCallersScope(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2}, 2)
	defer x.Dispose()
	var gs []*tensor.Tensor
	err := tidy.Do(e, func() error {
		tape := NewTape(e)
		var y *tensor.Tensor
		if err := tape.Record(func() error { y = e.Mul(x, x); return y.Err() }); err != nil {
			return err
		}
		var err error
		gs, err = tape.Gradients(y, []*tensor.Tensor{x}, &Options{Seed: x})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !gs[0].IsDisposed() {
		t.Errorf("the gradient outlived the caller's scope")
	}
	if n := e.NumTensors(); n != 1 {
		t.Errorf("%d tensors live after the scope, want 1 (x)", n)
	}
}

// Backward computed the gradient of every float input of an op on a
// path, also of inputs no gradient asked for flows to: in a training
// step, the gradient of the batch x through x·w1 (the step's largest
// matmul). Each transpose case of matmul, the gradient with respect to w
// only, runs one matmul in the backward pass, and the gradient is right.
func TestBackwardSkipsGradientsNoOneAskedFor(t *testing.T) {
	e := testgpu.Engine(t)
	ctx := context.Background()
	for _, c := range []struct{ ta, tb bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
		err := tidy.Do(e, func() error {
			x := e.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3) // used as [2 3], or transposed as [3 2]
			w := e.FromFloat32s([]float32{1, -1, 2, 0, 0.5, 1}, 3, 2)
			if c.ta {
				x = e.Transpose(x, 1, 0)
			}
			if c.tb {
				w = e.Transpose(w, 1, 0)
			}
			tape := NewTape(e)
			var y *tensor.Tensor
			if err := tape.Record(func() error { y = e.Sum(e.MatMulT(x, w, c.ta, c.tb), false); return y.Err() }); err != nil {
				return err
			}
			var gs []*tensor.Tensor
			p, err := e.Profile(ctx, func() (err error) { gs, err = tape.Gradients(y, []*tensor.Tensor{w}, nil); return err })
			if err != nil {
				return err
			}
			if calls := p.Total("matmul").Calls; calls != 1 {
				t.Errorf("transposes %v %v: backward ran %d matmuls for dw alone, want 1", c.ta, c.tb, calls)
			}
			// d/dw Σ x·w: each w[k][j] gets Σ_i x[i][k] = 5, 7, 9 by row k.
			want := []float32{5, 5, 7, 7, 9, 9}
			if c.tb {
				want = []float32{5, 7, 9, 5, 7, 9}
			}
			if got := floats(t, gs[0]); !slices.Equal(got, want) {
				t.Errorf("transposes %v %v: dw = %v, want %v", c.ta, c.tb, got, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
