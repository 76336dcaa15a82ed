package shaders

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
// channels of dy and of each of its eight columns of f per load and
// regroups them by channel in registers. The filter's gradient reads each
// four of its rows (four channels of one tap) as one vec4 of x per k. On lavapipe this block ran conv2d_3x3
// (wgbench) at about 1.4 times the speed of MatMul's Vec4 block (16 rows ×
// four vec4s), whose 64 vec4 sums spill from the registers, and at 1.2
// times a block of 8 rows × two vec4s; tiles of 64 columns also fit the 64
// or more output channels of most convolutions. Every kernel adds its
// products in the order of k (within a slice of k, below): all give the
// same bits. The Narrow, Short, Unit and B4 variants (see Conv2D's
// fields) change only the tile's shape and how indices and B are read,
// never that order.
//
// Like MatMul's, a dispatch covers the tiles from its First fields on and
// sums k over [KFirst, KEnd), continuing the sums a dispatch before it
// wrote where KFirst > 0; the range's ends are multiples of MatMulTileK
// (or K), at most MatMulKRange apart, so that its loops stay far below
// MaxLoopTrips. ConvFilter may also split K into slices of KSlice (a
// multiple of MatMulTileK), so that a long K with few tiles of C runs in
// parallel: the grid's z counts slice·Groups + group, slice s sums k over
// [s·KSlice + KFirst, s·KSlice + KEnd) ∩ [0, K) into its own copy of C,
// SliceSize floats after the one before, and the caller adds the copies.
// Without slices KSlice is 0 (the z past Groups are then never
// dispatched). Its source is conv.wgsl; its parameters Conv2DParams.
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
// Conv2DB4Fits) a thread reads its eight columns of B, contiguous, as two
// vec4s per k instead of eight loads; the same values, the same bits.
type Conv2D struct {
	Op                            ConvOp
	Vec4, Narrow, Short, Unit, B4 bool
}

// Conv2DB4Fits reports whether the scalar kernel of op may read B by
// vec4s (B4) for a product of groupOut columns per group out of outC:
// B is f or dy, outC columns a row, and a thread's eight columns lie
// within its group's and start at a multiple of four.
func Conv2DB4Fits(op ConvOp, groupOut, outC int) bool {
	return op != ConvInput && groupOut%convBlock == 0 && outC%4 == 0
}

// Conv2DNarrowFits reports whether the Narrow kernel suits c's product of
// n columns per group: it wastes less of its tiles than the 64-column one,
// except for the Vec4 forward product, whose eight threads across share
// their rows' loads of x: on lavapipe its wide tile ran the CNN's second
// convolution (16 to 32 channels) in 14 ms where the narrow one took 16-18.
func Conv2DNarrowFits(c Conv2D, n int) bool { return n <= 32 && !(c.Vec4 && c.Op == ConvForward) }

// WithShort returns c, Narrow, with Short set where the shorter tile
// wastes fewer of a product's m rows.
func (c Conv2D) WithShort(m int) Conv2D {
	if !c.Narrow {
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
	if c.Narrow {
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

// TileRows and TileCols are the rows and columns of C one workgroup
// computes.
func (c Conv2D) TileRows() int {
	if c.Vec4 {
		return c.threadsY() * convVec4Rows
	}
	return c.threadsY() * convBlock
}

// TileCols: see TileRows.
func (c Conv2D) TileCols() int {
	if c.Vec4 {
		return c.threadsX() * convVec4Blocks * 4
	}
	return c.threadsX() * convBlock
}

// threadsY is the threads down a workgroup, convShortY with Short.
func (c Conv2D) threadsY() int {
	if c.Short && c.Narrow {
		return convShortY
	}
	return convThreads // convVec4Y too
}

// threadsX is the threads across a workgroup, convNarrowX with Narrow.
func (c Conv2D) threadsX() int {
	switch {
	case c.Narrow:
		return convNarrowX
	case c.Vec4:
		return convVec4X
	}
	return convThreads
}

// Groups returns the workgroups a product of M×N per group takes, as the
// grid counts them: columns of tiles, rows of tiles and groups.
func (c Conv2D) Groups(M, N, groups int) (cols, rows, zs int) {
	return ceilDiv(N, c.TileCols()), ceilDiv(M, c.TileRows()), groups
}

// GroupWork is the work of one workgroup (a tile of C) over K: its
// multiply-adds at the kernel's rate on lavapipe (the Vec4 kernel about as
// fast as MatMul's; the scalar kernel pays for its index arithmetic and
// its gathers, about four times MatMul's register kernel).
func (c Conv2D) GroupWork(K int) float64 {
	perFMA := 2.0
	if c.Vec4 {
		perFMA = 0.4
	}
	return float64(c.TileRows()) * float64(c.TileCols()) * float64(max(K, 1)) * perFMA
}

// convKernel is the template data of the Conv2D kernels.
type convKernel struct {
	Conv2D
	Params             string
	TX, TY, Block      int
	X, Y, Rows, Blocks int
	Quads              []convQuad // the Vec4 kernel's rows, by four
	ColQuads           []convQuad // its columns, by four
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
	data := convKernel{Conv2D: c, Params: declareParams(p), TX: c.threadsX(), TY: c.threadsY(), Block: convBlock,
		X: c.threadsX(), Y: c.threadsY(), Rows: convVec4Rows, Blocks: convVec4Blocks, Quads: quads(convVec4Rows), ColQuads: quads(4 * convVec4Blocks)}
	return wgpu.KernelSpec{Name: "conv2d_" + string(c.Op), Key: c.Key(), Source: fill("conv.wgsl", data),
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
}
