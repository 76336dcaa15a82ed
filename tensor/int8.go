package tensor

import (
	"context"
)

// FromInt8s creates an int8 tensor holding values, four to a 32-bit word
// (one byte an element).
func (e *Engine) FromInt8s(values []int8, shape ...int) *Tensor {
	return fromPacked(e, callerSite(), "from int8s", len(values), Int8, shape, func(data []byte) {
		for i, v := range values {
			data[i] = byte(v)
		}
	})
}

// Int8s reads an int8 tensor back, blocking until it arrives or ctx ends.
func (t *Tensor) Int8s(ctx context.Context) ([]int8, error) {
	if err := checkRead(t, Int8, -1); err != nil {
		return nil, err
	}
	return readInt8(ctx, t)
}

// readInt8 reads an int8 tensor's values.
func readInt8(ctx context.Context, t *Tensor) ([]int8, error) {
	data, err := readStorage(ctx, t)
	if err != nil {
		return nil, err
	}
	out := make([]int8, t.Size())
	for i := range out {
		out[i] = int8(data[i])
	}
	return out, nil
}
