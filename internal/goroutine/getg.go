//go:build gc && (amd64 || arm64)

package goroutine

func current() uintptr { return getg() }

// getg returns the runtime's g, the calling goroutine's descriptor
// (getg_amd64.s, getg_arm64.s).
func getg() uintptr
