// Package cputime reads the processor time the process has used, for
// benchmarks on a shared machine: a software driver (lavapipe, llvmpipe)
// runs kernels on the process's own threads, so their processor time
// measures the work whatever else the machine runs, where wall time
// stretches with the load. It is safe for concurrent use.
package cputime

import "time"

// Process returns the user and system time all the process's threads have
// used so far, and whether the platform reports it; without it the time is
// 0.
func Process() (time.Duration, bool) { return process() }
