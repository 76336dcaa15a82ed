package loss_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/grad"
	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/loss"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Issue 20, item 4: cross-entropy's class weights, ignore_index and
// label smoothing, and binary cross-entropy's weight and pos_weight,
// checked against a float64 reference written from PyTorch's definitions
// and against PyTorch's own values (testdata/torch_loss.json, made by
// testdata/torch_loss.py). Gradients: grad's rules_options_test.go
// checks them against finite differences; here the tape's gradient of
// the mean is checked against PyTorch's.

// xentCase is one cross-entropy over rows of classes, in float64.
type xentCase struct {
	logits  []float64 // rows × classes
	classes int
	labels  []int32   // nil with probs
	probs   []float64 // rows × classes
	weight  []float64 // nil: all 1
	ignore  int32
	eps     float64
}

// ref returns the per-row losses and the mean, PyTorch's formulas term
// for term: with labels, (1 − ε)·nll + ε/C·smooth, nll = −w[y]·logp[y],
// smooth = −Σ w[c]·logp[c], 0 where ignored, the mean over Σ w[y] of
// the rows kept; with probabilities, −Σ w[c]·t'[c]·logp[c] over the rows.
func (c xentCase) ref() (per []float64, mean float64) {
	rows := len(c.logits) / c.classes
	w := func(k int) float64 {
		if c.weight == nil {
			return 1
		}
		return c.weight[k]
	}
	total, denom := 0.0, 0.0
	for r := range rows {
		row := c.logits[r*c.classes : (r+1)*c.classes]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, v)
		}
		s := 0.0
		for _, v := range row {
			s += math.Exp(v - m)
		}
		lse := m + math.Log(s)
		l := 0.0
		if c.labels == nil {
			for k, v := range row {
				t := (1-c.eps)*c.probs[r*c.classes+k] + c.eps/float64(c.classes)
				l -= w(k) * t * (v - lse)
			}
			denom++
		} else if y := c.labels[r]; y != c.ignore {
			if y < 0 || int(y) >= c.classes {
				l = math.NaN()
			} else {
				smooth := 0.0
				for k, v := range row {
					smooth -= w(k) * (v - lse)
				}
				l = (1-c.eps)*(-w(int(y))*(row[y]-lse)) + c.eps/float64(c.classes)*smooth
				denom += w(int(y))
			}
		}
		per = append(per, l)
		total += l
	}
	return per, total / denom
}

func f32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// roundTrip rounds v to float32 and back, the values the GPU sees.
func roundTrip(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(float32(x))
	}
	return out
}

// run evaluates CrossEntropy with o (Weight from c) on the GPU.
func (c xentCase) run(t *testing.T, e *tensor.Engine, o loss.CrossEntropyOptions, shape []int) []float64 {
	t.Helper()
	v, err := tidy.Run(e, func() ([]float64, error) {
		x := e.FromFloat32s(f32(c.logits), shape...)
		var y *tensor.Tensor
		if c.labels != nil {
			y = e.FromInt32s(c.labels, shape[:len(shape)-1]...)
		} else {
			y = e.FromFloat32s(f32(c.probs), shape...)
		}
		if c.weight != nil {
			o.Weight = e.FromFloat32s(f32(c.weight), c.classes)
		}
		l := loss.CrossEntropy(e, x, y, o)
		if l.Err() != nil {
			return nil, l.Err()
		}
		return read(t, l), nil
	})
	require.NoError(t, err)
	return v
}

func TestCrossEntropyOptionsAgainstFloat64(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(20, 7))
	for _, tc := range []struct {
		name     string
		shape    []int
		weighted bool
		ignore   *int
		eps      float64
		probs    bool
		scale    float64
	}{
		{"defaults", []int{11, 6}, false, nil, 0, false, 3},
		{"weights", []int{11, 6}, true, nil, 0, false, 3},
		{"smoothing", []int{11, 6}, false, nil, 0.1, false, 3},
		{"weights, smoothing, ignoring class 0", []int{3, 4, 6}, true, loss.Ignore(0), 0.3, false, 3},
		{"weights, smoothing, logits of ±1e4", []int{7, 5}, true, nil, 0.05, false, 1e4},
		{"one row, smoothing 1", []int{9}, true, nil, 1, false, 2},
		{"probabilities, weights, smoothing", []int{5, 7}, true, nil, 0.2, true, 3},
		{"probabilities of rank 3", []int{2, 3, 4}, false, nil, 0, true, 3},
	} {
		classes := tc.shape[len(tc.shape)-1]
		rows := size(tc.shape) / classes
		c := xentCase{classes: classes, ignore: loss.DefaultIgnoreIndex, eps: float64(float32(tc.eps))}
		if tc.ignore != nil {
			c.ignore = int32(*tc.ignore)
		}
		_, xd := randVals(r, rows*classes, tc.scale)
		c.logits = xd
		if tc.probs {
			c.probs = make([]float64, rows*classes)
			for i := range c.probs {
				c.probs[i] = float64(float32(r.Float64()))
			}
		} else {
			c.labels = make([]int32, rows)
			for i := range c.labels {
				c.labels[i] = int32(r.IntN(classes))
				if rows > 1 && i%4 == 1 {
					c.labels[i] = c.ignore // some rows ignored
				}
			}
		}
		if tc.weighted {
			c.weight = make([]float64, classes)
			for i := range c.weight {
				c.weight[i] = float64(float32(0.25 + r.Float64()))
			}
		}
		per, mean := c.ref()
		sum := 0.0
		mag := 0.0
		for _, v := range per {
			sum += v
			mag += math.Abs(v)
		}
		o := loss.CrossEntropyOptions{IgnoreIndex: tc.ignore, LabelSmoothing: float32(tc.eps)}
		// float32 holds a loss to ~1e-7 of the row's log-sum-exp, which
		// is about the logits' scale.
		tol := 4e-7 * tc.scale * float64(classes)
		got := c.run(t, e, o, tc.shape)
		require.Len(t, got, 1, tc.name)
		assert.InDelta(t, mean, got[0], tol+2e-6*math.Abs(mean), "%s: mean", tc.name)
		o.Reduction = loss.Sum
		got = c.run(t, e, o, tc.shape)
		assert.InDelta(t, sum, got[0], tol*float64(rows)+2e-6*mag, "%s: sum", tc.name)
		o.Reduction = loss.None
		got = c.run(t, e, o, tc.shape)
		require.Len(t, got, len(per), tc.name)
		for i := range per {
			assert.InDelta(t, per[i], got[i], tol+2e-6*math.Abs(per[i]), "%s: row %d", tc.name, i)
		}
		// A Reduction of the caller's gets the per-row losses.
		o.Reduction = func(e *tensor.Engine, l *tensor.Tensor) *tensor.Tensor { return e.Max(l, false) }
		got = c.run(t, e, o, tc.shape)
		want := math.Inf(-1)
		for _, v := range per {
			want = math.Max(want, v)
		}
		assert.InDelta(t, want, got[0], tol+2e-6*math.Abs(want), "%s: a caller's reduction", tc.name)
	}
}

// The zero options are PyTorch's: rows labelled -100 count for nothing,
// and otherwise CrossEntropy is SoftmaxCrossEntropy.
func TestCrossEntropyZeroOptionsArePyTorchs(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2, 3, -1, 0, 4, 2, 2, 2}, 3, 3)
	defer x.Dispose()
	y := e.FromInt32s([]int32{2, -100, 0}, 3)
	defer y.Dispose()
	kept := e.FromInt32s([]int32{2, 0}, 2)
	defer kept.Dispose()
	rows := e.FromFloat32s([]float32{1, 2, 3, 2, 2, 2}, 2, 3)
	defer rows.Dispose()
	got := loss.CrossEntropy(e, x, y, loss.CrossEntropyOptions{})
	defer got.Dispose()
	want := loss.SoftmaxCrossEntropy(e, rows, kept, loss.Mean)
	defer want.Dispose()
	assert.InDelta(t, read(t, want)[0], read(t, got)[0], 1e-6)
	none := loss.CrossEntropy(e, x, y, loss.CrossEntropyOptions{Reduction: loss.None})
	defer none.Dispose()
	assert.Equal(t, 0.0, read(t, none)[1], "an ignored row's loss")
	// SoftmaxCrossEntropy ignores nothing: -100 is out of range.
	plain := loss.SoftmaxCrossEntropy(e, x, y, loss.None)
	defer plain.Dispose()
	assert.True(t, math.IsNaN(read(t, plain)[1]))
}

// A label out of range that is not the ignored one gives NaN, with and
// without smoothing; every row ignored gives a mean of 0/0, NaN, as in
// PyTorch.
func TestCrossEntropyNaNs(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2, 3, -1, 0, 4}, 2, 3)
	defer x.Dispose()
	for _, labels := range [][]int32{{3, 0}, {-1, 0}} {
		y := e.FromInt32s(labels, 2)
		for _, eps := range []float32{0, 0.1} {
			for _, w := range []bool{false, true} {
				o := loss.CrossEntropyOptions{Reduction: loss.None, LabelSmoothing: eps}
				if w {
					o.Weight = e.FromFloat32s([]float32{1, 2, 3}, 3)
				}
				l := loss.CrossEntropy(e, x, y, o)
				v := read(t, l)
				assert.True(t, math.IsNaN(v[0]), "labels %v, smoothing %g, weights %v: %v", labels, eps, w, v)
				assert.False(t, math.IsNaN(v[1]), "labels %v, smoothing %g, weights %v: %v", labels, eps, w, v)
				l.Dispose()
				o.Weight.Dispose()
			}
		}
		y.Dispose()
	}
	y := e.FromInt32s([]int32{-100, -100}, 2)
	defer y.Dispose()
	for _, eps := range []float32{0, 0.5} {
		l := loss.CrossEntropy(e, x, y, loss.CrossEntropyOptions{LabelSmoothing: eps})
		assert.True(t, math.IsNaN(read(t, l)[0]), "every row ignored, smoothing %g", eps)
		l.Dispose()
	}
}

// torchLossCase is one case of testdata/torch_loss.json (see
// torch_loss.py).
type torchLossCase struct {
	Name           string    `json:"name"`
	Kind           string    `json:"kind"`
	Shape          []int     `json:"shape"`
	Logits         []float32 `json:"logits"`
	Labels         []int32   `json:"labels"`
	Probs          []float32 `json:"probs"`
	Weight         []float32 `json:"weight"`
	WeightShape    []int     `json:"weight_shape"`
	PosWeight      []float32 `json:"pos_weight"`
	PosWeightShape []int     `json:"pos_weight_shape"`
	IgnoreIndex    int       `json:"ignore_index"`
	LabelSmoothing float32   `json:"label_smoothing"`
	Mean           float64   `json:"mean"`
	Sum            float64   `json:"sum"`
	None           []float64 `json:"none"`
	GradMean       []float32 `json:"grad_mean"`
}

func readTorchCases(t *testing.T, raw []byte) []torchLossCase {
	t.Helper()
	var file struct {
		Cases []torchLossCase `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(raw, &file))
	require.NotEmpty(t, file.Cases)
	return file.Cases
}

// Our losses give PyTorch's values, reduced each way, and the tape's
// gradient of the mean with respect to the logits is PyTorch's.
func TestLossOptionsMatchPyTorch(t *testing.T) {
	e := testgpu.Engine(t)
	raw, err := os.ReadFile(filepath.Join("testdata", "torch_loss.json"))
	require.NoError(t, err)
	for _, c := range readTorchCases(t, raw) {
		for _, red := range []string{"mean", "sum", "none"} {
			f := func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor {
				r := map[string]loss.Reduction{"mean": nil, "sum": loss.Sum, "none": loss.None}[red]
				var w, pw *tensor.Tensor
				if c.Weight != nil {
					shape := c.WeightShape
					if c.Kind == "ce" {
						shape = []int{len(c.Weight)}
					}
					w = e.FromFloat32s(c.Weight, shape...)
				}
				if c.PosWeight != nil {
					pw = e.FromFloat32s(c.PosWeight, c.PosWeightShape...)
				}
				if c.Kind == "bce" {
					return loss.BinaryCrossEntropyWithLogits(e, x, e.FromFloat32s(c.Probs, c.Shape...),
						loss.BinaryCrossEntropyOptions{Reduction: r, Weight: w, PosWeight: pw})
				}
				var y *tensor.Tensor
				if c.Labels != nil {
					y = e.FromInt32s(c.Labels, c.Shape[:len(c.Shape)-1]...)
				} else {
					y = e.FromFloat32s(c.Probs, c.Shape...)
				}
				return loss.CrossEntropy(e, x, y, loss.CrossEntropyOptions{Reduction: r, Weight: w,
					IgnoreIndex: loss.Ignore(c.IgnoreIndex), LabelSmoothing: c.LabelSmoothing})
			}
			type result struct {
				v []float64
				g []float32
			}
			res, err := tidy.Run(e, func() (result, error) {
				x := e.FromFloat32s(c.Logits, c.Shape...)
				tape := grad.NewTape(e)
				defer tape.Dispose()
				var l *tensor.Tensor
				if err := tape.Record(func() error { l = f(e, x); return l.Err() }); err != nil {
					return result{}, err
				}
				v := read(t, l)
				if red != "mean" {
					return result{v: v}, nil
				}
				gs, err := tape.Gradients(l, []*tensor.Tensor{x}, nil)
				if err != nil {
					return result{}, err
				}
				gv, err := gs[0].Float32s(context.Background())
				return result{v, gv}, err
			})
			got, g := res.v, res.g
			require.NoError(t, err, "%s %s", c.Name, red)
			want := map[string][]float64{"mean": {c.Mean}, "sum": {c.Sum}, "none": c.None}[red]
			require.Len(t, got, len(want), "%s %s", c.Name, red)
			for i := range want {
				assert.InDelta(t, want[i], got[i], 2e-5+3e-6*math.Abs(want[i]), "%s %s: element %d", c.Name, red, i)
			}
			for i, w := range c.GradMean {
				if red == "mean" {
					assert.InDelta(t, w, g[i], 1e-6+1e-5*math.Abs(float64(w)), "%s: gradient %d", c.Name, i)
				}
			}
		}
	}
}

// testdata/torch_loss.json is what torch_loss.py writes.
func TestTorchLossReferenceIsCurrent(t *testing.T) {
	py := testgpu.Torch(t)
	cmd := exec.Command(py, "torch_loss.py")
	cmd.Dir = "testdata"
	out, err := cmd.Output()
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join("testdata", "torch_loss.json"))
	require.NoError(t, err)
	assert.Equal(t, readTorchCases(t, raw), readTorchCases(t, out), "regenerate testdata/torch_loss.json with torch_loss.py")
}

// bceRef is binary_cross_entropy_with_logits per element in float64, with
// pos weight p and weight w.
func bceRef(x, z, p, w float64) float64 {
	softplus := func(v float64) float64 { return math.Max(v, 0) + math.Log1p(math.Exp(-math.Abs(v))) }
	return w * (p*z*softplus(-x) + (1-z)*softplus(x))
}

func TestBinaryCrossEntropyOptionsAgainstFloat64(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(20, 8))
	const n, c = 4, 3
	xf, xd := randVals(r, n*c, 30)
	zf, zd := randVals(r, n*c, 1)
	for i := range zf {
		zf[i], zd[i] = float32(math.Abs(zd[i])), math.Abs(zd[i])
	}
	pf, pd := randVals(r, c, 3)
	for i := range pf {
		pf[i], pd[i] = float32(math.Abs(pd[i])), math.Abs(pd[i])
	}
	wf, wd := randVals(r, n, 2)
	per := make([]float64, n*c)
	for i := range per {
		per[i] = bceRef(xd[i], zd[i], pd[i%c], wd[i/c])
	}
	x := e.FromFloat32s(xf, n, c)
	defer x.Dispose()
	z := e.FromFloat32s(zf, n, c)
	defer z.Dispose()
	p := e.FromFloat32s(pf, c)
	defer p.Dispose()
	w := e.FromFloat32s(wf, n, 1)
	defer w.Dispose()
	checkReductions(t, "binary cross-entropy, weight and pos_weight", func(red loss.Reduction) *tensor.Tensor {
		return loss.BinaryCrossEntropyWithLogits(e, x, z, loss.BinaryCrossEntropyOptions{Reduction: red, Weight: w, PosWeight: p})
	}, per, 2e-6, 2e-5)
	// No options: SigmoidCrossEntropy's losses.
	for i := range per {
		per[i] = bceRef(xd[i], zd[i], 1, 1)
	}
	checkReductions(t, "binary cross-entropy, no options", func(red loss.Reduction) *tensor.Tensor {
		return loss.BinaryCrossEntropyWithLogits(e, x, z, loss.BinaryCrossEntropyOptions{Reduction: red})
	}, per, 2e-6, 2e-5)
}

// Bad options give a tensor carrying an error that names the loss and the
// shapes; nothing is left live.
func TestLossOptionErrors(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.Zeros(tensor.Float32, 2, 3)
	defer x.Dispose()
	y := e.FromInt32s([]int32{0, 1}, 2)
	defer y.Dispose()
	w3 := e.Ones(tensor.Float32, 3)
	defer w3.Dispose()
	w4 := e.Ones(tensor.Float32, 4)
	defer w4.Dispose()
	wi := e.Ones(tensor.Int32, 3)
	defer wi.Dispose()
	bad := e.Failed(errors.New("upstream failure"))
	defer bad.Dispose()
	for _, c := range []struct {
		name string
		kind error
		want string
		f    func() *tensor.Tensor
	}{
		{"weight of the wrong length", tensor.ErrShape, "weight [4] is not [3]", func() *tensor.Tensor {
			return loss.CrossEntropy(e, x, y, loss.CrossEntropyOptions{Weight: w4})
		}},
		{"int32 weight", tensor.ErrDType, "weight is int32", func() *tensor.Tensor {
			return loss.CrossEntropy(e, x, y, loss.CrossEntropyOptions{Weight: wi})
		}},
		{"smoothing above 1", tensor.ErrArgument, "label smoothing 1.5", func() *tensor.Tensor {
			return loss.CrossEntropy(e, x, y, loss.CrossEntropyOptions{LabelSmoothing: 1.5})
		}},
		{"NaN smoothing", tensor.ErrArgument, "label smoothing NaN", func() *tensor.Tensor {
			return loss.CrossEntropy(e, x, y, loss.CrossEntropyOptions{LabelSmoothing: float32(math.NaN())})
		}},
		{"ignore index past int32", tensor.ErrArgument, "not an int32", func() *tensor.Tensor {
			return loss.CrossEntropy(e, x, y, loss.CrossEntropyOptions{IgnoreIndex: loss.Ignore(1 << 40)})
		}},
		{"labels of the wrong shape", tensor.ErrShape, "int32 labels must be [2]", func() *tensor.Tensor {
			y3 := e.FromInt32s([]int32{0, 1, 2}, 3)
			defer y3.Dispose()
			return loss.CrossEntropy(e, x, y3, loss.CrossEntropyOptions{})
		}},
		{"probabilities of the wrong shape", tensor.ErrShape, "float32 probabilities must be [2 3]", func() *tensor.Tensor {
			return loss.CrossEntropy(e, x, w3, loss.CrossEntropyOptions{})
		}},
		{"uint32 labels", tensor.ErrDType, "int32 labels or float32", func() *tensor.Tensor {
			u := e.Zeros(tensor.Uint32, 2)
			defer u.Dispose()
			return loss.CrossEntropy(e, x, u, loss.CrossEntropyOptions{})
		}},
		{"scalar logits", tensor.ErrShape, "class axis", func() *tensor.Tensor {
			s := e.Scalar(1)
			defer s.Dispose()
			return loss.CrossEntropy(e, s, y, loss.CrossEntropyOptions{})
		}},
		{"nil targets", tensor.ErrArgument, "nil", func() *tensor.Tensor {
			return loss.CrossEntropy(e, x, nil, loss.CrossEntropyOptions{})
		}},
		{"bce, int32 pos_weight", tensor.ErrDType, "pos_weight is int32 [3]", func() *tensor.Tensor {
			return loss.BinaryCrossEntropyWithLogits(e, x, x, loss.BinaryCrossEntropyOptions{PosWeight: wi})
		}},
		{"bce, pos_weight that does not broadcast", tensor.ErrShape, "[4]", func() *tensor.Tensor {
			return loss.BinaryCrossEntropyWithLogits(e, x, x, loss.BinaryCrossEntropyOptions{PosWeight: w4})
		}},
		{"bce, nil logits", tensor.ErrArgument, "nil", func() *tensor.Tensor {
			return loss.BinaryCrossEntropyWithLogits(e, nil, x, loss.BinaryCrossEntropyOptions{})
		}},
	} {
		live := e.NumTensors()
		l := c.f()
		err := l.Err()
		require.Error(t, err, c.name)
		assert.ErrorIs(t, err, c.kind, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
		if c.want != "nil" && c.want != "class axis" {
			assert.Contains(t, err.Error(), "[2 3]", "%s: the error names the logits' shape", c.name)
		}
		l.Dispose()
		assert.Equal(t, live, e.NumTensors(), "%s: a tensor was left behind", c.name)
	}
	// An input carrying an error passes it on.
	l := loss.CrossEntropy(e, bad, y, loss.CrossEntropyOptions{})
	assert.ErrorContains(t, l.Err(), "upstream failure")
	l.Dispose()
}

// The tensors the option losses return are attributed to the caller's
// line, and their intermediates are gone when they return.
func TestLossOptionsSiteAndIntermediates(t *testing.T) {
	e := testgpu.Engine(t)
	x := e.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	defer x.Dispose()
	y := e.FromInt32s([]int32{0, -100}, 2)
	defer y.Dispose()
	w := e.FromFloat32s([]float32{1, 2, 3}, 3)
	defer w.Dispose()
	live := e.NumTensors()
	for name, f := range map[string]func() *tensor.Tensor{
		"cross-entropy": func() *tensor.Tensor {
			return loss.CrossEntropy(e, x, y, loss.CrossEntropyOptions{Weight: w, LabelSmoothing: 0.1})
		},
		"binary cross-entropy": func() *tensor.Tensor {
			return loss.BinaryCrossEntropyWithLogits(e, x, x, loss.BinaryCrossEntropyOptions{PosWeight: w, Weight: w})
		},
	} {
		l := f()
		require.NoError(t, l.Err(), name)
		assert.Contains(t, l.Site().String(), "loss/options_test.go:", name)
		assert.Equal(t, live+1, e.NumTensors(), "%s: only the loss is left", name)
		l.Dispose()
	}
}

func size(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}
