package grad

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// The DAG check: random programs of 3 to 8 ops over 1 to 3 inputs, in
// which a value may feed several later ops and both sides of one (x·x,
// x+x), with broadcasting between the shapes of a 2x3 (2x3, 3, 2x1, 1x3,
// scalar). The gradient the tape computes for each input, seeded with
// random weights r, must match the central difference of L = Σ r·y that
// a float64 evaluator of the same program computes on the host, from the
// inputs' float32 values:
//
//	|g - d| <= dagAtol·max(1, s) + dagRtol·|d|
//
// s the largest |d| of the program. The host's difference is exact to
// about 1e-9 (step dagStep, values below dagMaxValue); the bounds cover
// float32's rounding of the device's forward values (the gradient is
// computed at them, not at the float64 ones) and of the gradients'
// accumulation over at most 8 ops, where terms up to s in size may
// cancel, with room for devices whose Exp and Tanh are less exact than
// lavapipe's. A gradient lost or counted twice misses by far more.
//
// dagPrograms programs run by default; WGT_DAG_FULL=1 runs dagFull.
const (
	dagPrograms = 60
	dagFull     = 500
	dagStep     = 1e-5
	dagAtol     = 1e-4
	dagRtol     = 1e-3
	// The generator keeps every value within dagMaxValue, Exp's operand
	// within dagMaxExp, and Div's divisor at least dagMinDivisor from 0
	// (inputs are drawn with magnitudes in [dagMinDivisor, 1.5]).
	dagMaxValue   = 20
	dagMaxExp     = 2
	dagMinDivisor = 0.5
)

// dagOps are the ops a program draws from. "sum" sums over one axis,
// keeping it; "sumall" sums every element to a scalar.
var dagOps = []string{"add", "sub", "mul", "div", "exp", "tanh", "sum", "sumall"}

// dagNode is one value of a program: an input (op "in") or an op of
// earlier values a and b (b unused by unary ops).
type dagNode struct {
	op    string
	a, b  int
	axis  int
	shape []int
}

// dagProgram is a program and the inputs it is checked at; its result is
// its last value.
type dagProgram struct {
	nodes  []dagNode
	inputs []hostIn
}

func (p *dagProgram) String() string {
	var b strings.Builder
	for i, n := range p.nodes {
		switch n.op {
		case "in":
			fmt.Fprintf(&b, "v%d = in%v %v; ", i, n.shape, p.inputs[i].data)
		case "add", "sub", "mul", "div":
			fmt.Fprintf(&b, "v%d = %s(v%d, v%d); ", i, n.op, n.a, n.b)
		case "sum":
			fmt.Fprintf(&b, "v%d = sum(v%d, axis %d); ", i, n.a, n.axis)
		default:
			fmt.Fprintf(&b, "v%d = %s(v%d); ", i, n.op, n.a)
		}
	}
	return strings.TrimSuffix(b.String(), "; ")
}

// dagShapes are the shapes of inputs: a 2x3 and its broadcasts.
var dagShapes = [][]int{{2, 3}, {3}, {2, 1}, {1, 3}, {}}

// newDAGProgram draws a program: each op's operands are drawn among the
// values before it, an unused one first half the time so that few values
// are left dead, and the second operand is the first a quarter of the
// time. An op whose values would leave the generator's bounds is drawn
// again.
func newDAGProgram(rng *rand.Rand) *dagProgram {
	p := &dagProgram{}
	for range 1 + rng.IntN(3) {
		shape := dagShapes[rng.IntN(len(dagShapes))]
		in := genIn(shape, func() float64 {
			v := dagMinDivisor + (1.5-dagMinDivisor)*rng.Float64()
			return float64(float32(v * float64(1-2*rng.IntN(2))))
		})
		p.nodes = append(p.nodes, dagNode{op: "in", shape: shape})
		p.inputs = append(p.inputs, in)
	}
	vals := p.eval(p.inputs)
	used := make([]bool, len(p.nodes))
	pick := func() int {
		if rng.IntN(2) == 0 {
			var unused []int
			for i, u := range used {
				if !u {
					unused = append(unused, i)
				}
			}
			if len(unused) > 0 {
				return unused[rng.IntN(len(unused))]
			}
		}
		return rng.IntN(len(p.nodes))
	}
	for ops := 3 + rng.IntN(6); ops > 0; {
		n := dagNode{op: dagOps[rng.IntN(len(dagOps))], a: pick()}
		n.b = n.a
		if rng.IntN(4) != 0 {
			n.b = pick()
		}
		a, b := vals[n.a], vals[n.b]
		switch n.op {
		case "add", "sub", "mul", "div":
			n.shape = broadcastShape(a.shape, b.shape)
		case "sum":
			if len(a.shape) == 0 {
				continue
			}
			n.axis = rng.IntN(len(a.shape))
			n.shape = append([]int{}, a.shape...)
			n.shape[n.axis] = 1
		case "sumall":
			n.shape = []int{}
		default:
			n.shape = a.shape
		}
		if n.op == "exp" && maxAbs(a.data) > dagMaxExp || n.op == "div" && minAbs(b.data) < dagMinDivisor {
			continue
		}
		v := evalNode(n, vals)
		if maxAbs(v.data) > dagMaxValue {
			continue
		}
		used[n.a], used[n.b] = true, true
		p.nodes = append(p.nodes, n)
		used = append(used, false)
		vals = append(vals, v)
		ops--
	}
	return p
}

// hostVal is a value of a program on the host.
type hostVal struct {
	shape []int
	data  []float64
}

// eval returns every value of p at inputs, in float64.
func (p *dagProgram) eval(inputs []hostIn) []hostVal {
	vals := make([]hostVal, 0, len(p.nodes))
	for i, n := range p.nodes {
		if n.op == "in" {
			vals = append(vals, hostVal{inputs[i].shape, inputs[i].data})
			continue
		}
		vals = append(vals, evalNode(n, vals))
	}
	return vals
}

// evalNode computes n from the values before it.
func evalNode(n dagNode, vals []hostVal) hostVal {
	a, b := vals[n.a], vals[n.b]
	out := hostVal{n.shape, make([]float64, size(n.shape))}
	switch n.op {
	case "add", "sub", "mul", "div":
		f := map[string]func(x, y float64) float64{
			"add": func(x, y float64) float64 { return x + y },
			"sub": func(x, y float64) float64 { return x - y },
			"mul": func(x, y float64) float64 { return x * y },
			"div": func(x, y float64) float64 { return x / y },
		}[n.op]
		for i := range out.data {
			idx := unravel(i, n.shape)
			out.data[i] = f(a.data[broadcastIndex(idx, a.shape)], b.data[broadcastIndex(idx, b.shape)])
		}
	case "exp", "tanh":
		f := map[string]func(float64) float64{"exp": math.Exp, "tanh": math.Tanh}[n.op]
		for i, x := range a.data {
			out.data[i] = f(x)
		}
	case "sum", "sumall":
		// Each element of a adds to the element of out it reduces to:
		// out broadcasts to a's shape.
		for i, x := range a.data {
			out.data[broadcastIndex(unravel(i, a.shape), n.shape)] += x
		}
	}
	return out
}

// unravel returns the index of element i of a row-major shape.
func unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = i % shape[d]
		i /= shape[d]
	}
	return idx
}

// broadcastIndex returns the offset in a value of shape of the element
// that broadcasts to idx (shape's dimensions aligned to idx's last).
func broadcastIndex(idx, shape []int) int {
	off, lead := 0, len(idx)-len(shape)
	for d, n := range shape {
		off *= n
		if n != 1 {
			off += idx[lead+d]
		}
	}
	return off
}

// broadcastShape is the shape a and b broadcast to (they are shapes of a
// 2x3's broadcasts).
func broadcastShape(a, b []int) []int {
	if len(a) < len(b) {
		a, b = b, a
	}
	out := append([]int{}, a...)
	for i, n := range b {
		j := len(a) - len(b) + i
		out[j] = max(out[j], n)
	}
	return out
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func minAbs(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, math.Abs(x))
	}
	return m
}

// run builds p on e from xs and returns its result.
func (p *dagProgram) run(e *tensor.Engine, xs []*tensor.Tensor) *tensor.Tensor {
	vals := make([]*tensor.Tensor, len(p.nodes))
	for i, n := range p.nodes {
		a, b := vals[n.a], vals[n.b]
		switch n.op {
		case "in":
			vals[i] = xs[i]
		case "add":
			vals[i] = e.Add(a, b)
		case "sub":
			vals[i] = e.Sub(a, b)
		case "mul":
			vals[i] = e.Mul(a, b)
		case "div":
			vals[i] = e.Div(a, b)
		case "exp":
			vals[i] = e.Exp(a)
		case "tanh":
			vals[i] = e.Tanh(a)
		case "sum":
			vals[i] = e.Sum(a, true, n.axis)
		case "sumall":
			vals[i] = e.Sum(a, false)
		}
	}
	return vals[len(vals)-1]
}

// loss returns Σ r·y for p's result y at inputs, in float64.
func (p *dagProgram) loss(inputs []hostIn, r []float64) float64 {
	vals := p.eval(inputs)
	l := 0.0
	for i, y := range vals[len(vals)-1].data {
		l += r[i] * y
	}
	return l
}

// Random programs with shared operands: every input's gradient matches the
// host's central difference, by a tape (even programs) and by
// ValueAndGrad (odd ones), and each leaves nothing live.
func TestGradientsOfRandomDAGs(t *testing.T) {
	e := testgpu.Engine(t)
	rng := rngFor(t)
	count := dagPrograms
	if os.Getenv("WGT_DAG_FULL") == "1" {
		count = dagFull
	}
	base := usageOf(e)
	for i := range count {
		p := newDAGProgram(rng)
		out := p.nodes[len(p.nodes)-1]
		r := genIn(out.shape, func() float64 { return float64(float32(rng.Float64()*2 - 1)) })
		got, err := p.gradients(e, r, i%2 == 1)
		if err != nil {
			t.Fatalf("program %d: %s: %v", i, p, err)
		}
		if u := usageOf(e); u != base {
			t.Fatalf("program %d: %s: %+v live after, %+v before", i, p, u, base)
		}
		want := make([][]float64, len(p.inputs))
		s := 0.0
		for k, in := range p.inputs {
			want[k] = make([]float64, len(in.data))
			for j, x := range in.data {
				h := dagStep * math.Max(1, math.Abs(x))
				in.data[j] = x + h
				up := p.loss(p.inputs, r.data)
				in.data[j] = x - h
				down := p.loss(p.inputs, r.data)
				in.data[j] = x
				want[k][j] = (up - down) / (2 * h)
				s = math.Max(s, math.Abs(want[k][j]))
			}
		}
		for k := range want {
			for j, d := range want[k] {
				g := float64(got[k][j])
				if !(math.Abs(g-d) <= dagAtol*math.Max(1, s)+dagRtol*math.Abs(d)) {
					t.Errorf("program %d: %s: input %d, element %d: gradient %g, central difference %g", i, p, k, j, g, d)
				}
			}
		}
		if t.Failed() {
			return
		}
	}
}

// gradients returns the gradient of Σ r·y with respect to each of p's
// inputs, y its result on e, by a tape or by ValueAndGrad, read back.
func (p *dagProgram) gradients(e *tensor.Engine, r hostIn, byValueAndGrad bool) ([][]float32, error) {
	return tidy.Run(e, func() ([][]float32, error) {
		xs := upload(e, p.inputs)
		// A random program may leave an input unused: its gradient is zeros.
		opts := &Options{Seed: tensorOf(e, r), NoPath: ZeroGradient}
		var gs []*tensor.Tensor
		var err error
		if byValueAndGrad {
			_, gs, err = ValueAndGrad(e, func(ps []*tensor.Tensor) (*tensor.Tensor, error) {
				y := p.run(e, ps)
				return y, y.Err()
			}, xs, opts)
		} else {
			tape := NewTape(e)
			var y *tensor.Tensor
			if err := tape.Record(func() error { y = p.run(e, xs); return y.Err() }); err != nil {
				return nil, err
			}
			gs, err = tape.Gradients(y, xs, opts)
		}
		if err != nil {
			return nil, err
		}
		out := make([][]float32, len(gs))
		for i, g := range gs {
			if out[i], err = g.Float32s(context.Background()); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
}
