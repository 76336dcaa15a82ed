package nn_test

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
)

// Two layers of one Builder never share their numbers: the weights of two
// Linear layers of the same shape differ at every element and neither is
// a shifted copy of the other's. The same root seed builds the same model;
// another builds another.
func TestLayersNeverShareTheirNumbers(t *testing.T) {
	e := testgpu.Engine(t)
	weights := func(seed uint64) [][]float32 {
		b := nn.NewBuilder(e, seed)
		m := nn.NewSequential(b.Linear(32, 32), b.Linear(32, 32), b.Embedding(32, 32), b.Embedding(32, 32))
		require.NoError(t, b.Err())
		defer m.Dispose()
		var out [][]float32
		for _, p := range m.Params() {
			if p.T.Rank() == 2 {
				out = append(out, read(t, p.T))
			}
		}
		return out
	}
	ws := weights(1)
	for i := range ws {
		for j := range i {
			a, b := ws[i], ws[j]
			same := 0
			for k := range a {
				if a[k] == b[k] {
					same++
				}
			}
			assert.Zero(t, same, "weights %d and %d share elements", i, j)
			for shift := range len(a) - 8 {
				if slices.Equal(a[shift:shift+8], b[:8]) || slices.Equal(b[shift:shift+8], a[:8]) {
					t.Errorf("weights %d and %d are shifted copies (by %d)", i, j, shift)
				}
			}
		}
	}
	assert.Equal(t, ws, weights(1), "the same root seed")
	other := weights(2)
	for i := range ws {
		assert.NotEqual(t, ws[i], other[i], "another root seed, weight %d", i)
	}
}

// The initialisers draw what torch.nn.init draws: the uniform ones inside
// their bound with the uniform's deviation, the normal ones with the
// deviation of their fans; Zeros and Ones are constant.
func TestInitialisersScaleByTheirFans(t *testing.T) {
	e := testgpu.Engine(t)
	const in, out = 96, 160
	for _, c := range []struct {
		name  string
		init  nn.Init
		bound float64 // 0 for the normal ones
		std   float64
	}{
		{"GlorotUniform", nn.GlorotUniform, math.Sqrt(6.0 / (in + out)), math.Sqrt(2.0 / (in + out))},
		{"GlorotNormal", nn.GlorotNormal, 0, math.Sqrt(2.0 / (in + out))},
		{"HeUniform", nn.HeUniform, math.Sqrt(6.0 / in), math.Sqrt(2.0 / in)},
		{"HeNormal", nn.HeNormal, 0, math.Sqrt(2.0 / in)},
	} {
		b := nn.NewBuilder(e, 9)
		l := b.Linear(in, out, nn.WeightInit(c.init))
		require.NoError(t, b.Err(), c.name)
		w := read(t, l.Params()[0].T)
		l.Dispose()
		sum, sq := 0.0, 0.0
		for _, v := range w {
			if c.bound > 0 && math.Abs(float64(v)) > c.bound {
				t.Fatalf("%s: %g outside ±%g", c.name, v, c.bound)
			}
			sum += float64(v)
			sq += float64(v) * float64(v)
		}
		n := float64(len(w))
		mean, std := sum/n, math.Sqrt(sq/n-(sum/n)*(sum/n))
		assert.InDelta(t, 0, mean, 4*c.std/math.Sqrt(n), "%s: mean", c.name)
		assert.InEpsilon(t, c.std, std, 0.03, "%s: deviation", c.name)
	}
	b := nn.NewBuilder(e, 9)
	l := b.Linear(2, 3, nn.WeightInit(nn.Ones))
	require.NoError(t, b.Err())
	defer l.Dispose()
	assert.Equal(t, []float32{1, 1, 1, 1, 1, 1}, read(t, l.Params()[0].T))
	assert.Equal(t, []float32{0, 0, 0}, read(t, l.Params()[1].T), "Zeros, the default bias")
}
