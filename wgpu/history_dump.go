package wgpu

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wgtensor/wgtensor/internal/callsite"
)

// History is a copy of a device's memory history (Device.History): its
// events, oldest first, the state before the first of them, the tables
// the events index, and the figures they must add up to. A History is a
// plain value; it is not shared with the device.
type History struct {
	Adapter  string
	Started  time.Time
	Taken    time.Duration // when Pool and Device were taken, since Started: when recording stopped, or the copy was made
	Reason   string        // why it was written: "requested", "out of memory", "device lost"
	Capacity int           // the ring's size (HistoryOptions.Events)
	Dropped  uint64        // events dropped from the ring, oldest first
	Base     HistoryBase
	Events   []HistoryEvent
	Sites    []HistorySite
	Tags     []BufferTag
	Labels   []string
	Pool     PoolStats      // the pool's figures at Taken; the events replay to them
	Device   DeviceStats    // the device's counters at Taken
	Engine   *HistoryEngine // the tensor package's figures at Taken, where it wrote the history; nil otherwise
}

// HistoryBase is the state before a history's first event: what was
// live and pooled when recording began or, once the ring dropped events,
// what the dropped events left.
type HistoryBase struct {
	Totals HistoryTotals
	Live   []HistoryBuffer // by ID
}

// HistoryBuffer is a live buffer as a history's replay sees it.
type HistoryBuffer struct {
	Buffer, Bytes, Tensor uint64
	Usage                 Usage
	Site, Tag             int32
	Since                 time.Duration // when it was handed out; 0 if before the history began
}

// HistorySite is an interned creation site: its frames, innermost first,
// and the index of the user frame among them (callsite's rule: the first
// frame outside wgtensor's packages).
type HistorySite struct {
	Frames []HistoryFrame
	User   int
}

// String is the site's user frame as "dir/file.go:line (pkg.Func)", or
// "unknown" for a site of no frames.
func (s HistorySite) String() string {
	if s.User < 0 || s.User >= len(s.Frames) {
		return "unknown"
	}
	f := s.Frames[s.User]
	line := callsite.Line(runtime.Frame{File: f.File, Line: f.Line})
	if name := callsite.FuncName(f.Func); name != "" {
		line += " (" + name + ")"
	}
	return line
}

// HistoryFrame is one frame of a site.
type HistoryFrame struct {
	Func, File string
	Line       int
}

// HistoryEngine is a tensor Engine's figures (tensor.Memory) at the
// moment its history was written.
type HistoryEngine struct {
	Tensors, Storages int
	Bytes             uint64
}

// HistoryTotals are a history's figures at one event, as its replay adds
// them up.
type HistoryTotals struct {
	LiveBuffers   int
	LiveBytes     uint64
	PooledBuffers int
	PooledBytes   uint64
	// ReturnedBytes are the bytes given back to the driver since the
	// history began (trims, frees, close), the base's included.
	ReturnedBytes uint64
}

// ReservedBytes is what the driver holds for the pool: live plus pooled.
func (t HistoryTotals) ReservedBytes() uint64 { return t.LiveBytes + t.PooledBytes }

// RecordHistory starts recording d's memory history afresh, dropping any
// history recorded before. What is live and pooled at that moment is the
// history's base. It is safe for concurrent use; it fails on a closed or
// lost device.
func (d *Device) RecordHistory(opts HistoryOptions) error {
	const op = "record memory history"
	if err := d.opened(op); err != nil {
		return err
	}
	if opts.Events < 0 {
		return newError(op, ErrInvalidArgument, fmt.Sprintf("%d events", opts.Events))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(op); err != nil {
		return err
	}
	d.pool.hist = newHistoryRec(opts, d.pool.live, d.pool.stats)
	d.recording.Store(true)
	return nil
}

// StopHistory stops recording, keeping what was recorded for History.
// It does nothing where nothing records.
func (d *Device) StopHistory() {
	if d.opened("stop memory history") != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopHistoryLocked()
}

func (d *Device) stopHistoryLocked() {
	h := d.pool.hist
	if !h.recording() {
		return
	}
	h.on = false
	h.endPool, h.endDevice, h.endTime = d.pool.stats, d.statsLocked(), time.Since(h.started)
	d.recording.Store(false)
}

// Recording reports whether d records its memory history: a cheap check
// for layers that describe buffers only then. Safe for concurrent use.
func (d *Device) Recording() bool { return d != nil && d.recording.Load() }

// MarkHistory adds a marker to the history (a frame, a training step, a
// moment the user names), which a viewer shows and compares instants at.
// It does nothing where nothing records. Safe for concurrent use.
func (d *Device) MarkHistory(label string) {
	if !d.Recording() {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pool.hist.marker(EventMark, 0, label)
}

// Describe tells the memory history what b holds: the tensor tensor (0
// for none) and tag, which later events of b carry until described again.
// It does nothing where nothing records, or to a released buffer. Safe
// for concurrent use.
func (b *Buffer) Describe(tensor uint64, tag BufferTag) {
	if b == nil || !b.d.Recording() {
		return
	}
	b.d.mu.Lock()
	defer b.d.mu.Unlock()
	if b.live {
		b.d.pool.hist.describe(b, tensor, tag)
	}
}

// History returns a copy of d's memory history: everything recorded since
// RecordHistory, up to now or to StopHistory, with the figures it replays
// to. It fails where nothing was recorded. Safe for concurrent use; it
// works on a closed or lost device, whose history ends with that.
func (d *Device) History() (*History, error) {
	const op = "memory history"
	if err := d.opened(op); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.historyLocked(op, "requested")
}

func (d *Device) historyLocked(op, reason string) (*History, error) {
	h := d.pool.hist
	if h == nil {
		return nil, newError(op, ErrInvalidArgument, "no history was recorded: call RecordHistory first")
	}
	out := &History{Adapter: d.info.String(), Started: h.started, Reason: reason, Capacity: h.opts.Events, Dropped: h.dropped,
		Tags: slices.Clone(h.tagged), Labels: slices.Clone(h.words)}
	if h.on {
		out.Pool, out.Device, out.Taken = d.pool.stats, d.statsLocked(), time.Since(h.started)
	} else {
		out.Pool, out.Device, out.Taken = h.endPool, h.endDevice, h.endTime
	}
	out.Base.Totals = h.base.t
	out.Base.Live = slices.SortedFunc(maps.Values(h.base.live), func(a, b HistoryBuffer) int { return cmpUint(a.Buffer, b.Buffer) })
	out.Events = make([]HistoryEvent, 0, len(h.events))
	out.Events = append(out.Events, h.events[h.head:]...)
	out.Events = append(out.Events, h.events[:h.head]...)
	out.Sites = make([]HistorySite, len(h.stacks))
	for i, s := range h.stacks {
		out.Sites[i] = siteOf(s)
	}
	return out, nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// siteOf symbolises s.
func siteOf(s callsite.Stack) HistorySite {
	frames := s.Frames()
	site := HistorySite{Frames: make([]HistoryFrame, len(frames)), User: callsite.User(frames)}
	for i, f := range frames {
		site.Frames[i] = HistoryFrame{Func: f.Function, File: f.File, Line: f.Line}
	}
	return site
}

// dumpHistoryLocked writes the history to path, for OnOOM and OnLoss, and
// says how it went, for the error that prompted it.
func (d *Device) dumpHistoryLocked(path, reason string) string {
	h, err := d.historyLocked("dump memory history", reason)
	if err == nil {
		err = h.WriteFile(path)
	}
	if err != nil {
		return "memory history not written: " + err.Error()
	}
	return "memory history written to " + path
}

// WriteFile writes h (WriteTo) to the file at path, replacing it whole:
// a failed write leaves no half file behind. Like WriteTo it only reads h.
func (h *History) WriteFile(path string) error {
	f, err := os.CreateTemp(dirOf(path), ".history-*")
	if err != nil {
		return err
	}
	_, err = h.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// dirOf is path's directory, "." for none.
func dirOf(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if os.IsPathSeparator(path[i]) {
			return path[:i+1]
		}
	}
	return "."
}

// The dump format: one JSON object,
//
//	{"format":"wgtensor-memory-history","version":1,"sha256":"…","history":{…}}
//
// where sha256 is the hash of the history's bytes exactly as written, so
// that a truncated, damaged or hand-edited dump is refused. In the history,
// events are arrays [time_ns, kind, usage, buffer, bytes, tensor, site,
// tag, label], kinds and usages index the "kinds" and "usages" tables,
// and base buffers are arrays [buffer, bytes, usage, site, tag, tensor,
// since_ns].
const (
	HistoryFormat  = "wgtensor-memory-history"
	HistoryVersion = 1
)

type historyJSON struct {
	Adapter  string       `json:"adapter"`
	Started  time.Time    `json:"started"`
	TakenNs  int64        `json:"taken_ns"`
	Reason   string       `json:"reason"`
	Capacity int          `json:"capacity"`
	Dropped  uint64       `json:"dropped"`
	Kinds    []string     `json:"kinds"`
	Usages   []string     `json:"usages"`
	Base     baseJSON     `json:"base"`
	Sites    []siteJSON   `json:"sites"`
	Tags     []tagJSON    `json:"tags"`
	Labels   []string     `json:"labels"`
	Pool     poolJSON     `json:"pool"`
	Device   deviceJSON   `json:"device"`
	Engine   *engineJSON  `json:"engine"`
	Events   [][9]float64 `json:"events"`
}

type baseJSON struct {
	LiveBuffers   int          `json:"live_buffers"`
	LiveBytes     uint64       `json:"live_bytes"`
	PooledBuffers int          `json:"pooled_buffers"`
	PooledBytes   uint64       `json:"pooled_bytes"`
	ReturnedBytes uint64       `json:"returned_bytes"`
	Live          [][7]float64 `json:"live"`
}

type siteJSON struct {
	Frames []frameJSON `json:"frames"`
	User   int         `json:"user"`
}

type frameJSON struct {
	Func string `json:"func"`
	File string `json:"file"`
	Line int    `json:"line"`
}

type tagJSON struct {
	Category string `json:"category"`
	DType    string `json:"dtype"`
	Shape    string `json:"shape"`
	Scope    string `json:"scope"`
}

type poolJSON struct {
	LiveBuffers       int    `json:"live_buffers"`
	LiveBytes         uint64 `json:"live_bytes"`
	PooledBuffers     int    `json:"pooled_buffers"`
	PooledBytes       uint64 `json:"pooled_bytes"`
	ReservedBytes     uint64 `json:"reserved_bytes"`
	PeakLiveBytes     uint64 `json:"peak_live_bytes"`
	PeakReservedBytes uint64 `json:"peak_reserved_bytes"`
	MemoryLimit       uint64 `json:"memory_limit"`
	Allocs            uint64 `json:"allocs"`
	Reuses            uint64 `json:"reuses"`
	Frees             uint64 `json:"frees"`
	Trims             uint64 `json:"trims"`
	OOMRetries        uint64 `json:"oom_retries"`
}

type deviceJSON struct {
	Submits          uint64 `json:"submits"`
	Dispatches       uint64 `json:"dispatches"`
	Writes           uint64 `json:"writes"`
	PendingReadbacks int    `json:"pending_readbacks"`
	PendingUploads   int    `json:"pending_uploads"`
	DriverBuffers    uint64 `json:"driver_buffers"`
	HasDriverBuffers bool   `json:"has_driver_buffers"`
}

type engineJSON struct {
	Tensors  int    `json:"tensors"`
	Storages int    `json:"storages"`
	Bytes    uint64 `json:"bytes"`
}

// usageNames are the usages' names, by usage: the dump's usage table.
var usageNames = []string{UsageStorage.String(), UsageReadback.String(), UsageUniform.String(), UsageUpload.String()}

// WriteTo writes h in the dump format that ReadHistory reads and the
// memory viewer renders (see the format's description above
// HistoryFormat). It returns the bytes written.
func (h *History) WriteTo(w io.Writer) (int64, error) {
	body, err := h.marshal()
	if err != nil {
		return 0, err
	}
	sum := sha256.Sum256(body)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `{"format":%q,"version":%d,"sha256":"%s","history":`, HistoryFormat, HistoryVersion, hex.EncodeToString(sum[:]))
	bw.Write(body)
	bw.WriteString("}\n")
	n := int64(bw.Buffered())
	return n, bw.Flush()
}

// marshal encodes the history's body. The events are written by hand:
// encoding/json takes seconds over a million of them.
func (h *History) marshal() ([]byte, error) {
	j := historyJSON{Adapter: h.Adapter, Started: h.Started, TakenNs: int64(h.Taken), Reason: h.Reason, Capacity: h.Capacity,
		Dropped: h.Dropped, Kinds: eventNames[:], Usages: usageNames, Labels: h.Labels,
		Base: baseJSON{LiveBuffers: h.Base.Totals.LiveBuffers, LiveBytes: h.Base.Totals.LiveBytes,
			PooledBuffers: h.Base.Totals.PooledBuffers, PooledBytes: h.Base.Totals.PooledBytes, ReturnedBytes: h.Base.Totals.ReturnedBytes,
			Live: [][7]float64{}},
		Pool: poolJSON(h.Pool),
		Device: deviceJSON{Submits: h.Device.Submits, Dispatches: h.Device.Dispatches, Writes: h.Device.Writes,
			PendingReadbacks: h.Device.PendingReadbacks, PendingUploads: h.Device.PendingUploads,
			DriverBuffers: h.Device.DriverBuffers, HasDriverBuffers: h.Device.HasDriverBuffers},
		Sites: make([]siteJSON, len(h.Sites)), Tags: make([]tagJSON, len(h.Tags))}
	if j.Labels == nil {
		j.Labels = []string{}
	}
	if h.Engine != nil {
		j.Engine = &engineJSON{Tensors: h.Engine.Tensors, Storages: h.Engine.Storages, Bytes: h.Engine.Bytes}
	}
	for _, b := range h.Base.Live {
		j.Base.Live = append(j.Base.Live, [7]float64{float64(b.Buffer), float64(b.Bytes), float64(b.Usage), float64(b.Site), float64(b.Tag), float64(b.Tensor), float64(b.Since)})
	}
	for i, s := range h.Sites {
		j.Sites[i] = siteJSON{Frames: make([]frameJSON, len(s.Frames)), User: s.User}
		for k, f := range s.Frames {
			j.Sites[i].Frames[k] = frameJSON(f)
		}
	}
	for i, t := range h.Tags {
		j.Tags[i] = tagJSON(t)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(j); err != nil {
		return nil, err
	}
	// Encode wrote "events":null last; replace it with the events.
	out := bytes.TrimSuffix(bytes.TrimRight(buf.Bytes(), "\n"), []byte(`"events":null}`))
	if len(out) == buf.Len() {
		return nil, errors.New("memory history: unexpected encoding")
	}
	out = append(out, `"events":[`...)
	for i, e := range h.Events {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '[')
		out = strconv.AppendInt(out, int64(e.Time), 10)
		for _, v := range [...]int64{int64(e.Kind), int64(e.Usage)} {
			out = append(out, ',')
			out = strconv.AppendInt(out, v, 10)
		}
		for _, v := range [...]uint64{e.Buffer, e.Bytes, e.Tensor} {
			out = append(out, ',')
			out = strconv.AppendUint(out, v, 10)
		}
		for _, v := range [...]int32{e.Site, e.Tag, e.Label} {
			out = append(out, ',')
			out = strconv.AppendInt(out, int64(v), 10)
		}
		out = append(out, ']')
	}
	return append(out, "]}"...), nil
}

// maxExact is the largest integer every number of a dump must stay
// within: JavaScript's numbers hold integers exactly up to 2^53.
const maxExact = 1 << 53

// ReadHistory reads a history WriteTo wrote. It refuses, with an error
// saying which, a file that is not a history, one from a newer version, a
// truncated or edited one (its hash does not match), and one whose events
// do not replay to its own figures.
func ReadHistory(r io.Reader) (*History, error) {
	const op = "read memory history"
	var env struct {
		Format  string          `json:"format"`
		Version int             `json:"version"`
		Sum     string          `json:"sha256"`
		History json.RawMessage `json:"history"`
	}
	dec := json.NewDecoder(r)
	if err := dec.Decode(&env); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, newError(op, ErrInvalidArgument, "the file ends early: a truncated history")
		}
		return nil, newError(op, ErrInvalidArgument, "not a memory history (not JSON: "+err.Error()+")")
	}
	switch {
	case env.Format != HistoryFormat:
		return nil, newError(op, ErrInvalidArgument, fmt.Sprintf("not a memory history (format %q)", env.Format))
	case env.Version > HistoryVersion:
		return nil, newError(op, ErrInvalidArgument, fmt.Sprintf("written by a newer wgtensor (format version %d; this one reads up to %d)", env.Version, HistoryVersion))
	case env.Version < 1:
		return nil, newError(op, ErrInvalidArgument, fmt.Sprintf("format version %d is not one wgtensor wrote", env.Version))
	}
	sum := sha256.Sum256(env.History)
	if hex.EncodeToString(sum[:]) != env.Sum {
		return nil, newError(op, ErrInvalidArgument, "its checksum does not match: the history was edited or damaged")
	}
	var j historyJSON
	if err := json.Unmarshal(env.History, &j); err != nil {
		return nil, newError(op, ErrInvalidArgument, "a malformed history: "+err.Error())
	}
	h, err := j.history()
	if err != nil {
		return nil, newError(op, ErrInvalidArgument, err.Error())
	}
	if err := h.Check(); err != nil {
		return nil, newError(op, ErrInvalidArgument, err.Error())
	}
	return h, nil
}

// history converts j, checking every index and number it holds.
func (j *historyJSON) history() (*History, error) {
	if !slices.Equal(j.Kinds, eventNames[:]) || !slices.Equal(j.Usages, usageNames) {
		return nil, errors.New("its tables of event kinds and usages are not this version's")
	}
	h := &History{Adapter: j.Adapter, Started: j.Started, Taken: time.Duration(j.TakenNs), Reason: j.Reason, Capacity: j.Capacity,
		Dropped: j.Dropped, Labels: j.Labels, Pool: PoolStats(j.Pool),
		Device: DeviceStats{Submits: j.Device.Submits, Dispatches: j.Device.Dispatches, Writes: j.Device.Writes,
			PendingReadbacks: j.Device.PendingReadbacks, PendingUploads: j.Device.PendingUploads,
			DriverBuffers: j.Device.DriverBuffers, HasDriverBuffers: j.Device.HasDriverBuffers},
		Base: HistoryBase{Totals: HistoryTotals{LiveBuffers: j.Base.LiveBuffers, LiveBytes: j.Base.LiveBytes,
			PooledBuffers: j.Base.PooledBuffers, PooledBytes: j.Base.PooledBytes, ReturnedBytes: j.Base.ReturnedBytes}},
		Sites: make([]HistorySite, len(j.Sites)), Tags: make([]BufferTag, len(j.Tags))}
	if j.Engine != nil {
		h.Engine = &HistoryEngine{Tensors: j.Engine.Tensors, Storages: j.Engine.Storages, Bytes: j.Engine.Bytes}
	}
	for i, s := range j.Sites {
		if len(s.Frames) > 0 && (s.User < 0 || s.User >= len(s.Frames)) {
			return nil, fmt.Errorf("site %d names frame %d of %d as its user frame", i, s.User, len(s.Frames))
		}
		h.Sites[i] = HistorySite{Frames: make([]HistoryFrame, len(s.Frames)), User: s.User}
		for k, f := range s.Frames {
			h.Sites[i].Frames[k] = HistoryFrame(f)
		}
	}
	for i, t := range j.Tags {
		h.Tags[i] = BufferTag(t)
	}
	whole := func(v float64, lo, hi int64) (int64, bool) {
		if v != float64(int64(v)) || int64(v) < lo || int64(v) > hi {
			return 0, false
		}
		return int64(v), true
	}
	index := func(v float64, n int) (int32, bool) {
		i, ok := whole(v, -1, int64(n)-1)
		return int32(i), ok
	}
	for i, b := range j.Base.Live {
		var ok [7]bool
		var v [7]int64
		for k := range 7 {
			v[k], ok[k] = whole(b[k], 0, maxExact)
		}
		site, okSite := index(b[3], len(h.Sites))
		tag, okTag := index(b[4], len(h.Tags))
		if !ok[0] || !ok[1] || !ok[2] || v[2] >= int64(len(usageNames)) || !okSite || !okTag || !ok[5] || !ok[6] {
			return nil, fmt.Errorf("base buffer %d holds a number out of range: %v", i, b)
		}
		h.Base.Live = append(h.Base.Live, HistoryBuffer{Buffer: uint64(v[0]), Bytes: uint64(v[1]), Usage: Usage(v[2]), Site: site, Tag: tag, Tensor: uint64(v[5]), Since: time.Duration(v[6])})
	}
	h.Events = make([]HistoryEvent, len(j.Events))
	var last int64
	for i, a := range j.Events {
		t, okT := whole(a[0], last, maxExact)
		kind, okK := whole(a[1], 1, int64(len(eventNames))-1)
		usage, okU := whole(a[2], 0, int64(len(usageNames))-1)
		buf, okB := whole(a[3], 0, maxExact)
		bytes, okN := whole(a[4], 0, maxExact)
		tensor, okX := whole(a[5], 0, maxExact)
		site, okS := index(a[6], len(h.Sites))
		tag, okG := index(a[7], len(h.Tags))
		label, okL := index(a[8], len(h.Labels))
		if !(okT && okK && okU && okB && okN && okX && okS && okG && okL) {
			return nil, fmt.Errorf("event %d holds a number out of range or out of time order: %v", i, a)
		}
		last = t
		h.Events[i] = HistoryEvent{Time: time.Duration(t), Kind: EventKind(kind), Usage: Usage(usage), Buffer: uint64(buf), Bytes: uint64(bytes),
			Tensor: uint64(tensor), Site: site, Tag: tag, Label: label}
	}
	return h, nil
}

// Replay plays h's events from its base, calling each (when not nil)
// with the totals after every event, and returns the totals after the
// last. It fails at the first event that cannot have happened: a buffer
// handed out twice, released while not live, more reused or returned
// than the pool held.
func (h *History) Replay(each func(i int, t HistoryTotals)) (HistoryTotals, error) {
	var after func(int, *replay)
	if each != nil {
		after = func(i int, r *replay) { each(i, r.t) }
	}
	r, err := h.replayTo(len(h.Events)-1, after)
	return r.t, err
}

// replayTo plays h's events up to event last, calling each (when not nil)
// with the state after every one.
func (h *History) replayTo(last int, each func(i int, r *replay)) (*replay, error) {
	r := &replay{}
	r.init()
	r.t = h.Base.Totals
	for _, b := range h.Base.Live {
		r.live[b.Buffer] = b
	}
	if len(r.live) != r.t.LiveBuffers {
		return r, fmt.Errorf("the base lists %d live buffers but counts %d", len(r.live), r.t.LiveBuffers)
	}
	for i, e := range h.Events[:last+1] {
		if err := r.apply(e); err != nil {
			return r, fmt.Errorf("event %d (%s of buffer %d, %d B): %v", i, e.Kind, e.Buffer, e.Bytes, err)
		}
		if each != nil {
			each(i, r)
		}
	}
	return r, nil
}

// LiveEach replays h once and calls each after every event from first on
// with the event's index and the buffers then live, in no order: what
// Live(i) gives for each i, without a replay each. live is valid during
// the call only. It fails as Replay does.
func (h *History) LiveEach(first int, each func(i int, live iter.Seq[HistoryBuffer])) error {
	_, err := h.replayTo(len(h.Events)-1, func(i int, r *replay) {
		if i >= first {
			each(i, maps.Values(r.live))
		}
	})
	return err
}

// Live returns the buffers live after event i (before the first event
// for i = -1), by ID, as h's replay finds them, with the description
// each carries then.
func (h *History) Live(i int) ([]HistoryBuffer, error) {
	if i < -1 || i >= len(h.Events) {
		return nil, fmt.Errorf("memory history: no event %d of %d", i, len(h.Events))
	}
	r, err := h.replayTo(i, nil)
	if err != nil {
		return nil, err
	}
	return slices.SortedFunc(maps.Values(r.live), func(a, b HistoryBuffer) int { return cmpUint(a.Buffer, b.Buffer) }), nil
}

// HistoryGrowth is how much more a history held at a later instant than
// at an earlier one, from one line of the user's code (History.Growth).
type HistoryGrowth struct {
	Site    string // the user frame, as HistorySite.String gives it; "unknown" for the runtime's own buffers
	Buffers int    // live buffers then, less those live at the earlier instant
	Bytes   uint64 // their bytes, likewise
}

// Growth returns, for each line of the user's code that asked for
// buffers, how many more bytes were live from it after event to than
// after event from (-1: before the first event), where that is more, the
// most first: the leak finder, with from and to two markers of the same
// point in a loop (EventMark, say "step 3" and "step 9"; see Marks). A
// buffer freed and made again each step counts at neither instant; what
// a loop keeps is counted at the line that made it.
func (h *History) Growth(from, to int) ([]HistoryGrowth, error) {
	if from > to {
		return nil, fmt.Errorf("memory history: growth from event %d to the earlier %d", from, to)
	}
	before, err := h.Live(from)
	if err != nil {
		return nil, err
	}
	after, err := h.Live(to)
	if err != nil {
		return nil, err
	}
	lines := make(map[int32]string)
	type net struct {
		buffers int
		bytes   int64
	}
	bySite := map[string]*net{}
	count := func(bufs []HistoryBuffer, sign int) {
		for _, b := range bufs {
			line, ok := lines[b.Site]
			if !ok {
				line = "unknown"
				if b.Site >= 0 {
					line = h.Sites[b.Site].String()
				}
				lines[b.Site] = line
			}
			n := bySite[line]
			if n == nil {
				n = &net{}
				bySite[line] = n
			}
			n.buffers += sign
			n.bytes += int64(sign) * int64(b.Bytes)
		}
	}
	count(after, 1)
	count(before, -1)
	var out []HistoryGrowth
	for line, n := range bySite {
		if n.bytes > 0 {
			out = append(out, HistoryGrowth{Site: line, Buffers: n.buffers, Bytes: uint64(n.bytes)})
		}
	}
	slices.SortFunc(out, func(a, b HistoryGrowth) int {
		if c := cmpUint(b.Bytes, a.Bytes); c != 0 {
			return c
		}
		return strings.Compare(a.Site, b.Site)
	})
	return out, nil
}

// Marks returns the indices of h's events that are markers (EventMark)
// with the given label, oldest first.
func (h *History) Marks(label string) []int {
	var out []int
	for i, e := range h.Events {
		if e.Kind == EventMark && e.Label >= 0 && h.Labels[e.Label] == label {
			out = append(out, i)
		}
	}
	return out
}

// Check reports whether h is consistent, as ReadHistory makes sure of a
// dump and a History built in Go may not be: every site, tag and label
// index within its table, every number within 2^53 (exact in a dump and
// in JavaScript), events in time order with known kinds and usages, and
// the events replaying from the base to the pool's figures h was written
// with (live and pooled buffers and bytes).
func (h *History) Check() error {
	index := func(i int32, n int) bool { return i >= -1 && int(i) < n }
	for i, b := range h.Base.Live {
		if !index(b.Site, len(h.Sites)) || !index(b.Tag, len(h.Tags)) || b.Bytes > maxExact || b.Buffer > maxExact || b.Tensor > maxExact ||
			int(b.Usage) >= len(usageNames) {
			return fmt.Errorf("base buffer %d holds an index or number out of range", i)
		}
	}
	var last time.Duration
	for i, e := range h.Events {
		if !index(e.Site, len(h.Sites)) || !index(e.Tag, len(h.Tags)) || !index(e.Label, len(h.Labels)) ||
			e.Bytes > maxExact || e.Buffer > maxExact || e.Tensor > maxExact || e.Time < last || e.Time > maxExact ||
			e.Kind < 1 || int(e.Kind) >= len(eventNames) || int(e.Usage) >= len(usageNames) {
			return fmt.Errorf("event %d holds an index or number out of range, or out of time order", i)
		}
		last = e.Time
	}
	t, err := h.Replay(nil)
	if err != nil {
		return err
	}
	p := h.Pool
	if t.LiveBuffers != p.LiveBuffers || t.LiveBytes != p.LiveBytes || t.PooledBuffers != p.PooledBuffers || t.PooledBytes != p.PooledBytes {
		return fmt.Errorf("its events add up to %d live buffers (%d B) and %d pooled (%d B), but the pool held %d (%d B) and %d (%d B)",
			t.LiveBuffers, t.LiveBytes, t.PooledBuffers, t.PooledBytes, p.LiveBuffers, p.LiveBytes, p.PooledBuffers, p.PooledBytes)
	}
	return nil
}

// replay is a history's state as its events add up: the totals and the
// live buffers.
type replay struct {
	t    HistoryTotals
	live map[uint64]HistoryBuffer
}

func (r *replay) init() { r.live = map[uint64]HistoryBuffer{} }

// apply adds e to the state, or says why it cannot have happened.
func (r *replay) apply(e HistoryEvent) error {
	switch e.Kind {
	case EventAlloc, EventReuse:
		if _, dup := r.live[e.Buffer]; dup || e.Buffer == 0 {
			return errors.New("handed out while live")
		}
		if e.Kind == EventReuse {
			if r.t.PooledBuffers == 0 || r.t.PooledBytes < e.Bytes {
				return errors.New("reuses more than the pool holds")
			}
			r.t.PooledBuffers--
			r.t.PooledBytes -= e.Bytes
		}
		r.live[e.Buffer] = HistoryBuffer{Buffer: e.Buffer, Bytes: e.Bytes, Usage: e.Usage, Site: e.Site, Tag: e.Tag, Tensor: e.Tensor, Since: e.Time}
		r.t.LiveBuffers++
		r.t.LiveBytes += e.Bytes
	case EventRelease, EventFree:
		b, ok := r.live[e.Buffer]
		if !ok || b.Bytes != e.Bytes {
			return errors.New("released while not live")
		}
		delete(r.live, e.Buffer)
		r.t.LiveBuffers--
		r.t.LiveBytes -= e.Bytes
		if e.Kind == EventRelease {
			r.t.PooledBuffers++
			r.t.PooledBytes += e.Bytes
		} else {
			r.t.ReturnedBytes += e.Bytes
		}
	case EventReturn:
		if r.t.PooledBuffers == 0 || r.t.PooledBytes < e.Bytes {
			return errors.New("returns more than the pool holds")
		}
		r.t.PooledBuffers--
		r.t.PooledBytes -= e.Bytes
		r.t.ReturnedBytes += e.Bytes
	case EventTag:
		b, ok := r.live[e.Buffer]
		if !ok {
			return errors.New("described while not live")
		}
		b.Tag, b.Tensor = e.Tag, e.Tensor
		r.live[e.Buffer] = b
	case EventClose:
		r.t.ReturnedBytes += r.t.LiveBytes + r.t.PooledBytes
		r.t.LiveBuffers, r.t.LiveBytes, r.t.PooledBuffers, r.t.PooledBytes = 0, 0, 0, 0
		clear(r.live)
	}
	return nil
}
