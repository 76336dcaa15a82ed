package optim_test

import (
	"math"

	"github.com/wgtensor/wgtensor/optim"
)

// refState is a parameter's state in the float64 reference: its step
// count and its state arrays by PyTorch's names.
type refState struct {
	steps int
	slots map[string][]float64
}

func (s *refState) slot(name string, n int) ([]float64, bool) {
	if s.slots == nil {
		s.slots = map[string][]float64{}
	}
	v, ok := s.slots[name]
	if !ok {
		v = make([]float64, n)
		s.slots[name] = v
	}
	return v, !ok
}

// refSGD is torch.optim.SGD's step for one parameter, in float64.
func refSGD(c optim.SGDConfig, p, g []float64, s *refState) {
	s.steps++
	for i := range p {
		gi := g[i] + c.WeightDecay*p[i]
		g[i] = gi
	}
	if c.Momentum != 0 {
		b, fresh := s.slot("momentum_buffer", len(p))
		for i := range p {
			if fresh {
				b[i] = g[i]
			} else {
				b[i] = c.Momentum*b[i] + (1-c.Dampening)*g[i]
			}
			if c.Nesterov {
				g[i] += c.Momentum * b[i]
			} else {
				g[i] = b[i]
			}
		}
	}
	for i := range p {
		p[i] -= c.LR * g[i]
	}
}

// refAdam is torch.optim.Adam's (decoupled: AdamW's) step for one
// parameter, in float64.
func refAdam(c optim.AdamConfig, decoupled bool, p, g []float64, s *refState) {
	s.steps++
	t := float64(s.steps)
	m, _ := s.slot("exp_avg", len(p))
	v, _ := s.slot("exp_avg_sq", len(p))
	var vmax []float64
	if c.AMSGrad {
		vmax, _ = s.slot("max_exp_avg_sq", len(p))
	}
	bc1, bc2 := 1-math.Pow(c.Beta1, t), 1-math.Pow(c.Beta2, t)
	for i := range p {
		gi := g[i]
		if decoupled {
			p[i] *= 1 - c.LR*c.WeightDecay
		} else {
			gi += c.WeightDecay * p[i]
		}
		m[i] = c.Beta1*m[i] + (1-c.Beta1)*gi
		v[i] = c.Beta2*v[i] + (1-c.Beta2)*gi*gi
		vi := v[i]
		if c.AMSGrad {
			vmax[i] = math.Max(vmax[i], v[i])
			vi = vmax[i]
		}
		p[i] -= c.LR / bc1 * m[i] / (math.Sqrt(vi)/math.Sqrt(bc2) + c.Eps)
	}
}

// refRMSProp is torch.optim.RMSprop's step for one parameter, in float64.
func refRMSProp(c optim.RMSPropConfig, p, g []float64, s *refState) {
	s.steps++
	sq, _ := s.slot("square_avg", len(p))
	var ga, buf []float64
	if c.Centered {
		ga, _ = s.slot("grad_avg", len(p))
	}
	if c.Momentum > 0 {
		buf, _ = s.slot("momentum_buffer", len(p))
	}
	for i := range p {
		gi := g[i] + c.WeightDecay*p[i]
		sq[i] = c.Alpha*sq[i] + (1-c.Alpha)*gi*gi
		avg := math.Sqrt(sq[i])
		if c.Centered {
			ga[i] = c.Alpha*ga[i] + (1-c.Alpha)*gi
			avg = math.Sqrt(sq[i] - ga[i]*ga[i])
		}
		avg += c.Eps
		if c.Momentum > 0 {
			buf[i] = c.Momentum*buf[i] + gi/avg
			p[i] -= c.LR * buf[i]
		} else {
			p[i] -= c.LR * gi / avg
		}
	}
}
