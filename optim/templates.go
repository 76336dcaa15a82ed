package optim

import (
	"embed"
	"fmt"
	"strings"
	"text/template"
)

// The optimizers' WGSL, filled in by Go's text/template: the update
// kernels of one parameter (update.wgsl) and of a batch of them
// (update_batch.wgsl) around each optimizer's update of one element
// (sgd.wgsl, adam.wgsl, rmsprop.wgsl, accumulate.wgsl), the Accumulator's
// zero fill (zero.wgsl), and ClipGradNorm's three kernels (clip_norm.wgsl,
// clip_total.wgsl, clip_scale.wgsl, sharing clip.wgsl). testdata/ holds
// the kernels they produce, batches of 2 and 4 standing for the wider ones
// (see golden_internal_test.go, whose tests also validate and compile
// every variant): after changing one, run go test ./optim -update and
// review the diff.
//
//go:embed *.wgsl
var wgslFiles embed.FS

// kernels holds every template of wgslFiles, each named by its file name.
var kernels = template.Must(template.New("").Funcs(template.FuncMap{
	"add": func(a, b int) int { return a + b },
}).ParseFS(wgslFiles, "*.wgsl"))

// fill executes the template name with data. The templates are parsed and
// checked when the package loads and their data is the package's own, so a
// failure is a bug here: fill panics.
func fill(name string, data any) string {
	var b strings.Builder
	if err := kernels.ExecuteTemplate(&b, name, data); err != nil {
		panic(fmt.Sprintf("optim: %s: %v", name, err))
	}
	return b.String()
}

// seq is 0, 1, ..., n-1.
func seq(n int) []int {
	s := make([]int, max(n, 0))
	for i := range s {
		s[i] = i
	}
	return s
}
