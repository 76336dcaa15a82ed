//go:build !mpi

package dist_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wgtensor/wgtensor/dist"
)

// Built without the tag mpi, Init fails with ErrNoMPI saying how to build
// with it, and the rest of the module builds and runs without MPI.
func TestInitWithoutMPI(t *testing.T) {
	c, err := dist.Init(dist.Options{})
	require.ErrorIs(t, err, dist.ErrNoMPI)
	assert.Nil(t, c)
	assert.Contains(t, err.Error(), "-tags mpi")
}
