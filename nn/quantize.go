package nn

import (
	"errors"
	"fmt"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// QuantizeInt8 converts the weights of m's Linear, Conv2D, Embedding and
// MultiheadAttention layers (within containers and TransformerLayers too)
// to int8 in place, for inference at a quarter of their memory: each
// weight is quantized symmetrically per output channel
// (tensor.Engine.QuantizeInt8: a Linear's rows, a Conv2D's last axis, an
// Embedding's rows, attention's projections' rows), keeps its name and is
// filed as a parameter, and its scales, float32, are a buffer named after
// it with "_scale" ("weight_scale", "in_proj_weight_scale",
// "out_proj.weight_scale"), so that StateDict and checkpoints carry them.
// The float32 weights are disposed: the model's weights take a quarter of
// their bytes, plus 4 bytes a channel. Biases, norms and buffers stay
// float32.
//
// A quantized layer computes with its weights as they are: a product's
// kernel reads four weights a word and the scales multiply its result
// (Embedding scales the rows it picks), so the dequantized weights are
// never made. Inputs stay float32. A quantized model cannot be trained:
// optimizers refuse int8 parameters (DequantizeInt8 first).
//
// m's floating-point parameters must be float32 (ToDtype(m, Float32)
// first). Layers already quantized are left as they are. QuantizeInt8
// runs ops on the parameters' engines: call it from the goroutine that
// owns them, while no other goroutine uses m. On failure it returns the
// error and m is unchanged.
func QuantizeInt8(m Module) error {
	const what = "nn: QuantizeInt8"
	var todo []quantizeStep
	for _, q := range quantizers(m) {
		for _, w := range q.int8Weights() {
			if w.t == nil || w.t.DType() == tensor.Int8 {
				continue
			}
			if w.t.DType() != tensor.Float32 {
				disposeSteps(todo)
				return fmt.Errorf("%s: %q is %s: convert the model to float32 first (ToDtype): %w", what, w.name, w.t.DType(), tensor.ErrDType)
			}
			qt, scale := w.t.Engine().QuantizeInt8(w.t, w.axis)
			if err := errors.Join(qt.Err(), scale.Err()); err != nil {
				qt.Dispose()
				scale.Dispose()
				disposeSteps(todo)
				return fmt.Errorf("%s: %q: %w", what, w.name, err)
			}
			qt.Keep()
			scale.Keep()
			tensor.SetCategory(qt, tensor.CategoryParameter)
			tensor.SetCategory(scale, tensor.CategoryBuffer)
			todo = append(todo, quantizeStep{layer: q, w: w, q: qt, scale: scale})
		}
	}
	for _, s := range todo {
		s.layer.setInt8(s.w.name, s.q, s.scale)
		s.w.t.Dispose()
	}
	return nil
}

// DequantizeInt8 undoes QuantizeInt8: each int8 weight becomes the
// float32 tensor of its values times its channel's scale (what the
// quantized layer computed with), its scale buffer is dropped, and the
// layer computes in float32 again, trainable. On failure it returns the
// error and m is unchanged. Like QuantizeInt8 it belongs to the goroutine
// that owns m's engines.
func DequantizeInt8(m Module) error {
	const what = "nn: DequantizeInt8"
	var todo []quantizeStep
	for _, q := range quantizers(m) {
		for _, w := range q.int8Weights() {
			if w.t == nil || w.t.DType() != tensor.Int8 {
				continue
			}
			e := w.t.Engine()
			shape := make([]int, w.t.Rank())
			for d := range shape {
				shape[d] = 1
			}
			shape[w.axis] = w.t.Shape()[w.axis]
			var f *tensor.Tensor
			err := unrecorded(e, func() error {
				wide, scale := e.Cast(w.t, tensor.Float32), e.Reshape(w.scale, shape...)
				f = e.Mul(wide, scale)
				wide.Dispose()
				scale.Dispose()
				return f.Err()
			})
			if err != nil {
				f.Dispose()
				disposeSteps(todo)
				return fmt.Errorf("%s: %q: %w", what, w.name, err)
			}
			f.Keep()
			tensor.SetCategory(f, tensor.CategoryParameter)
			todo = append(todo, quantizeStep{layer: q, w: w, q: f})
		}
	}
	for _, s := range todo {
		s.layer.setInt8(s.w.name, s.q, nil)
		s.w.t.Dispose()
		s.w.scale.Dispose()
	}
	return nil
}

// int8Layer is a layer whose weights QuantizeInt8 converts.
type int8Layer interface {
	// int8Weights lists the layer's weights, quantized or not.
	int8Weights() []int8Weight
	// setInt8 replaces weight name by t, and its scales by scale (nil:
	// none, a float32 weight).
	setInt8(name string, t, scale *tensor.Tensor)
}

// int8Weight is a weight of an int8Layer: its parameter name, tensor,
// output-channel axis and scales (nil while it is float32).
type int8Weight struct {
	name     string
	t, scale *tensor.Tensor
	axis     int
}

// quantizeStep is one weight's conversion, made and not yet installed:
// the new weight q and its scales (nil when dequantizing).
type quantizeStep struct {
	layer    int8Layer
	w        int8Weight
	q, scale *tensor.Tensor
}

// disposeSteps disposes the tensors of steps not installed.
func disposeSteps(steps []quantizeStep) {
	for _, s := range steps {
		s.q.Dispose()
		s.scale.Dispose()
	}
}

// quantizers lists the int8Layers of m and its submodules, each once.
func quantizers(m Module) []int8Layer {
	var out []int8Layer
	seen := map[int8Layer]bool{}
	var walk func(Module)
	walk = func(m Module) {
		if q, ok := m.(int8Layer); ok && !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
		if p, ok := m.(Parent); ok {
			for _, c := range p.Children() {
				walk(c.Module)
			}
		}
	}
	walk(m)
	return out
}

// setWeight replaces the tensor of parameter name by t in l's list, and
// the buffer name+"_scale" by scale: added, replaced, or (scale nil)
// removed.
func (l *layer) setWeight(name string, t, scale *tensor.Tensor) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.params {
		if l.params[i].Name == name {
			l.params[i].T = t
		}
	}
	sname := name + "_scale"
	for i, b := range l.buffers {
		if b.Name == sname {
			if scale == nil {
				l.buffers = append(l.buffers[:i:i], l.buffers[i+1:]...)
			} else {
				l.buffers[i].T = scale
			}
			return
		}
	}
	if scale != nil {
		l.buffers = append(l.buffers, optim.Param{Name: sname, T: scale})
	}
}

// weightDType is the dtype a layer whose weight is w takes its input in:
// w's, or float32 for an int8 (quantized) weight.
func weightDType(w *tensor.Tensor) tensor.DType {
	if d := dtypeOf(w); d != tensor.Int8 {
		return d
	}
	return tensor.Float32
}

// affine returns y·scale + bias, where scale (a quantized layer's channel
// scales) and bias are not nil, and frees y and every intermediate: a
// layer's raw product, consumed as it is made. In a fused group the
// product's own result is then never written (see tensor's fusion).
func affine(e *tensor.Engine, y, scale, bias *tensor.Tensor) *tensor.Tensor {
	if scale != nil {
		y = consumed(e.Mul(y, scale), y)
	}
	if bias != nil {
		y = consumed(e.Add(y, bias), y)
	}
	return y
}

// consumed returns r after freeing used, the intermediate r was computed
// from (a tape keeps what its rules need).
func consumed(r, used *tensor.Tensor) *tensor.Tensor {
	used.Dispose()
	return r
}

func (l *Linear) int8Weights() []int8Weight {
	return []int8Weight{{name: "weight", t: l.weight, scale: l.scale, axis: 0}}
}

func (l *Linear) setInt8(name string, t, scale *tensor.Tensor) {
	l.setWeight(name, t, scale)
	l.weight, l.scale = t, scale
}

func (l *Conv2D) int8Weights() []int8Weight {
	return []int8Weight{{name: "weight", t: l.weight, scale: l.scale, axis: 3}}
}

func (l *Conv2D) setInt8(name string, t, scale *tensor.Tensor) {
	l.setWeight(name, t, scale)
	l.weight, l.scale = t, scale
}

func (l *Embedding) int8Weights() []int8Weight {
	return []int8Weight{{name: "weight", t: l.weight, scale: l.scale, axis: 0}}
}

func (l *Embedding) setInt8(name string, t, scale *tensor.Tensor) {
	l.setWeight(name, t, scale)
	l.weight, l.scale = t, scale
}

func (l *MultiheadAttention) int8Weights() []int8Weight {
	return []int8Weight{{name: "in_proj_weight", t: l.inW, scale: l.inScale, axis: 0},
		{name: "out_proj.weight", t: l.outW, scale: l.outScale, axis: 0}}
}

func (l *MultiheadAttention) setInt8(name string, t, scale *tensor.Tensor) {
	l.setWeight(name, t, scale)
	if name == "in_proj_weight" {
		l.inW, l.inScale = t, scale
	} else {
		l.outW, l.outScale = t, scale
	}
}
