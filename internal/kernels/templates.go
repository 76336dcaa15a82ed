package kernels

import (
	"fmt"
	"strings"
	"text/template"

	"github.com/wgtensor/wgtensor/shaders"
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
