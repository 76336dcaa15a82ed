package tensor

import (
	"runtime"

	"github.com/wgtensor/wgtensor/internal/callsite"
)

// Site is where a tensor was created: the call stack of the op that made
// it, up to 6 frames, recorded as program counters when the op runs and
// symbolised only when a report asks.
//
// Reports name its user frame: the first frame outside wgtensor's
// packages (tensor, tidy, frame, wgpu and the rest of the module, but not
// _test.go files, cmd/ or examples/), so a tensor made by a library
// helper is reported at the user's line that called the helper. The zero
// Site is unknown. A Site is a comparable value, safe for concurrent use.
type Site struct{ stack callsite.Stack }

// String formats the user frame as "dir/file.go:line", or "unknown".
func (s Site) String() string { return s.stack.String() }

// Chain formats the user frame and its callers, outermost last, as
// "dir/file.go:12 (pkg.helper) ← dir/file.go:30 (pkg.train)", up to the
// recorded depth and stopping before the runtime's and the testing
// package's frames; "unknown" for the zero Site.
func (s Site) Chain() string { return s.stack.Chain() }

// Frames returns the recorded stack, innermost first: wgtensor's own
// frames included where the user frame is among the op's first 6 callers,
// else (an op a helper ran deep inside wgtensor) from the user frame out;
// nil for the zero Site.
func (s Site) Frames() []runtime.Frame { return s.stack.Frames() }

// Frame returns the user frame, and false for the zero Site.
func (s Site) Frame() (runtime.Frame, bool) {
	frames := s.stack.Frames()
	i := callsite.User(frames)
	if i < 0 {
		return runtime.Frame{}, false
	}
	return frames[i], true
}
