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
//
// With Grad it is the backward pass instead (layernorm_grad.wgsl, its
// parameters LayerNormGradParams): a workgroup of LayerNormWorkgroup
// threads per slice of as many rows. Each thread takes a row of x and dy
// and recomputes the forward's mean and rstd by the forward's own two
// passes (so x̂ = (x − mean)·rstd is bit for bit the forward's); a third
// pass sums g = dy·gamma and g·x̂, a fourth writes
//
//	dx = rstd·((g − mean(g)) − x̂·mean(g·x̂))
//
// Then, after one barrier, the workgroup's threads take the columns, each
// summing dy·x̂ and dy over the slice's rows in order: the slice's partial
// dgamma and dbeta, a row of the two partial outputs (Rows rows in all,
// ⌈Rows/LayerNormWorkgroup⌉ slices). With one slice they are dgamma and
// dbeta themselves; with several, Grad with Sums (layernorm_sums.wgsl) adds
// the slices' partial sums of each column in order, a thread per column:
// the backward is one dispatch for up to LayerNormWorkgroup rows, two
// beyond.
//
// Bindings: x, gamma, dy, then dx and the partial dgamma and dbeta
// (Grad); the partial dgamma and dbeta, then dgamma and dbeta (Sums).
type LayerNorm struct {
	Grad bool // the backward pass: dx and the slices' dgamma and dbeta
	Sums bool // with Grad: the sum of the slices' dgamma and dbeta
}

// LayerNormParams is the LayerNorm kernel's parameter block: the row
// length and epsilon.
type LayerNormParams struct {
	Range
	Length uint32
	Eps    float32
}

// Bytes encodes p.
func (p *LayerNormParams) Bytes() []byte { return encodeParams(p) }

// LayerNormGradParams is the parameter block of LayerNorm's backward
// kernels (Grad, and Grad with Sums): the row length, the rows of x and
// the slices they make (LayerNormWorkgroup rows each), and epsilon. Its
// Range runs slices (Grad) or columns (Sums).
type LayerNormGradParams struct {
	Range
	Length, Rows, Slices uint32
	Eps                  float32
}

// Bytes encodes p.
func (p *LayerNormGradParams) Bytes() []byte { return encodeParams(p) }

// Key identifies the pipeline of k.
func (k LayerNorm) Key() string {
	switch {
	case k.Sums:
		return "layer_norm_grad_sums"
	case k.Grad:
		return "layer_norm_grad"
	}
	return "layer_norm"
}

// Spec generates k's kernel.
func (k LayerNorm) Spec() wgpu.KernelSpec {
	if !k.Grad {
		p := &LayerNormParams{}
		src := fill("layernorm.wgsl", map[string]any{"Params": declareParams(p), "WorkgroupSize": LayerNormWorkgroup, "Unroll": RowUnroll})
		return wgpu.KernelSpec{Name: "layer_norm", Key: k.Key(), Source: src,
			Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
	}
	p := &LayerNormGradParams{}
	data := map[string]any{"Params": declareParams(p), "WorkgroupSize": LayerNormWorkgroup, "Unroll": RowUnroll}
	if k.Sums {
		return wgpu.KernelSpec{Name: "layer_norm_grad_sums", Key: k.Key(), Source: fill("layernorm_sums.wgsl", data),
			Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
	}
	return wgpu.KernelSpec{Name: "layer_norm_grad", Key: k.Key(), Source: fill("layernorm_grad.wgsl", data),
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite, wgpu.ReadWrite, wgpu.ReadWrite},
		Params:   true, ParamsSize: paramsSizeOf(p)}
}

// LayerNormWorkgroup is the LayerNorm kernel's workgroup size: rows are
// fewer than elements, so smaller groups spread them over more cores. It
// is also the rows of a slice of the backward pass (Grad).
const LayerNormWorkgroup = 64

// RowWork is the work of one row of length elements: three passes (the
// forward). With Grad it is the work of a slice of LayerNormWorkgroup
// rows: four passes over each row and the column sums; with Sums, of one
// column over length slices.
func (k LayerNorm) RowWork(length int) float64 {
	switch {
	case k.Sums:
		return 8 + 4*float64(length)
	case k.Grad:
		return LayerNormWorkgroup * (8 + 24*float64(length))
	}
	return 8 + 12*float64(length)
}

// Trips is the loop trips a thread of k spends on rows of length
// elements: three passes (the forward); with Grad, four passes and the
// columns it sums over a slice's rows (at most LayerNormWorkgroup of
// them, RowUnroll a trip); with Sums, the trips of a thread summing a
// column over length slices.
func (k LayerNorm) Trips(length int) int {
	switch {
	case k.Sums:
		return LoopTrips(length, RowUnroll)
	case k.Grad:
		inner := 0 // the most trips a column takes, over a slice of any size
		for rows := 0; rows <= LayerNormWorkgroup; rows++ {
			inner = max(inner, LoopTrips(rows, RowUnroll))
		}
		cols := (length + LayerNormWorkgroup - 1) / LayerNormWorkgroup
		return 4*LoopTrips(length, RowUnroll) + cols + 1 + cols*inner
	}
	return 3 * LoopTrips(length, RowUnroll)
}
