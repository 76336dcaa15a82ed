package kernels

// convVariants lists the Conv2D kernels of CPU adapters (Conv2D.CPU)
// that tensor/ produces: the Vec4 kernel of each product, Narrow or not
// (the input's gradient with a stride of 1, Unit, too), and the scalar
// kernel's forward product and filter gradient, which read B by vec4s,
// and the forward product of int8 and half-width filters and images.
// The other Conv2D variants are in variants.
func convVariants() []variant {
	var vs []variant
	add := func(name string, k Conv2D) {
		vs = append(vs, variant{Name: name, Kernel: k, Spec: k.Spec(), ParamsLen: len((&Conv2DParams{}).Bytes())})
	}
	for _, op := range convOps {
		for _, narrow := range []bool{false, true} {
			add("conv2d_"+string(op)+"_vec4_cpu"+flag(narrow, "_narrow"), Conv2D{Op: op, Vec4: true, CPU: true, Narrow: narrow})
			if op == ConvInput {
				add("conv2d_input_vec4_cpu"+flag(narrow, "_narrow")+"_unit", Conv2D{Op: op, Vec4: true, CPU: true, Narrow: narrow, Unit: true})
			}
		}
	}
	add("conv2d_forward_cpu_b4", Conv2D{Op: ConvForward, CPU: true, B4: true})
	add("conv2d_filter_cpu_b4", Conv2D{Op: ConvFilter, CPU: true, B4: true})
	// Int8 filters: the forward product's three ways of reading B.
	add("conv2d_forward_vec4_cpu_f_int8", Conv2D{Op: ConvForward, Vec4: true, CPU: true, Filter: Int8})
	add("conv2d_forward_cpu_b4_f_int8", Conv2D{Op: ConvForward, CPU: true, B4: true, Filter: Int8})
	add("conv2d_forward_f_int8", Conv2D{Op: ConvForward, Filter: Int8})
	// Half-width images and filters: the forward product's three ways.
	add("conv2d_forward_vec4_cpu_x_float16_f_float16", Conv2D{Op: ConvForward, Vec4: true, CPU: true, Input: Float16, Filter: Float16})
	add("conv2d_forward_cpu_b4_x_bfloat16_f_bfloat16", Conv2D{Op: ConvForward, CPU: true, B4: true, Input: BFloat16, Filter: BFloat16})
	add("conv2d_forward_x_float16_f_float16", Conv2D{Op: ConvForward, Input: Float16, Filter: Float16})
	return vs
}
