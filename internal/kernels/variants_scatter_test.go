package kernels

import "fmt"

// scatterVariants lists ScatterAdd's vec4 kernels, by element and by
// index, for each type (the scalar ones are listed beside the other
// families).
func scatterVariants() []variant {
	var vs []variant
	for _, T := range types {
		for _, byIndex := range []bool{false, true} {
			k := ScatterAdd{T: T, ByIndex: byIndex, Vec4: true}
			vs = append(vs, variant{Name: fmt.Sprintf("scatter_add_%s%s_vec4", T, flag(byIndex, "_by_index")), Kernel: k, Spec: k.Spec(),
				ParamsLen: len((&ScatterAddParams{}).Bytes())})
		}
	}
	return vs
}
