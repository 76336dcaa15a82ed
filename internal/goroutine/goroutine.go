// Package goroutine tells goroutines apart, which Go's API does not: a
// tensor.Engine inside a tidy scope belongs to the goroutine that opened
// the scope, and must recognise that goroutine on every op, cheaply.
//
// On the gc toolchain for amd64 and arm64, Current is the address of the
// runtime's descriptor of the calling goroutine, read from the register or
// thread-local slot where the runtime keeps it (one instruction). The
// runtime never moves or frees that descriptor while the goroutine runs.
// Elsewhere Current parses the goroutine's number from runtime.Stack, which
// is correct but costs microseconds.
package goroutine

import (
	"bytes"
	"runtime"
	"strconv"
)

// Current returns a number that identifies the calling goroutine while it
// runs: no other running goroutine has the same number, and it never
// changes during the goroutine's life. It is never 0. A goroutine that has
// exited may pass its number on to a new one, so keep it only while the
// goroutine it names is known to be running.
//
// Current is safe for concurrent use.
func Current() uintptr { return current() }

// fromStack returns the calling goroutine's number, parsed from the first
// line of its stack trace ("goroutine 42 [running]:").
func fromStack() uintptr {
	var buf [64]byte
	line := buf[:runtime.Stack(buf[:], false)]
	line = bytes.TrimPrefix(line, []byte("goroutine "))
	if i := bytes.IndexByte(line, ' '); i >= 0 {
		line = line[:i]
	}
	id, err := strconv.ParseUint(string(line), 10, 64)
	if err != nil || id == 0 {
		panic("goroutine: cannot parse the goroutine's number from its stack trace")
	}
	return uintptr(id)
}
