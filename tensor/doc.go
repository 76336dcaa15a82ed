// Package tensor is wgtensor's tensor library: n-dimensional arrays of
// float32, int32, uint32, float16 or bfloat16 on a WebGPU device, with
// NumPy-style broadcasting, matrix products, reductions and shape ops, all
// computed by WGSL kernels from package shaders.
//
// # Overview
//
//	e := tensor.New(device)
//	a := e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
//	b := e.Relu(e.MatMul(a, a))        // recorded, batched, not yet run
//	v, err := b.Float32s(ctx)          // submits, waits, reads back
//	a.Dispose(); b.Dispose()           // storage back to the pool at once
//
// # Dtypes
//
//	dtype     element                    in memory          computed in
//	Float32   IEEE 754 binary32          a 32-bit word      float32
//	Int32     two's complement           a 32-bit word      int32
//	Uint32    unsigned                   a 32-bit word      uint32
//	Float16   IEEE 754 binary16          two to a word      float32, each result rounded to float16
//	BFloat16  float32's upper 16 bits    two to a word      float32, each result rounded to bfloat16
//	Int8      two's complement byte      four to a word     int32, each result wrapped to its low byte
//
// An op's result has its inputs' dtype, but comparisons (Uint32) and Cast
// (the dtype asked for). There is no promotion: a binary op whose inputs'
// dtypes differ fails with ErrDType naming both (Cast one first). The
// mixed pairs are MatMul's: float32 times int8 (quantized weights), and
// float32 times float16 or bfloat16 on either side (what a backward pass
// multiplies activations saved at half width by); their result is
// float32. Rounding
// to float16 and bfloat16 is to nearest, ties to even, as IEEE 754 and
// PyTorch round; a float16 past ±65,504 is ±Inf, and NaN stays NaN
// (Float16Bits and BFloat16Bits round the same way on the host). On a
// device that flushes float32 subnormals, bfloat16 results below 2^-126
// may be flushed to zero.
//
// Float16 and BFloat16 tensors are made by FromFloat16Bits,
// FromBFloat16Bits, Cast and the creation ops, and are read back by
// Uint16s (their bits), Float32s (widened, exactly) and Text. They take
// every elementwise op, the views (Reshape, Squeeze, ExpandDims, Clone),
// the copies (Copy, Transpose, Slice, Concat, Stack, Split, Pad,
// BroadcastTo: element by element, an element starting mid-word included),
// the reductions (Sum, Mean, Prod, Max, Min accumulate in float32 and
// round the result; ArgMax and ArgMin give int32), MatMul and MatMulT
// (float32 sums of the operands unpacked in the kernel, the Vec4 one
// included, rounded; untuned), Softmax and LogSoftmax
// (float32 arithmetic, rounded), LayerNorm (likewise; x, gamma and beta
// of one dtype), ScaledDotProductAttention and its packed form (composed
// of those ops, in the operands' dtype; a float32 additive mask is
// rounded to it), Conv2D, MaxPool2D and AvgPool2D (float32 sums and
// maxima, rounded), Gather, and WriteBytes and ReadBytes; the other ops
// (gradients of layer norm, attention, convolutions and pooling,
// scatters, cumulative sums, top-k, Assign, custom kernels) do not take
// them yet and fail with ErrDType: Cast to float32 first.
//
// Int8 tensors are made by FromInt8s, Cast (which wraps, as C's casts do)
// and the creation ops, read back by Int8s and Text, and hold quantized
// weights (QuantizeInt8; nn.QuantizeInt8). They take every elementwise op
// (int32 arithmetic, each result wrapped to 8 bits, as Go's int8
// arithmetic wraps), the views, the copies and Gather, as Float16 does,
// MatMul and MatMulT as the right operand of a float32 one, and Conv2D as
// the filter of a float32 image: the kernels unpack four weights from
// each word they load, the Vec4 kernels included, and the result is
// float32. The other ops fail with ErrDType.
//
// # Fusion
//
// Elementwise ops (arithmetic, comparisons, Where, Cast, the activations,
// Fill, Range, the random generators) are not dispatched as they are
// called: an Engine holds a run of them over one output shape and
// dispatches it as one generated kernel when something needs its results,
// such as a readback, another kind of op, Engine.Flush or frame.Next. Ops
// in a run read each other's results from registers, so relu(a*b + a)
// reads a and b once and writes one result. Results are bit for bit those
// of unfused ops (SetFusion turns fusion off). Memory is unaffected:
// outputs are allocated when an op is called, and a result disposed before
// the dispatch is not computed at all.
//
// # Convolution
//
// Conv2D convolves NHWC images with HWIO filters (TensorFlow's layouts),
// with strides, dilations, padding (Same, Valid or Explicit, resolved by
// NewWindow2D) and groups, depthwise included; Conv2DBackpropInput and
// Conv2DBackpropFilter are its gradients. Each is one kernel, an implicit
// matrix product that reads the images and filters where they lie (no
// im2col copy), split by the work budget like MatMul; padded positions
// read as zero.
//
// # Custom kernels
//
// Engine.RunKernel runs the caller's WGSL on tensors, for ops the library
// lacks: inputs are bound read-only, outputs are allocated by the engine
// with the shapes and dtypes the caller states, and params follow a
// launch header in a uniform block (see Kernel for the binding
// convention). The engine chooses the grid and cuts large launches by the
// work budget, as for its own ops; pipelines are cached per device by the
// Kernel's key. The results are ordinary tensors, and bad launches,
// WGSL that does not compile included, return tensors carrying the error.
// Launch.InOut binds existing tensors read_write to be updated in place,
// as an optimizer updates a parameter and its state in one kernel.
//
// # In-place writes
//
// Ops return new tensors. Engine.Assign (tfjs's variable.assign), a
// kernel's Launch.InOut and Engine.WriteBytes (a piece of an upload) are
// the only writes into an existing tensor's storage. They write through: every tensor sharing the storage (Reshape,
// Clone, ExpandDims, Squeeze) sees the new values. They are ordered as
// calls are: ops and readbacks called before see the old values, those
// called after the new ones, fused ops still pending included. Each
// storage counts its in-place writes (Tensor.Version), so that a tape
// that saved a tensor can tell it was overwritten since.
//
// # Transfers
//
// FromFloat32s and its kin upload the caller's slice without converting
// it; uploads of 1 MiB or more go through pooled staging buffers. Float32s
// and its kin copy from the mapped staging buffer straight into the result,
// and ReadInto reads into a slice the caller reuses. Engine.WriteBytes and
// Tensor.ReadBytes move a byte range of a tensor, so that a file streams
// in or out a chunk at a time (package checkpoint). Text reads a tensor
// back and prints it as NumPy does, reading only the elements it shows of
// a large one; String prints the header without reading.
//
// # Bounded submissions
//
// Every op estimates the work of its dispatches; one larger than the
// device's work budget (wgpu.Device.WorkBudget: about 50 ms on a CPU
// adapter, far more on a GPU) is split into several over ranges of
// its elements, rows, tiles or inner dimension, and the device submits its
// batch before the budget is passed, so that no submission runs long
// enough to break a CPU adapter. Results do not depend on the split.
// Reductions and softmax over rows longer than 65,536 elements reduce
// segments of each row first, on every device.
//
// # Memory
//
// Every tensor owns (or shares, for Reshape and Clone) a buffer from the
// device's pool, recorded with the call stack that created it (a Site: a
// few program counters, symbolised when reported); Dispose returns it.
// Engine.LiveTensors lists what is live and where it came from: the first
// line outside wgtensor, so a library helper's tensor is reported at the
// user's call, and the chain of calls that led there. Summary, Snapshot
// and WriteProfile (a pprof profile) report the same.
// Intermediate tensors an op needs internally are disposed by the op.
//
// RecordMemoryHistory records the film rather than the photograph: the
// device's memory history (wgpu.Device.RecordHistory), in which every
// storage is described by its dtype, shape, the labels it was made under
// (Engine.Label) and a Category: parameter, buffer, optimizer state,
// gradient (filed so by the packages above: nn, optim, grad), user data,
// activation, or saved for backward (held only by a tape). Optimizer
// steps and frames mark it. WriteMemoryHistory writes it for the memview
// package's one-file viewer.
//
// # Pooling, one-hot, cumulative sums, top-k, layer norm
//
// MaxPool2D and AvgPool2D pool NHWC float32 tensors through a window
// (Pool2DOptions: window, stride, padding as Window2D resolves it;
// padded positions are left out of a window, and a geometry where a
// window would hold none is an error). MaxPool2DGrad and AvgPool2DGrad
// are their gradients, gathered per input element in a fixed order (or,
// where windows do not overlap, written a window at a time), so they are
// the same from run to run. OneHot, Cumsum (any axis, exclusive,
// reverse; an axis of any length in a few segmented passes) and TopK
// (the last axis, sorted descending, ties by position) follow
// TensorFlow. LayerNorm normalises over the last axis in one kernel.
// Package grad differentiates all but OneHot.
//
// # Attention and masks
//
// ScaledDotProductAttention is PyTorch's scaled_dot_product_attention:
// softmax(q·kᵀ·scale + mask)·v per head, with a causal flag, an additive
// or boolean mask, key padding and dropout on the weights
// (AttentionOptions). Heads up to kernels.AttentionFits take one fused
// kernel (FlashAttention's online softmax, no [Tq, Tk] matrix) and two
// for the gradient (ScaledDotProductAttentionGrad), sequences of any
// length in as many dispatches as the loop and work budgets ask; wider
// heads are composed of MatMulT, Softmax and MatMul. A query row with
// every key masked gives 0 and zero gradients. With AttentionOptions.Heads
// the operands are read in the projections' layout, [B, T, H·D] with the
// heads side by side, and the result is written with the heads merged,
// so multi-head attention needs no transpose before or after;
// ScaledDotProductAttentionPacked reads q, k and v from one [B, T, 3·H·D]
// projection and its gradient writes one [B, T, 3·H·D] tensor. Tril, Triu
// and MaskedFill are elementwise ops that fuse with their neighbours.
// Package grad differentiates them all.
//
// # Profiling
//
// Engine.Profile runs a function and reports each kernel it dispatched
// (calls, time, bytes bound read-only and read-write) and the memory it
// took, like tf.profile and torch.profiler; KernelProfile.WriteTable prints
// it by time and WriteTrace writes a Chrome trace-event file for Perfetto.
// Fusion stays on: a fused program is reported as one kernel named by its
// ops ("mul+add+relu").
//
// # Limits
//
// Kernels index elements with 32-bit words, so shapes are bounded: a
// tensor has at most MaxRank dimensions, none negative, and the product of
// its nonzero dimensions (its size, or for an empty tensor what its
// strides multiply out to) is at most MaxElements, 2^31-1. Every
// constructor and op checks the shape it would create, with overflow-safe
// arithmetic, and returns a tensor carrying ErrShape, naming the op and the
// limit, for one past these bounds; no size or stride is ever truncated.
// An op's host-side work is bounded by its inputs and its output, never by
// a dimension alone: Split with one size makes at most x.Size() pieces, or
// 65536 when x has fewer elements (an empty x, say), and Range refuses a
// count past MaxElements.
//
// Ops add limits of their own, each refused with ErrShape and an error
// that names it: MatMul's inner dimension K is at most
// kernels.MaxMatMulK, 1,048,560 (2^20-16); a reduction reduces at most,
// and Softmax and LogSoftmax take rows of at most, kernels.MaxRowLength,
// 67,107,840 elements per output; SoftmaxCrossEntropy (and its Grad) takes rows of at
// most kernels.MaxXentClasses, 65,535 classes. Every K and row length up to these is
// computed exactly as a shorter one: long sums are cut into pieces (the
// Mesa drivers stop a loop silently after 65,535 trips, see
// kernels.MatMulKRange).
// Devices add their own limits (buffer and binding sizes, workgroups per
// dimension), reported with wgpu.ErrLimit or wgpu.ErrOutOfMemory.
//
// # Errors
//
// Ops never panic on user input. A bad op (shape mismatch, bad axis, wrong
// dtype, disposed input, out of memory) returns a tensor whose Err reports
// an *OpError naming the op and the input shapes; ops on that tensor return
// the same error, and its readbacks reject with it. Test with errors.Is
// against ErrShape, ErrDType, ErrAxis, ErrArgument, ErrDisposed,
// ErrConcurrentUse or the device's errors (wgpu.ErrOutOfMemory, ...).
//
// A nil or zero Tensor (which no op made) given to an op, and every op of
// a nil or zero Engine, give ErrArgument; so do Err and the readbacks of a
// nil or zero Tensor, whose other methods answer with zero values. A panic
// inside an op (from a tidy.Tracker, say) never leaves its Engine claimed.
//
// # Recording ops
//
// A Recorder pushed on an Engine (PushRecorder) is told about each op the
// Engine completes: its name, inputs, outputs and attributes (OpRecord),
// after the op has released the Engine and before it returns; it may keep
// inputs and outputs without a copy (OpRecord.Save). Package grad's tapes
// are recorders; tensor knows nothing of them. While no recorder is
// pushed, an op records nothing and allocates nothing for it.
//
// # Concurrency
//
// An Engine belongs to one goroutine at a time; concurrent ops on one
// Engine are detected and fail with ErrConcurrentUse. While a tidy scope
// (a tracker) is open on an Engine, the Engine belongs to the goroutine
// inside it until the outermost scope ends: ops and scopes from any other
// goroutine fail with ErrConcurrentUse, even while the owner awaits a
// readback. Create one Engine per goroutine: Engines are cheap, and many
// share one Device safely.
//
// Dispose and readbacks are safe from any goroutine, also while another
// goroutine's op reads the tensor: an op or a readback holds its inputs'
// storage from its checks until its work is recorded, so it sees their
// values, or fails with ErrDisposed if they were disposed before it
// checked them, and never sees another tensor's data.
//
// # Numerics
//
// Float32 arithmetic (Add, Sub, Mul, Div, Square, Sqrt) is IEEE 754
// single precision, correctly rounded, subnormals included. The other ops
// follow NumPy and PyTorch at the edges, identically on every backend,
// fused or not:
//
//   - NaN propagates through every float op and reduction: Maximum,
//     Minimum, Relu, Clip, Sign, Tanh, Sigmoid, LeakyRelu, Max, Min,
//     Softmax and LogSoftmax of a NaN are NaN; ArgMax and ArgMin return
//     the index of the first NaN. A comparison with NaN is false, except
//     NotEqual, which is true.
//   - Maximum and Minimum are IEEE 754-2019 maximum and minimum (as
//     JavaScript's Math.max): -0 < +0, so Relu(-0) is +0. Max, Min,
//     ArgMax and ArgMin keep the first of equal values, -0 and +0 included.
//     Clip(x, lo, hi) is Minimum(Maximum(x, lo), hi).
//   - Sign is -1, +0 or 1 (NaN for NaN); Abs and Neg only touch the sign
//     bit. Neg and Abs of math.MinInt32 wrap to math.MinInt32; Neg of a
//     uint32 wraps.
//   - Cast from float32 to an integer type truncates toward zero, then
//     saturates to the type's range; NaN gives 0. Int32 and uint32
//     reinterpret each other's bits (-1 is 4294967295), as Go and NumPy
//     convert. Integers to float32 round to nearest, halves to even. Fill
//     converts its value as Cast does; integer Range needs integer
//     parameters whose elements fit the dtype.
//   - Integer Div floors (NumPy's //, PyTorch's floor_divide, tfjs's
//     floorDiv) and Mod takes the divisor's sign, so Div(a, b)*b +
//     Mod(a, b) == a; math.MinInt32 / -1 wraps to math.MinInt32, with Mod
//     0. Float Mod is NumPy's: exact fmod, plus the divisor when the signs
//     differ, a zero with the divisor's sign; Mod(x, ±Inf) is x when the
//     signs agree and ±Inf when they differ.
//   - Division by zero: float32 Div gives ±Inf, or NaN for 0/0, and Mod
//     gives NaN; int32 and uint32 Div and Mod by zero give 0 (as NumPy,
//     without its warning). Nothing traps or hangs.
//   - Pow follows C's pow (C99 Annex F.9.4.4) for every special case:
//     Pow(x, ±0) and Pow(1, y) are 1 even for NaN, Pow(±0, y<0) is ±Inf,
//     a negative base with a non-integer exponent is NaN.
//   - MaxPool2D of a window holding a NaN is NaN, and MaxPool2DGrad sends
//     that window's gradient to its first NaN; otherwise the first of
//     equal maxima (-0 and +0 included) in row-major window order gets it.
//     TopK counts NaN as larger than +Inf (as tf and torch do), NaNs and
//     equal values in the order of their positions. Cumsum propagates
//     NaN and infinities from where they appear along the scan.
//
// Devices differ from IEEE 754 where WGSL lets them (wgpu.Float32Behavior,
// which Open measures): an NVIDIA GPU through Vulkan divides and takes
// square roots to within 2.5 ulp and flushes subnormals. Elementwise ops
// correct the first: Div, Sqrt and the library's own quotients are
// correctly rounded everywhere (a subnormal quotient, on a device that
// divides inexactly yet keeps subnormals, within one unit of the smallest
// subnormal). On a device that flushes subnormals, an arithmetic
// elementwise op reads a subnormal operand as a zero of its sign and gives
// a zero of its sign where its IEEE result is subnormal, also where it
// reads bits; the ops that only move, select or compare (Neg, Abs, Sign,
// Relu, Clip, Maximum, Minimum, Where, Cast, the comparisons, Max, Min,
// ArgMax, ArgMin, TopK, MaxPool2D, copies and gathers) keep every bit and
// order subnormals apart from zero on every device. Other kernels (MatMul,
// Conv2D, sums, Softmax, LayerNorm, the losses) use the device's own
// arithmetic. wgpu.Options.Float32 (or WGT_FLOAT32=flush,div,sqrt) makes
// any device compute elementwise ops as one with those departures does,
// bit for bit.
//
// Precision: Exp and Log within 2 ulp; Tanh, Sigmoid, Sin, Cos and Pow
// within 4, subnormal arguments and results included, Sin and Cos for
// every finite argument (their reduction by pi/2 is exact). Sqrt is exact
// and Rsqrt, 1/Sqrt, within 1 ulp. Gelu is the tanh approximation,
// computed as written (so Gelu(-Inf) is NaN).
//
// Erf within 2 ulp, Erfc within 4, and GeluErf, the exact GELU
// x·Φ(x) = x/2·Erfc(-x/√2), within 8 (measured: 1, 3, and 4 where the
// result is far from the subnormals), over every binade, subnormals
// included; GeluErf(-Inf) is its limit -0.
//
// Copy copies: its result has storage of its own, which later writes into
// the original (Assign) do not reach; Clone, Reshape and the other views
// share storage and see every write.
//
// Pool2DOptions takes PyTorch's pooling options besides TensorFlow's
// padding: Dilation (max pooling), CeilMode (the output's size rounded
// up, the last window starting inside the input or its leading padding)
// and CountIncludePad (an average divides by the positions inside the
// padded input). Their zero values keep the behaviour the library had
// before: no dilation, sizes rounded down, and padding left out of an
// average (TensorFlow's rule, where PyTorch's count_include_pad defaults
// to true).
package tensor
