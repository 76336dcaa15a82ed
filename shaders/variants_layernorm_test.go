package shaders

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// layerNormVariants lists the variants of LayerNorm's backward kernels
// and of SoftmaxXent's gradient of a mean and weighted kernels (the
// forward LayerNorm and the other SoftmaxXent kernels are listed beside
// the pooling and row kernels).
func layerNormVariants() []variant {
	var vs []variant
	for _, k := range []LayerNorm{{Grad: true}, {Grad: true, Sums: true}} {
		vs = append(vs, variant{Name: k.Key(), Kernel: k, Spec: k.Spec(), ParamsLen: len((&LayerNormGradParams{}).Bytes())})
	}
	for _, dense := range []bool{false, true} {
		for _, k := range []SoftmaxXent{{Dense: dense, Grad: true, Mean: true}, {Dense: dense, Weighted: true}, {Dense: dense, Grad: true, Weighted: true}} {
			vs = append(vs, variant{Name: k.name() + flag(dense, "_dense"), Kernel: k, Spec: k.Spec(), ParamsLen: len((&RowParams{}).Bytes())})
		}
	}
	return vs
}

// LayerNorm's backward stays within the loop budget for every row the
// forward takes, and its source takes as many elements per trip as Trips
// assumes; Sums's bound is what LayerNormGrad checks.
func TestLayerNormGradFitsTheLoopBudget(t *testing.T) {
	k := LayerNorm{Grad: true}
	assert.LessOrEqual(t, k.Trips(MaxLoopTrips), MaxLoopTrips)
	// Four passes, a column loop and its sum over a slice's 63 rows (the
	// most trips: 7 unrolled and 7 single).
	cols := (MaxLoopTrips + LayerNormWorkgroup - 1) / LayerNormWorkgroup
	assert.Equal(t, 4*LoopTrips(MaxLoopTrips, RowUnroll)+cols+1+cols*LoopTrips(LayerNormWorkgroup-1, RowUnroll), k.Trips(MaxLoopTrips))
	src := k.Spec().Source
	assert.Equal(t, 4, strings.Count(src, fmt.Sprintf("j += %du", RowUnroll)), "four passes over a row")
	assert.Equal(t, 1, strings.Count(src, fmt.Sprintf("q += %du", RowUnroll)), "the column's sum")
	assert.Equal(t, 1, strings.Count(src, "workgroupBarrier()"))
	s := LayerNorm{Grad: true, Sums: true}
	assert.Equal(t, LoopTrips(100, RowUnroll), s.Trips(100))
	assert.Contains(t, s.Spec().Source, fmt.Sprintf("j += %du", RowUnroll))
	m := SoftmaxXent{Grad: true, Mean: true}
	assert.Contains(t, m.Spec().Source, "let gr = dy[0] * p.scale;")
	assert.Contains(t, SoftmaxXent{Grad: true}.Spec().Source, "let gr = dy[row];")
	assert.Equal(t, SoftmaxXent{Grad: true}.Trips(100), m.Trips(100))
	for _, dense := range []bool{false, true} {
		w := SoftmaxXent{Dense: dense, Grad: true, Weighted: true}
		assert.Contains(t, w.Spec().Source, "let gr = dy[0] * w[row];")
		assert.Len(t, w.Spec().Bindings, 5)
		assert.Contains(t, w.Spec().Source, "@group(0) @binding(5) var<uniform> p: Params;")
		f := SoftmaxXent{Dense: dense, Weighted: true}
		assert.Contains(t, f.Spec().Source, "dst[row] = loss * w[row];")
		assert.Contains(t, f.Spec().Source, "@group(0) @binding(4) var<uniform> p: Params;")
		assert.Equal(t, w.Key(), SoftmaxXent{Dense: dense, Grad: true, Weighted: true, Mean: true}.Key(), "Mean does not apply with Weighted")
	}
}
