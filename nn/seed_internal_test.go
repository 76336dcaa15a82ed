package nn

import (
	"fmt"
	"testing"
)

// deriveSeed gives distinct seeds to every (root, index, name) of a grid
// of nearby inputs: the cases where a weak mix (root+index, say) collides.
func TestDerivedSeedsAreDistinct(t *testing.T) {
	seen := map[uint64]string{}
	for root := range uint64(64) {
		for index := range uint64(64) {
			for _, name := range []string{"weight", "bias", "running_mean", "running_var", "dropout", ""} {
				s := deriveSeed(root, index, name)
				key := fmt.Sprintf("(%d, %d, %q)", root, index, name)
				if other, ok := seen[s]; ok {
					t.Fatalf("seed %#x of %s is also that of %s", s, key, other)
				}
				seen[s] = key
			}
		}
	}
}
