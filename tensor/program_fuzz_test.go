package tensor_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
	"github.com/wgtensor/wgtensor/wgpu"
)

// FuzzOpPrograms runs random programs of ops, most with some bad argument
// (shapes that overflow or do not match, bad axes and dtypes, nil, zero,
// disposed and failed tensors, tensors of another engine or device, tiny
// memory limits, cancelled readbacks), over three engines on two devices,
// and checks what the package promises whatever the input:
//
//   - nothing panics, crashes or hangs;
//   - every result either holds storage for its shape, readable at that
//     size, or carries an *OpError whose text names the op (or, when an
//     input already carried an error, that error);
//   - once every tensor is disposed, no tensor or buffer is live on
//     either device, and the pools' figures add up;
//   - no batch failed where no call could report it (no uncaptured
//     device errors).
//
// Inputs are byte strings decoded by programReader; the seed corpus is in
// testdata/fuzz/FuzzOpPrograms. Run it with
//
//	go test ./tensor/ -run '^$' -fuzz FuzzOpPrograms -fuzztime 10m
//
// The fuzzer discards what its worker processes print, so a worker that
// dies (a fatal signal in the driver, a panic on another goroutine, an
// input still running after 10 s) leaves no trace. With
// WGT_FUZZ_CRASH_LOG=path each worker writes why it died to that file,
// and the stacks of every goroutine when an input runs for 9 s.
func FuzzOpPrograms(f *testing.F) {
	if path := os.Getenv("WGT_FUZZ_CRASH_LOG"); path != "" {
		out, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			f.Fatal(err)
		}
		defer out.Close()
		if err := debug.SetCrashOutput(out, debug.CrashOptions{}); err != nil {
			f.Fatal(err)
		}
		crashLog = out
	}
	opts := testgpu.DefaultOptions()
	d1 := testgpu.OpenWith(f, opts)
	opts.MemoryLimit = 1 << 20 // small enough for random shapes to reach it
	d2 := testgpu.OpenWith(f, opts)
	for _, seed := range []string{
		"",
		"\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f",
		"\x07\x03\x02\x05\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff",
		strings.Repeat("\x13\x37\xca\xfe", 16),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, program []byte) {
		defer watchSlowProgram(program)()
		engines := []*tensor.Engine{tensor.New(d1), tensor.New(d1), tensor.New(d2)}
		p := &programRun{t: t, r: &programReader{b: program}, engines: engines}
		p.run()
		p.disposeAll()
		for i, e := range engines {
			for _, ti := range e.LiveTensors() {
				t.Errorf("engine %d: tensor %d (%s %v) still live after every tensor was disposed, created at %s", i, ti.ID, ti.DType, ti.Shape, ti.Site)
			}
		}
		for i, d := range []*wgpu.Device{d1, d2} {
			if err := testgpu.Settle(d, testgpu.Timeout); err != nil {
				t.Fatalf("device %d: settling: %v", i, err)
			}
			for _, b := range d.LiveBuffers() {
				t.Errorf("device %d: buffer %d (%d B, %s) still live, created at %s", i, b.ID, b.Size, b.Usage, b.Site)
			}
			if err := testgpu.CheckPoolStats(d.Pool().Stats()); err != nil {
				t.Errorf("device %d: %v", i, err)
			}
			// Everything is validated before it is recorded, so no batch
			// may fail where no call could report it.
			for _, err := range d.UncapturedErrors() {
				t.Errorf("device %d: uncaptured error: %v", i, err)
			}
		}
	})
}

// slowProgram is how long a program may run before crashLog records the
// stacks of every goroutine: just under the 10 s after which go's fuzz
// workers give up on an input, silently.
const slowProgram = 9 * time.Second

// crashLog is where a fuzz worker writes why it died, when
// WGT_FUZZ_CRASH_LOG names a file; nil otherwise.
var crashLog *os.File

// watchSlowProgram writes the program and every goroutine's stack to
// crashLog if the program runs past slowProgram, so that a hung input can
// be told from a slow one. It returns the function that stops the watch.
func watchSlowProgram(program []byte) (stop func()) {
	if crashLog == nil {
		return func() {}
	}
	timer := time.AfterFunc(slowProgram, func() {
		buf := make([]byte, 1<<22)
		buf = buf[:runtime.Stack(buf, true)]
		fmt.Fprintf(crashLog, "program %q still running after %v:\n%s\n", program, slowProgram, buf)
	})
	return func() { timer.Stop() }
}

// programReader decodes a fuzz input: each call takes the next byte, and
// an exhausted input reads as zeros.
type programReader struct {
	b []byte
	i int
}

func (r *programReader) more() bool { return r.i < len(r.b) }

func (r *programReader) byte() byte {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *programReader) intn(n int) int { return int(r.byte()) % n }

// dim is a dimension, an axis or a size: usually small, sometimes at or past
// every limit a shape can hit.
func (r *programReader) dim() int {
	switch v := r.byte(); {
	case v < 200:
		return int(v % 7)
	case v < 240:
		return []int{-1, -2, 8, 17, 65, 257, 1025, 65537}[v%8]
	default:
		return []int{1 << 31, 1<<32 + 1, 1 << 33, 1 << 40, (1 << 62) + 1, math.MaxInt, math.MinInt, math.MaxInt32}[v%8]
	}
}

func (r *programReader) shape() []int {
	s := make([]int, r.intn(5))
	for i := range s {
		s[i] = r.dim()
	}
	return s
}

func (r *programReader) dtype() tensor.DType {
	if v := r.intn(16); v < 15 {
		return tensor.DType(v % 3)
	}
	return tensor.DType(7) // not a dtype
}

func (r *programReader) float() float64 {
	return []float64{0, 1, -1, 0.5, 3, -2.5, 1e30, -1e30, 1e-300, math.Inf(1), math.Inf(-1), math.NaN(), 3e9, -3e9, math.MaxFloat64, 65536}[r.intn(16)]
}

// programRun is one program's state: the tensors made so far, which the
// ops pick their arguments from.
type programRun struct {
	t       *testing.T
	r       *programReader
	engines []*tensor.Engine
	pool    []*tensor.Tensor
	ops     int
}

const maxProgramOps = 48

func (p *programRun) engine() *tensor.Engine { return p.engines[p.r.intn(len(p.engines))] }

// arg picks an argument: usually a tensor made earlier (possibly disposed,
// failed, or of another engine or device), sometimes nil or a zero Tensor.
func (p *programRun) arg() *tensor.Tensor {
	switch v := p.r.intn(32); {
	case v == 0:
		return nil
	case v == 1:
		return &tensor.Tensor{}
	case len(p.pool) == 0:
		return nil
	default:
		return p.pool[int(p.r.byte())%len(p.pool)]
	}
}

func (p *programRun) args(n int) []*tensor.Tensor {
	ts := make([]*tensor.Tensor, n)
	for i := range ts {
		ts[i] = p.arg()
	}
	return ts
}

func (p *programRun) run() {
	for p.r.more() && p.ops < maxProgramOps {
		p.step()
	}
}

// step runs one op of the program.
func (p *programRun) step() {
	p.ops++
	r := p.r
	switch r.intn(13) {
	case 0:
		p.create()
	case 1, 2:
		p.elementwise()
	case 3:
		p.linalg()
	case 4, 5:
		p.shapeOp()
	case 6:
		if x := p.arg(); x != nil {
			x.Dispose()
		}
	case 7:
		p.read()
	case 8:
		e := p.engine()
		if err := e.Flush(); err != nil {
			p.t.Fatalf("flush: %v", err)
		}
	case 9:
		_ = p.engine().SetFusion(r.intn(2) == 0)
	case 10:
		p.scope()
	case 11:
		p.split()
	case 12:
		p.custom() // custom_fuzz_test.go
	}
}

// check verifies a result and keeps it for later ops.
func (p *programRun) check(name string, in []*tensor.Tensor, y *tensor.Tensor) {
	t := p.t
	if y == nil {
		t.Fatalf("%s returned a nil tensor", name)
	}
	p.pool = append(p.pool, y)
	if err := y.Err(); err != nil {
		var oe *tensor.OpError
		if !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), "tensor: ") {
			t.Fatalf("%s: error %q is not an *OpError", name, err)
		}
		if !inputFailed(in) && !strings.Contains(err.Error(), name) {
			t.Fatalf("%s: error %q does not name the op", name, err)
		}
		return
	}
	s := y.Shape()
	n := 1
	for _, d := range s {
		if d < 0 {
			t.Fatalf("%s: result has shape %v", name, s)
		}
		n *= d
	}
	if n != y.Size() || y.IsDisposed() {
		t.Fatalf("%s: result of shape %v has size %d (disposed: %v)", name, s, y.Size(), y.IsDisposed())
	}
	if n <= 1<<12 && p.r.intn(4) == 0 {
		p.readChecked(name, y, context.Background())
	}
}

// inputFailed reports whether any input carries an error: a result then
// carries that error, which names the op that failed first.
func inputFailed(in []*tensor.Tensor) bool {
	for _, x := range in {
		if x != nil && x.Err() != nil {
			return true
		}
	}
	return false
}

// readChecked reads y back as its dtype and checks the length, or that
// the failure is one a readback may have.
func (p *programRun) readChecked(name string, y *tensor.Tensor, ctx context.Context) {
	var n int
	var err error
	switch y.DType() {
	case tensor.Int32:
		var v []int32
		v, err = y.Int32s(ctx)
		n = len(v)
	case tensor.Uint32:
		var v []uint32
		v, err = y.Uint32s(ctx)
		n = len(v)
	default:
		var v []float32
		v, err = y.Float32s(ctx)
		n = len(v)
	}
	switch {
	case err == nil && n != y.Size():
		p.t.Fatalf("%s: read %d elements of a tensor of %d", name, n, y.Size())
	case err == nil, errors.Is(err, context.Canceled), y.Err() != nil,
		errors.Is(err, tensor.ErrDisposed), errors.Is(err, wgpu.ErrOutOfMemory):
	default:
		p.t.Fatalf("%s: unexpected error %v", name, err)
	}
}

// read reads a random tensor back, sometimes under a cancelled context.
func (p *programRun) read() {
	x := p.arg()
	if x == nil || x.Err() != nil && p.r.intn(2) == 0 {
		return
	}
	ctx := context.Background()
	if p.r.intn(3) == 0 {
		c, cancel := context.WithCancel(ctx)
		cancel()
		ctx = c
	}
	if x.Engine() == nil { // a zero Tensor
		if _, err := x.Float32s(ctx); err == nil {
			p.t.Fatalf("reading a zero Tensor succeeded")
		}
		return
	}
	p.readChecked("read", x, ctx)
}

func (p *programRun) create() {
	r := p.r
	e := p.engine()
	var name string
	var y *tensor.Tensor
	switch r.intn(9) {
	case 0:
		name = "from float32s"
		s := r.shape()
		n := r.intn(40)
		y = e.FromFloat32s(make([]float32, n), s...)
	case 1:
		name = "from int32s"
		n := r.intn(40)
		y = e.FromInt32s(make([]int32, n), r.shape()...)
	case 2:
		name = "fill"
		y = e.Fill(r.dtype(), r.float(), r.shape()...)
	case 3:
		name = "zeros"
		y = e.Zeros(r.dtype(), r.shape()...)
	case 4:
		name = "range"
		y = e.Range(r.dtype(), r.float(), r.float(), r.float())
	case 5:
		name = "eye"
		y = e.Eye(r.dtype(), r.dim(), r.dim())
	case 6:
		name = "rand_uniform"
		y = e.RandUniform(uint64(r.byte()), 0, 1, r.shape()...)
	case 7:
		name = "rand_normal"
		y = e.RandNormal(uint64(r.byte()), 0, 1, r.shape()...)
	default:
		name = "ones"
		y = e.Ones(r.dtype(), r.shape()...)
	}
	p.check(name, nil, y)
}

var unaryOps = []struct {
	name string
	f    func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor
}{
	{"neg", (*tensor.Engine).Neg}, {"abs", (*tensor.Engine).Abs}, {"sign", (*tensor.Engine).Sign},
	{"relu", (*tensor.Engine).Relu}, {"exp", (*tensor.Engine).Exp}, {"log", (*tensor.Engine).Log},
	{"sqrt", (*tensor.Engine).Sqrt}, {"tanh", (*tensor.Engine).Tanh}, {"floor", (*tensor.Engine).Floor},
	{"sigmoid", (*tensor.Engine).Sigmoid}, {"square", (*tensor.Engine).Square},
}

var binaryOps = []struct {
	name string
	f    func(e *tensor.Engine, a, b *tensor.Tensor) *tensor.Tensor
}{
	{"add", (*tensor.Engine).Add}, {"sub", (*tensor.Engine).Sub}, {"mul", (*tensor.Engine).Mul},
	{"div", (*tensor.Engine).Div}, {"pow", (*tensor.Engine).Pow}, {"mod", (*tensor.Engine).Mod},
	{"maximum", (*tensor.Engine).Maximum}, {"minimum", (*tensor.Engine).Minimum},
	{"equal", (*tensor.Engine).Equal}, {"less", (*tensor.Engine).Less},
}

func (p *programRun) elementwise() {
	r := p.r
	e := p.engine()
	switch r.intn(5) {
	case 0, 1:
		op := unaryOps[r.intn(len(unaryOps))]
		in := p.args(1)
		p.check(op.name, in, op.f(e, in[0]))
	case 2:
		op := binaryOps[r.intn(len(binaryOps))]
		in := p.args(2)
		p.check(op.name, in, op.f(e, in[0], in[1]))
	case 3:
		in := p.args(1)
		p.check("cast", in, e.Cast(in[0], r.dtype()))
	default:
		in := p.args(3)
		p.check("where", in, e.Where(in[0], in[1], in[2]))
	}
}

func (p *programRun) linalg() {
	r := p.r
	e := p.engine()
	axes := make([]int, r.intn(3))
	for i := range axes {
		axes[i] = r.dim()
	}
	in := p.args(2)
	x := in[0]
	switch r.intn(8) {
	case 0:
		p.check("matmul", in, e.MatMulT(in[0], in[1], r.intn(2) == 0, r.intn(2) == 0))
	case 1:
		p.check("sum", in[:1], e.Sum(x, r.intn(2) == 0, axes...))
	case 2:
		p.check("mean", in[:1], e.Mean(x, r.intn(2) == 0, axes...))
	case 3:
		p.check("max", in[:1], e.Max(x, r.intn(2) == 0, axes...))
	case 4:
		p.check("argmax", in[:1], e.ArgMax(x, r.dim()))
	case 5:
		p.check("softmax", in[:1], e.Softmax(x, r.dim()))
	case 6:
		p.check("log_softmax", in[:1], e.LogSoftmax(x, r.dim()))
	default:
		p.check("prod", in[:1], e.Prod(x, r.intn(2) == 0, axes...))
	}
}

func (p *programRun) shapeOp() {
	r := p.r
	e := p.engine()
	in := p.args(1)
	x := in[0]
	switch r.intn(12) {
	case 0:
		p.check("reshape", in, e.Reshape(x, r.shape()...))
	case 1:
		p.check("clone", in, e.Clone(x))
	case 2:
		p.check("expand_dims", in, e.ExpandDims(x, r.dim()))
	case 3:
		p.check("squeeze", in, e.Squeeze(x, r.shape()...))
	case 4:
		p.check("transpose", in, e.Transpose(x, r.shape()...))
	case 5:
		p.check("slice", in, e.Slice(x, r.shape(), r.shape()))
	case 6:
		p.check("broadcast_to", in, e.BroadcastTo(x, r.shape()...))
	case 7:
		ts := p.args(r.intn(4))
		p.check("concat", ts, e.Concat(r.dim(), ts...))
	case 8:
		ts := p.args(r.intn(4))
		p.check("stack", ts, e.Stack(r.dim(), ts...))
	case 9:
		in = append(in, p.arg())
		p.check("gather", in, e.Gather(x, in[1], r.dim()))
	case 10:
		pads := make([][2]int, r.intn(4))
		for i := range pads {
			pads[i] = [2]int{r.dim(), r.dim()}
		}
		p.check("pad", in, e.Pad(x, pads, r.float()))
	default:
		p.check("clip", in, e.Clip(x, float32(r.float()), float32(r.float())))
	}
}

// split checks Split, which returns one tensor per piece or one carrying
// the error.
func (p *programRun) split() {
	r := p.r
	in := p.args(1)
	ys := p.engine().Split(in[0], r.dim(), r.shape()...)
	if len(ys) == 0 {
		p.t.Fatalf("split returned no tensor")
	}
	for _, y := range ys {
		p.check("split", in, y)
	}
}

// scope runs the next few ops inside tidy.Run on one engine, returning one
// of their results: the rest are disposed by the scope.
func (p *programRun) scope() {
	e := p.engine()
	before := len(p.pool)
	ops := 1 + p.r.intn(4)
	keep, err := tidy.Run(e, func() (*tensor.Tensor, error) {
		for range ops {
			if !p.r.more() || p.ops >= maxProgramOps {
				break
			}
			p.step()
		}
		if len(p.pool) == before {
			return nil, nil
		}
		return p.pool[before+p.r.intn(len(p.pool)-before)], nil
	})
	if err != nil {
		p.t.Fatalf("tidy.Run: %v", err)
	}
	_ = keep // stays in the pool; disposed at the end of the program
}

// disposeAll disposes every tensor the program made.
func (p *programRun) disposeAll() {
	for _, x := range p.pool {
		x.Dispose()
	}
	p.pool = nil
}
