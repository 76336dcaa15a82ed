// Package memview renders a device's memory history (wgpu.History) as one
// self-contained HTML page: the memory viewer.
//
// The page holds its data, script and styles inline and fetches nothing, so
// that it opens offline, by double-click. It shows
//
//   - live memory over time, stacked by category, with the allocating site
//     of the buffer under the mouse;
//   - reserved, live and given back to the driver over time;
//   - any instant (a click on a chart, or a marker): every live buffer,
//     sortable, and the totals per category;
//   - the diff of two instants (two marks such as "step 3" and "step 9", or
//     two clicks): how much more the later one holds than the earlier, by
//     the user's line that asked for it, largest first, as
//     wgpu.History.Growth computes it: the leak finder;
//   - markers for marks, trims, memory-limit changes, out-of-memory
//     errors, device loss and close.
//
// The page replays the events from the history's base as wgpu's
// History.Replay does, so its totals are the replay's. Every string it
// shows (sites, labels, tags) is shown as text, never parsed as HTML. It
// draws by hand on canvases, a pixel column at a time, so that a history
// of 10^6 events opens in a few seconds. For tests and the browser's
// console it sets window.memview: totalsAt, categoriesAt, liveAt and diff
// of instants (event indices, -1 for the start, or marks' labels), and
// select and compare, which drive the views.
//
//	h, err := d.History()
//	err = memview.WriteFile("memory.html", h)
//
// cmd/wgmemview renders a dump (History.WriteTo) from the command line.
package memview

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/wgtensor/wgtensor/wgpu"
)

// The page's template and the script and styles it inlines.
var (
	//go:embed viewer.html
	pageHTML string
	//go:embed viewer.css
	pageCSS string
	//go:embed viewer.js
	pageJS string
)

// The template's placeholders, each on a line of its own.
const (
	styleSlot  = "/*memview:style*/"
	scriptSlot = "/*memview:script*/"
	dataSlot   = "/*memview:data*/"
)

// Write renders h as the viewer page to w. It refuses a history whose
// events do not replay to its own figures, or whose tables or numbers the
// page could not show exactly (History.Check).
//
// Write only reads h: calls on the same History may run concurrently, but
// not with changes to it.
func Write(w io.Writer, h *wgpu.History) error {
	if h == nil {
		return errors.New("memview: no history")
	}
	if err := h.Check(); err != nil {
		return fmt.Errorf("memview: %w", err)
	}
	return write(w, h)
}

// write writes the page of h, which check accepts.
func write(w io.Writer, h *wgpu.History) error {
	head, rest, ok := strings.Cut(pageHTML, dataSlot)
	if !ok {
		return errors.New("memview: the page template has no data slot")
	}
	head = strings.Replace(strings.Replace(head, styleSlot, pageCSS, 1), scriptSlot, pageJS, 1)
	rest = strings.Replace(strings.Replace(rest, styleSlot, pageCSS, 1), scriptSlot, pageJS, 1)
	data, err := marshal(h)
	if err != nil {
		return fmt.Errorf("memview: %w", err)
	}
	for _, part := range [][]byte{[]byte(head), data, []byte(rest)} {
		if _, err := w.Write(part); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile renders h as the viewer page to the file path, replacing it
// whole: a failed write leaves no half page behind. Like Write, it only
// reads h.
func WriteFile(path string, h *wgpu.History) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".memview-*")
	if err != nil {
		return err
	}
	err = Write(f, h)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Render reads a dump that History.WriteTo wrote from dump and renders it
// as the viewer page to w. A dump that wgpu.ReadHistory refuses (not a
// history, truncated, from a newer version, edited, inconsistent) is
// refused with its error, and nothing is written. Render shares no state
// between calls: it is safe for concurrent use.
func Render(w io.Writer, dump io.Reader) error {
	h, err := wgpu.ReadHistory(dump)
	if err != nil {
		return err
	}
	return write(w, h) // ReadHistory checked what History.Check does
}

// pageData is what the page reads: the history's tables and figures. The
// events go after it, by column (see marshal).
type pageData struct {
	Adapter  string              `json:"adapter"`
	Started  string              `json:"started"`
	TakenNs  int64               `json:"taken_ns"`
	Reason   string              `json:"reason"`
	Capacity int                 `json:"capacity"`
	Dropped  uint64              `json:"dropped"`
	Kinds    []string            `json:"kinds"`
	Usages   []string            `json:"usages"`
	Sites    []pageSite          `json:"sites"`
	Tags     [][4]string         `json:"tags"` // category, dtype, shape, scope
	Labels   []string            `json:"labels"`
	Base     pageBase            `json:"base"`
	Pool     wgpu.PoolStats      `json:"pool"`
	Device   pageDevice          `json:"device"`
	Engine   *wgpu.HistoryEngine `json:"engine"`
}

type pageSite struct {
	Frames [][3]any `json:"frames"` // function, file, line; innermost first
	User   int      `json:"user"`
}

type pageBase struct {
	Totals [5]uint64  `json:"totals"` // live buffers, live bytes, pooled buffers, pooled bytes, returned bytes
	Live   [][7]int64 `json:"live"`   // buffer, bytes, usage, site, tag, tensor, since_ns
}

type pageDevice struct {
	Submits          uint64 `json:"submits"`
	Dispatches       uint64 `json:"dispatches"`
	Writes           uint64 `json:"writes"`
	DriverBuffers    uint64 `json:"driver_buffers"`
	HasDriverBuffers bool   `json:"has_driver_buffers"`
}

// marshal encodes the page's data: one JSON object, with <, > and &
// escaped (encoding/json's default) so that no string in it can end the
// script element it sits in. The events are columns of numbers, written
// by hand: time as the nanoseconds since the event before.
func marshal(h *wgpu.History) ([]byte, error) {
	d := pageData{Adapter: h.Adapter, Started: h.Started.Format(time.RFC3339Nano), TakenNs: int64(h.Taken), Reason: h.Reason,
		Capacity: h.Capacity, Dropped: h.Dropped, Labels: h.Labels, Pool: h.Pool, Engine: h.Engine,
		Device: pageDevice{Submits: h.Device.Submits, Dispatches: h.Device.Dispatches, Writes: h.Device.Writes,
			DriverBuffers: h.Device.DriverBuffers, HasDriverBuffers: h.Device.HasDriverBuffers},
		Sites: make([]pageSite, len(h.Sites)), Tags: make([][4]string, len(h.Tags)),
		Base: pageBase{Totals: [5]uint64{uint64(h.Base.Totals.LiveBuffers), h.Base.Totals.LiveBytes,
			uint64(h.Base.Totals.PooledBuffers), h.Base.Totals.PooledBytes, h.Base.Totals.ReturnedBytes},
			Live: make([][7]int64, len(h.Base.Live))}}
	if d.Labels == nil {
		d.Labels = []string{}
	}
	d.Kinds = []string{""} // kinds start at 1
	for k := wgpu.EventAlloc; k <= wgpu.EventClose; k++ {
		d.Kinds = append(d.Kinds, k.String())
	}
	for u := wgpu.UsageStorage; u <= wgpu.UsageUpload; u++ {
		d.Usages = append(d.Usages, u.String())
	}
	for i, s := range h.Sites {
		d.Sites[i] = pageSite{Frames: make([][3]any, len(s.Frames)), User: s.User}
		for k, f := range s.Frames {
			d.Sites[i].Frames[k] = [3]any{f.Func, f.File, f.Line}
		}
	}
	for i, t := range h.Tags {
		d.Tags[i] = [4]string{t.Category, t.DType, t.Shape, t.Scope}
	}
	for i, b := range h.Base.Live {
		d.Base.Live[i] = [7]int64{int64(b.Buffer), int64(b.Bytes), int64(b.Usage), int64(b.Site), int64(b.Tag), int64(b.Tensor), int64(max(b.Since, 0))}
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(d); err != nil {
		return nil, err
	}
	out := bytes.TrimRight(buf.Bytes(), "\n")
	out = out[:len(out)-1] // the closing brace: the events follow
	n := len(h.Events)
	out = append(out, `,"events":{"n":`...)
	out = strconv.AppendInt(out, int64(n), 10)
	column := func(name string, v func(e *wgpu.HistoryEvent) int64) {
		out = append(out, `,"`...)
		out = append(out, name...)
		out = append(out, `":[`...)
		for i := range h.Events {
			if i > 0 {
				out = append(out, ',')
			}
			out = strconv.AppendInt(out, v(&h.Events[i]), 10)
		}
		out = append(out, ']')
	}
	var last time.Duration
	column("dt", func(e *wgpu.HistoryEvent) int64 { dt := e.Time - last; last = e.Time; return int64(dt) })
	column("kind", func(e *wgpu.HistoryEvent) int64 { return int64(e.Kind) })
	column("usage", func(e *wgpu.HistoryEvent) int64 { return int64(e.Usage) })
	column("buffer", func(e *wgpu.HistoryEvent) int64 { return int64(e.Buffer) })
	column("bytes", func(e *wgpu.HistoryEvent) int64 { return int64(e.Bytes) })
	column("tensor", func(e *wgpu.HistoryEvent) int64 { return int64(e.Tensor) })
	column("site", func(e *wgpu.HistoryEvent) int64 { return int64(e.Site) })
	column("tag", func(e *wgpu.HistoryEvent) int64 { return int64(e.Tag) })
	column("label", func(e *wgpu.HistoryEvent) int64 { return int64(e.Label) })
	return append(out, "}}"...), nil
}
