package grad

import (
	"errors"
	"testing"

	"github.com/wgtensor/wgtensor/internal/testgpu"
	"github.com/wgtensor/wgtensor/tensor"
	"github.com/wgtensor/wgtensor/tidy"
)

// A tape that saved w refuses gradients once w is assigned in place, also
// through a view sharing its storage; one assigned before the forward pass
// is fine.
func TestAssignedSavedTensorIsRefused(t *testing.T) {
	e := testgpu.Engine(t)
	for _, viaView := range []bool{false, true} {
		err := tidy.Do(e, func() error {
			x := e.FromFloat32s([]float32{1, 2}, 2)
			w := e.FromFloat32s([]float32{3, 4}, 2)
			if err := e.Assign(w, e.FromFloat32s([]float32{5, 6}, 2)); err != nil {
				return err // before recording: no harm
			}
			tape := NewTape(e)
			var y *tensor.Tensor
			if err := tape.Record(func() error { y = e.Mul(x, w); return y.Err() }); err != nil {
				return err
			}
			target := w
			if viaView {
				target = e.Reshape(w, 1, 2)
			}
			if err := e.Assign(target, e.Zeros(tensor.Float32, target.Shape()...)); err != nil {
				return err
			}
			_, err := tape.Gradients(y, []*tensor.Tensor{x}, &Options{Seed: e.Ones(tensor.Float32, 2)})
			if !errors.Is(err, ErrModified) {
				t.Errorf("view %v: gradients after w was assigned: got %v, want ErrModified", viaView, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
