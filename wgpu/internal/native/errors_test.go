package native

import (
	"errors"
	"testing"
)

// classify strips the binding's prefix and reads the kind from the text,
// since the binding drops WebGPU's error type (BINDING.md).
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind ErrorKind
		msg  string
	}{
		{"wgpu.(*Device).CreateBuffer(): Validation Error: size 1 TiB is over the limit", Validation, "Validation Error: size 1 TiB is over the limit"},
		{"wgpu.(*Device).CreateBuffer(): Not enough memory left", OutOfMemory, "Not enough memory left"},
		{"Out of memory", OutOfMemory, "Out of memory"},
		{"wgpu.(*Device).CreateBindGroup(): Parent device is lost", DeviceLost, "Parent device is lost"},
		{"  Buffer is destroyed ", Validation, "Buffer is destroyed"},
	} {
		err := classify(errors.New(c.in))
		var e *Error
		if !errors.As(err, &e) || e.Kind != c.kind || e.Msg != c.msg {
			t.Errorf("classify(%q) = %#v, want kind %d, message %q", c.in, err, c.kind, c.msg)
		}
	}
	if classify(nil) != nil {
		t.Error("classify(nil) is not nil")
	}
	if err := compileError(errors.New("wgpu.(*Device).CreateShaderModule(): Shader error at 3:5")); !IsKind(err, Compile) {
		t.Errorf("a shader module's validation error is %v, want kind Compile", err)
	}
	if err := compileError(errors.New("Out of memory")); !IsKind(err, OutOfMemory) {
		t.Errorf("an allocation failure while compiling is %v, want kind OutOfMemory", err)
	}
}
