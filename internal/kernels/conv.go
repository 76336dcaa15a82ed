package kernels

import (
	"fmt"

	"github.com/wgtensor/wgtensor/wgpu"
)

// ConvOp names which of a 2-D convolution's three products a Conv2D
// kernel computes.
type ConvOp string

// The products of a convolution of an NHWC input x with an HWIO filter f
// (see Conv2D).
const (
	// ConvForward computes y = conv(x, f).
	ConvForward ConvOp = "forward"
	// ConvInput computes dx, the gradient of x, from dy and f.
	ConvInput ConvOp = "input"
	// ConvFilter computes df, the gradient of f, from x and dy.
	ConvFilter ConvOp = "filter"
)

// Conv2D computes a grouped, strided, dilated and padded 2-D convolution
// of an NHWC input x ([batch, inH, inW, inC]) with an HWIO filter f
// ([kh, kw, inC/groups, outC]), or one of its gradients, as an implicit
// GEMM: a matrix product whose operands are read straight from x, f and
// dy by index arithmetic, never copied into a matrix (no im2col). Each
// group g is one product, the grid's z (counted from FirstGroup), over
// the group's inC/groups input channels (GroupIn) and outC/groups output
// channels (GroupOut):
//
//   - ConvForward: C = y, M = batch·outH·outW rows (output pixels), N =
//     GroupOut columns, K = kh·kw·GroupIn; A[m, k] is the input value
//     output pixel m sees through tap k / GroupIn at channel k % GroupIn
//     (zero in the padding), B = f seen as a K × outC matrix.
//   - ConvFilter: C = df, M = kh·kw·GroupIn rows (the filter's rows), N =
//     GroupOut, K = batch·outH·outW; A[m, k] is the input value filter row
//     m sees at output pixel k (zero in the padding), B = dy seen as a
//     K × outC matrix. Its long K is what the ranges below are for.
//   - ConvInput: C = dx, M = batch·inH·inW rows (input pixels), N =
//     GroupIn, K = kh·kw·GroupOut; a gather: A[m, k] is dy at the output
//     pixel that reads input pixel m through tap k / GroupOut, if one does
//     (the stride and padding decide), at channel k % GroupOut, and B[k, n]
//     = f[tap, n, channel]. Pairs no output pixel links add nothing.
//
// Padding reads as zero: a product of the forward pass or of the filter's
// gradient includes the term 0·w of each padded position, as a
// convolution of the zero-padded input does (an infinite weight facing the
// padding gives NaN, as in TensorFlow and PyTorch).
//
// Without Vec4 each of 8×8 threads computes an 8×8 block of a 64×64 tile
// of C, its 64 sums in registers, one k per trip (the register kernel of
// MatMul, with indexing in place of its loads). With Vec4 (GroupIn and
// GroupOut multiples of four: see Conv2DVec4Fits) each of 8×8 threads
// computes 16 rows × 8 columns (two vec4s) of a 128×64 tile, reading four
// channels per load. The forward product and the input's gradient loop
// over the taps, then over the channels of each, so that the pixel each
// row reads (and for the input's gradient whether an output pixel links
// it) is worked out once per tap; the input's gradient reads four output
// channels of dy and of each of its columns of f per load and regroups
// them by channel in registers. The filter's gradient reads each four of
// its rows (four channels of one tap) as one vec4 of x per k. A thread
// works out the pixel (or tap) of its first row by division and steps
// counters to the next ones, as it steps k. Every kernel adds its
// products in the order of k (within a slice of k, below): all give the
// same bits. The Narrow, Short, Unit, B4 and CPU variants (see Conv2D's
// fields) change only the tile's shape and how indices, B and C are read
// and written, never that order.
//
// A workgroup's threads are numbered in one dimension (local invocation
// index i: column of threads i % across, row i / across). lavapipe and
// llvmpipe run a workgroup's invocations as the lanes of 8-wide vectors
// along its x dimension only, so a workgroup 2 threads wide (Narrow) in
// two dimensions kept 2 of 8 lanes busy: counted in one dimension, the
// CNN of wgbench's cnn_train_step ran its five convolutions in 26 ms
// where they had taken 64.
//
// Like MatMul's, a dispatch covers the tiles from its First fields on and
// sums k over [KFirst, KEnd), continuing the sums a dispatch before it
// wrote where KFirst > 0; the range's ends are multiples of MatMulTileK
// (or K), at most MatMulKRange apart, so that its loops stay far below
// MaxLoopTrips. ConvFilter may also split K into slices of KSlice (a
// multiple of MatMulTileK), so that a long K with few tiles of C runs in
// parallel: the grid's z counts slice·Groups + group (z of them a
// workgroup where the shape has z > 1, below), slice s sums k over
// [s·KSlice + KFirst, s·KSlice + KEnd) ∩ [0, K) into its own copy of C,
// SliceSize floats after the one before, and the caller adds the copies.
// Without slices KSlice is 0 (the z past Groups are then never
// dispatched, or computed and not written). Its source is conv.wgsl; its
// parameters Conv2DParams.
//
// With Narrow a workgroup is a quarter as wide (16 columns, 2 threads
// across, each thread's block unchanged), for products of at most 32
// columns (the few output channels of a small network's layers, or the
// few input channels of its input gradient), where a 64-column tile would
// compute mostly clamped duplicate columns; it sums in the same order, so
// it gives the same bits. With Short (and Narrow) it is half as tall too
// (4 threads down): for products of few rows, a filter gradient's. With
// Unit (ConvInput only, for a stride of 1 both ways) the input's gradient
// skips the divisions by the stride that link an input pixel to the
// output pixels reading it: lavapipe runs runtime divisions lane by lane.
// With B4 (the scalar kernel's forward product and filter gradient, where
// B4Fits) a thread reads its columns of B, contiguous, as vec4s (two per
// k for eight columns instead of eight loads) and writes its sums as
// vec4s; the same values, the same bits.
//
// With CPU the tiles take the shapes measured fastest on lavapipe, for
// CPU adapters (where a load costs a loop over a vector's lanes, and most
// sums a thread keeps spill from the registers): a thread reads each of
// its rows' values once for 16 columns of C, four vec4s of B. The Vec4
// kernel's threads compute 24 rows × 16 columns of a 192×32 tile (2
// threads across, 8 down), with Narrow (for at most 16 columns) of a
// 192×16 one; its filter gradient's 12 rows × 16 columns of a 48×32 tile
// (2 across, 4 down), with Narrow of a 96×16 one (1 across, 8 down). The
// scalar kernel (with B4, in groups of a multiple of 16 output channels:
// Conv2DCPUFits) computes 16 rows × 16 columns of a 128×16 tile for the
// forward product, and for the filter's gradient, whose few rows (kh·kw
// per input channel) and long sums (its slices) leave a tile's threads
// idle, 9 rows × 16 columns of one slice in each of a workgroup's 8
// threads, 8 slices (or groups) a workgroup. On lavapipe these ran the
// CNN's convolutions (the first of 1 input channel, the second of 16 to
// 32) in 16 ms where the tiles above, counted in one dimension, took 26:
// the first's filter gradient at 4.5 to 5 times the speed of the Narrow,
// Short tile, the other products at 1.3 to 1.6 times.
type Conv2D struct {
	Op                            ConvOp
	Vec4, Narrow, Short, Unit, B4 bool
	CPU                           bool
	// Filter is how f's elements lie in memory, for ConvForward: Word,
	// Int8 (quantized weights, unpacked as MatMul's BStorage is: a vec4
	// of four output channels is one word), or half-width (a vec4 is two
	// words). Input is x's, for ConvForward: Word or half-width (a vec4 of
	// four channels two words). C is float32 whatever they are.
	Filter, Input Storage
}

// B4Fits reports whether c, the scalar kernel, may read B by vec4s
// (B4) for a product of groupOut columns per group out of outC: B is f
// or dy, outC columns a row, and a thread's columns (eight, or sixteen
// with CPU) lie within its group's and start at a multiple of four. Its
// sums are then written by vec4s too.
func (c Conv2D) B4Fits(groupOut, outC int) bool {
	return c.Op != ConvInput && !c.Vec4 && groupOut%c.shape().cols == 0 && outC%4 == 0
}

// Conv2DCPUFits reports whether the CPU kernel (see Conv2D.CPU) of op,
// Vec4 or not, computes a product of groupOut output channels per group
// out of outC, summed in zs slices and groups (the filter's gradient;
// 1 for the others): the Vec4 kernel everywhere it fits; the scalar one
// for the forward product and the filter's gradient, where it reads B by
// vec4s (B4Fits) and, for the filter's gradient, where there are enough
// slices and groups for a workgroup's eight (convCPUFilter.z).
func Conv2DCPUFits(op ConvOp, vec4 bool, groupOut, outC, zs int) bool {
	switch {
	case vec4:
		return true
	case op == ConvInput:
		return false
	case op == ConvFilter && zs < convCPUFilter.z:
		return false
	}
	return Conv2D{Op: op, CPU: true, B4: true}.B4Fits(groupOut, outC)
}

// Conv2DNarrowFits reports whether the Narrow kernel suits c's product of
// n columns per group: it wastes less of its tiles than the wider one (of
// 64 columns; of 32 for c.CPU, whose scalar kernel has no Narrow form).
func Conv2DNarrowFits(c Conv2D, n int) bool {
	switch {
	case c.CPU && c.Vec4:
		return n <= 16
	case c.CPU:
		return false
	}
	return n <= 32
}

// WithShort returns c, Narrow, with Short set where the shorter tile
// wastes fewer of a product's m rows (not for CPU: its Narrow tiles have
// no shorter form).
func (c Conv2D) WithShort(m int) Conv2D {
	if !c.Narrow || c.CPU {
		return c
	}
	short := c
	short.Short = true
	if padded := func(k Conv2D) int { return ceilDiv(m, k.TileRows()) * k.TileRows() }; padded(short) < padded(c) {
		return short
	}
	return c
}

// Conv2DVec4Fits reports whether the Vec4 kernel computes a product of op
// with groupIn input and groupOut output channels per group.
func Conv2DVec4Fits(op ConvOp, groupIn, groupOut int) bool {
	return groupIn > 0 && groupIn%4 == 0 && groupOut > 0 && groupOut%4 == 0
}

// Conv2DParams is the parameter block of every Conv2D kernel: the
// input's, output's and filter's sizes, the window's geometry (with
// padding resolved to its top and left), the channels per group, the
// product's M, N and K, the first tile and group of the dispatch and the
// range [KFirst, KEnd) of k it sums; for ConvFilter the groups and the
// slices of k (see Conv2D).
type Conv2DParams struct {
	InH, InW, InC, OutH, OutW, OutC uint32
	KernelW                         uint32
	StrideH, StrideW                uint32
	DilationH, DilationW            uint32
	PadTop, PadLeft                 uint32
	GroupIn, GroupOut               uint32
	M, N, K                         uint32
	FirstCol, FirstRow, FirstGroup  uint32
	KFirst, KEnd                    uint32
	Groups, KSlice, SliceSize       uint32
}

// Bytes encodes p.
func (p *Conv2DParams) Bytes() []byte { return encodeParams(p) }

// Key identifies c's pipeline.
func (c Conv2D) Key() string {
	key := fmt.Sprintf("conv2d/%s/%v", c.Op, c.Vec4)
	if c.CPU {
		key += "/cpu"
		if c.Narrow && c.Vec4 {
			key += "/narrow"
		}
	} else if c.Narrow {
		key += "/narrow"
		if c.Short {
			key += "/short"
		}
	}
	if c.Unit && c.Op == ConvInput {
		key += "/unit"
	}
	if c.B4 && !c.Vec4 && c.Op != ConvInput {
		key += "/b4"
	}
	if c.Input != Word {
		key += "/x_" + c.Input.String()
	}
	if c.Filter != Word {
		key += "/f_" + c.Filter.String()
	}
	return key
}

// The kernels' shapes: the scalar kernel's convThreads×convThreads
// threads compute convBlock×convBlock each; the Vec4 kernel's
// convVec4X×convVec4Y threads compute convVec4Rows rows × convVec4Blocks
// vec4s of columns each.
const (
	convThreads    = 8
	convBlock      = 8
	convVec4X      = 8
	convVec4Y      = 8
	convVec4Rows   = 16
	convVec4Blocks = 2
	convNarrowX    = 2
	convShortY     = 4
)

// convShape is a kernel's tile: each thread computes rows × cols of C
// (cols in vec4s for the Vec4 kernel), x threads across and y down, and
// with z > 1 (the filter's gradient) z threads along the grid's z, each
// for a slice of its own.
type convShape struct{ rows, cols, x, y, z int }

// The CPU kernels' shapes (see Conv2D.CPU).
var (
	convCPUVec4       = convShape{rows: 24, cols: 4, x: 2, y: 8, z: 1}
	convCPUVec4Filter = convShape{rows: 12, cols: 4, x: 2, y: 4, z: 1}
	convCPUScalar     = convShape{rows: 16, cols: 16, x: 1, y: 8, z: 1}
	convCPUFilter     = convShape{rows: 9, cols: 16, x: 1, y: 1, z: 8}
)

// convCPUNarrowY is the threads down the Vec4 kernel's CPU tiles with
// Narrow, one thread across.
const convCPUNarrowY = 8

// shape returns c's tile.
func (c Conv2D) shape() convShape {
	var s convShape
	switch {
	case c.CPU && c.Vec4 && c.Op == ConvFilter:
		s = convCPUVec4Filter
	case c.CPU && c.Vec4:
		s = convCPUVec4
	case c.CPU && c.Op == ConvFilter:
		s = convCPUFilter
	case c.CPU:
		s = convCPUScalar
	case c.Vec4:
		s = convShape{rows: convVec4Rows, cols: convVec4Blocks, x: convVec4X, y: convVec4Y, z: 1}
	default:
		s = convShape{rows: convBlock, cols: convBlock, x: convThreads, y: convThreads, z: 1}
	}
	switch {
	case c.Narrow && c.CPU && c.Vec4:
		s.x, s.y = 1, convCPUNarrowY
	case c.Narrow && !c.CPU:
		s.x = convNarrowX
		if c.Short {
			s.y = convShortY
		}
	}
	return s
}

// TileRows and TileCols are the rows and columns of C one workgroup
// computes (for each of its slices).
func (c Conv2D) TileRows() int {
	s := c.shape()
	return s.y * s.rows
}

// TileCols: see TileRows.
func (c Conv2D) TileCols() int {
	s := c.shape()
	if c.Vec4 {
		return s.x * s.cols * 4
	}
	return s.x * s.cols
}

// Groups returns the workgroups a product of M×N per group takes, as the
// grid counts them: columns of tiles, rows of tiles and groups (with
// slices, see Conv2D: groups counts slice·Groups + group), z of them a
// workgroup.
func (c Conv2D) Groups(M, N, groups int) (cols, rows, zs int) {
	return ceilDiv(N, c.TileCols()), ceilDiv(M, c.TileRows()), ceilDiv(groups, c.shape().z)
}

// GroupWork is the work of one workgroup (a tile of C for each of its
// slices) over K: its multiply-adds at the kernel's rate on lavapipe (the
// Vec4 kernel about as fast as MatMul's; the scalar kernel pays for its
// index arithmetic and its gathers, about four times MatMul's register
// kernel). The CPU tiles run faster than that: the estimate errs on the
// side of more, smaller dispatches.
func (c Conv2D) GroupWork(K int) float64 {
	perFMA := 2.0
	if c.Vec4 {
		perFMA = 0.4
	}
	return float64(c.TileRows()) * float64(c.TileCols()) * float64(max(K, 1)) * perFMA * float64(c.shape().z)
}

// convKernel is the template data of the Conv2D kernels: c's shape (see
// convShape), with XY = X·Y and Threads = X·Y·Z, a workgroup's
// invocations, counted in one dimension.
type convKernel struct {
	Conv2D
	Params               string
	X, Y, Z, XY, Threads int
	Rows, Cols           int
	Quads                []convQuad // the Vec4 kernel's rows, by four
	ColQuads             []convQuad // its columns, by four (the scalar kernel's with B4)
	// AElem and BElem are the element types of A's and B's bindings, and
	// LoadA and LoadB the functions la(i) and lbm(i) the kernel reads
	// their element (or vec4) i through, with Lib the library they call.
	AElem, BElem, LoadA, LoadB, Lib string
}

// convQuad is four rows of a Vec4 thread's block, from row First, read as
// one vec4 (Index names it); Rows names each row and its lane.
type convQuad struct {
	Index, First int
	Rows         []convRowLane
}

type convRowLane struct {
	Row  int
	Lane string
}

// quads splits rows (or columns) into quads.
func quads(rows int) []convQuad {
	qs := make([]convQuad, rows/4)
	for q := range qs {
		qs[q] = convQuad{Index: q, First: 4 * q}
		for l := range 4 {
			qs[q].Rows = append(qs[q].Rows, convRowLane{Row: 4*q + l, Lane: lanes[l : l+1]})
		}
	}
	return qs
}

// Spec generates c's kernel from conv.wgsl.
func (c Conv2D) Spec() wgpu.KernelSpec {
	p := &Conv2DParams{}
	sh := c.shape()
	data := convKernel{Conv2D: c, Params: declareParams(p), X: sh.x, Y: sh.y, Z: sh.z, XY: sh.x * sh.y, Threads: sh.x * sh.y * sh.z,
		Rows: sh.rows, Cols: sh.cols, Quads: quads(sh.rows), ColQuads: quads(sh.cols)}
	if c.Vec4 {
		data.ColQuads = quads(4 * sh.cols)
	}
	data.AElem, data.LoadA = operandElem(c.Input, c.Vec4), loadFunc("la", "a", c.Input, c.Vec4)
	data.BElem, data.LoadB = operandElem(c.Filter, c.Vec4 || c.B4), loadFunc("lbm", "bm", c.Filter, c.Vec4 || c.B4)
	data.Lib = storageLib(c.Input, c.Filter)
	return wgpu.KernelSpec{Name: "conv2d_" + string(c.Op), Key: c.Key(), Source: fill("conv.wgsl", data),
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
}
