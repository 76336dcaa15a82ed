package kernels

import (
	"fmt"

	"github.com/wgtensor/wgtensor/wgpu"
)

// ReduceOp names a reduction.
type ReduceOp string

// The reductions.
const (
	Sum    ReduceOp = "sum"
	Mean   ReduceOp = "mean"
	Prod   ReduceOp = "prod"
	Max    ReduceOp = "max"
	Min    ReduceOp = "min"
	ArgMax ReduceOp = "argmax"
	ArgMin ReduceOp = "argmin"
)

// Arg reports whether op returns indices (as i32).
func (op ReduceOp) Arg() bool { return op == ArgMax || op == ArgMin }

// Reduce reduces each row of a tensor viewed as [rows, length] to one value.
// A row's elements lie RowParams.Stride apart (a tensor viewed as [outer,
// length, stride], reduced over its middle axis: row r starts at
// (r / stride) * length * stride + r % stride), so that reducing axes
// other than the innermost needs no transposing copy; the elements are
// taken in the same order as from the transposed copy. With PerThread one thread reduces a row (for short rows); otherwise a
// workgroup of ReduceWorkgroup threads shares each row and combines in
// workgroup memory.
//
// A row longer than ReduceSegment is reduced in two steps, so that no
// workgroup runs for long (on lavapipe one workgroup runs on one core,
// and a workgroup over 2²⁵ elements ran for seconds): with Segments, the
// workgroup kernel reduces segments of ReduceSegment elements, item i
// being segment i mod Segments of row i / Segments, and writes each segment's
// accumulator (Mean's sum, the arg reductions' value) to dst, and for the
// arg reductions its index in the row to a third binding. The segments'
// results are then rows of a second reduction: Sum's, Prod's, Max's or
// Min's again, Mean's (over float32 sums, scaled by 1/length), or for the
// arg reductions the PerThread kernel with Indexed, which reads the
// indices from a second input and returns the index of the best value
// (its rows are contiguous: it ignores Stride).
//
// Its source is reduce.wgsl; its parameters are RowParams, whose Scale is
// 1/length for Mean. Max, Min and the arg reductions need length > 0.
type Reduce struct {
	Op        ReduceOp
	In        Type
	PerThread bool
	Segments  bool
	Indexed   bool
	// Storage is how the source's elements lie in memory: with a
	// half-width one (In F32) they are unpacked as Elementwise unpacks
	// them, and the results are float32 (the tensor package rounds them).
	// Not with Indexed, whose source is a first step's results.
	Storage Storage
}

// ReduceWorkgroup is the number of threads that share one row.
const ReduceWorkgroup = 64

// ReduceSegment is the longest row one workgroup reduces; longer rows are
// reduced in segments of this length (see Reduce).
const ReduceSegment = 1 << 16

// MaxLoopTrips is the most loop iterations one invocation may run: on
// lavapipe and llvmpipe (Mesa's gallivm) the loops of an invocation stop
// silently once they have run 65,535 trips together, counted across every
// loop it runs, one after another or nested, each loop's exiting trip
// included (see LoopTrips). So no kernel's loops run near it: a workgroup reduces at most a segment
// (ReduceSegment: 64 trips of 16 per thread), a thread at most a row of
// MaxThreadRow, a matmul or convolution dispatch at most MatMulKRange
// of k, and the one-thread-per-row and pooling kernels take several
// elements per trip (RowUnroll, PoolUnroll).
const MaxLoopTrips = 65535

// MaxThreadRow is the longest row the PerThread kernels of Reduce and
// Softmax take. One thread sums the row in order, whose rounding error
// grows with its length: up to 1,024 elements it is no larger than that of
// a workgroup's 64 partial sums over a segment (1,024 elements each).
// (This also keeps the thread's loop far below 65,535 trips, where
// lavapipe and llvmpipe stop a loop silently: see MatMulKRange.)
const MaxThreadRow = 1 << 10

// MaxRowLength is the longest row a reduction or softmax handles.
const MaxRowLength = MaxLoopTrips * reduceUnroll * ReduceWorkgroup

// Out is the type of the reduction's result.
func (r Reduce) Out() Type {
	switch {
	case r.Segments:
		return r.acc()
	case r.Op.Arg():
		return I32
	case r.Op == Mean:
		return F32
	}
	return r.In
}

// acc is the accumulator's type.
func (r Reduce) acc() Type {
	if r.Op == Mean {
		return F32
	}
	return r.In
}

// Key identifies r's pipeline.
func (r Reduce) Key() string {
	key := fmt.Sprintf("reduce/%s/%s/%v/%v/%v", r.Op, r.In, r.PerThread, r.Segments, r.Indexed)
	if r.Storage != Word {
		key += "/" + r.Storage.String()
	}
	return key
}

// RowParams is the parameter block of Reduce and Softmax: the rows run
// (or with Segments the items, see Reduce), the length of a row, the
// segments of a row (Reduce with Segments), the scale by which Mean
// multiplies its sum, and Reduce's stride (see Reduce; 0 counts as 1).
type RowParams struct {
	Range
	Length, Segments uint32
	Scale            float32
	Stride           uint32
}

// Bytes encodes p.
func (p *RowParams) Bytes() []byte { return encodeParams(p) }

// reduceUnroll is how many elements of a row each thread of a workgroup
// takes per trip of its outer loop, ReduceWorkgroup apart.
const reduceUnroll = 16

// rowKernel is the template data shared by the row kernels.
type rowKernel struct {
	Params        string
	WorkgroupSize int // a thread per row
	Group, Half   int // a workgroup per row: its threads and half of them
	Unroll, Chunk int // a thread's elements per trip, the row's per trip
}

func newRowKernel() rowKernel {
	return rowKernel{Params: declareParams(&RowParams{}), WorkgroupSize: WorkgroupSize,
		Group: ReduceWorkgroup, Half: ReduceWorkgroup / 2, Unroll: reduceUnroll, Chunk: reduceUnroll * ReduceWorkgroup}
}

// Spec generates r's kernel from reduce.wgsl.
func (r Reduce) Spec() wgpu.KernelSpec {
	access := []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}
	switch {
	case r.Indexed:
		access = []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}
	case r.segmentIndices():
		access = append(access, wgpu.ReadWrite)
	}
	var unpack, lib string
	if r.Storage != Word {
		unpack, lib = r.Storage.unpack(), Half+halfHelpers
	}
	src := fill("reduce.wgsl", struct {
		rowKernel
		Reduce
		Out, Acc       Type
		Cmp            string
		SegmentIndices bool
		Segment        int
		Unpack, Lib    string
	}{newRowKernel(), r, r.Out(), r.acc(), r.cmp(), r.segmentIndices(), ReduceSegment, unpack, lib})
	return wgpu.KernelSpec{Name: string(r.Op), Key: r.Key(), Source: src, Bindings: access, Params: true, ParamsSize: paramsSizeOf(&RowParams{})}
}

// segmentIndices reports whether r writes each segment's index in its row
// to a third binding: the arg reductions' first step over segments.
func (r Reduce) segmentIndices() bool { return r.Segments && r.Op.Arg() }

// cmp is the comparison by which a value is better in an ordered
// reduction (Max, Min and the arg reductions), "" for the others.
//
// The kernel orders their candidates with the WGSL function beats
// (reduce.wgsl): whether value v at index j replaces w at index k (none:
// no value yet). A NaN beats every number, the first NaN every later one,
// so NaN propagates and ArgMax and ArgMin find the first NaN, as NumPy's
// do; among numbers ties (-0 and +0 included) keep the lower index. NaN and
// order are read from the bits: drivers may drop NaN in a comparison folded
// into max or min, and a device that flushes subnormals takes them for
// zero in a comparison.
func (r Reduce) cmp() string {
	switch r.Op {
	case Max, ArgMax:
		return ">"
	case Min, ArgMin:
		return "<"
	}
	return ""
}

// Softmax computes softmax (or, with Log, log-softmax) along each row of a
// float32 tensor viewed as [rows, length], its elements RowParams.Stride
// apart as Reduce's (and written where they were read), subtracting the
// row's maximum first so that no exp overflows. One workgroup of ReduceWorkgroup threads
// handles a row; with PerThread (for short rows) one thread does. Its
// source is softmax.wgsl; its parameters are RowParams.
type Softmax struct {
	Log, PerThread bool
	// Storage is how the source's elements lie in memory, as for Reduce:
	// the results are float32 all the same.
	Storage Storage
}

// Key identifies s's pipeline.
func (s Softmax) Key() string {
	key := fmt.Sprintf("softmax/%v/%v", s.Log, s.PerThread)
	if s.Storage != Word {
		key += "/" + s.Storage.String()
	}
	return key
}

// Spec generates s's kernel from softmax.wgsl.
func (s Softmax) Spec() wgpu.KernelSpec {
	name := "softmax"
	if s.Log {
		name = "log_softmax"
	}
	var unpack, lib string
	if s.Storage != Word {
		unpack, lib = s.Storage.unpack(), Half+halfHelpers
	}
	src := fill("softmax.wgsl", struct {
		rowKernel
		Softmax
		Unpack, Lib string
	}{newRowKernel(), s, unpack, lib})
	return wgpu.KernelSpec{Name: name, Key: s.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(&RowParams{})}
}
