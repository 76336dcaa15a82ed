package nn

import (
	"fmt"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// ToDtype converts every floating-point parameter and buffer of m to dtype
// (tensor.Float32, Float16 or BFloat16) in place, as PyTorch's
// module.half() and module.to(dtype) do: each is replaced by a new tensor
// of dtype holding its values rounded as Cast rounds them (to nearest
// even; exactly when widening), made on the old one's engine, kept, and
// filed as parameter or buffer; the old ones are disposed, so the model's
// memory is that of the new dtype, to the byte (Engine.ByDType says so).
// Integer buffers stay as they are. Params, Buffers and StateDict list the
// new tensors under the same names.
//
// After ToDtype a layer computes in dtype and takes inputs of it: Linear,
// LayerNorm, the activations, Dropout, Embedding (whose output is of its
// table's dtype), MultiheadAttention, TransformerLayer and the containers
// do so with float16 and bfloat16 (tensor's ops compute them in float32
// and round each result; attention takes its composed path), and so do
// Conv2D, the poolings and BatchNorm in inference mode. Training such a
// model is not supported: optimizers take float32 parameters.
//
// ToDtype runs ops on the parameters' engines: call it from the goroutine
// that owns them, while no other goroutine uses m. On failure it returns
// the error and m is unchanged.
func ToDtype(m Module, dtype tensor.DType) error {
	what := fmt.Sprintf("nn: ToDtype(%v)", dtype)
	if !dtype.IsFloat() {
		return fmt.Errorf("%s: want float32, float16 or bfloat16: %w", what, tensor.ErrDType)
	}
	for _, p := range m.Params() {
		if p.T != nil && p.T.DType() == tensor.Int8 {
			return fmt.Errorf("%s: %q is int8, a quantized weight: DequantizeInt8 first: %w", what, p.Name, tensor.ErrDType)
		}
	}
	repl := map[*tensor.Tensor]*tensor.Tensor{}
	undo := func() {
		for _, t := range repl {
			t.Dispose()
		}
	}
	for i, list := range [][]optim.Param{m.Params(), m.Buffers()} {
		for _, p := range list {
			t := p.T
			if _, done := repl[t]; done || t == nil || t.DType() == dtype || !t.DType().IsFloat() {
				continue
			}
			c := t.Engine().Cast(t, dtype)
			if err := c.Err(); err != nil {
				undo()
				return fmt.Errorf("%s: %q: %w", what, p.Name, err)
			}
			c.Keep()
			cat := tensor.CategoryParameter
			if i == 1 {
				cat = tensor.CategoryBuffer
			}
			tensor.SetCategory(c, cat)
			repl[t] = c
		}
	}
	swapTensors(m, repl)
	for old := range repl {
		old.Dispose()
	}
	return nil
}

// dtypeOf is the dtype of a layer's tensor t: float32 where it has none.
func dtypeOf(t *tensor.Tensor) tensor.DType {
	if t == nil {
		return tensor.Float32
	}
	return t.DType()
}

// floatOf is the dtype a layer without parameters takes x in: x's own
// where it is a float dtype, else float32 (which x then fails).
func floatOf(x *tensor.Tensor) tensor.DType {
	if x != nil && x.DType().IsFloat() {
		return x.DType()
	}
	return tensor.Float32
}

// tensorSwapper is a module that holds tensors of its own (a layer, a
// Model's tensor fields) and can replace them.
type tensorSwapper interface {
	// swapTensors replaces each tensor it holds that repl maps by its image.
	swapTensors(repl map[*tensor.Tensor]*tensor.Tensor)
}

// swapTensors replaces the tensors m and its submodules hold by their
// images in repl.
func swapTensors(m Module, repl map[*tensor.Tensor]*tensor.Tensor) {
	if s, ok := m.(tensorSwapper); ok {
		s.swapTensors(repl)
	}
	if p, ok := m.(Parent); ok {
		for _, c := range p.Children() {
			swapTensors(c.Module, repl)
		}
	}
}

// swapped is t's image in repl, or t.
func swapped(repl map[*tensor.Tensor]*tensor.Tensor, t *tensor.Tensor) *tensor.Tensor {
	if n, ok := repl[t]; ok {
		return n
	}
	return t
}

// swapLayer replaces the tensors of l's lists.
func (l *layer) swapLayer(repl map[*tensor.Tensor]*tensor.Tensor) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, list := range [][]optim.Param{l.params, l.buffers} {
		for i := range list {
			list[i].T = swapped(repl, list[i].T)
		}
	}
}

func (l *Linear) swapTensors(repl map[*tensor.Tensor]*tensor.Tensor) {
	l.swapLayer(repl)
	l.weight, l.bias = swapped(repl, l.weight), swapped(repl, l.bias)
}

func (l *Conv2D) swapTensors(repl map[*tensor.Tensor]*tensor.Tensor) {
	l.swapLayer(repl)
	l.weight, l.bias = swapped(repl, l.weight), swapped(repl, l.bias)
}

func (l *LayerNorm) swapTensors(repl map[*tensor.Tensor]*tensor.Tensor) {
	l.swapLayer(repl)
	l.weight, l.bias = swapped(repl, l.weight), swapped(repl, l.bias)
}

func (l *BatchNorm) swapTensors(repl map[*tensor.Tensor]*tensor.Tensor) {
	l.swapLayer(repl)
	l.weight, l.bias = swapped(repl, l.weight), swapped(repl, l.bias)
	l.runningMean, l.runningVar = swapped(repl, l.runningMean), swapped(repl, l.runningVar)
	l.batches = swapped(repl, l.batches)
}

func (l *Embedding) swapTensors(repl map[*tensor.Tensor]*tensor.Tensor) {
	l.swapLayer(repl)
	l.weight = swapped(repl, l.weight)
}

func (l *MultiheadAttention) swapTensors(repl map[*tensor.Tensor]*tensor.Tensor) {
	l.swapLayer(repl)
	l.inW, l.inB = swapped(repl, l.inW), swapped(repl, l.inB)
	l.outW, l.outB = swapped(repl, l.outW), swapped(repl, l.outB)
}

// swapTensors replaces the Model's own tensor fields (its submodules swap
// theirs): those a walk finds in struct fields and slices are set in
// place, those in maps by key.
func (m *Model) swapTensors(repl map[*tensor.Tensor]*tensor.Tensor) {
	parts, err := m.walk()
	if err != nil {
		return
	}
	for _, p := range parts {
		if p.tensor != nil && p.set != nil {
			if n, ok := repl[p.tensor]; ok {
				p.set(n)
			}
		}
	}
}
