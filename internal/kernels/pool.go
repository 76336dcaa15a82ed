package kernels

import (
	"fmt"

	"github.com/wgtensor/wgtensor/wgpu"
)

// Pool2D pools windows of an NHWC float32 tensor, one thread per output
// element: the maximum of each window (Max), its index (Max and Arg: the
// input position iy·inW+ix of the window's first maximum, as an i32), or
// its average (neither). A window's taps are the rows
// oy·StrideH − PadTop + ky·DilationH for ky in [0, KernelH), and columns
// likewise, clipped to the input: padded positions are left out of the
// maximum, and the caller guarantees every window holds at least one
// input position (tensor/ rejects geometries where one would not). An
// average sums the taps inside the input and divides by the count of the
// window's positions inside [−CountTop, InH + CountBottom) ×
// [−CountLeft, InW + CountRight): the positions inside the input with the
// Count fields zero (TensorFlow's rule, PyTorch's
// count_include_pad=False), the padding too with them set to the padding
// (PyTorch's count_include_pad=True, where a window running past the
// padding, with ceil_mode, still counts only what lies inside it). An
// average takes no dilation (the caller keeps DilationH and DilationW 1).
//
// The maximum is taken in row-major window order: a NaN beats every
// number and the first NaN every later one (so a window with a NaN pools
// to NaN, as in PyTorch), and among numbers a tie, -0 and +0 included,
// keeps the first. Arg names that same element, so the gradient of a
// window goes to exactly the element that produced its value.
//
// Its source is pool.wgsl; its parameters are Pool2DParams. A thread walks
// its window's taps inside the input as one span in row-major order,
// PoolUnroll positions per trip (Trips: a window of MaxLoopTrips elements
// costs a quarter of the trips gallivm allows an invocation; see
// LoopTrips). With Vec4 (no Arg; channels a multiple of four) a
// thread takes four channels, read and written as vec4s and compared
// element by element as four threads would.
type Pool2D struct {
	Max, Arg, Vec4 bool
	// Storage is how x's elements lie in memory: with a half-width one
	// they are unpacked (a vec4 of four channels from two words), and the
	// result is float32 all the same.
	Storage Storage
}

// Pool2DParams is the parameter block of Pool2D and Pool2DGrad: the
// channels, the input's and output's height and width, and the window's
// extent, stride, leading padding and dilation (at least 1), and the
// padding an average counts on each side (see Pool2D).
type Pool2DParams struct {
	Range
	C, InH, InW, OutH, OutW                      uint32
	KernelH, KernelW, StrideH, StrideW           uint32
	PadTop, PadLeft                              uint32
	DilationH, DilationW                         uint32
	CountTop, CountBottom, CountLeft, CountRight uint32
}

// Bytes encodes p.
func (p *Pool2DParams) Bytes() []byte { return encodeParams(p) }

// Key identifies k's pipeline.
func (k Pool2D) Key() string {
	key := fmt.Sprintf("pool2d/%v/%v", k.Max, k.Arg)
	if k.Vec4 && !k.Arg {
		key += "/vec4"
	}
	if k.Storage != Word {
		key += "/" + k.Storage.String()
	}
	return key
}

// Out is the type of k's result.
func (k Pool2D) Out() Type {
	if k.Max && k.Arg {
		return I32
	}
	return F32
}

// Spec generates k's kernel.
func (k Pool2D) Spec() wgpu.KernelSpec {
	p := &Pool2DParams{}
	data := map[string]any{"Params": declareParams(p), "WorkgroupSize": WorkgroupSize,
		"Max": k.Max, "Arg": k.Max && k.Arg, "Out": string(k.Out()), "Vec4": k.Vec4 && !k.Arg,
		"Unroll": PoolUnroll, "At": k.Max && k.Arg, "AtType": "u32", "Row": false}
	vectorTypes(data)
	if data["Vec4"] == true {
		data["Out"] = data["T"]
	}
	if k.Storage != Word {
		data["LoadX"] = loadFunc("lx", "x", k.Storage, data["Vec4"] == true)
		data["Lib"] = storageLib(k.Storage)
	}
	src := fill("pool.wgsl", data)
	return wgpu.KernelSpec{Name: "pool2d", Key: k.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
}

// Trips is the loop trips a thread of Pool2D spends on a window of window
// elements (see LoopTrips).
func (Pool2D) Trips(window int) int { return LoopTrips(window, PoolUnroll) }

// Trips is the loop trips a thread of k spends: without Scatter, on the
// window windows that hold its element; with Scatter, on a window of window
// elements (Max only) and a cell of cell elements.
func (k Pool2DGrad) Trips(window, cell int) int {
	if !k.Scatter {
		return LoopTrips(window, PoolUnroll)
	}
	trips := LoopTrips(cell, PoolUnroll)
	if k.Max {
		trips += LoopTrips(window, PoolUnroll)
	}
	return trips
}

// ThreadWork is the work of one thread of k over a window of trips
// elements.
func (Pool2D) ThreadWork(trips int) float64 { return 24 + 3*float64(trips) }

// Pool2DGrad is the gradient of Pool2D, gathered: one thread per input
// element sums, in row-major window order, the output gradients of the
// windows whose dilated extent covers it, so there are no atomics and the
// result is the same from run to run. With Max it adds a window's
// gradient only where the window's Arg (an i32 tensor of the output's
// shape, from Pool2D) names the element; else (dilation 1) it adds the
// gradient divided by the window's divisor (see Pool2D).
//
// Its source is pool_grad.wgsl; its parameters are Pool2DParams. A thread
// walks the windows whose extent covers its element, at most
// ceil(extH/StrideH)·ceil(extW/StrideW) for the dilated extents
// ext = (kernel−1)·dilation + 1 (with dilation 1 no more than a window's
// elements; the caller bounds it otherwise), PoolUnroll per trip (see
// Trips).
//
// With Scatter (for windows that do not overlap: strides at least the
// window's dilated extent, in both dimensions, and at least one window
// each way) there is one thread per window instead, and no Arg: it takes
// the window's first maximum from x itself, as Pool2D does, and writes
// the gradient of every input element of its cell, the positions from its
// window's start to the next window's start (the last window's to the
// input's end): the window's gradient to its maximum (Max) or divided by
// its divisor among its positions inside the input, zero to the others.
// Cells tile the input, so every element is written once, with no atomics
// and no zeroing pass. Its source is pool_scatter.wgsl; its bindings x
// (Max only), dy, dx; a thread walks its window (Max only), then its
// cell, PoolUnroll positions per trip (see Trips; the caller keeps the
// sum within MaxLoopTrips). With Vec4 too (channels a multiple of four) a
// thread takes four channels of its window, read and written as vec4s,
// compared element by element as four threads would.
type Pool2DGrad struct {
	Max, Scatter, Vec4 bool
}

// Key identifies k's pipeline.
func (k Pool2DGrad) Key() string {
	if k.Scatter && k.Vec4 {
		return fmt.Sprintf("pool2d_grad/%v/scatter/vec4", k.Max)
	}
	if k.Scatter {
		return fmt.Sprintf("pool2d_grad/%v/scatter", k.Max)
	}
	return fmt.Sprintf("pool2d_grad/%v", k.Max)
}

// Spec generates k's kernel.
func (k Pool2DGrad) Spec() wgpu.KernelSpec {
	p := &Pool2DParams{}
	file := "pool_grad.wgsl"
	if k.Scatter {
		file = "pool_scatter.wgsl"
	}
	data := map[string]any{"Params": declareParams(p), "WorkgroupSize": WorkgroupSize, "Max": k.Max, "Vec4": k.Vec4,
		"Unroll": PoolUnroll, "At": k.Max, "Row": !k.Max}
	vectorTypes(data)
	data["AtType"] = data["U"]
	src := fill(file, data)
	bindings := []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}
	if k.Max {
		bindings = []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}
	}
	return wgpu.KernelSpec{Name: "pool2d_grad", Key: k.Key(), Source: src,
		Bindings: bindings, Params: true, ParamsSize: paramsSizeOf(p)}
}

// ThreadWork is the work of one thread of k over trips windows (with
// Scatter: trips elements of its window and cell).
func (k Pool2DGrad) ThreadWork(trips int) float64 {
	if k.Scatter {
		return 24 + 3*float64(trips)
	}
	return 32 + 6*float64(trips)
}

// orderF32 is WGSL's is_nan and ord on f32, read from the bits: compilers
// may fold a comparison v != v away, and a device that flushes subnormals
// takes them for zero in a comparison. ord maps a float to an i32 in the
// floats' order, both zeros to 0 (NaN aside).
const orderF32 = `fn is_nan(v: f32) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u; }
fn ord(v: f32) -> i32 {
	let b = bitcast<i32>(v);
	return select(select(b, b ^ 0x7fffffff, b < 0), 0, (bitcast<u32>(v) & 0x7fffffffu) == 0u);
}`

// orderVec4F32 is orderF32 lane by lane.
const orderVec4F32 = `fn is_nan(v: vec4<f32>) -> vec4<bool> { return (bitcast<vec4<u32>>(v) & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u); }
fn ord(v: vec4<f32>) -> vec4<i32> {
	let b = bitcast<vec4<i32>>(v);
	return select(select(b, b ^ vec4<i32>(0x7fffffff), b < vec4<i32>(0)), vec4<i32>(0), (bitcast<vec4<u32>>(v) & vec4<u32>(0x7fffffffu)) == vec4<u32>(0u));
}`

// vectorTypes sets a pooling kernel's element types in its template data
// (T the float, U and B the u32 and bool of as many lanes: scalars, or
// vec4s with Vec4) and its Order, is_nan and ord on T (see orderF32).
func vectorTypes(data map[string]any) {
	data["T"], data["U"], data["B"], data["Order"] = "f32", "u32", "bool", orderF32
	if data["Vec4"] == true {
		data["T"], data["U"], data["B"], data["Order"] = "vec4<f32>", "vec4<u32>", "vec4<bool>", orderVec4F32
	}
}
