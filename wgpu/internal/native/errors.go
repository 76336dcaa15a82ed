package native

import "strings"

// ErrorKind classifies an error wgpu-native reported. The binding drops
// WebGPU's error type, so the kind is read from the message.
type ErrorKind int

// The kinds.
const (
	Validation  ErrorKind = iota // the call was invalid
	OutOfMemory                  // the driver could not allocate
	DeviceLost                   // the device is lost
	Compile                      // a shader did not compile, or does not fit its pipeline's layout
)

// Error is an error wgpu-native reported, its message stripped of the
// binding's decorations.
type Error struct {
	Kind ErrorKind
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// classify converts an error the binding returned into an *Error; nil
// stays nil. Device loss and out-of-memory are recognised by their text.
func classify(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	// The binding prefixes "wgpu.(*Device).CreateBuffer(): ".
	if i := strings.Index(msg, "(): "); i >= 0 && strings.HasPrefix(msg, "wgpu.(") {
		msg = msg[i+len("(): "):]
	}
	msg = strings.TrimSpace(msg)
	return &Error{Kind: kindOf(msg), Msg: msg}
}

func kindOf(msg string) ErrorKind {
	lower := strings.ToLower(msg)
	switch {
	case strings.Contains(lower, "device is lost"), strings.Contains(lower, "device lost"):
		return DeviceLost
	case strings.Contains(lower, "out of memory"), strings.Contains(lower, "outofmemory"),
		strings.Contains(lower, "not enough memory"):
		return OutOfMemory
	}
	return Validation
}

// compileError is classify for the steps that compile a shader: their
// validation errors are the shader's.
func compileError(err error) error {
	err = classify(err)
	if e, ok := err.(*Error); ok && e.Kind == Validation {
		e.Kind = Compile
	}
	return err
}
