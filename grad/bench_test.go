package grad

import (
	"context"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// BenchmarkForward times the forward pass of a small two-layer network
// (model.forward: 5 ops) without any tape, beside a tape that is not
// recording, and recording on a tape (which saves what the rules need,
// then is disposed). Every 64 passes the result is read back, so that the
// GPU keeps up.
func BenchmarkForward(b *testing.B) {
	run := func(b *testing.B, e *tensor.Engine, pass func(e *tensor.Engine, m model) *tensor.Tensor) {
		m := newModel(e)
		defer m.Dispose()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			y := pass(e, m)
			if i++; i%64 == 0 {
				if _, err := y.Float32s(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			y.Dispose()
		}
	}
	b.Run("no_tape", func(b *testing.B) {
		run(b, testgpu.Engine(b), func(e *tensor.Engine, m model) *tensor.Tensor { return m.forward(e) })
	})
	b.Run("idle_tape", func(b *testing.B) {
		e := testgpu.Engine(b)
		tape := NewTape(e)
		defer tape.Dispose()
		if err := tape.Record(func() error { return nil }); err != nil {
			b.Fatal(err)
		}
		run(b, e, func(e *tensor.Engine, m model) *tensor.Tensor { return m.forward(e) })
	})
	b.Run("recording", func(b *testing.B) {
		run(b, testgpu.Engine(b), func(e *tensor.Engine, m model) *tensor.Tensor {
			y, _ := tidy.Run(e, func() (*tensor.Tensor, error) {
				tape := NewTape(e) // disposed with the scope
				var y *tensor.Tensor
				err := tape.Record(func() error { y = m.forward(e); return y.Err() })
				return y, err
			})
			return y
		})
	})
}
