package kernels

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/shaders"
	"github.com/wgtensor/wgtensor/wgpu"
)

// TestFileOfNamesTheTemplateFilled generates every variant again from
// templates that record their name as they are filled, and checks that
// shaders.FileOf names the one template each variant's key was filled from
// (none for the kernels generated in Go), and that every template is some
// variant's but matmul.wgsl and philox.wgsl, which are included in others,
// and numerics.wgsl, the helpers elementwise programs include (Numerics),
// and half.wgsl, the half-width conversions (Half).
func TestFileOfNamesTheTemplateFilled(t *testing.T) {
	var filled []string
	funcs := template.FuncMap{"record": func(name string) string { filled = append(filled, name); return "" }}
	recording := template.New("").Funcs(templateFuncs).Funcs(funcs)
	files, err := fs.Glob(shaders.Sources, "*.wgsl")
	require.NoError(t, err)
	for _, name := range files {
		src, err := shaders.Sources.ReadFile(name)
		require.NoError(t, err)
		template.Must(recording.New(name).Parse(`{{record "` + name + `"}}` + string(src)))
	}
	saved := templates
	templates = recording
	t.Cleanup(func() { templates = saved })

	used := map[string]bool{"matmul.wgsl": true, "philox.wgsl": true, "numerics.wgsl": true, "half.wgsl": true} // included by others
	for _, v := range variants() {
		filled = filled[:0]
		spec := v.Kernel.(interface{ Spec() wgpu.KernelSpec }).Spec()
		require.Equal(t, v.Spec.Source, spec.Source, "%s: the recording templates change the source", v.Name)
		file := shaders.FileOf(spec.Key)
		if file == "" {
			assert.Empty(t, filled, "%s: shaders.FileOf(%q) names no file", v.Name, spec.Key)
			continue
		}
		assert.Equal(t, []string{file}, filled, "%s: shaders.FileOf(%q)", v.Name, spec.Key)
		used[file] = true
	}
	for _, name := range files {
		assert.True(t, used[name], "no variant is filled from %s", name)
	}
}

// TestKeysAsShadersDocSays checks every variant's key against the forms
// that package shaders' doc gives, each a line of its key table.
func TestKeysAsShadersDocSays(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "shaders", "doc.go"))
	require.NoError(t, err)
	row := regexp.MustCompile(`(?m)^//\t(\S+\.wgsl|\(.*\))\s+(\S+)$`)
	var forms []*regexp.Regexp
	var texts []string
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		forms = append(forms, regexp.MustCompile("^"+keyForm(m[2])+"$"))
		texts = append(texts, m[2])
	}
	require.GreaterOrEqual(t, len(forms), 20, "the key table of shaders/doc.go")
	matched := make([]bool, len(forms))
	for _, v := range variants() {
		i := slices.IndexFunc(forms, func(f *regexp.Regexp) bool { return f.MatchString(v.Spec.Key) })
		if !assert.GreaterOrEqual(t, i, 0, "%s: shaders/doc.go gives no form of its key %q", v.Name, v.Spec.Key) {
			continue
		}
		matched[i] = true
	}
	for i, ok := range matched {
		assert.True(t, ok, "no variant's key has the form %s", texts[i])
	}
}

// keyForm is the regular expression of a key form of the doc: {Field} is
// any one part, [x] is optional and a|b is either.
func keyForm(form string) string {
	var b strings.Builder
	for i := 0; i < len(form); i++ {
		switch c := form[i]; c {
		case '{':
			i += strings.IndexByte(form[i:], '}')
			b.WriteString(`[^/+]+`)
		case '[':
			b.WriteString("(?:")
		case ']':
			b.WriteString(")?")
		case '|':
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}
