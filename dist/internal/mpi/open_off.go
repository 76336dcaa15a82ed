//go:build !mpi

package mpi

import "errors"

// Built reports whether the binding is built in (the build tag mpi).
const Built = false

// ErrNotBuilt is Open's error in a build without the tag mpi.
var ErrNotBuilt = errors.New("mpi: not built in: build with -tags mpi (it needs an MPI library's headers, e.g. Debian's libopenmpi-dev)")
