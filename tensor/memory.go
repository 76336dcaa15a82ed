package tensor

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/wgtensor/wgtensor/internal/bytesize"
	"github.com/wgtensor/wgtensor/wgpu"
)

// LastID returns the id of the newest tensor created in the process (0 if
// none): tensors born after a moment have ids above LastID at that moment.
func LastID() uint64 { return nextID.Load() }

// Memory is an exact account of an engine's tensors and its device's
// memory, the figures tf.memory() reports and more.
type Memory struct {
	Tensors          int    // live tensors
	Storages         int    // distinct buffers they use (views share one)
	Bytes            uint64 // the bytes of those buffers as tensors see them
	Pool             wgpu.PoolStats
	PendingReadbacks int
}

// Memory returns e's memory account. It is safe from any goroutine. A nil
// or zero Engine has nothing to account for: its Memory is zero.
func (e *Engine) Memory() Memory {
	if e.usable("") != nil {
		return Memory{}
	}
	e.mu.Lock()
	seen := make(map[*storage]bool, len(e.live))
	m := Memory{Tensors: len(e.live)}
	for t := range e.live {
		if !seen[t.st] {
			seen[t.st] = true
			m.Storages++
			m.Bytes += t.st.buf.Size()
		}
	}
	e.mu.Unlock()
	m.Pool = e.dev.Pool().Stats()
	m.PendingReadbacks = e.dev.Stats().PendingReadbacks
	return m
}

// DTypeSummary is the live tensors of one dtype and the bytes their
// storage takes, each buffer counted once (views share their tensor's).
type DTypeSummary struct {
	DType    DType
	Tensors  int
	Storages int
	Bytes    uint64
}

// ByDType summarises e's live tensors by dtype, in the dtypes' order,
// leaving out those with none. Its Bytes add up to Memory's. It is safe
// from any goroutine.
func (e *Engine) ByDType() []DTypeSummary {
	if e.usable("") != nil {
		return nil
	}
	var by [numDTypes]DTypeSummary
	e.mu.Lock()
	seen := make(map[*storage]bool, len(e.live))
	for t := range e.live {
		if int(t.dtype) >= len(by) {
			continue
		}
		s := &by[t.dtype]
		s.Tensors++
		if !seen[t.st] {
			seen[t.st] = true
			s.Storages++
			s.Bytes += t.st.buf.Size()
		}
	}
	e.mu.Unlock()
	var out []DTypeSummary
	for d, s := range by {
		if s.Tensors > 0 {
			s.DType = DType(d)
			out = append(out, s)
		}
	}
	return out
}

// SiteSummary is the live tensors created at one line of the user's code.
type SiteSummary struct {
	Site    Site // the first of them's: its Chain shows one way there
	Tensors int
	Bytes   uint64
}

// BySite groups tensors by the user's line that created them (their
// Site's String), largest bytes first.
func BySite(ts []TensorInfo) []SiteSummary {
	lines := map[Site]string{} // each stack symbolised once
	idx := map[string]int{}
	var out []SiteSummary
	for _, t := range ts {
		line, ok := lines[t.Site]
		if !ok {
			line = t.Site.String()
			lines[t.Site] = line
		}
		i, ok := idx[line]
		if !ok {
			i = len(out)
			idx[line] = i
			out = append(out, SiteSummary{Site: t.Site})
		}
		out[i].Tensors++
		out[i].Bytes += t.Bytes
	}
	slices.SortStableFunc(out, func(a, b SiteSummary) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(b.Tensors, a.Tensors))
	})
	return out
}

// Summary writes a text report like PyTorch's memory_summary(): the
// engine's tensors, the pool's figures, and the creation sites holding the
// most memory, each with the chain of calls that led there.
func (e *Engine) Summary(w io.Writer) error {
	if err := e.usable("summary"); err != nil {
		return err
	}
	m := e.Memory()
	p := m.Pool
	var b strings.Builder
	fmt.Fprintf(&b, "wgtensor memory summary (%s)\n", e.dev.Info())
	fmt.Fprintf(&b, "  tensors            %8d in %d buffers, %s\n", m.Tensors, m.Storages, bytesize.Format(m.Bytes))
	for _, d := range e.ByDType() {
		fmt.Fprintf(&b, "    %-16s %8d in %d buffers, %s\n", d.DType, d.Tensors, d.Storages, bytesize.Format(d.Bytes))
	}
	fmt.Fprintf(&b, "  pending readbacks  %8d\n", m.PendingReadbacks)
	fmt.Fprintf(&b, "  pool live          %8d buffers, %s (peak %s)\n", p.LiveBuffers, bytesize.Format(p.LiveBytes), bytesize.Format(p.PeakLiveBytes))
	fmt.Fprintf(&b, "  pool cached        %8d buffers, %s\n", p.PooledBuffers, bytesize.Format(p.PooledBytes))
	fmt.Fprintf(&b, "  reserved           %8s (peak %s", bytesize.Format(p.ReservedBytes), bytesize.Format(p.PeakReservedBytes))
	if p.MemoryLimit > 0 {
		fmt.Fprintf(&b, ", limit %s", bytesize.Format(p.MemoryLimit))
	}
	fmt.Fprintf(&b, ")\n  allocations %d, reuses %d, frees %d, trims %d, oom retries %d\n", p.Allocs, p.Reuses, p.Frees, p.Trims, p.OOMRetries)
	sites := BySite(e.LiveTensors())
	if len(sites) > 0 {
		b.WriteString("  live tensors by creation site:\n")
		for i, s := range sites {
			if i == 10 {
				fmt.Fprintf(&b, "    ... and %d more sites\n", len(sites)-10)
				break
			}
			fmt.Fprintf(&b, "    %10s  %6d tensors  %s\n", bytesize.Format(s.Bytes), s.Tensors, s.Site.Chain())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Snapshot is a machine-readable record of every live tensor.
type Snapshot struct {
	Memory  Memory          `json:"memory"`
	DTypes  []SnapshotDType `json:"dtypes"`
	Tensors []SnapshotItem  `json:"tensors"`
}

// SnapshotDType is a DTypeSummary as Snapshot records it.
type SnapshotDType struct {
	DType    string `json:"dtype"`
	Tensors  int    `json:"tensors"`
	Storages int    `json:"storages"`
	Bytes    uint64 `json:"bytes"`
}

// SnapshotItem is one live tensor. Site and Chain are its Site's String and
// Chain. AgeFrames is filled by frame's snapshots; -1 here.
type SnapshotItem struct {
	ID        uint64 `json:"id"`
	Bytes     uint64 `json:"bytes"`
	DType     string `json:"dtype"`
	Shape     Shape  `json:"shape"`
	Site      string `json:"site"`
	Chain     string `json:"chain"`
	AgeFrames int    `json:"age_frames"`
}

// Snapshot returns every live tensor with the memory account.
func (e *Engine) Snapshot() Snapshot {
	s := Snapshot{Memory: e.Memory(), DTypes: []SnapshotDType{}, Tensors: []SnapshotItem{}}
	for _, d := range e.ByDType() {
		s.DTypes = append(s.DTypes, SnapshotDType{DType: d.DType.String(), Tensors: d.Tensors, Storages: d.Storages, Bytes: d.Bytes})
	}
	for _, t := range e.LiveTensors() {
		s.Tensors = append(s.Tensors, SnapshotItem{ID: t.ID, Bytes: t.Bytes, DType: t.DType.String(), Shape: t.Shape, Site: t.Site.String(), Chain: t.Site.Chain(), AgeFrames: -1})
	}
	return s
}

// WriteJSON writes s as indented JSON.
func (s Snapshot) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}
