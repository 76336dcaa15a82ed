package kernels

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
// the slices' partial sums of each column in order, a thread per column.
//
// Grad with Columns is the backward in one dispatch for any number of
// slices (layernorm_grad.wgsl too). Its first workgroups each own a block
// of LayerNormGradParams.Block columns (at most LayerNormBlock), the rest
// a slice each, whose threads write dx as above and sum no columns. A
// column workgroup goes through every slice in order: its threads take a
// row each and recompute the row's mean and rstd by the forward's passes,
// then, after a barrier, a column each (or several), summing the slice's
// rows in order and adding the sum to the column's total, which starts at
// 0 and lives in dgamma and dbeta. Two slices' means and rstds live in
// workgroup memory, so that one barrier a slice suffices, and no
// workgroup waits on another. The sums are those of Grad and Sums in the
// same order, so dgamma and dbeta are bit for bit theirs. The price is
// the column workgroups' passes over every row for its statistics: a
// block's workgroup reads x twice, then x and dy once more (ColumnWork),
// alone on one core of a CPU adapter beside the slices' workgroups.
//
// With Vec4 too (layernorm_vec4.wgsl, rows of a multiple of 4 elements),
// every buffer is read and written as vec4s: a thread's passes over a row
// take a quad of elements a load, a column workgroup's threads a quad of
// columns each, and each quad's elements are summed in order, so the
// results are bit for bit the scalar kernels' too. On lavapipe, where a
// load from a storage buffer costs about the same whatever its width, it
// took 0.8 to 1.0 of the time of Grad and Sums together over 1024 and
// 2048 rows of 128, 0.55 to 0.75 over 256 and 1024 rows of 1,024; Grad
// with Columns alone (scalar) took 1.3 to 1.5 times theirs over 1024 rows
// of 127, its column workgroup a float a load (a loaded 2-core machine).
//
// Bindings: x, gamma, dy, then dx and the partial dgamma and dbeta
// (Grad; with Columns, dgamma and dbeta themselves); the partial dgamma
// and dbeta, then dgamma and dbeta (Sums).
type LayerNorm struct {
	Grad    bool // the backward pass: dx and the slices' dgamma and dbeta
	Sums    bool // with Grad: the sum of the slices' dgamma and dbeta
	Columns bool // with Grad: dx, and dgamma and dbeta by column workgroups, in one dispatch
	Vec4    bool // with Columns: every buffer read and written as vec4s (rows of a multiple of 4)
	// Storage is how x, gamma and beta lie in memory, for the forward: with
	// a half-width one they are unpacked as Elementwise unpacks them, and
	// y is float32 all the same. Not with Grad.
	Storage Storage
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
// kernels (Grad, Grad with Sums, Grad with Columns): the row length, the
// rows of x and the slices they make (LayerNormWorkgroup rows each),
// epsilon, and with Columns the columns of each column workgroup's block.
// Its Range runs slices (Grad), columns (Sums), or the column workgroups,
// ⌈Length/Block⌉ of them, then the slices (Columns).
type LayerNormGradParams struct {
	Range
	Length, Rows, Slices uint32
	Eps                  float32
	Block                uint32
}

// Bytes encodes p.
func (p *LayerNormGradParams) Bytes() []byte { return encodeParams(p) }

// Key identifies the pipeline of k.
func (k LayerNorm) Key() string {
	switch {
	case k.Sums:
		return "layer_norm_grad_sums"
	case k.Columns && k.Vec4:
		return "layer_norm_grad_columns_vec4"
	case k.Columns:
		return "layer_norm_grad_columns"
	case k.Grad:
		return "layer_norm_grad"
	case k.Storage != Word:
		return "layer_norm/" + k.Storage.String()
	}
	return "layer_norm"
}

// Spec generates k's kernel.
func (k LayerNorm) Spec() wgpu.KernelSpec {
	if !k.Grad {
		p := &LayerNormParams{}
		data := map[string]any{"Params": declareParams(p), "WorkgroupSize": LayerNormWorkgroup, "Unroll": RowUnroll,
			"Elem": "f32", "X": "x[base + k]", "G": "gamma[k]", "B": "beta[k]"}
		if k.Storage != Word {
			data["Elem"], data["Unpack"], data["Lib"] = "u32", k.Storage.unpack(), Half+halfHelpers
			data["X"], data["G"], data["B"] = "lx(base + k)", "lg(k)", "lbeta(k)"
		}
		src := fill("layernorm.wgsl", data)
		return wgpu.KernelSpec{Name: "layer_norm", Key: k.Key(), Source: src,
			Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
	}
	p := &LayerNormGradParams{}
	data := map[string]any{"Params": declareParams(p), "WorkgroupSize": LayerNormWorkgroup, "Unroll": RowUnroll,
		"Columns": k.Columns, "Stats": 2 * LayerNormWorkgroup, "ColumnUnroll": layerNormColumnUnroll, "Quads": layerNormQuads,
		"Zero": "0.0", "X": "x[base + k]"}
	if k.Vec4 {
		data["Zero"] = "vec4<f32>(0.0)"
	}
	if k.Sums {
		return wgpu.KernelSpec{Name: "layer_norm_grad_sums", Key: k.Key(), Source: fill("layernorm_sums.wgsl", data),
			Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
	}
	file := "layernorm_grad.wgsl"
	if k.Columns && k.Vec4 {
		file = "layernorm_vec4.wgsl"
	}
	return wgpu.KernelSpec{Name: k.Key(), Key: k.Key(), Source: fill(file, data),
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadOnly, wgpu.ReadWrite, wgpu.ReadWrite, wgpu.ReadWrite},
		Params:   true, ParamsSize: paramsSizeOf(p)}
}

// LayerNormWorkgroup is the LayerNorm kernel's workgroup size: rows are
// fewer than elements, so smaller groups spread them over more cores. It
// is also the rows of a slice of the backward pass (Grad).
const LayerNormWorkgroup = 64

// LayerNormBlock is the most columns a column workgroup of the one-dispatch
// backward (Grad with Columns) sums: 16 a thread, or 4 quads with Vec4.
// Every column workgroup reads all of x for the rows' statistics, so the
// fewer the better; 16 columns a thread keep a column workgroup over
// 10,700 rows of 1,023 within the loop budget (41,800 of 1,024 with
// Vec4; see ColumnTrips).
const LayerNormBlock = 16 * LayerNormWorkgroup

// The loop unrolling of Grad with Columns: with Vec4 its passes over a
// row take layerNormQuads quads a trip, then one (without, RowUnroll
// elements, then one); its columns' sums over a slice take
// layerNormColumnUnroll rows a trip, then one.
const (
	layerNormQuads        = 8
	layerNormColumnUnroll = 16
)

// RowWork is the work of one row of length elements: three passes (the
// forward). With Grad it is the work of a slice of LayerNormWorkgroup
// rows: four passes over each row and the column sums (with Columns, the
// four passes alone, a quad a load with Vec4); with Sums, of one column
// over length slices.
func (k LayerNorm) RowWork(length int) float64 {
	switch {
	case k.Sums:
		return 8 + 4*float64(length)
	case k.Columns && k.Vec4:
		return LayerNormWorkgroup * (8 + 12*float64(length))
	case k.Columns:
		return LayerNormWorkgroup * (8 + 20*float64(length))
	case k.Grad:
		return LayerNormWorkgroup * (8 + 24*float64(length))
	}
	return 8 + 12*float64(length)
}

// ColumnWork is the work of one column workgroup of Grad with Columns
// over rows of length elements and a block of block columns: two passes
// over each row and the block's sums, on one core of a CPU adapter (where
// a kernel's workgroups share its cores), so at about twice a parallel
// kernel's cost per load; a quad a load with Vec4. On lavapipe it ran in
// 0.7 to 0.8 of this on a loaded machine.
func (k LayerNorm) ColumnWork(length, rows, block int) float64 {
	if k.Vec4 {
		return float64(rows) * (16 + 4*float64(length) + 6*float64(block))
	}
	return float64(rows) * (16 + 8*float64(length) + 12*float64(block))
}

// Trips is the loop trips a thread of k spends on rows of length
// elements: three passes (the forward); with Grad, four passes and the
// columns it sums over a slice's rows (at most LayerNormWorkgroup of
// them, RowUnroll a trip), whose two loops take a trip each on the column
// loop's exiting trip (see ColumnTrips); with Columns, the four passes of
// a slice's thread, and a trip for each of the nine loops of the column
// workgroups' path, should gallivm run it with no thread active (see
// ColumnTrips for a column workgroup's trips); with Sums, the trips of a
// thread summing a column over length slices.
func (k LayerNorm) Trips(length int) int {
	switch {
	case k.Sums:
		return LoopTrips(length, RowUnroll)
	case k.Columns:
		return 4*k.rowTrips(length) + 9
	case k.Grad:
		inner := 0 // the most trips a column takes, over a slice of any size
		for rows := 0; rows <= LayerNormWorkgroup; rows++ {
			inner = max(inner, LoopTrips(rows, RowUnroll))
		}
		cols := (length + LayerNormWorkgroup - 1) / LayerNormWorkgroup
		return 4*LoopTrips(length, RowUnroll) + cols + 1 + cols*inner + 2
	}
	return 3 * LoopTrips(length, RowUnroll)
}

// rowTrips is the trips of one pass over a row of length elements in
// Grad with Columns: RowUnroll elements a trip, or with Vec4
// layerNormQuads quads.
func (k LayerNorm) rowTrips(length int) int {
	if k.Vec4 {
		return LoopTrips(length/4, layerNormQuads)
	}
	return LoopTrips(length, RowUnroll)
}

// ColumnTrips is the loop trips of a column workgroup's first thread (the
// one with the most columns, and a row in every slice) in Grad with
// Columns, over rows of length elements and a block of block columns
// (both a multiple of 4 with Vec4, whose threads take a quad of columns
// at once): its columns' zeroing, the slices, and in each slice the two
// passes over its row and its columns' sums over the slice's rows. gallivm
// runs a loop's body once more on the loop's exiting trip, with no thread
// active, and each loop in it then takes a trip: the column loop's two
// loops over rows, once a slice (measured: the Vec4 kernel over rows of 4
// takes 17 trips a slice, and its sums stop short from 3,856 slices), and
// the slice loop's seven (counted here, though no sum needs them).
func (k LayerNorm) ColumnTrips(length, rows, block int) int {
	if k.Vec4 {
		block /= 4
	}
	cols := (block + LayerNormWorkgroup - 1) / LayerNormWorkgroup
	slice := func(count int) int {
		return 1 + 2*k.rowTrips(length) + cols + 1 + cols*LoopTrips(count, layerNormColumnUnroll) + 2
	}
	full, rest := rows/LayerNormWorkgroup, rows%LayerNormWorkgroup
	trips := cols + 1 + full*slice(LayerNormWorkgroup) + 1 + 7
	if rest > 0 {
		trips += slice(rest)
	}
	return trips
}
