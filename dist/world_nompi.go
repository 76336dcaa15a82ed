//go:build !mpi

package dist

import (
	"fmt"

	"github.com/wgtensor/wgtensor/dist/internal/mpi"
)

func openWorld() (world, error) {
	return nil, fmt.Errorf("%w: %w", ErrNoMPI, mpi.ErrNotBuilt)
}

// mpiBuiltIn: the binding is not built in.
const mpiBuiltIn = false
