package safetensors_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/wgtensor/wgtensor/safetensors"
)

// A file written a tensor at a time, then its header read back: the data
// is never held whole by either side.
func Example() {
	var file bytes.Buffer
	w, err := safetensors.NewWriter(&file, []safetensors.TensorInfo{
		{Name: "0.weight", DType: safetensors.F32, Shape: []int{2, 2}},
		{Name: "0.bias", DType: safetensors.F32, Shape: []int{2}},
	}, map[string]string{"epoch": "3"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range []float32{1, 2, 3, 4, 0.5, -0.5} {
		binary.Write(w, binary.LittleEndian, v) // to the file as it comes
	}
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}

	r := bytes.NewReader(file.Bytes())
	h, err := safetensors.ReadHeader(r, r.Size())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("metadata", h.Metadata, "data at", h.DataOffset)
	for _, t := range h.Tensors {
		raw := make([]byte, t.Bytes())
		r.ReadAt(raw, h.DataOffset+t.Begin)
		v := make([]float32, t.Elements())
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		fmt.Println(t.Name, t.DType, t.Shape, v)
	}
	// Output:
	// metadata map[epoch:3] data at 168
	// 0.weight F32 [2 2] [1 2 3 4]
	// 0.bias F32 [2] [0.5 -0.5]
}
