package callsite

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLibraryIsTheModulesPackagesButTestsCommandsAndExamples(t *testing.T) {
	assert.Equal(t, "github.com/wgtensor/wgtensor/", modulePrefix)
	for _, c := range []struct {
		fn, file string
		lib      bool
	}{
		{"github.com/wgtensor/wgtensor/tensor.(*Engine).Add", "/src/tensor/elementwise.go", true},
		{"github.com/wgtensor/wgtensor/nn.(*Linear).Forward", "/src/nn/linear.go", true}, // a package yet to come
		{"github.com/wgtensor/wgtensor/tensor.fromSlice[...]", "/src/tensor/create.go", true},
		{"github.com/wgtensor/wgtensor/tensor.TestX", "/src/tensor/x_test.go", false},
		{"github.com/wgtensor/wgtensor/tensor_test.helper", "/src/tensor/x_test.go", false},
		{"github.com/wgtensor/wgtensor/examples/hello.run", "/src/examples/hello/main.go", false},
		{"github.com/wgtensor/wgtensor/cmd/wgbench.run", "/src/cmd/wgbench/main.go", false},
		{"main.main", "/src/cmd/wgbench/main.go", false},
		{"github.com/someone/app.train", "/app/train.go", false},
		{"github.com/wgtensor/wgtensorx/a.f", "/x/a.go", false}, // another module sharing the prefix's letters
	} {
		assert.Equal(t, c.lib, library(runtime.Frame{Function: c.fn, File: c.file}), c.fn)
	}
}

// capture2 and capture1 stand for a user's helpers around the capture.
func capture2() Stack { return capture1() }

//go:noinline
func capture1() Stack { return Capture(0) }

func TestCaptureRecordsTheChainOfCallers(t *testing.T) {
	s := capture2()
	frames := s.Frames()
	require.GreaterOrEqual(t, len(frames), 3)
	assert.True(t, strings.HasSuffix(frames[0].Function, ".capture1"), frames[0].Function)
	assert.True(t, strings.HasSuffix(frames[1].Function, ".capture2"), frames[1].Function)
	assert.True(t, strings.HasSuffix(frames[2].Function, ".TestCaptureRecordsTheChainOfCallers"), frames[2].Function)
	assert.Equal(t, 0, User(frames), "a _test.go frame is the user's")
	assert.True(t, strings.HasPrefix(s.String(), "callsite/callsite_test.go:"), s.String())
	chain := s.Chain()
	assert.Contains(t, chain, "(callsite.capture1) ← callsite/callsite_test.go:")
	assert.Contains(t, chain, "(callsite.TestCaptureRecordsTheChainOfCallers)")
	assert.NotContains(t, chain, "testing.", "the chain stops at the test runner")
}

func TestZeroStackIsUnknown(t *testing.T) {
	var s Stack
	assert.Empty(t, s.Frames())
	assert.Equal(t, -1, User(nil))
	assert.Equal(t, "unknown", s.String())
	assert.Equal(t, "unknown", s.Chain())
}

func TestUserFrameFallsBackToTheOutermostWhenAllAreLibrary(t *testing.T) {
	frames := []runtime.Frame{
		{Function: "github.com/wgtensor/wgtensor/tensor.f", File: "/s/tensor/a.go", Line: 1},
		{Function: "github.com/wgtensor/wgtensor/nn.g", File: "/s/nn/b.go", Line: 2},
	}
	assert.Equal(t, 1, User(frames))
	frames = append(frames, runtime.Frame{Function: "app.main", File: "/app/main.go", Line: 3})
	assert.Equal(t, 2, User(frames))
	assert.Equal(t, "app/main.go:3", Line(frames[2]))
}

func TestCaptureAllocatesNothing(t *testing.T) {
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Capture(0) }))
}

// BenchmarkCapture compares a Stack's capture with the single program
// counter that was recorded before.
func BenchmarkCapture(b *testing.B) {
	b.Run("stack", func(b *testing.B) {
		for b.Loop() {
			_ = Capture(1)
		}
	})
	b.Run("one-pc", func(b *testing.B) {
		for b.Loop() {
			var pc [1]uintptr
			runtime.Callers(3, pc[:])
		}
	})
}
