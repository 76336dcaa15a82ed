package nn_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/nn"
	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// spirals returns arms interleaved spiral arms of perArm points each (the
// data set of examples/spirals, after CS231n): arm k's point at radius r
// has angle 4k + 4r plus Gaussian noise of deviation 0.2.
func spirals(seed uint64, arms, perArm int) (x []float32, labels []int32) {
	rng := rand.New(rand.NewPCG(seed, seed))
	for k := range arms {
		for i := range perArm {
			r := float64(i) / float64(perArm-1)
			theta := 4*float64(k) + 4*r + 0.2*rng.NormFloat64()
			x = append(x, float32(r*math.Sin(theta)), float32(r*math.Cos(theta)))
			labels = append(labels, int32(k))
		}
	}
	return x, labels
}

// Sequential models learn: on three spirals (300 points), 300 full-batch
// steps of Adam (lr 0.02) take each model (plain, with LayerNorm, with
// Dropout, with BatchNorm) from a loss of about 1.1 to at most 0.15 and to
// at least 97% accuracy in inference mode (about 0.03 and 99% on lavapipe).
// Memory is flat from the second step on, to the byte.
func TestSequentialLearnsSpirals(t *testing.T) {
	const arms, perArm, hidden, steps = 3, 100, 64, 300
	for _, c := range []struct {
		name  string
		build func(b *nn.Builder) nn.Module
	}{
		{"Linear-ReLU-Linear", func(b *nn.Builder) nn.Module {
			return nn.NewSequential(b.Linear(2, hidden, nn.WeightInit(nn.HeNormal)), nn.ReLU(), b.Linear(hidden, arms))
		}},
		{"Linear-LayerNorm-ReLU-Linear", func(b *nn.Builder) nn.Module {
			return nn.NewSequential(b.Linear(2, hidden, nn.WeightInit(nn.HeNormal)), b.LayerNorm(hidden), nn.ReLU(), b.Linear(hidden, arms))
		}},
		{"Linear-ReLU-Dropout-Linear", func(b *nn.Builder) nn.Module {
			return nn.NewSequential(b.Linear(2, hidden, nn.WeightInit(nn.HeNormal)), nn.ReLU(), b.Dropout(0.1), b.Linear(hidden, arms))
		}},
		{"Linear-BatchNorm-ReLU-Linear", func(b *nn.Builder) nn.Module {
			return nn.NewSequential(b.Linear(2, hidden, nn.WeightInit(nn.HeNormal)), b.BatchNorm(hidden), nn.ReLU(), b.Linear(hidden, arms))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := testgpu.Engine(t)
			ctx := context.Background()
			xs, ls := spirals(1, arms, perArm)
			x, labels := e.FromFloat32s(xs, arms*perArm, 2), e.FromInt32s(ls, arms*perArm)
			defer tidy.Dispose([]*tensor.Tensor{x, labels})
			b := nn.NewBuilder(e, 2)
			m := c.build(b)
			require.NoError(t, b.Err())
			defer m.Dispose()
			cfg := optim.AdamDefaults()
			cfg.LR = 0.02
			opt, err := optim.NewAdam(e, m.Params(), cfg)
			require.NoError(t, err)
			defer opt.Dispose()

			var first, last float32
			var flat liveFigures
			for i := range steps {
				l, err := tidy.Run(e, func() (float32, error) {
					l, err := trainStep(e, m, opt, x, labels)
					if err != nil || (i != 0 && i != steps-1) {
						return 0, err
					}
					v, err := l.Float32s(ctx)
					return v[0], err
				})
				require.NoError(t, err, "step %d", i)
				switch i {
				case 0:
					first, flat = l, live(t, e)
				case steps - 1:
					last = l
				}
			}
			require.Equal(t, flat, live(t, e), "after %d steps", steps)

			m.SetTraining(false)
			predicted, err := tidy.Run(e, func() ([]int32, error) { return e.ArgMax(m.Forward(x), 1).Int32s(ctx) })
			require.NoError(t, err)
			right := 0
			for i, p := range predicted {
				if p == ls[i] {
					right++
				}
			}
			acc := float64(right) / float64(len(ls))
			t.Logf("loss %.3f → %.3f, accuracy %.1f%% after %d steps", first, last, 100*acc, steps)
			assert.GreaterOrEqual(t, acc, 0.97, "accuracy")
			assert.LessOrEqual(t, last, float32(0.15), "final loss")
		})
	}
}
