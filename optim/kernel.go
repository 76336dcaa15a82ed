package optim

import (
	"fmt"
	"strings"

	"github.com/wgtensor/wgtensor/tensor"
)

// kernelSpec describes an update kernel: it reads the gradient g, updates
// the parameter p and the state slots in place, element by element, with
// the hyperparameters as f32 members of the uniform block (so that new
// values between steps compile nothing).
type kernelSpec struct {
	name    string   // "sgd", "adam"
	members []string // the uniform members after the header, in order
	slots   []string // the state arrays, bound after the parameter
	body    string   // WGSL reading g and p (vars) and u.<member>, slot[i]
}

// kernel generates s's WGSL. Bindings: the gradient (read), the parameter
// and the slots (read_write, Launch.InOut), the uniform block.
func (s kernelSpec) kernel() tensor.Kernel {
	var b strings.Builder
	b.WriteString("struct Params { first: u32, end: u32, row: u32, threads: u32")
	for _, m := range s.members {
		fmt.Fprintf(&b, ", %s: f32", m)
	}
	b.WriteString(" }\n")
	b.WriteString("@group(0) @binding(0) var<storage, read> grad_: array<f32>;\n")
	b.WriteString("@group(0) @binding(1) var<storage, read_write> param_: array<f32>;\n")
	for i, slot := range s.slots {
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read_write> %s: array<f32>;\n", i+2, slot)
	}
	fmt.Fprintf(&b, "@group(0) @binding(%d) var<uniform> u: Params;\n", len(s.slots)+2)
	b.WriteString(`@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let i = u.first + id.x + id.y * u.row;
	if (i >= u.end) { return; }
	var g = grad_[i];
	var p = param_[i];
`)
	b.WriteString(s.body)
	b.WriteString("\tparam_[i] = p;\n}\n")
	name := "optim." + s.name
	return tensor.Kernel{Name: name, Key: name + "/" + strings.Join(s.slots, ","), Source: b.String(), Workgroup: 256}
}

// f32s converts hyperparameters, computed in float64, to a kernel's
// params.
func f32s(vs ...float64) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = float32(v)
	}
	return out
}

// flag is 1 for true, 0 for false: a boolean hyperparameter as a member.
func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
