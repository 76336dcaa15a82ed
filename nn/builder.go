package nn

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// Builder makes layers with parameters on one engine, drawing every
// parameter's initial values from one root seed: each parameter (and each
// Dropout) gets its own seed, derived from the root, the number of seeds
// handed out before it and its name by a mixing function (SplitMix64's),
// so two layers never share their numbers and the same root seed and the
// same calls make the same model, on every device.
//
// A Builder keeps the first error it meets, as bufio.Writer does, so that a
// model is written as one expression and checked once:
//
//	b := nn.NewBuilder(e, 42)
//	model := nn.NewSequential(b.Linear(2, 64), nn.ReLU(), b.Linear(64, 3))
//	if err := b.Err(); err != nil {
//		model.Dispose()
//		return err
//	}
//
// A layer the Builder could not make (a bad argument, an allocation that
// failed, or any layer after the first error) owns no tensor and its
// Forward returns a tensor carrying the error; Dispose it like any other.
//
// The parameters are made on the Builder's engine and Kept (tensor.Keep):
// they survive the tidy scopes they are made in, and only the layer's
// Dispose frees them, as an optimizer's state.
//
// A Builder belongs to one goroutine, like its engine; the layers it makes
// may be used from others (see Module).
type Builder struct {
	e     *tensor.Engine
	root  uint64
	seeds uint64 // seeds handed out so far
	err   error
}

// NewBuilder returns a Builder making parameters on e from the root seed.
func NewBuilder(e *tensor.Engine, seed uint64) *Builder {
	b := &Builder{e: e, root: seed}
	if e == nil || e.Device() == nil {
		b.err = fmt.Errorf("nn: NewBuilder: nil or zero engine: %w", tensor.ErrArgument)
	}
	return b
}

// Err returns the first error the Builder met, or nil if it made every
// layer asked of it.
func (b *Builder) Err() error { return b.err }

// Engine returns the engine the Builder makes parameters on.
func (b *Builder) Engine() *tensor.Engine { return b.e }

// Seed returns the seed of the next parameter, named name, and counts it:
// for layers written outside this package that draw their own numbers.
func (b *Builder) Seed(name string) uint64 {
	s := deriveSeed(b.root, b.seeds, name)
	b.seeds++
	return s
}

// deriveSeed mixes a root seed, an index and a name into a seed: equal
// inputs give equal seeds, and any change to one of them changes every bit
// of the result with probability one half.
func deriveSeed(root, index uint64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return mix64(mix64(mix64(root)^index) ^ h.Sum64())
}

// mix64 is SplitMix64's output function (Steele, Lea and Flood), a
// bijection of 64-bit words with full avalanche.
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// paramSpec describes a parameter a layer asks the Builder for.
type paramSpec struct {
	name          string
	shape         []int
	init          Init
	fanIn, fanOut int
	buffer        bool // saved, not trained
}

// fail records err as the Builder's first error and returns it.
func (b *Builder) fail(err error) error {
	if b.err == nil {
		b.err = err
	}
	return err
}

// make creates the tensors of one layer, named what (for errors), from
// specs: the parameters and the buffers, each Kept. If the Builder has
// failed already, or one tensor cannot be made, it frees what it made and
// returns the error, which the Builder keeps.
func (b *Builder) make(what string, specs []paramSpec) (params, buffers []optim.Param, err error) {
	if b.err != nil {
		return nil, nil, fmt.Errorf("%s: not made after an earlier error: %w", what, b.err)
	}
	for _, s := range specs {
		t, err := b.initTensor(s)
		if err != nil {
			tidy.Dispose(Tensors(append(params, buffers...)))
			return nil, nil, b.fail(fmt.Errorf("%s: %s: %w", what, s.name, err))
		}
		p := optim.Param{Name: s.name, T: t}
		if s.buffer {
			tensor.SetCategory(t, tensor.CategoryBuffer)
			buffers = append(buffers, p)
		} else {
			tensor.SetCategory(t, tensor.CategoryParameter)
			params = append(params, p)
		}
	}
	return params, buffers, nil
}

// weightAndBias makes a layer's "weight" of shape, initialised by
// c.weightInit, and with c.bias its "bias" [out], initialised by
// c.biasInit, both over the fans given, as make does; bias is nil without
// one.
func (b *Builder) weightAndBias(what string, c config, shape []int, out, fanIn, fanOut int) (params []optim.Param, weight, bias *tensor.Tensor, err error) {
	specs := []paramSpec{{name: "weight", shape: shape, init: c.weightInit, fanIn: fanIn, fanOut: fanOut}}
	if c.bias {
		specs = append(specs, paramSpec{name: "bias", shape: []int{out}, init: c.biasInit, fanIn: fanIn, fanOut: fanOut})
	}
	if params, _, err = b.make(what, specs); err != nil {
		return nil, nil, nil, err
	}
	weight = params[0].T
	if c.bias {
		bias = params[1].T
	}
	return params, weight, bias, nil
}

// initTensor makes the tensor of s with its initialiser, in a scope of its
// own (so an initialiser's intermediates are freed), and keeps it.
func (b *Builder) initTensor(s paramSpec) (*tensor.Tensor, error) {
	seed := b.Seed(s.name)
	defer b.e.WithCategory(tensor.CategoryParameter)()
	t, err := tidy.Run(b.e, func() (*tensor.Tensor, error) {
		t := s.init(b.e, seed, s.shape, s.fanIn, s.fanOut)
		return t, t.Err()
	})
	switch {
	case err != nil:
		t.Dispose()
		return nil, err
	case t.IsDisposed():
		return nil, fmt.Errorf("initialiser returned a disposed tensor: %w", tensor.ErrDisposed)
	case t.DType() != tensor.Float32 || !slices.Equal(t.Shape(), s.shape):
		defer t.Dispose()
		return nil, fmt.Errorf("initialiser made %s %v, want float32 %v: %w", t.DType(), t.Shape(), s.shape, tensor.ErrShape)
	}
	t.Keep()
	return t, nil
}

// Option tunes a layer the Builder makes. Each option says which layers
// take it; giving a layer one it does not take is an error of the Builder.
// An Option is an immutable value: share it freely.
type Option struct {
	name string
	set  func(*config)
	bad  string // what is wrong with the option's value, refused by every layer
}

// config is what options set; each layer starts from its defaults.
type config struct {
	bias          bool
	weightInit    Init
	biasInit      Init
	eps, momentum float32
	conv          tensor.Conv2DOptions // Conv2D's geometry
}

// NoBias makes a Linear without a bias (PyTorch's bias=False).
func NoBias() Option { return Option{name: "NoBias", set: func(c *config) { c.bias = false }} }

// WeightInit sets the initialiser of a Linear's or an Embedding's weight
// (defaults: GlorotUniform for Linear, Normal(1) for Embedding) or of a
// LayerNorm's or BatchNorm's scale (default Ones).
func WeightInit(f Init) Option {
	return Option{name: "WeightInit", set: func(c *config) { c.weightInit = f }}
}

// BiasInit sets the initialiser of a Linear's, LayerNorm's or BatchNorm's
// bias (default Zeros).
func BiasInit(f Init) Option {
	return Option{name: "BiasInit", set: func(c *config) { c.biasInit = f }}
}

// Eps sets the ε a LayerNorm or BatchNorm adds to the variance (default
// 1e-5, PyTorch's): finite and not negative.
func Eps(eps float32) Option {
	o := Option{name: "Eps", set: func(c *config) { c.eps = eps }}
	if !(eps >= 0 && eps <= math.MaxFloat32) {
		o.bad = fmt.Sprintf("Eps(%g) is not finite and non-negative", eps)
	}
	return o
}

// Momentum sets the weight a BatchNorm gives each batch's statistics in
// its running ones (default 0.1, PyTorch's: running ← (1−m)·running + m·batch),
// in [0, 1].
func Momentum(m float32) Option {
	o := Option{name: "Momentum", set: func(c *config) { c.momentum = m }}
	if !(m >= 0 && m <= 1) {
		o.bad = fmt.Sprintf("Momentum(%g) is outside [0, 1]", m)
	}
	return o
}

// Stride sets a Conv2D's step over the height and width (default 1, 1):
// each at least 1.
func Stride(h, w int) Option {
	o := Option{name: "Stride", set: func(c *config) { c.conv.Stride = [2]int{h, w} }}
	o.bad = positive("Stride", h, w)
	return o
}

// Dilation sets the spacing of a Conv2D's taps over the height and width
// (default 1, 1: a dense window): each at least 1.
func Dilation(h, w int) Option {
	o := Option{name: "Dilation", set: func(c *config) { c.conv.Dilation = [2]int{h, w} }}
	o.bad = positive("Dilation", h, w)
	return o
}

// Pad sets a Conv2D's padding (default tensor.Valid(); tensor.Same()
// keeps the size at stride 1, tensor.Explicit gives the sizes, none
// negative).
func Pad(p tensor.Padding) Option {
	o := Option{name: "Pad", set: func(c *config) { c.conv.Padding = p }}
	switch p.Mode {
	case tensor.PadValid, tensor.PadSame:
	case tensor.PadExplicit:
		if min(p.Top, p.Bottom, p.Left, p.Right) < 0 || max(p.Top, p.Bottom, p.Left, p.Right) > math.MaxInt32 {
			o.bad = fmt.Sprintf("Pad(%v) is negative or past 2^31-1", p)
		}
	default:
		o.bad = fmt.Sprintf("Pad(%v) has an unknown mode", p)
	}
	return o
}

// Groups splits a Conv2D's channels into n independent convolutions
// (default 1; n equal to the input channels is a depthwise convolution).
// Both channel counts must be multiples of n, which is at least 1.
func Groups(n int) Option {
	o := Option{name: "Groups", set: func(c *config) { c.conv.Groups = n }}
	o.bad = positive("Groups", n)
	return o
}

// positive says what is wrong with the values of option name, none of
// which may be below 1 or past 2^31-1 (the kernels' word); "" if nothing.
// The layers' own zero means 1: an option given 0 is an error, as in
// PyTorch, not the default.
func positive(name string, v ...int) string {
	if slices.Min(v) < 1 || slices.Max(v) > math.MaxInt32 {
		return fmt.Sprintf("%s%v is below 1 or past 2^31-1", name, v)
	}
	return ""
}

// configure applies opts to the defaults c of the layer what, refusing an
// option not in takes.
func configure(what string, c config, opts []Option, takes ...string) (config, error) {
	for _, o := range opts {
		if !slices.Contains(takes, o.name) || o.set == nil {
			return c, fmt.Errorf("%s: option %s does not apply (it takes %v): %w", what, o.name, takes, tensor.ErrArgument)
		}
		if o.bad != "" {
			return c, fmt.Errorf("%s: %s: %w", what, o.bad, tensor.ErrArgument)
		}
		o.set(&c)
	}
	if (slices.Contains(takes, "WeightInit") && c.weightInit == nil) || (slices.Contains(takes, "BiasInit") && c.biasInit == nil) {
		return c, fmt.Errorf("%s: nil initialiser: %w", what, tensor.ErrArgument)
	}
	return c, nil
}
