//go:build !linux

package wgpu

import "runtime"

// yieldProcessor gives the processor to another goroutine, if one waits.
func yieldProcessor() { runtime.Gosched() }
