package kernels

import "github.com/wgtensor/wgtensor/wgpu"

// OneHot expands int32 indices into float32 rows of Depth values, one
// thread per output element: On where the element's position in its row
// is the index, Off elsewhere, so an index outside [0, Depth), negative
// included, gives a row of Off (as in TensorFlow).
//
// Its source is onehot.wgsl; its parameters are OneHotParams.
type OneHot struct{}

// OneHotParams is the OneHot kernel's parameter block: the row length and
// the two values.
type OneHotParams struct {
	Range
	Depth   uint32
	On, Off float32
}

// Bytes encodes p.
func (p *OneHotParams) Bytes() []byte { return encodeParams(p) }

// Key identifies OneHot's pipeline.
func (OneHot) Key() string { return "one_hot" }

// Spec generates OneHot's kernel.
func (k OneHot) Spec() wgpu.KernelSpec {
	p := &OneHotParams{}
	src := fill("onehot.wgsl", map[string]any{"Params": declareParams(p), "WorkgroupSize": WorkgroupSize})
	return wgpu.KernelSpec{Name: "one_hot", Key: k.Key(), Source: src,
		Bindings: []wgpu.Access{wgpu.ReadOnly, wgpu.ReadWrite}, Params: true, ParamsSize: paramsSizeOf(p)}
}

// ThreadWork is the work of one thread of OneHot.
func (OneHot) ThreadWork() float64 { return 12 }
