package kernels

import (
	"fmt"
	"strings"
	"text/template"

	"github.com/wgtensor/wgtensor/shaders"
	"github.com/wgtensor/wgtensor/wgpu"
)

// templates holds every template of shaders.Sources, the fixed kernel
// families' WGSL, each named by its file name and filled in by Go's
// text/template from the same constants the dispatch code uses (see the
// package doc).
var templates = template.Must(template.New("").Funcs(templateFuncs).ParseFS(shaders.Sources, "*.wgsl"))

// templateFuncs are the functions the templates call.
var templateFuncs = template.FuncMap{
	"at":    at,
	"seq":   seq,
	"down":  down,
	"lanes": func() []string { return []string{"x", "y", "z", "w"} },
	"pass":  func(u int, body string) map[string]any { return map[string]any{"U": u, "Body": body} },
}

// fill executes the template name with data. The templates are parsed and
// checked when the package loads and their data is the package's own, so a
// failure is a bug here: fill panics.
func fill(name string, data any) string {
	var b strings.Builder
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		panic(fmt.Sprintf("kernels: %s: %v", name, err))
	}
	return b.String()
}

// seq is 0, 1, ..., n-1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// down is n-1, ..., 1, 0.
func down(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = n - 1 - i
	}
	return s
}

// mustRead returns the embedded file name, a kernel's source used as is.
func mustRead(name string) string {
	b, err := shaders.Sources.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("kernels: %v", err))
	}
	return string(b)
}

// Numerics returns the numerics library (shaders/numerics.wgsl) for a
// device whose float32 arithmetic behaves as f: the WGSL behind the
// elementwise ops whose results must not depend on the driver at the
// edges: NaN, infinities, signed zeros, subnormals and out-of-range
// conversions. Every op that calls one of its functions names the whole
// library as its helpers, so a fused program includes it once
// (Elementwise deduplicates helpers by their text).
//
// The rules it follows:
//   - NaN, sign and order are read from the bits, never from a float
//     comparison: drivers may drop NaN in max, min, clamp and a select on a
//     comparison, may treat a subnormal as zero in a comparison, and the
//     backends disagree on != with NaN.
//   - Values are selected by integer conditions, so that no compiler can
//     merge a comparison and a select into a max or min.
//   - Conversions to integers never see an out-of-range value, and integer
//     division never divides by zero or overflows: either may trap or be
//     folded into anything by the driver.
//   - Transcendental functions reduce their argument themselves, so that
//     subnormal arguments and results are exact or within a few ulp,
//     however the driver implements exp2, log2, sin and cos.
//   - Extra precision comes from exact products of 12-bit halves (split
//     off with a bit mask) and Sterbenz's lemma, never from compensated
//     sums such as Fast2Sum: Mesa folds (a + b) - a into b.
//
// The library adapts to the device's float32 arithmetic. Where the device
// divides or takes square roots inexactly, div_ and sqrt_ correct the
// hardware's result with fused multiply-adds (fma) to the correctly
// rounded one. Where it flushes subnormals, daz_ and ftz_ flush them
// explicitly: the tensor package wraps each arithmetic op's operands in
// daz_ and its result in ftz_, so that code reading the bits sees what the
// hardware's arithmetic sees, and every result is the IEEE result of the
// flushed operands, flushed.
func Numerics(f wgpu.Float32Behavior) string { return fill("numerics.wgsl", f) }
