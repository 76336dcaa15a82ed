package wgpu

import (
	"fmt"
	"time"

	"github.com/wgtensor/wgtensor/internal/callsite"
)

// The memory history: every change to the pool's memory, in order, with
// time, so that a viewer can play back what a program held and when, not
// only what it holds now (LiveBuffers, PoolStats).
//
// A device records nothing until RecordHistory: while it does not, the
// pool's hooks cost one nil check. While it does, each event costs a
// clock read, an interned site and a slot in a ring of fixed size.

// EventKind says what a memory history event records.
type EventKind uint8

// The kinds of events. Bytes are allocated bytes (size classes) unless a
// kind says otherwise.
const (
	// EventAlloc: a buffer created through the driver and handed out.
	EventAlloc EventKind = iota + 1
	// EventReuse: a pooled buffer handed out again.
	EventReuse
	// EventRelease: a buffer released into the pool, which keeps its memory.
	EventRelease
	// EventFree: a buffer released whose memory was destroyed already (an
	// upload buffer that could not be mapped again, a buffer destroyed by
	// the device): the memory went back to the driver.
	EventFree
	// EventTrim: the pool began to give back what it keeps (Pool.Trim, the
	// memory limit, an out-of-memory retry); Bytes: the pooled bytes. The
	// EventReturn events that follow say what went.
	EventTrim
	// EventReturn: a pooled buffer destroyed, its memory given back to the
	// driver; Buffer is 0 (pooled memory has no handle).
	EventReturn
	// EventTag: a live buffer's description changed (Buffer.Describe).
	EventTag
	// EventMark: a marker (Device.MarkHistory): a frame, a training step,
	// a user's moment; Label names it.
	EventMark
	// EventLimit: the memory limit was set to Bytes (0: none).
	EventLimit
	// EventOOMRetry: an allocation of Bytes (its size class) trimmed the
	// pool to retry, for the memory limit or for the driver (Label).
	EventOOMRetry
	// EventOOM: an allocation of Bytes (its size class) failed with
	// ErrOutOfMemory; Label says why: "memory limit" or "driver".
	EventOOM
	// EventLost: the device was lost; Label says why.
	EventLost
	// EventClose: the device closed, destroying every buffer, live and
	// pooled.
	EventClose
)

// eventNames are the kinds' names, by kind: the dump's kind table.
var eventNames = [...]string{"", "alloc", "reuse", "release", "free", "trim", "return", "tag", "mark", "limit", "oom_retry", "oom", "lost", "close"}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && k > 0 {
		return eventNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// HistoryEvent is one event of a memory history. Site, Tag and Label are
// indices in the History's tables, -1 for none.
type HistoryEvent struct {
	Time   time.Duration // since the history began
	Usage  Usage
	Buffer uint64 // the buffer's ID; 0 for events of no buffer
	Bytes  uint64
	Tensor uint64 // the tensor its description names (Describe); 0 for none
	Site   int32  // where the buffer was asked for (History.Sites)
	Tag    int32  // the buffer's description (History.Tags)
	Label  int32  // a marker's, an OOM's or a loss's words (History.Labels)
	Kind   EventKind
}

// BufferTag describes what a buffer holds, for the memory history: the
// tensor package describes each tensor's storage. Every field is free
// text, shown as it is.
type BufferTag struct {
	// Category says what kind of memory it is: "parameter", "gradient",
	// "activation"... (the tensor package's categories). An empty one is
	// the usage's: "staging" for readback and upload buffers, "scratch"
	// for kernel parameters and the runtime's own storage, "user" for
	// other storage buffers.
	Category string
	DType    string
	Shape    string
	Scope    string // the labels it was made under, outermost first, "/"-separated
}

// HistoryOptions configure a memory history (RecordHistory).
type HistoryOptions struct {
	// Events is how many events the history keeps: a ring that drops the
	// oldest once full, counting them (History.Dropped). 0 means
	// DefaultHistoryEvents. Each event takes 56 bytes of host memory.
	Events int
	// OnOOM, when set, is a file the history is written to (WriteTo) when
	// an allocation fails with ErrOutOfMemory; the error's message says
	// where. Each failure overwrites it.
	OnOOM string
	// OnLoss, when set, is a file the history is written to when the
	// device is lost.
	OnLoss string
}

// DefaultHistoryEvents is the ring size of a history whose options give
// none: 2^20 events, 56 MiB of host memory.
const DefaultHistoryEvents = 1 << 20

// historyRec records a device's memory history. It lives in the pool
// state and is protected by Device.mu; a nil *historyRec records nothing.
type historyRec struct {
	opts    HistoryOptions
	started time.Time
	on      bool // recording; false once stopped or closed

	events  []HistoryEvent // a ring: events[head] is the oldest once full
	head    int
	dropped uint64
	base    replay // the state before the oldest event kept

	sites  map[callsite.Stack]int32
	stacks []callsite.Stack
	tags   map[BufferTag]int32
	tagged []BufferTag
	labels map[string]int32
	words  []string

	// end is the pool's and device's figures when recording stopped.
	endPool   PoolStats
	endDevice DeviceStats
	endTime   time.Duration
}

func newHistoryRec(opts HistoryOptions, live map[*Buffer]struct{}, stats PoolStats) *historyRec {
	if opts.Events <= 0 {
		opts.Events = DefaultHistoryEvents
	}
	h := &historyRec{opts: opts, started: time.Now(), on: true,
		sites: map[callsite.Stack]int32{}, tags: map[BufferTag]int32{}, labels: map[string]int32{}}
	h.base.init()
	// What is live and pooled before the first event is the base.
	for b := range live {
		h.base.live[b.id] = HistoryBuffer{Buffer: b.id, Bytes: b.capacity, Usage: b.usage, Site: h.site(b), Tag: -1}
	}
	h.base.t.LiveBuffers, h.base.t.LiveBytes = stats.LiveBuffers, stats.LiveBytes
	h.base.t.PooledBuffers, h.base.t.PooledBytes = stats.PooledBuffers, stats.PooledBytes
	return h
}

// recording reports whether h records.
func (h *historyRec) recording() bool { return h != nil && h.on }

// add appends e, stamped with the time, dropping the oldest event into
// the base when the ring is full.
func (h *historyRec) add(e HistoryEvent) {
	e.Time = time.Since(h.started)
	if len(h.events) < h.opts.Events {
		h.events = append(h.events, e)
		return
	}
	old := h.events[h.head]
	h.base.apply(old) // consistent by construction: the pool made it
	h.events[h.head] = e
	h.head = (h.head + 1) % len(h.events)
	h.dropped++
}

// newest returns the newest event, or nil.
func (h *historyRec) newest() *HistoryEvent {
	if len(h.events) == 0 {
		return nil
	}
	i := len(h.events) - 1
	if h.dropped > 0 {
		i = (h.head + len(h.events) - 1) % len(h.events)
	}
	return &h.events[i]
}

// site interns b's site; -1 for none.
func (h *historyRec) site(b *Buffer) int32 {
	if b.site == (callsite.Stack{}) {
		return -1
	}
	i, ok := h.sites[b.site]
	if !ok {
		i = int32(len(h.stacks))
		h.sites[b.site] = i
		h.stacks = append(h.stacks, b.site)
	}
	return i
}

// label interns s.
func (h *historyRec) label(s string) int32 {
	i, ok := h.labels[s]
	if !ok {
		i = int32(len(h.words))
		h.labels[s] = i
		h.words = append(h.words, s)
	}
	return i
}

// tag interns t.
func (h *historyRec) tag(t BufferTag) int32 {
	i, ok := h.tags[t]
	if !ok {
		i = int32(len(h.tagged))
		h.tags[t] = i
		h.tagged = append(h.tagged, t)
	}
	return i
}

// handedOut records b handed out, new or reused.
func (h *historyRec) handedOut(b *Buffer, reused bool) {
	if !h.recording() {
		return
	}
	kind := EventAlloc
	if reused {
		kind = EventReuse
	}
	e := event(kind, b.usage, b.id, b.capacity)
	e.Site = h.site(b)
	h.add(e)
}

// event is an event of kind about bytes of usage in buffer id (0 for
// none), naming no site, tag or label (index -1): the callers set those
// they know.
func event(kind EventKind, usage Usage, id, bytes uint64) HistoryEvent {
	return HistoryEvent{Kind: kind, Usage: usage, Buffer: id, Bytes: bytes, Site: -1, Tag: -1, Label: -1}
}

// released records b released: into the pool, or freed with memory
// destroyed already.
func (h *historyRec) released(b *Buffer, destroyed bool) {
	if !h.recording() {
		return
	}
	kind := EventRelease
	if destroyed {
		kind = EventFree
	}
	h.add(event(kind, b.usage, b.id, b.capacity))
}

// marker records an event of no buffer.
func (h *historyRec) marker(kind EventKind, bytes uint64, label string) {
	if !h.recording() {
		return
	}
	e := event(kind, 0, 0, bytes)
	if label != "" {
		e.Label = h.label(label)
	}
	h.add(e)
}

// returned records a pooled allocation destroyed.
func (h *historyRec) returned(a *allocation) {
	if !h.recording() {
		return
	}
	h.add(event(EventReturn, a.usage, 0, a.capacity))
}

// describe records b's description: in b's hand-out event when that is
// the newest (a tensor describes its storage as it allocates it), else
// as an EventTag.
func (h *historyRec) describe(b *Buffer, tensor uint64, t BufferTag) {
	if !h.recording() {
		return
	}
	tag := h.tag(t)
	if e := h.newest(); e != nil && e.Buffer == b.id && (e.Kind == EventAlloc || e.Kind == EventReuse) && e.Tag < 0 {
		e.Tag, e.Tensor = tag, tensor
		return
	}
	e := event(EventTag, b.usage, b.id, b.capacity)
	e.Tensor, e.Tag = tensor, tag
	h.add(e)
}
