package optim

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/wgtensor/wgtensor/tensor"
)

// kernelSpec describes an update kernel: it reads the gradient g, updates
// the parameter p and the state slots in place, element by element, with
// the hyperparameters as f32 members of a uniform block (so that new
// values between steps compile nothing).
type kernelSpec struct {
	name    string   // "sgd", "adam"
	members []string // the hyperparameters, in the order of update.params
	slots   []string // the state arrays, bound after the parameter
	// body is the WGSL of one element's update, reading and writing g and
	// p (vars), reading u.<member> and reading and writing <slot>[i]. The
	// batched kernel renames u to the parameter's hyperparameters and each
	// slot to the parameter's binding, and changes nothing else: each
	// element's float32 operations are the same, in the same order,
	// whichever parameters share a dispatch.
	body string
}

// newKernelSpec is the update called name with the given hyperparameters
// and state slots, whose body is the template name.wgsl filled with a
// map telling, for each of slots, that the kernel has it, each line
// indented by a tab (the kernels' loop body).
func newKernelSpec(name string, members, slots []string) kernelSpec {
	has := map[string]bool{}
	for _, slot := range slots {
		has[slot] = true
	}
	var body strings.Builder
	for line := range strings.Lines(fill(name+".wgsl", has)) {
		body.WriteString("\t" + line)
	}
	return kernelSpec{name: name, members: members, slots: slots, body: body.String()}
}

// updateWorkgroup is the workgroup size of the update kernels.
const updateWorkgroup = 256

// elemsPerThread is how many elements of a parameter one invocation of an
// update kernel updates on a CPU adapter, the launch's invocation count
// apart (so that neighbouring invocations touch neighbouring elements):
// there each invocation costs more than its few loads and stores
// (lavapipe's SGD over 200,704 elements took 1.1-1.3 ms with one element
// per invocation, 0.8-0.9 ms with four), so fewer invocations do the same
// work sooner. On a GPU a batched kernel's invocation takes one element of
// each parameter (see base.run).
const elemsPerThread = 4

// maxBatch bounds the parameters one update dispatch binds, whatever the
// device allows: the kernel has a function per parameter, and its
// uniform block a record per parameter.
const maxBatch = 32

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

// kernel generates s's WGSL for one tensor (the per-parameter kernel:
// the Accumulator's, and the reference the batched kernel is tested
// against) over elements of width floats: 1, or 4 for tensors whose size
// is a multiple of four, which the kernel reads and writes as vec4s (a
// CPU adapter pays per load, whatever its width; the bodies are
// componentwise, so each element's result is the same). Bindings: the
// gradient (read), the parameter and the slots (read_write,
// Launch.InOut), the uniform block, whose first member after the header
// is the number of elements (u32, in units of width), then s.members;
// each invocation updates elemsPerThread of them (see threadsFor). Its
// WGSL is update.wgsl around s.body.
func (s kernelSpec) kernel(width int) tensor.Kernel {
	src := fill("update.wgsl", struct {
		Elem           string
		Members, Slots []string
		Workgroup      int
		Trips          int
		Body           string
	}{elemType(width), s.members, s.slots, updateWorkgroup, elemsPerThread, s.body})
	name := "optim." + s.name
	return tensor.Kernel{Name: name, Key: fmt.Sprintf("%s/%s/x%d", name, strings.Join(s.slots, ","), width), Source: src, Workgroup: updateWorkgroup,
		Work: float64(elemsPerThread*width) * tensor.DefaultInvocationWork}
}

// elemType is the WGSL type of an update kernel's elements of width
// floats.
func elemType(width int) string {
	if width == 4 {
		return "vec4<f32>"
	}
	return "f32"
}

// batchLimit is the most parameters an update kernel with the given
// number of state slots updates per dispatch on e's device: each binds
// its gradient, itself and its slots as storage buffers, and a dispatch
// binds at most MaxStorageBuffersPerShaderStage (32 on lavapipe, 16 on
// GL: 8 and 4 parameters of Adam). At least 1: WebGPU guarantees 8
// storage buffers, and an update binds at most 5 per parameter.
func batchLimit(e *tensor.Engine, slots int) int {
	return batchLimitFor(e.Device().Limits().MaxStorageBuffersPerShaderStage, slots)
}

// batchLimitFor is batchLimit for a device that binds at most storage
// storage buffers per dispatch.
func batchLimitFor(storage uint32, slots int) int {
	perParam := 2 + slots
	return max(1, min(maxBatch, int(storage)/perParam))
}

// batchWidth is the number of parameters the kernel run on n of them
// binds, for a device that binds at most limit: the next power of two, or
// limit, so that a few kernels serve every batch (the unused ones are
// padded, see base.run).
func batchWidth(n, limit int) int {
	k := 1
	for k < n {
		k *= 2
	}
	return min(k, limit)
}

// hyperVec4s is the number of vec4s of the uniform block that hold the
// hyperparameters of one parameter.
func (s kernelSpec) hyperVec4s() int { return max(1, (len(s.members)+3)/4) }

var (
	uniformRef = regexp.MustCompile(`\bu\.`)
	slotRef    = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)\[`)
)

// bodyFor is s.body for parameter j of a batch: u.<member> is h.<member>,
// the parameter's hyperparameters, and <slot>[i] is <slot>_j[i].
func (s kernelSpec) bodyFor(j int) string {
	body := uniformRef.ReplaceAllString(s.body, "h.")
	return slotRef.ReplaceAllStringFunc(body, func(m string) string {
		name := strings.TrimSuffix(m, "[")
		for _, slot := range s.slots {
			if name == slot {
				return fmt.Sprintf("%s_%d[", slot, j)
			}
		}
		return m
	})
}

// batchKernel generates s's WGSL updating k parameters per dispatch over
// elements of width floats: 1, or 4 for tensors whose size is a multiple
// of four, which the kernel reads and writes as vec4s (a CPU adapter pays
// per load, whatever its width; the bodies are componentwise, so each
// element's result is the same).
//
// Bindings: the k gradients (read, Launch.Inputs), then for each
// parameter j the parameter and its slots (read_write: Launch.InOut, and
// Launch.Outputs for the unused ones of a smaller batch), then the
// uniform block. After the header it holds trips (u32, then 12 bytes of
// padding), the parameters' sizes in units of width, four per vec4
// (info[j/4][j%4]; 0 for an unused one), then their hyperparameters, H
// vec4s each (hp[j·H .. j·H+H-1], f32s in the order of s.members).
//
// Invocation t of the launch's T (Launch.Threads, with T·trips at least
// the largest size) updates elements t, t+T, ..., t+(trips-1)·T of each
// parameter in turn, those below its size: the per-parameter kernel's
// loop, once per parameter. The parameters are walked one after the
// other with constant indices, not chosen per invocation: a CPU adapter
// (lavapipe, llvmpipe) runs invocations as the lanes of a vector and
// executes every branch of an if or a switch for every vector, masked,
// so a kernel choosing its parameter per invocation would cost every
// parameter's update for each invocation (measured: 3× the per-parameter
// kernels' time for 8 parameters). This one costs, per vector and
// parameter, its trips until every lane is past the parameter's size:
// one, masked, past a smaller parameter's size (see base.batches). The
// trip count is a uniform, not a constant: unrolled, k parameters'
// bodies compile in time superlinear in k on lavapipe (1.6 s for 8
// Adam parameters, against 0.2 s as a loop), for a few percent of speed.
// Its WGSL is update_batch.wgsl around s.bodyFor(j) for each parameter j.
func (s kernelSpec) batchKernel(width, k int) tensor.Kernel {
	h4 := s.hyperVec4s()
	per := 1 + len(s.slots)
	params := make([]batchParam, k)
	for j := range params {
		p := batchParam{J: j, Binding: k + j*per, Size: word{j / 4, j % 4}, Body: s.bodyFor(j)}
		for q, slot := range s.slots {
			p.Slots = append(p.Slots, batchSlot{Name: fmt.Sprintf("%s_%d", slot, j), Binding: p.Binding + 1 + q})
		}
		for i := range s.members {
			p.Hyper = append(p.Hyper, word{j*h4 + i/4, i % 4})
		}
		params[j] = p
	}
	src := fill("update_batch.wgsl", struct {
		Elem                  string
		Members               []string
		InfoVec4s, HyperVec4s int
		Params                []batchParam
		Uniform               int
		Workgroup             int
	}{elemType(width), s.members, (k + 3) / 4, k * h4, params, k + k*per, updateWorkgroup})
	name := "optim." + s.name
	return tensor.Kernel{Name: name, Key: fmt.Sprintf("%s/%s/x%d/k%d", name, strings.Join(s.slots, ","), width, k), Source: src, Workgroup: updateWorkgroup}
}

// batchParam is parameter J of a batched kernel: the binding of the
// parameter (Binding) and of its slots, the words of the uniform block
// that hold its size and its hyperparameters, and its update.
type batchParam struct {
	J, Binding int
	Slots      []batchSlot
	Size       word
	Hyper      []word
	Body       string
}

// batchSlot is a state slot of a parameter of a batched kernel.
type batchSlot struct {
	Name    string
	Binding int
}

// word is the word at u.<array>[Vec][Lane] of a uniform block.
type word struct{ Vec, Lane int }

// cpuWaste is the masked work, in floats, that a CPU adapter may spend in
// a batched update for each parameter it takes beside the first, instead
// of a dispatch of its own: a vector of invocations past a smaller
// parameter's size (or an unused slot) runs one trip of its loop, masked,
// at about the cost of a real one, and a dispatch costs lavapipe about as
// much as updating 4-8 thousand floats with Adam (25-30 µs of latency).
const cpuWaste = 4096

// cpuLoopCost: a CPU adapter runs a batched kernel's loop, whose trip
// count is a uniform, about a tenth slower than the per-parameter
// kernel's, which it unrolls (see kernelSpec.batchKernel). base.batches
// counts a tenth of the elements of a launch of several parameters as
// waste: large parameters keep launches of their own.
const cpuLoopCost = 10

// masked is the number of invocation trips over elements of a parameter
// of n elements (units of width) that a CPU adapter runs masked in a
// launch of threads invocations of elemsPerThread trips: an invocation
// runs one past its last element, unless it took all its trips.
func masked(n, threads int) int {
	return threads - min(threads, max(0, n-(elemsPerThread-1)*threads))
}

// f32s converts hyperparameters, computed in float64, to a kernel's
// params.
func f32s(vs ...float64) []float32 {
	out := make([]float32, len(vs))
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
