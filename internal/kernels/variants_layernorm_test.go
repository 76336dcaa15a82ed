package kernels

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
	for _, k := range []LayerNorm{{Grad: true}, {Grad: true, Sums: true}, {Grad: true, Columns: true}, {Grad: true, Columns: true, Vec4: true}} {
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
// and ColumnTrips assume; Sums's bound is what LayerNormGrad checks.
func TestLayerNormGradFitsTheLoopBudget(t *testing.T) {
	k := LayerNorm{Grad: true}
	assert.LessOrEqual(t, k.Trips(MaxLoopTrips), MaxLoopTrips)
	// Four passes, a column loop and its sum over a slice's 63 rows (the
	// most trips: 7 unrolled and 7 single), and the sum's two loops on the
	// column loop's exiting trip.
	cols := (MaxLoopTrips + LayerNormWorkgroup - 1) / LayerNormWorkgroup
	assert.Equal(t, 4*LoopTrips(MaxLoopTrips, RowUnroll)+cols+1+cols*LoopTrips(LayerNormWorkgroup-1, RowUnroll)+2, k.Trips(MaxLoopTrips))
	src := k.Spec().Source
	assert.Equal(t, 4, strings.Count(src, fmt.Sprintf("j += %du", RowUnroll)), "four passes over a row")
	assert.Equal(t, 1, strings.Count(src, fmt.Sprintf("q += %du", RowUnroll)), "the column's sum")
	assert.Equal(t, 1, strings.Count(src, "workgroupBarrier()"))
	s := LayerNorm{Grad: true, Sums: true}
	assert.Equal(t, LoopTrips(100, RowUnroll), s.Trips(100))
	assert.Contains(t, s.Spec().Source, fmt.Sprintf("j += %du", RowUnroll))
	// Grad with Columns: four passes for a slice's thread (quads with
	// Vec4), and a column workgroup's loops, all in its first thread's
	// count.
	for _, vec4 := range []bool{false, true} {
		c := LayerNorm{Grad: true, Columns: true, Vec4: vec4}
		src := c.Spec().Source
		step, rows := fmt.Sprintf("j += %du", RowUnroll), func(n int) int { return LoopTrips(n, RowUnroll) }
		if vec4 {
			step, rows = fmt.Sprintf("j += %du", layerNormQuads), func(n int) int { return LoopTrips(n/4, layerNormQuads) }
		}
		assert.Equal(t, 6, strings.Count(src, step), "four passes over a row, two for a column workgroup's statistics")
		assert.Equal(t, 1, strings.Count(src, fmt.Sprintf("q += %du", layerNormColumnUnroll)), "a column's sum over a slice")
		assert.Equal(t, 1, strings.Count(src, "workgroupBarrier()"))
		assert.Equal(t, 1, strings.Count(src, "for (var slice = 0u;"), "the slice loop")
		assert.Equal(t, 2, strings.Count(src, fmt.Sprintf("c += %du", LayerNormWorkgroup)), "the zeroing and the column loop")
		assert.Equal(t, 4*rows(1024)+9, c.Trips(1024))
		assert.Equal(t, 4*2+9, strings.Count(src, "for ("), "four passes of two loops, and the column workgroups' nine loops")
		assert.Less(t, c.Trips(MaxLoopTrips), k.Trips(MaxLoopTrips), "LayerNormGrad's check of the rows covers it")
		for _, s := range []struct{ n, rows, block int }{{128, 2048, 128}, {1024, 16384, 1024}, {8, 100, 8}, {1500, 63, 752}} {
			cols := (s.block + LayerNormWorkgroup - 1) / LayerNormWorkgroup
			if vec4 {
				cols = (s.block/4 + LayerNormWorkgroup - 1) / LayerNormWorkgroup
			}
			// A slice's trip, two passes, the columns, each column's two
			// loops over rows, and those loops' trips on the column
			// loop's exiting trip.
			slice := func(count int) int {
				return 1 + 2*rows(s.n) + cols + 1 + cols*LoopTrips(count, layerNormColumnUnroll) + 2
			}
			// Zeroing, the slice loop's exiting trip and the seven loops
			// of its body then.
			want := cols + 1 + 1 + 7
			for r := 0; r < s.rows; r += LayerNormWorkgroup {
				want += slice(min(LayerNormWorkgroup, s.rows-r))
			}
			assert.Equal(t, want, c.ColumnTrips(s.n, s.rows, s.block), "%v, vec4 %v", s, vec4)
		}
		// The rows a column workgroup takes within the budget, as
		// LayerNormBlock's doc says.
		most := func(n int) int {
			r := 0
			for c.ColumnTrips(n, r+LayerNormWorkgroup, min(n, LayerNormBlock)) <= MaxLoopTrips {
				r += LayerNormWorkgroup
			}
			return r
		}
		if vec4 {
			assert.InDelta(t, 41800, most(1024), 200)
		} else {
			assert.InDelta(t, 10700, most(1023), 200)
		}
	}
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
