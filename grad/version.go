package grad

import (
	"fmt"

	"github.com/wgtensor/wgtensor/tensor"
)

// savedVersion is a saved tensor and the version of its storage when the
// tape saved it.
type savedVersion struct {
	t       *tensor.Tensor
	version uint64
}

// versionOf returns the version of t's storage: how many times it was
// assigned in place (tensor.Engine.Assign, in-place kernels).
func versionOf(t *tensor.Tensor) uint64 { return t.Version() }

// checkVersions returns ErrModified if a tensor n saved was assigned in
// place since.
func (n *node) checkVersions() error {
	for _, s := range n.versions {
		if v := versionOf(s.t); v != s.version {
			return fmt.Errorf("%w: %s saved a tensor of shape %v at version %d, now %d (assigned in place since the forward pass)",
				ErrModified, n.op, s.t.Shape(), s.version, v)
		}
	}
	return nil
}
