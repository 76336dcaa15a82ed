package wgpu

import "syscall"

// yieldProcessor gives the processor to another runnable thread, such as a
// software driver's worker, if one waits for it.
func yieldProcessor() { _, _, _ = syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
