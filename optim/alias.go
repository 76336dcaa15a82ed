package optim

import (
	"strings"

	"github.com/wgtensor/wgtensor/tensor"
)

// use is a tensor a step reads or writes, and what it is to the step
// (`gradient of "0.weight"`, `parameter "0.weight"`, `state
// "0.weight.exp_avg"`), for errors.
type use struct {
	t    *tensor.Tensor
	what string
}

// checkAliasing returns an error naming the first tensor of reads or
// writes that shares its storage with one of writes (an earlier one, for
// writes): a step would read a tensor it writes, or write one storage
// twice. Reading one tensor twice (the same gradient for two parameters)
// is allowed. Every tensor must have been checked already: live, of the
// engine's device.
func (b *base) checkAliasing(reads, writes []use) error {
	written := make(map[uint64]string, len(writes))
	for _, w := range writes {
		id := w.t.StorageID()
		v, dup := written[id]
		if !dup {
			written[id] = w.what
			continue
		}
		if strings.HasPrefix(v, "parameter ") && strings.HasPrefix(w.what, "parameter ") {
			return b.errorf(ErrArgument, "parameters %s and %s share their storage", strings.TrimPrefix(v, "parameter "), strings.TrimPrefix(w.what, "parameter "))
		}
		return b.errorf(ErrArgument, "%s and %s share their storage", v, w.what)
	}
	for _, r := range reads {
		if w, ok := written[r.t.StorageID()]; ok {
			return b.errorf(ErrArgument, "%s shares its storage with %s", r.what, w)
		}
	}
	return nil
}
