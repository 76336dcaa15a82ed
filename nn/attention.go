package nn

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// AttentionConfig configures a MultiheadAttention; the zero value is
// PyTorch's default (no dropout, biases, no mask).
type AttentionConfig struct {
	// Dropout is the probability of dropping each attention weight in
	// training mode (PyTorch's dropout), in [0, 1).
	Dropout float32
	// NoBias leaves out in_proj_bias and out_proj.bias (bias=False).
	NoBias bool
	// Causal makes Forward attend from each position to itself and the
	// positions before it only, as a decoder (GPT) does.
	Causal bool
}

// AttendOptions are the per-call options of MultiheadAttention.Attend, as
// PyTorch's forward takes them.
type AttendOptions struct {
	// Mask is PyTorch's attn_mask, broadcastable to [batch, heads, Tq,
	// Tk]: float32 is added to the attention scores (-Inf keeps a key
	// out), uint32 (as comparisons return, PyTorch's bool) keeps a key
	// out where nonzero. nil for none.
	Mask *tensor.Tensor
	// KeyPadding [batch, Tk] marks the padded keys that no query may
	// attend to, PyTorch's key_padding_mask: nonzero where padded
	// (float32, int32 or uint32). nil for none.
	KeyPadding *tensor.Tensor
	// Causal restricts query i to keys j ≤ i (is_causal), besides the
	// layer's own Causal.
	Causal bool
}

// MultiheadAttention is PyTorch's nn.MultiheadAttention with
// batch_first=True: queries [batch, Tq, d], keys and values [batch, Tk, d]
// are projected, split into heads of d/heads, attended to with
// softmax(q·kᵀ/√(d/heads) + mask)·v per head, merged and projected
// again. The attention kernels (tensor.Engine.ScaledDotProductAttention
// with AttentionOptions.Heads, ScaledDotProductAttentionPacked for
// self-attention's one projection [batch, T, 3d]) read the heads where
// the projections put them and write them merged, so that no transpose
// runs before or after them, forward or backward. A query whose keys are
// all masked gets 0, where PyTorch gives NaN.
//
// Parameters, PyTorch's names and layouts: "in_proj_weight" [3d, d] (q, k
// and v's projections stacked, GlorotUniform as PyTorch's xavier_uniform_),
// "in_proj_bias" [3d] (zeros), "out_proj.weight" [d, d] (PyTorch's Linear
// initialisation, U(±1/√d)) and "out_proj.bias" [d] (zeros); no biases
// with NoBias. A MultiheadAttention with Dropout is Random: its masks are a
// function of its seed and its step count, which checkpoints save.
//
// It follows Module's concurrency contract.
type MultiheadAttention struct {
	layer
	d, heads   int
	c          AttentionConfig
	inW, inB   *tensor.Tensor
	outW, outB *tensor.Tensor
	// inScale and outScale: the projections' scales where their weights
	// are int8 (QuantizeInt8).
	inScale, outScale *tensor.Tensor
	seed              uint64
	steps             atomic.Uint64
	what              string
}

// MultiheadAttention makes a MultiheadAttention over d features split
// into heads heads; heads must divide d.
func (b *Builder) MultiheadAttention(d, heads int, c AttentionConfig) *MultiheadAttention {
	l := &MultiheadAttention{d: d, heads: heads, c: c, what: fmt.Sprintf("nn: MultiheadAttention(%d, %d)", d, heads)}
	var err error
	switch {
	case d <= 0 || heads <= 0:
		err = fmt.Errorf("%s: d and heads must be positive: %w", l.what, tensor.ErrArgument)
	case d%heads != 0:
		err = fmt.Errorf("%s: %d heads do not divide d = %d: %w", l.what, heads, d, tensor.ErrArgument)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		err = fmt.Errorf("%s: dropout %g outside [0, 1): %w", l.what, c.Dropout, tensor.ErrArgument)
	}
	if err != nil {
		l.init(b.fail(err), nil, nil)
		return l
	}
	bound := float32(1 / math.Sqrt(float64(d)))
	specs := []paramSpec{{name: "in_proj_weight", shape: []int{3 * d, d}, init: GlorotUniform, fanIn: d, fanOut: 3 * d}}
	if !c.NoBias {
		specs = append(specs, paramSpec{name: "in_proj_bias", shape: []int{3 * d}, init: Zeros})
	}
	specs = append(specs, paramSpec{name: "out_proj.weight", shape: []int{d, d}, init: Uniform(-bound, bound), fanIn: d, fanOut: d})
	if !c.NoBias {
		specs = append(specs, paramSpec{name: "out_proj.bias", shape: []int{d}, init: Zeros})
	}
	params, _, err := b.make(l.what, specs)
	l.init(err, params, nil)
	if err != nil {
		return l
	}
	l.seed = b.Seed("attention_dropout")
	byName := paramsByName(params)
	l.inW, l.inB, l.outW, l.outB = byName["in_proj_weight"], byName["in_proj_bias"], byName["out_proj.weight"], byName["out_proj.bias"]
	return l
}

// Steps returns how many training-mode calls with dropout ran so far: the
// step the next dropout mask is drawn for.
func (l *MultiheadAttention) Steps() uint64 { return l.steps.Load() }

// SetSteps sets the step the next dropout mask is drawn for (a
// checkpoint's load). It must not race with a training-mode Forward.
func (l *MultiheadAttention) SetSteps(n uint64) { l.steps.Store(n) }

// Forward is self-attention: Attend(x, x, x) with the layer's own options,
// for x [batch, T, d]. See Module.
func (l *MultiheadAttention) Forward(x *tensor.Tensor) *tensor.Tensor {
	return l.Attend(x, x, x, AttendOptions{})
}

// Attend attends from query [batch, Tq, d] to key and value [batch, Tk, d]
// and returns [batch, Tq, d], on query's engine; with one tensor for all
// three it projects them in one product. An input of the wrong dtype or
// shape, or a mask that does not fit, gives a tensor carrying an error
// that names the layer and the shapes. See Module for the rest of its
// contract.
func (l *MultiheadAttention) Attend(query, key, value *tensor.Tensor, o AttendOptions) *tensor.Tensor {
	for _, x := range []*tensor.Tensor{query, key, value} {
		if bad := checkInput(x, l.what, l.err, weightDType(l.inW), 3, l.d); bad != nil {
			return bad
		}
		if x.Rank() != 3 {
			return refuse(x, l.what, tensor.ErrShape, "want [batch, T, %d]", l.d)
		}
	}
	qs, ks, vs := query.Shape(), key.Shape(), value.Shape()
	if ks[0] != qs[0] || vs[0] != qs[0] || ks[1] != vs[1] {
		return refuse(query, l.what, tensor.ErrShape, "key %v and value %v do not fit the query (batch %d, and Tk the same)", ks, vs, qs[0])
	}
	batch, tq, tk := qs[0], qs[1], ks[1]
	if bad := l.checkMasks(query, o, batch, tq, tk); bad != nil {
		return bad
	}
	e := engineFor(query)
	var seed uint64
	dropout := l.c.Dropout
	if l.Training() && dropout > 0 {
		seed = deriveSeed(l.seed, l.steps.Add(1)-1, "")
	} else {
		dropout = 0
	}
	return scoped(e, func() *tensor.Tensor {
		mask, padding := attentionMasks(e, o)
		opts := tensor.AttentionOptions{Heads: l.heads, Causal: l.c.Causal || o.Causal, Mask: mask, KeyPadding: padding,
			Dropout: dropout, Seed: seed}
		// The attention kernels read the projections' heads where they
		// lie and write the heads merged, [batch, Tq, d]: no split,
		// transpose or merge of their own, forward or backward.
		var merged *tensor.Tensor
		if query == key && key == value {
			qkv := project(e, query, l.inW, l.inScale, l.inB)
			merged = consumed(e.ScaledDotProductAttentionPacked(qkv, opts), qkv) // from [batch, T, 3d]
		} else {
			// The weights of each projection, split in one op (whose
			// gradient is one concatenation).
			ws := e.Split(l.inW, 0, l.d, l.d, l.d)
			bs, ss := []*tensor.Tensor{nil, nil, nil}, []*tensor.Tensor{nil, nil, nil}
			if l.inB != nil {
				bs = e.Split(l.inB, 0, l.d, l.d, l.d)
			}
			if l.inScale != nil {
				ss = e.Split(l.inScale, 0, l.d, l.d, l.d)
			}
			q, k, v := project(e, query, ws[0], ss[0], bs[0]), project(e, key, ws[1], ss[1], bs[1]), project(e, value, ws[2], ss[2], bs[2])
			merged = e.ScaledDotProductAttention(q, k, v, opts)
			q.Dispose()
			k.Dispose()
			v.Dispose()
		}
		return consumed(project(e, merged, l.outW, l.outScale, l.outB), merged)
	})
}

// project returns x·wᵀ + b (no bias where b is nil), the product times
// scale where w is int8, freeing the intermediates.
func project(e *tensor.Engine, x, w, scale, b *tensor.Tensor) *tensor.Tensor {
	return affine(e, e.MatMulT(x, w, false, true), scale, b)
}

// checkMasks returns a tensor carrying the error of o's masks for
// attention from tq queries to tk keys in a batch of batch, or nil.
func (l *MultiheadAttention) checkMasks(query *tensor.Tensor, o AttendOptions, batch, tq, tk int) *tensor.Tensor {
	if m := o.Mask; m != nil {
		if err := m.Err(); err != nil {
			return query.Engine().Failed(err)
		}
		want := []int{batch, l.heads, tq, tk}
		s := m.Shape()
		ok := (m.DType() == tensor.Float32 || m.DType() == tensor.Uint32) && len(s) <= 4
		for i := 1; ok && i <= len(s); i++ {
			d := s[len(s)-i]
			ok = d == 1 || d == want[4-i]
		}
		if !ok {
			return refuse(query, l.what, tensor.ErrShape, "mask %s %v does not broadcast to the scores %v (float32 or uint32)", m.DType(), s, want)
		}
	}
	if p := o.KeyPadding; p != nil {
		if err := p.Err(); err != nil {
			return query.Engine().Failed(err)
		}
		if s := p.Shape(); len(s) != 2 || s[0] != batch || s[1] != tk {
			return refuse(query, l.what, tensor.ErrShape, "key padding %v, want [%d %d]", s, batch, tk)
		}
	}
	return nil
}

// attentionMasks returns o's masks as ScaledDotProductAttention takes
// them: the mask additive (a uint32 one, which keeps keys out where
// nonzero as PyTorch's MultiheadAttention reads a bool mask, becomes -Inf
// there), the key padding int32 or uint32 (a float32 one, nonzero where
// padded, becomes uint32).
func attentionMasks(e *tensor.Engine, o AttendOptions) (mask, padding *tensor.Tensor) {
	mask, padding = o.Mask, o.KeyPadding
	if mask != nil && mask.DType() == tensor.Uint32 {
		mask = e.Where(mask, e.Scalar(float32(math.Inf(-1))), e.Scalar(0))
	}
	if padding != nil && padding.DType() == tensor.Float32 {
		padding = e.NotEqual(padding, e.Scalar(0))
	}
	return mask, padding
}

var _ Random = (*MultiheadAttention)(nil)

// paramsByName indexes params by name.
func paramsByName(params []optim.Param) map[string]*tensor.Tensor {
	m := map[string]*tensor.Tensor{}
	for _, p := range params {
		m[p.Name] = p.T
	}
	return m
}
