package kernels

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Issue 19, item 1: gallivm's loop budget is one per invocation, shared by
// all its loops, each loop's exiting trip included (see LoopTrips).
func TestLoopTripsCountsEachLoopsExit(t *testing.T) {
	for _, c := range []struct{ n, unroll, want int }{
		{0, 1, 1}, {5, 1, 6}, {0, 8, 2}, {7, 8, 9}, {8, 8, 3}, {17, 8, 5},
		{MaxLoopTrips, RowUnroll, 8191 + 1 + 7 + 1}, {MaxLoopTrips, PoolUnroll, 16383 + 1 + 3 + 1},
	} {
		assert.Equal(t, c.want, LoopTrips(c.n, c.unroll), "%+v", c)
	}
	// One element per trip, three passes ran out at rows of 21,845 and a
	// window and a cell of 32,768 each: the failures the issue reported.
	assert.Greater(t, 3*LoopTrips(21845, 1), MaxLoopTrips)
	assert.Greater(t, 2*LoopTrips(32768, 1), MaxLoopTrips)
}

// Every row and window kernel's thread stays within the budget at its
// family's documented limit, and its source takes as many elements per
// trip as Trips assumes.
func TestRowAndPoolKernelsFitTheLoopBudget(t *testing.T) {
	assert.LessOrEqual(t, LayerNorm{}.Trips(MaxLoopTrips), MaxLoopTrips)
	assert.Contains(t, LayerNorm{}.Spec().Source, fmt.Sprintf("j += %du", RowUnroll))
	for _, dense := range []bool{false, true} {
		for _, grad := range []bool{false, true} {
			k := SoftmaxXent{Dense: dense, Grad: grad}
			assert.LessOrEqual(t, k.Trips(MaxXentClasses), MaxLoopTrips, "%+v", k)
			assert.Contains(t, k.Spec().Source, fmt.Sprintf("j += %du", RowUnroll), "%+v", k)
		}
	}
	assert.Equal(t, 4*LoopTrips(100, RowUnroll), SoftmaxXent{Dense: true, Grad: true}.Trips(100))
	step := fmt.Sprintf("k += %du", PoolUnroll)
	for _, k := range []Pool2D{{}, {Max: true}, {Max: true, Arg: true}, {Vec4: true}, {Max: true, Vec4: true}} {
		assert.LessOrEqual(t, k.Trips(MaxLoopTrips), MaxLoopTrips, "%+v", k)
		assert.Contains(t, k.Spec().Source, step, "%+v", k)
	}
	for _, max := range []bool{false, true} {
		for _, k := range []Pool2DGrad{{Max: max}, {Max: max, Scatter: true}, {Max: max, Scatter: true, Vec4: true}} {
			assert.LessOrEqual(t, k.Trips(MaxLoopTrips, MaxLoopTrips), MaxLoopTrips, "%+v", k)
			src := k.Spec().Source
			// The window (Max with Scatter) and the cell, or the windows.
			loops := 1
			if k.Max && k.Scatter {
				loops = 2
			}
			assert.Equal(t, loops, strings.Count(src, step), "%+v", k)
		}
	}
}
