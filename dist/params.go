package dist

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/wgtensor/wgtensor/optim"
	"github.com/wgtensor/wgtensor/tensor"
)

// describe lists ps, one line each: name, dtype and shape, what every
// rank's model must agree on.
func describe(ps []optim.Param) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%q %s %v\n", p.Name, p.T.DType(), p.T.Shape())
	}
	return b.String()
}

// CheckSame fails with ErrMismatch, on every rank, if the ranks' ps
// differ in number, names, dtypes or shapes, naming the first rank that
// differs from rank 0 and its first difference. Every rank calls it with
// its own list.
func (c *Comm) CheckSame(ctx context.Context, ps []optim.Param) error {
	all, err := c.AllGatherVar(ctx, []byte(describe(ps)))
	if err != nil {
		return err
	}
	ref := strings.Split(string(all[0]), "\n")
	for r := 1; r < len(all); r++ {
		lines := strings.Split(string(all[r]), "\n")
		for i := range max(len(ref), len(lines)) {
			a, b := lineOr(ref, i), lineOr(lines, i)
			if a != b {
				return fmt.Errorf("%w: rank %d's model differs from rank 0's at parameter %d: rank 0 has %s, rank %d has %s", ErrMismatch, r, i, a, r, b)
			}
		}
	}
	return nil
}

// lineOr returns lines[i], or "none" past the last parameter.
func lineOr(lines []string, i int) string {
	if i < len(lines)-1 { // the last is empty: each line ends in \n
		return lines[i]
	}
	return "none"
}

// BroadcastTensors copies root's values of ts into every rank's ts, in
// place (Engine.WriteBytes), chunk by chunk of at most chunk bytes (0:
// 25 MiB), so that no rank holds more than a chunk on the host. Every
// rank passes tensors of the same dtypes and shapes (CheckSame). It runs
// ops on e: call it on e's goroutine.
func (c *Comm) BroadcastTensors(ctx context.Context, e *tensor.Engine, ts []*tensor.Tensor, root, chunk int) error {
	if chunk <= 0 {
		chunk = DefaultBucketBytes
	}
	chunk &^= 3 // whole words
	buf := make([]byte, min(chunk, maxBytes(ts)))
	for _, t := range ts {
		n := tensorBytes(t)
		for off := 0; off < n; off += len(buf) {
			piece := buf[:min(len(buf), n-off)]
			if c.Rank() == root {
				if err := t.ReadBytes(ctx, off, piece); err != nil {
					return err
				}
			}
			if err := c.Broadcast(ctx, piece, root); err != nil {
				return err
			}
			if c.Rank() != root {
				if err := e.WriteBytes(t, off, piece); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Differs returns, on every rank, the lowest rank whose ts hold other
// bytes than rank 0's, or -1 where every rank's are the same: a check
// that data-parallel replicas have not drifted apart. Each rank hashes its
// tensors' bytes (FNV-1a, 64 bits: a difference goes unseen with
// probability 2⁻⁶⁴), read back a chunk at a time, and the hashes are
// gathered. Every rank passes tensors of the same dtypes and shapes.
func (c *Comm) Differs(ctx context.Context, ts []*tensor.Tensor) (int, error) {
	h := fnv.New64a()
	buf := make([]byte, min(DefaultBucketBytes, maxBytes(ts)))
	for _, t := range ts {
		n := tensorBytes(t)
		for off := 0; off < n; off += len(buf) {
			piece := buf[:min(len(buf), n-off)]
			if err := t.ReadBytes(ctx, off, piece); err != nil {
				return 0, err
			}
			h.Write(piece)
		}
	}
	mine := h.Sum(nil)
	all, err := c.AllGather(ctx, mine)
	if err != nil {
		return 0, err
	}
	for r := 1; r < c.Size(); r++ {
		if !bytes.Equal(all[8*r:8*r+8], all[:8]) {
			return r, nil
		}
	}
	return -1, nil
}

// tensorBytes is the size of t's storage: whole words.
func tensorBytes(t *tensor.Tensor) int {
	return (t.DType().Size()*t.Size() + 3) &^ 3
}

func maxBytes(ts []*tensor.Tensor) int {
	most := 4
	for _, t := range ts {
		most = max(most, tensorBytes(t))
	}
	return most
}
