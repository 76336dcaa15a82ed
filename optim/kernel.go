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

// elemsPerThread is how many elements one invocation of an update kernel
// updates, Launch.Threads apart (so that neighbouring invocations touch
// neighbouring elements): on a CPU adapter each invocation costs more
// than its few loads and stores (lavapipe's SGD over 200,704 elements
// took 1.1-1.3 ms with one element per invocation, 0.8-0.9 ms with four),
// so fewer invocations do the same work sooner.
const elemsPerThread = 4

// widthFor is the width of the elements an update kernel takes for a
// parameter of n floats: vec4s where n is a multiple of four.
func widthFor(n int) int {
	if n%4 == 0 {
		return 4
	}
	return 1
}

// threadsFor is the number of invocations that update n elements.
func threadsFor(n int) int { return (n + elemsPerThread - 1) / elemsPerThread }

// kernel generates s's WGSL over elements of width floats: 1, or 4 for
// tensors whose size is a multiple of four, which the kernel reads and
// writes as vec4s (a CPU adapter pays per load, whatever its width; the
// bodies are componentwise, so each element's result is the same).
// Bindings: the gradient (read), the parameter and the slots (read_write,
// Launch.InOut), the uniform block, whose first member after the header
// is the number of elements (u32, in units of width); each invocation
// updates elemsPerThread of them (see threadsFor).
func (s kernelSpec) kernel(width int) tensor.Kernel {
	elem := "f32"
	if width == 4 {
		elem = "vec4<f32>"
	}
	var b strings.Builder
	b.WriteString("struct Params { first: u32, end: u32, row: u32, threads: u32, count: u32")
	for _, m := range s.members {
		fmt.Fprintf(&b, ", %s: f32", m)
	}
	b.WriteString(" }\n")
	fmt.Fprintf(&b, "@group(0) @binding(0) var<storage, read> grad_: array<%s>;\n", elem)
	fmt.Fprintf(&b, "@group(0) @binding(1) var<storage, read_write> param_: array<%s>;\n", elem)
	for i, slot := range s.slots {
		fmt.Fprintf(&b, "@group(0) @binding(%d) var<storage, read_write> %s: array<%s>;\n", i+2, slot, elem)
	}
	fmt.Fprintf(&b, "@group(0) @binding(%d) var<uniform> u: Params;\n", len(s.slots)+2)
	fmt.Fprintf(&b, `@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
	let t = u.first + id.x + id.y * u.row;
	if (t >= u.end) { return; }
	for (var k = 0u; k < %du; k++) {
	let i = t + k * u.threads;
	if (i >= u.count) { return; }
	var g = grad_[i];
	var p = param_[i];
`, elemsPerThread)
	b.WriteString(s.body)
	b.WriteString("\tparam_[i] = p;\n\t}\n}\n")
	name := "optim." + s.name
	return tensor.Kernel{Name: name, Key: fmt.Sprintf("%s/%s/x%d", name, strings.Join(s.slots, ","), width), Source: b.String(), Workgroup: 256,
		Work: float64(elemsPerThread*width) * tensor.DefaultInvocationWork}
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
