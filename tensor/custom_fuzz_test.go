package tensor_test

import (
	"fmt"
	"strings"

	"github.com/wgtensor/wgtensor/tensor"
)

// customKernel builds, for FuzzOpPrograms, a kernel over nin inputs and
// nout outputs whose source is one of a few: valid, not compiling, or
// declaring another workgroup size than the Kernel's.
func customKernel(nin, nout, variant int) tensor.Kernel {
	var b strings.Builder
	b.WriteString("struct Params { first: u32, end: u32, row: u32, threads: u32 }\n")
	for i := range nin {
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read> in%d: array<u32>;\n", i, i)
	}
	for i := range nout {
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read_write> out%d: array<u32>;\n", nin+i, i)
	}
	fmt.Fprintf(&b, "@group(0) @binding(%d) var<uniform> p: Params;\n", nin+nout)
	b.WriteString("@compute @workgroup_size(64)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n")
	b.WriteString("\tlet i = p.first + id.x + id.y * p.row;\n\tif (i >= p.end) { return; }\n\tvar v = i;\n")
	for i := range nin {
		fmt.Fprintf(&b, "\tv += in%d[i];\n", i)
	}
	for i := range nout {
		fmt.Fprintf(&b, "\tout%d[i] = v;\n", i)
	}
	b.WriteString("}\n")
	k := tensor.Kernel{Name: "fuzz_custom", Source: b.String(), Workgroup: 64}
	switch variant {
	case 1:
		k.Name, k.Source = "fuzz_broken", strings.Replace(k.Source, "fn main(", "fn main((", 1)
	case 2:
		k.Workgroup = 0 // 256, not the shader's 64
	}
	return k
}

// custom runs a custom kernel over random inputs, outputs, threads and
// params: one result per output, each valid or carrying an error that
// names the kernel.
func (p *programRun) custom() {
	r := p.r
	e := p.engine()
	in := p.args(r.intn(3))
	outs := make([]tensor.Out, r.intn(3))
	for i := range outs {
		outs[i] = tensor.Out{Shape: r.shape(), DType: r.dtype(), Zeroed: r.intn(2) == 0}
	}
	threads := r.dim()
	if threads > 1<<17 {
		threads = tensor.MaxElements + 1 // refused; a valid launch this large would run for minutes
	}
	params := make([]any, r.intn(3))
	for i := range params {
		params[i] = []any{float32(r.float()), int32(r.dim()), uint32(r.byte()), r.dim()}[r.intn(4)]
	}
	k := customKernel(len(in), len(outs), r.intn(4))
	ys := e.RunKernel(k, tensor.Launch{Inputs: in, Outputs: outs, Threads: threads, Params: params})
	if len(ys) != max(1, len(outs)) {
		p.t.Fatalf("RunKernel returned %d tensors for %d outputs", len(ys), len(outs))
	}
	for _, y := range ys {
		p.check(`kernel "`+k.Name+`"`, in, y)
	}
}
