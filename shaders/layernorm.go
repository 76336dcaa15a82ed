package shaders

import "github.com/wgtensor/wgtensor/wgpu"

// LayerNorm normalises the rows of a float32 tensor viewed as [rows,
// Length], one thread per row: y = (x − mean)·rsqrt(var + Eps)·gamma +
// beta, with gamma and beta of Length elements and the variance the
// biased one (the mean of squared deviations), taken in a second pass
// over the row for accuracy. A third pass writes the row. Each pass takes
// RowUnroll elements per trip, in order, so that a row of MaxLoopTrips
// elements costs its thread Trips(MaxLoopTrips), well within the trips
// gallivm allows an invocation (see LoopTrips).
//
// Its source is layernorm.wgsl; its parameters are LayerNormParams.
type LayerNorm struct{}

// LayerNormParams is the LayerNorm kernel's parameter block: the row
// length and epsilon.
type LayerNormParams struct {
	Range
	Length uint32
	Eps    float32
}

// Bytes encodes p.
func (p *LayerNormParams) Bytes() []byte { return encodeParams(p) }

// Key identifies LayerNorm's pipeline.
func (LayerNorm) Key() string { return "layer_norm" }

// Spec generates LayerNorm's kernel.
func (k LayerNorm) Spec() wgpu.KernelSpec {
	p := &LayerNormParams{}
	src := fill("layernorm.wgsl", map[string]any{"Params": declareParams(p), "WorkgroupSize": LayerNormWorkgroup, "Unroll": RowUnroll})
	return wgpu.KernelSpec{Name: "layer_norm", Key: k.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
}

// LayerNormWorkgroup is the LayerNorm kernel's workgroup size: rows are
// fewer than elements, so smaller groups spread them over more cores.
const LayerNormWorkgroup = 64

// RowWork is the work of one row of length elements: three passes.
func (LayerNorm) RowWork(length int) float64 { return 8 + 12*float64(length) }

// Trips is the loop trips a thread spends on a row of length elements:
// three passes.
func (LayerNorm) Trips(length int) int { return 3 * LoopTrips(length, RowUnroll) }
