package optim_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// refClip is torch.nn.utils.clip_grad_norm_ in float64: the total norm of
// gs (2-norm, or the largest absolute value), and gs scaled in place by
// min(1, maxNorm/(total + 1e-6)) (NaN stays NaN through the clamp, as
// torch.clamp keeps it).
func refClip(gs [][]float64, maxNorm float64, inf bool) float64 {
	total := 0.0
	for _, g := range gs {
		for _, v := range g {
			switch {
			case inf:
				if math.IsNaN(v) || math.IsNaN(total) {
					total = math.NaN()
				} else {
					total = math.Max(total, math.Abs(v))
				}
			default:
				total += v * v
			}
		}
	}
	if !inf {
		total = math.Sqrt(total)
	}
	coef := maxNorm / (total + 1e-6)
	if coef > 1 {
		coef = 1
	}
	for _, g := range gs {
		for i := range g {
			g[i] *= coef
		}
	}
	return total
}

// Tolerances of ClipGradNorm against the float64 reference: the norm is
// a float32 sum in another order (per workgroup, then over them), good to
// clipNormTol relative; each scaled element carries that error and two
// float32 roundings.
const (
	clipNormTol = 1e-5
	clipGradTol = 2e-5
)

// sameFloat is true when got matches want within tol relative, or both
// are NaN, or both the same infinity.
func sameFloat(got float32, want, tol float64) bool {
	g := float64(got)
	switch {
	case math.IsNaN(want):
		return math.IsNaN(g)
	case math.IsInf(want, 0):
		return g == want
	}
	return math.Abs(g-want) <= tol*math.Abs(want)+1e-30
}

type clipCase struct {
	name    string
	shapes  [][]int
	maxNorm float64 // times the total norm, for finite ones
	inf     bool
	poison  float32 // put at one element of the third gradient, if not 0
}

// ClipGradNorm computes PyTorch's total norm and scaling (checked against
// the float64 reference above) for many gradients (more than a dispatch
// binds, so several batches, on every backend), sizes across a workgroup's
// chunk and not multiples of anything, nil and empty gradients, norms 2
// and inf, clipping and not, a NaN and an Inf gradient, and zeros. It
// forces no readback (no submission), dispatches what its doc says, bumps
// each gradient's version once, and leaves nothing behind but the norm.
func TestClipGradNormMatchesFloat64Reference(t *testing.T) {
	many := make([][]int, 40)
	for i := range many {
		many[i] = []int{1 + (i*37)%97, 3}
	}
	base := [][]int{{37, 11}, {5000}, {3}, {0}, {1}, {8193}, {4096}, {2, 2, 2}}
	nan, inf := float32(math.NaN()), float32(math.Inf(-1))
	cases := []clipCase{
		{"clipped", base, 0.5, false, 0},
		{"not clipped", base, 2, false, 0},
		{"inf norm clipped", base, 0.25, true, 0},
		{"inf norm not clipped", base, 3, true, 0},
		{"many gradients", many, 0.3, false, 0},
		{"many gradients inf norm", many, 0.3, true, 0},
		{"a NaN", base, 0.5, false, nan},
		{"an Inf", base, 0.5, false, inf},
		{"a NaN, inf norm", base, 0.5, true, nan},
		{"an Inf, inf norm", base, 0.5, true, inf},
		{"zeros", [][]int{{37, 11}, {12}}, 1, false, 0},
	}
	e := testgpu.Engine(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(41, 42))
			inScope(t, e, func() {
				var grads []*tensor.Tensor
				var ref [][]float64
				for i, s := range c.shapes {
					n := 1
					for _, d := range s {
						n *= d
					}
					v := uniform(r, n)
					if c.name == "zeros" {
						clear(v)
					}
					if i == 2 && c.poison != 0 {
						v[1] = c.poison
					}
					grads = append(grads, e.FromFloat32s(v, s...))
					ref = append(ref, widen(v))
					if i == 1 {
						grads = append(grads, nil) // a parameter without a gradient
					}
				}
				wantNorm := refClip(clone2(ref), math.Inf(1), c.inf)
				maxNorm := c.maxNorm
				if !math.IsNaN(wantNorm) && !math.IsInf(wantNorm, 0) && wantNorm > 0 {
					maxNorm = c.maxNorm * wantNorm
				}
				refClip(ref, maxNorm, c.inf)
				require.NoError(t, e.Flush())
				before := e.Device().Stats()
				mem := e.Memory()
				versions := make([]uint64, len(grads))
				for i, g := range grads {
					versions[i] = g.Version()
				}
				normType := 0.0
				if c.inf {
					normType = math.Inf(1)
				}
				total, err := optim.ClipGradNorm(e, grads, maxNorm, optim.ClipOptions{NormType: normType})
				require.NoError(t, err)
				after := e.Device().Stats()
				assert.Equal(t, before.Submits, after.Submits, "no readback, no submission")
				nonEmpty := 0
				for _, g := range grads {
					if g != nil && g.Size() > 0 {
						nonEmpty++
					}
				}
				assert.EqualValues(t, clipDispatches(e, nonEmpty), after.Dispatches-before.Dispatches, "dispatches for %d gradients", nonEmpty)
				assert.Equal(t, mem.Tensors+1, e.Memory().Tensors, "only the norm is left")
				assert.Equal(t, tensor.Shape{}, total.Shape())
				got := f32s(t, total)
				assert.True(t, sameFloat(got[0], wantNorm, clipNormTol), "norm %v, the reference %v", got[0], wantNorm)
				k := 0
				for i, g := range grads {
					if g == nil {
						continue
					}
					if g.Size() > 0 {
						assert.Equal(t, versions[i]+1, g.Version(), "gradient %d written once", i)
					}
					v := f32s(t, g)
					for j := range v {
						if !sameFloat(v[j], ref[k][j], clipGradTol) {
							t.Fatalf("gradient %d [%d] = %v, the reference %v", i, j, v[j], ref[k][j])
						}
					}
					k++
				}
			})
		})
	}
}

// clipDispatches is what ClipGradNorm's doc promises for n gradients
// small enough for one dispatch per batch: a norm dispatch per batch of
// the device's bindings less two (at most 30), one for the total, a scale
// dispatch per batch of its bindings less one (at most 31).
func clipDispatches(e *tensor.Engine, n int) int {
	if n == 0 {
		return 0
	}
	limit := int(e.Device().Limits().MaxStorageBuffersPerShaderStage)
	kr, ks := min(30, limit-2), min(30, limit-1)
	return (n+kr-1)/kr + 1 + (n+ks-1)/ks
}

func clone2(v [][]float64) [][]float64 {
	out := make([][]float64, len(v))
	for i := range v {
		out[i] = append([]float64(nil), v[i]...)
	}
	return out
}

// An empty list, or only nil and empty gradients, has norm 0 and
// dispatches nothing, as PyTorch returns tensor(0.).
func TestClipGradNormOfNothing(t *testing.T) {
	e := testgpu.Engine(t)
	inScope(t, e, func() {
		empty := e.Zeros(tensor.Float32, 0, 3)
		require.NoError(t, e.Flush())
		for _, grads := range [][]*tensor.Tensor{nil, {nil, nil}, {empty, nil}} {
			before := e.Device().Stats().Dispatches
			total, err := optim.ClipGradNorm(e, grads, 1, optim.ClipOptions{})
			require.NoError(t, err)
			assert.Equal(t, before, e.Device().Stats().Dispatches)
			assert.Equal(t, []float32{0}, f32s(t, total))
			total.Dispose()
		}
	})
}

// With ErrorIfNonfinite a NaN or infinite norm is an error wrapping
// ErrNonfinite that scales nothing and leaves nothing live; a finite norm
// clips as without it.
func TestClipGradNormErrorIfNonfinite(t *testing.T) {
	e := testgpu.Engine(t)
	for _, poison := range []float32{float32(math.NaN()), float32(math.Inf(1))} {
		inScope(t, e, func() {
			a := e.FromFloat32s([]float32{1, 2, 3}, 3)
			b := e.FromFloat32s([]float32{4, poison}, 2)
			require.NoError(t, e.Flush())
			mem := e.Memory()
			total, err := optim.ClipGradNorm(e, []*tensor.Tensor{a, b}, 1, optim.ClipOptions{ErrorIfNonfinite: true, Context: ctxT(t)})
			assert.Nil(t, total)
			require.ErrorIs(t, err, optim.ErrNonfinite)
			assert.ErrorContains(t, err, "optim: clip grad norm: the total norm of order 2 of 2 gradients is")
			assert.Equal(t, []float32{1, 2, 3}, f32s(t, a), "nothing scaled")
			assert.Zero(t, a.Version())
			assert.Equal(t, mem.Tensors, e.Memory().Tensors)
			assert.Equal(t, mem.Bytes, e.Memory().Bytes)
		})
	}
	inScope(t, e, func() {
		a := e.FromFloat32s([]float32{3, 4}, 2)
		total, err := optim.ClipGradNorm(e, []*tensor.Tensor{a}, 1, optim.ClipOptions{ErrorIfNonfinite: true})
		require.NoError(t, err)
		assert.Equal(t, []float32{5}, f32s(t, total))
		v := f32s(t, a)
		assert.InDelta(t, 0.6, v[0], 1e-6)
		assert.InDelta(t, 0.8, v[1], 1e-6)
	})
}

// Bad arguments are refused before anything is dispatched or written,
// with an error naming the gradient's index and shape.
func TestClipGradNormRefusesBadArguments(t *testing.T) {
	e := testgpu.Engine(t)
	e2 := testgpu.EngineOn(t, testgpu.Open(t))
	foreign := e2.Zeros(tensor.Float32, 4)
	defer foreign.Dispose()
	inScope(t, e, func() {
		g := e.FromFloat32s([]float32{1, 2, 3, 4}, 2, 2)
		gone := e.Zeros(tensor.Float32, 5)
		gone.Dispose()
		require.NoError(t, e.Flush())
		for _, bad := range []struct {
			name    string
			grads   []*tensor.Tensor
			maxNorm float64
			o       optim.ClipOptions
			kind    error
			text    string
		}{
			{"negative max norm", []*tensor.Tensor{g}, -1, optim.ClipOptions{}, optim.ErrArgument, "max norm -1"},
			{"NaN max norm", []*tensor.Tensor{g}, math.NaN(), optim.ClipOptions{}, optim.ErrArgument, "max norm NaN"},
			{"norm type 1", []*tensor.Tensor{g}, 1, optim.ClipOptions{NormType: 1}, optim.ErrArgument, "norm type 1"},
			{"int32", []*tensor.Tensor{g, e.Zeros(tensor.Int32, 3)}, 1, optim.ClipOptions{}, tensor.ErrDType, "gradient 1 [3] is int32"},
			{"disposed", []*tensor.Tensor{nil, g, gone}, 1, optim.ClipOptions{}, tensor.ErrDisposed, "gradient 2 [5]"},
			{"carrying an error", []*tensor.Tensor{e.Reshape(g, 3)}, 1, optim.ClipOptions{}, tensor.ErrShape, "gradient 0: tensor: reshape"},
			{"another device", []*tensor.Tensor{g, foreign}, 1, optim.ClipOptions{}, optim.ErrArgument, "gradient 1 [4] lives on another device"},
			{"twice", []*tensor.Tensor{g, g}, 1, optim.ClipOptions{}, optim.ErrArgument, "gradients 0 [2 2] and 1 [2 2] share their storage"},
			{"a view", []*tensor.Tensor{g, e.Reshape(g, 4)}, 1, optim.ClipOptions{}, optim.ErrArgument, "gradients 0 [2 2] and 1 [4] share their storage"},
		} {
			require.NoError(t, e.Flush())
			before := e.Device().Stats().Dispatches
			total, err := optim.ClipGradNorm(e, bad.grads, bad.maxNorm, bad.o)
			assert.Nil(t, total, bad.name)
			assert.ErrorIs(t, err, bad.kind, bad.name)
			assert.ErrorContains(t, err, "optim: clip grad norm: "+bad.text, bad.name)
			assert.Equal(t, before, e.Device().Stats().Dispatches, bad.name)
		}
		assert.Zero(t, g.Version())
		_, err := optim.ClipGradNorm(nil, []*tensor.Tensor{g}, 1, optim.ClipOptions{})
		assert.ErrorIs(t, err, optim.ErrArgument)
	})
}

// Clipping every step allocates nothing that outlives the step but the
// norm the caller disposes: memory is flat over 50 clipped steps.
func TestClipGradNormMemoryIsFlat(t *testing.T) {
	e := testgpu.Engine(t)
	r := rand.New(rand.NewPCG(43, 44))
	ps := newParams(e, r)
	defer disposeParams(ps)
	step := func() {
		inScope(t, e, func() {
			total, err := optim.ClipGradNorm(e, gradsFor(t, e, r, ps), 0.1, optim.ClipOptions{})
			require.NoError(t, err)
			require.NoError(t, total.Err())
		})
	}
	step()
	first := e.Memory()
	for range 50 {
		step()
	}
	now := e.Memory()
	assert.Equal(t, first.Tensors, now.Tensors)
	assert.Equal(t, first.Bytes, now.Bytes)
	assert.Equal(t, first.Pool.LiveBytes, now.Pool.LiveBytes)
}
