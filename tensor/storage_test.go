package tensor_test

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
)

// stealOnCheck makes the first op on e or readback of victim that has
// checked its inputs dispose victim right then, as another goroutine may, and create a
// tensor of victim's size with thief: if victim's buffer went back to the
// pool, the new tensor gets it (the pool hands out the buffer released
// last) and overwrites it with -7s. It returns the new tensor, set once the
// hook ran.
func stealOnCheck(e, thief *tensor.Engine, victim *tensor.Tensor) *stolen {
	s := &stolen{}
	var ran atomic.Bool
	hook := func() {
		if ran.CompareAndSwap(false, true) { // not again for thief's own op
			victim.Dispose()
			s.t = thief.FromFloat32s(slices.Repeat([]float32{-7}, victim.Size()))
		}
	}
	tensor.OnChecked(e, hook)
	tensor.OnChecked(victim.Engine(), hook) // a readback's hook is its tensor's engine's
	return s
}

type stolen struct{ t *tensor.Tensor }

// A tensor disposed while an op or a readback that already checked it is
// still reading it: the reader sees its values, and the tensor made at
// that moment keeps its own. Every kind of reader (fused elementwise ops,
// views, ops that dispatch their own kernels, the three readbacks) meets
// every kind of input (uploaded, pending in another engine's fusion group,
// pending in the reader's own).
func TestDisposeDuringAReadKeepsTheValues(t *testing.T) {
	d := testgpu.Open(t)
	vals := make([]float32, 64)
	for i := range vals {
		vals[i] = float32(i + 1)
	}
	twice := func(v []float32) []float32 {
		out := make([]float32, len(v))
		for i, x := range v {
			out[i] = 2 * x
		}
		return out
	}
	inputs := []struct {
		name string
		make func(e, other *tensor.Engine, base *tensor.Tensor) *tensor.Tensor
		want []float32
	}{
		{"uploaded", func(e, _ *tensor.Engine, _ *tensor.Tensor) *tensor.Tensor { return e.FromFloat32s(vals) }, vals},
		{"pending in another engine", func(_, other *tensor.Engine, base *tensor.Tensor) *tensor.Tensor { return other.Add(base, base) }, twice(vals)},
		{"pending in its own engine", func(e, _ *tensor.Engine, base *tensor.Tensor) *tensor.Tensor { return e.Add(base, base) }, twice(vals)},
	}
	// op returns the tensor it makes of x; read, the values it reads.
	readers := []struct {
		name string
		op   func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor
		read func(t *testing.T, x *tensor.Tensor) ([]float32, error)
		want func(x []float32) []float32
	}{
		{name: "add", op: func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Add(x, x) }, want: twice},
		{name: "reshape", op: func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Reshape(x, 8, 8) }},
		{name: "clone", op: (*tensor.Engine).Clone},
		{name: "stack", op: func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Stack(0, x, x) },
			want: func(x []float32) []float32 { return slices.Concat(x, x) }},
		{name: "sum", op: func(e *tensor.Engine, x *tensor.Tensor) *tensor.Tensor { return e.Sum(x, false) },
			want: func(x []float32) []float32 {
				var s float32
				for _, v := range x {
					s += v
				}
				return []float32{s}
			}},
		{name: "Float32s", read: func(t *testing.T, x *tensor.Tensor) ([]float32, error) { return x.Float32s(ctxT(t)) }},
		{name: "Data", read: func(t *testing.T, x *tensor.Tensor) ([]float32, error) {
			b, err := x.Data().Await(ctxT(t))
			return tensor.Float32sFromBytes(b), err
		}},
		{name: "ReadInto", read: func(t *testing.T, x *tensor.Tensor) ([]float32, error) {
			v := make([]float32, x.Size())
			return v, tensor.ReadInto(ctxT(t), x, v)
		}},
	}
	for _, in := range inputs {
		for _, r := range readers {
			t.Run(in.name+"/"+r.name, func(t *testing.T) {
				e, other := testgpu.EngineOn(t, d), testgpu.EngineOn(t, d)
				base := other.FromFloat32s(vals)
				defer base.Dispose()
				x := in.make(e, other, base)
				require.NoError(t, x.Err())
				s := stealOnCheck(e, other, x)
				want := in.want
				if r.want != nil {
					want = r.want(want)
				}
				var got []float32
				var err error
				if r.op != nil {
					y := r.op(e, x)
					got, err = y.Float32s(ctxT(t))
					y.Dispose()
				} else {
					got, err = r.read(t, x)
				}
				require.NotNil(t, s.t, "the hook ran")
				defer s.t.Dispose()
				require.True(t, x.IsDisposed())
				require.NoError(t, err, "the reader checked its input before it was disposed")
				assert.Equal(t, want, got, "the reader sees its input's values")
				assert.Equal(t, slices.Repeat([]float32{-7}, len(vals)), f32s(t, s.t), "the tensor made meanwhile keeps its own")
			})
		}
	}
}

// Whatever the interleaving, a reader on one goroutine of tensors that
// another goroutine disposes at once, and replaces with other data, sees
// their values or ErrDisposed. (The test above builds each interleaving;
// this one lets the scheduler pick, and asserts only what holds for all.)
func TestDisposeRacingReadersOnAnotherGoroutine(t *testing.T) {
	d := testgpu.Open(t)
	maker, reader := testgpu.EngineOn(t, d), testgpu.EngineOn(t, d)
	vals := iota32(256)
	twice, quad := make([]float32, len(vals)), make([]float32, len(vals))
	for i, v := range vals {
		twice[i], quad[i] = 2*v, 4*v
	}
	check := func(what string, v []float32, err error, want ...[]float32) {
		switch {
		case err != nil:
			if !errors.Is(err, tensor.ErrDisposed) {
				t.Errorf("%s: %v", what, err)
			}
		case !slices.ContainsFunc(want, func(w []float32) bool { return slices.Equal(v, w) }):
			t.Errorf("%s: read %v..., another tensor's values", what, v[:4])
		}
	}
	xs := make(chan *tensor.Tensor)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for x := range xs {
			var y *tensor.Tensor
			switch x.ID() % 3 {
			case 0:
				v, err := x.Float32s(ctxT(t))
				check("read", v, err, vals, twice)
				continue
			case 1:
				y = reader.Reshape(x, 16, 16)
			default:
				y = reader.Add(x, x)
			}
			if y.Err() != nil {
				check("op", nil, y.Err())
				continue
			}
			v, err := y.Float32s(ctxT(t))
			y.Dispose()
			assert.NoError(t, err, "reading the op's own result")
			check("op", v, err, vals, twice, quad)
		}
	}()
	for i := range 1000 {
		x := maker.FromFloat32s(vals)
		if i%2 == 1 { // a result still pending in maker's fusion group
			a := x
			x = maker.Add(a, a)
			a.Dispose()
		}
		xs <- x
		x.Dispose()
		maker.FromFloat32s(slices.Repeat([]float32{-7}, len(vals))).Dispose()
	}
	close(xs)
	<-done
}
