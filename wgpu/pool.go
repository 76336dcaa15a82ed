package wgpu

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/wgtensor/wgtensor/internal/bytesize"
	"github.com/wgtensor/wgtensor/internal/callsite"
	"github.com/wgtensor/wgtensor/wgpu/internal/native"
)

// Usage says what a buffer is for; the pool keeps one free list per usage
// and size class.
type Usage int

// The usages.
const (
	// UsageStorage: kernel inputs and outputs; can be written from the host
	// and copied out for readback.
	UsageStorage Usage = iota
	// UsageReadback: staging buffers that readbacks map for reading.
	UsageReadback
	// UsageUniform: kernel parameters.
	UsageUniform
	// UsageUpload: staging buffers that large writes go through. They are
	// the runtime's own: NewBuffer refuses this usage, since a pooled upload
	// buffer is always mapped, ready to be written.
	UsageUpload
)

func (u Usage) String() string {
	switch u {
	case UsageReadback:
		return "readback"
	case UsageUniform:
		return "uniform"
	case UsageUpload:
		return "upload"
	case UsageStorage:
		return "storage"
	}
	return fmt.Sprintf("Usage(%d)", int(u))
}

// native is the usage's kind of buffer in package native.
func (u Usage) native() native.Usage {
	switch u {
	case UsageReadback:
		return native.UsageReadback
	case UsageUniform:
		return native.UsageUniform
	case UsageUpload:
		return native.UsageUpload
	}
	return native.UsageStorage
}

// Buffer is a handle to a GPU buffer handed out by a device's pool.
// Release gives the memory back; the pool reuses it for later buffers or,
// on Trim, destroys it. Every hand-out is a new handle, so a released
// handle stays released (ErrDisposed) whatever the pool does with the
// memory it named, and its size, capacity and usage never change.
//
// A Buffer is safe for concurrent use: its methods go through the device.
// The zero Buffer and a nil *Buffer are no buffer: their accessors return
// zero values and the device's calls refuse them.
type Buffer struct {
	d        *Device
	alloc    *allocation // the memory, which outlives the handle in the pool
	raw      *native.Buffer
	id       uint64
	size     uint64 // bytes asked for
	capacity uint64 // bytes allocated: the size class
	usage    Usage
	internal bool // the runtime's own (staging, parameters)

	// Protected by d.mu.
	site     callsite.Stack // where its holder was made: where it was handed out, until Attribute
	live     bool           // handed out and not released
	awaiting bool           // its owners let go; only work not yet recorded holds it (AwaitWork)
	lost     error          // why its contents are lost: a batch that writes it failed
}

// allocation is one buffer created through the driver: what the pool keeps
// and hands out again, each time behind a new Buffer handle.
type allocation struct {
	raw      *native.Buffer
	capacity uint64
	usage    Usage

	// Protected by Device.mu.
	destroyed bool   // destroyed: by Trim, Close or a test
	lastBatch uint64 // the recorder batch that last named it
}

// ID is the buffer's number, unique within its device; 0 for no buffer.
func (b *Buffer) ID() uint64 {
	if b == nil {
		return 0
	}
	return b.id
}

// Size is the size asked for, in bytes.
func (b *Buffer) Size() uint64 {
	if b == nil {
		return 0
	}
	return b.size
}

// Capacity is the size allocated, in bytes: Size rounded up to its class.
func (b *Buffer) Capacity() uint64 {
	if b == nil {
		return 0
	}
	return b.capacity
}

// Usage says what the buffer is for.
func (b *Buffer) Usage() Usage {
	if b == nil {
		return UsageStorage
	}
	return b.usage
}

// Release gives the buffer back to the pool. Work already recorded or
// submitted that reads or writes it still runs correctly: the pool only
// destroys buffers no unsubmitted work names. Releasing twice returns
// ErrDisposed; releasing after the device closed does nothing; releasing
// no buffer (nil or the zero Buffer) returns ErrInvalidArgument.
func (b *Buffer) Release() error {
	if b == nil || b.d == nil {
		return newError("release buffer", ErrInvalidArgument, "not a buffer from NewBuffer")
	}
	d := b.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	if !b.live {
		return newError(fmt.Sprintf("release buffer %d", b.id), ErrDisposed, "")
	}
	d.pool.put(b)
	return nil
}

// Attribute makes the device's reports (LiveBuffers, Close's leak report,
// poison reports) name site, a call stack as runtime.Callers returns it,
// as the place b was made, instead of the call that asked for it. A
// library that shares one buffer among several handles calls it when the
// handle whose site b carried goes and another stays, so that a report
// names a line the user can still find live. It does nothing to a
// released buffer, and is safe for concurrent use.
func (b *Buffer) Attribute(site []uintptr) {
	if b == nil || b.d == nil {
		return
	}
	stack := callsite.FromPCs(site)
	b.d.mu.Lock()
	defer b.d.mu.Unlock()
	if b.live {
		b.site = stack
	}
}

// AwaitWork tells the device's reports that every owner of b has let go
// and b stays live only until work a library has queued but not yet
// recorded (a fused op waiting for its group's dispatch) releases it.
// LiveBuffers reports it as AwaitingWork and Close's leak report lists it
// apart from the buffers an owner still holds. It does nothing to a
// released buffer, and is safe for concurrent use.
func (b *Buffer) AwaitWork() {
	if b == nil || b.d == nil {
		return
	}
	b.d.mu.Lock()
	defer b.d.mu.Unlock()
	if b.live {
		b.awaiting = true
	}
}

// PoolStats are a device pool's figures, exact at the moment they are taken.
// Bytes are allocated bytes (size classes), not bytes asked for.
type PoolStats struct {
	// Pool status.
	LiveBuffers       int    // buffers handed out and not released
	LiveBytes         uint64 // their bytes
	PooledBuffers     int    // released buffers kept for reuse
	PooledBytes       uint64 // their bytes
	ReservedBytes     uint64 // LiveBytes + PooledBytes: what the driver holds for the pool
	PeakLiveBytes     uint64 // highest LiveBytes since open
	PeakReservedBytes uint64 // highest ReservedBytes since open
	MemoryLimit       uint64 // 0 when there is none

	// Counters.
	Allocs     uint64 // buffers created through the driver
	Reuses     uint64 // requests served from the pool
	Frees      uint64 // buffers destroyed
	Trims      uint64 // Trim calls, including those the memory limit made
	OOMRetries uint64 // allocations retried after trimming for memory
}

func (s PoolStats) String() string {
	return fmt.Sprintf("live %d buffers %s, pooled %d buffers %s, reserved %s (peak live %s, peak reserved %s); allocs %d, reuses %d, frees %d, trims %d, oom retries %d",
		s.LiveBuffers, bytesize.Format(s.LiveBytes), s.PooledBuffers, bytesize.Format(s.PooledBytes), bytesize.Format(s.ReservedBytes),
		bytesize.Format(s.PeakLiveBytes), bytesize.Format(s.PeakReservedBytes), s.Allocs, s.Reuses, s.Frees, s.Trims, s.OOMRetries)
}

type poolKey struct {
	capacity uint64
	usage    Usage
}

// poolState is the pool's bookkeeping, protected by Device.mu.
type poolState struct {
	free  map[poolKey][]*allocation
	live  map[*Buffer]struct{}
	stats PoolStats
	watch *memWatch   // a running Timer's memory figures (timing.go); nil when none
	hist  *historyRec // the memory history (history.go); nil when none was recorded
}

func (p *poolState) init(limit uint64) {
	p.free = make(map[poolKey][]*allocation)
	p.live = make(map[*Buffer]struct{})
	p.stats.MemoryLimit = limit
}

// sizeClass rounds n up to the size the pool allocates: multiples of 256 B
// up to 64 KiB, then four classes per power of two, so at most a quarter
// of a buffer is slack.
func sizeClass(n uint64) uint64 {
	const small = 64 << 10
	if n <= small {
		return max(256, (n+255)&^255)
	}
	step := uint64(1) << (63 - bits.LeadingZeros64(n)) / 4
	return (n + step - 1) / step * step
}

// Pool is a view of a device's buffer pool. It is safe for concurrent use
// by multiple goroutines. The zero Pool, like the pool of a nil or zero
// Device, has zero figures, ignores settings and refuses to Trim.
type Pool struct{ d *Device }

// Pool returns the device's buffer pool.
func (d *Device) Pool() Pool { return Pool{d} }

// Stats returns the pool's figures, all taken under one lock.
func (p Pool) Stats() PoolStats {
	if p.d.opened("pool stats") != nil {
		return PoolStats{}
	}
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	return p.d.pool.stats
}

// SetMemoryLimit sets the most bytes the pool may hold, live and pooled;
// 0 removes the limit. A limit below what is live now fails later
// allocations; it never frees live buffers.
func (p Pool) SetMemoryLimit(n uint64) {
	if p.d.opened("set memory limit") != nil {
		return
	}
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	p.d.pool.stats.MemoryLimit = n
	p.d.pool.hist.marker(EventLimit, n, "")
}

// ResetPeaks sets the peak figures to the current ones, so that the peaks
// that follow describe what runs next, like PyTorch's
// torch.cuda.reset_peak_memory_stats.
func (p Pool) ResetPeaks() {
	if p.d.opened("reset peaks") != nil {
		return
	}
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	s := &p.d.pool.stats
	s.PeakLiveBytes, s.PeakReservedBytes = s.LiveBytes, s.ReservedBytes
}

// Trim destroys every pooled buffer, returning its memory to the driver.
// Pooled buffers that recorded but unsubmitted work still names are
// submitted first, so no submission ever names a destroyed buffer.
func (p Pool) Trim() error {
	d := p.d
	if err := d.opened("trim"); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable("trim"); err != nil {
		return err
	}
	return d.trimLocked()
}

func (d *Device) trimLocked() error {
	p := &d.pool
	p.stats.Trims++
	for _, list := range p.free {
		for _, a := range list {
			if d.rec.names(a) {
				if err := d.flushLocked(); err != nil {
					return err
				}
				break
			}
		}
	}
	p.hist.marker(EventTrim, p.stats.PooledBytes, "")
	for k, list := range p.free {
		for _, a := range list {
			p.destroy(a)
			p.hist.returned(a)
			p.stats.PooledBuffers--
			p.stats.PooledBytes -= a.capacity
		}
		delete(p.free, k)
	}
	p.stats.ReservedBytes = p.stats.LiveBytes + p.stats.PooledBytes
	return nil
}

// destroy gives a's memory back to the driver, once.
func (p *poolState) destroy(a *allocation) {
	if a.destroyed {
		return
	}
	a.raw.Destroy()
	a.raw.Release()
	a.destroyed = true
	p.stats.Frees++
}

// NewBuffer hands out a buffer of at least size bytes for usage, reusing a
// pooled one of the same size class when it can. Its creation site, for
// memory reports, is the first caller outside wgtensor's packages.
func (d *Device) NewBuffer(size uint64, usage Usage) (*Buffer, error) {
	site := callsite.Capture(1)
	return d.NewBufferAt(size, usage, site[:])
}

// NewBufferAt is NewBuffer with the creation site given as a call stack,
// innermost first, as runtime.Callers fills it (the first 6 frames count),
// for layers that report their own callers: memory reports name its first
// frame outside wgtensor's packages.
func (d *Device) NewBufferAt(size uint64, usage Usage, site []uintptr) (*Buffer, error) {
	op := fmt.Sprintf("new %s buffer of %d B", usage, size)
	if err := d.opened(op); err != nil {
		return nil, err
	}
	if usage == UsageUpload {
		return nil, newError(op, ErrInvalidArgument, "upload buffers are the runtime's own")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.newBufferLocked(size, usage, site, false)
}

func (d *Device) newBufferLocked(size uint64, usage Usage, site []uintptr, internal bool) (*Buffer, error) {
	op := fmt.Sprintf("new %s buffer of %d B", usage, size)
	if err := d.usable(op); err != nil {
		return nil, err
	}
	if usage < UsageStorage || usage > UsageUpload {
		return nil, newError(op, ErrInvalidArgument, fmt.Sprintf("unknown usage %d", int(usage)))
	}
	capacity, ok := capacityFor(size, d.limits.MaxBufferSize)
	if !ok {
		return nil, newError(op, ErrLimit, fmt.Sprintf("the device's max buffer size is %d B, and buffers are whole 4-byte words", d.limits.MaxBufferSize))
	}
	p := &d.pool
	key := poolKey{capacity, usage}
	var a *allocation
	reused := false
	if list := p.free[key]; len(list) > 0 {
		reused = true
		a = list[len(list)-1]
		list[len(list)-1] = nil
		p.free[key] = list[:len(list)-1]
		p.stats.PooledBuffers--
		p.stats.PooledBytes -= capacity
		p.stats.Reuses++
	} else {
		raw, err := d.allocLocked(op, capacity, usage)
		if err != nil {
			return nil, err
		}
		a = &allocation{raw: raw, capacity: capacity, usage: usage}
		p.stats.Allocs++
	}
	d.nextID++
	b := &Buffer{d: d, alloc: a, raw: a.raw, id: d.nextID, size: size, capacity: capacity, usage: usage, site: callsite.FromPCs(site), internal: internal, live: true}
	p.live[b] = struct{}{}
	p.stats.LiveBuffers++
	p.stats.LiveBytes += capacity
	p.stats.ReservedBytes = p.stats.LiveBytes + p.stats.PooledBytes
	p.stats.PeakLiveBytes = max(p.stats.PeakLiveBytes, p.stats.LiveBytes)
	p.stats.PeakReservedBytes = max(p.stats.PeakReservedBytes, p.stats.ReservedBytes)
	p.watch.handedOut(b)
	p.hist.handedOut(b, reused)
	if d.opts.Poison && usage == UsageStorage && !internal {
		if err := d.poisonLocked(b); err != nil {
			d.pool.put(b)
			return nil, err
		}
	}
	return b, nil
}

// PoisonWord is what Options.Poison fills storage buffers with: a
// signalling NaN as float32 (-4,531,283 as int32), which no op makes from
// numbers.
const PoisonWord uint32 = 0xffbadbad

// poisonLocked fills b's whole capacity with PoisonWord, ordered as Write
// orders its writes: after the work recorded before it, so that a
// readback of the buffer's last owner still sees that owner's bytes.
func (d *Device) poisonLocked(b *Buffer) error {
	if d.rec.names(b.alloc) {
		if err := d.flushLocked(); err != nil {
			return err
		}
	}
	if uint64(len(d.poison)) < b.capacity {
		d.poison = make([]byte, b.capacity)
		for i := 0; i < len(d.poison); i += 4 {
			binary.LittleEndian.PutUint32(d.poison[i:], PoisonWord)
		}
	}
	if err := d.dev.WriteBuffer(b.raw, 0, d.poison[:b.capacity]); err != nil {
		e := fromBinding(fmt.Sprintf("poison buffer %d", b.id), err)
		d.noteErr(e)
		return e
	}
	d.unsubmittedWrites += b.capacity
	if d.unsubmittedWrites >= maxUnsubmittedWrites {
		return d.flushLocked()
	}
	return nil
}

// poisoned returns the index of the first word of data, read from offset
// (a multiple of 4), that is PoisonWord, or -1.
func poisoned(data []byte) int {
	for i := 0; i+4 <= len(data); i += 4 {
		if binary.LittleEndian.Uint32(data[i:]) == PoisonWord {
			return i / 4
		}
	}
	return -1
}

// capacityFor returns the bytes the pool allocates for a buffer of size
// bytes on a device whose largest buffer is maxSize: its size class, or,
// where the class passes maxSize, size rounded up to a whole word (copies
// and maps move whole words). It reports false if even that passes maxSize.
func capacityFor(size, maxSize uint64) (uint64, bool) {
	if size > maxSize&^3 {
		return 0, false
	}
	if c := sizeClass(size); c <= maxSize {
		return c, true
	}
	return (size + 3) &^ 3, true
}

// allocLocked creates a buffer through the driver, enforcing the memory
// limit: trim, then fail. A driver out-of-memory also trims and retries once.
func (d *Device) allocLocked(op string, capacity uint64, usage Usage) (*native.Buffer, error) {
	p := &d.pool
	limit := p.stats.MemoryLimit
	if limit > 0 && passes(p.stats.ReservedBytes, capacity, limit) {
		if capacity <= limit && p.stats.PooledBytes > 0 {
			p.stats.OOMRetries++
			p.hist.marker(EventOOMRetry, capacity, "memory limit")
			if err := d.trimLocked(); err != nil {
				return nil, err
			}
		}
		if passes(p.stats.LiveBytes, capacity, limit) {
			detail := fmt.Sprintf("%s would pass the memory limit of %s; %s", bytesize.Format(capacity), bytesize.Format(limit), p.liveReport(true))
			return nil, newError(op, ErrOutOfMemory, d.historyOOM(capacity, "memory limit", detail))
		}
	}
	// A new upload buffer starts mapped, as pooled ones are.
	raw, err := d.dev.CreateBuffer(capacity, usage.native())
	if native.IsKind(err, native.OutOfMemory) && p.stats.PooledBytes > 0 {
		p.stats.OOMRetries++
		p.hist.marker(EventOOMRetry, capacity, "driver")
		if terr := d.trimLocked(); terr != nil {
			return nil, terr
		}
		raw, err = d.dev.CreateBuffer(capacity, usage.native())
	}
	if err != nil {
		e := fromBinding(op, err)
		if e.Kind == ErrOutOfMemory {
			e.Detail = d.historyOOM(capacity, "driver", e.Detail+"; "+p.liveReport(true))
		}
		d.noteErr(e)
		return nil, e
	}
	return raw, nil
}

// historyOOM records an allocation of capacity bytes that failed for
// want of memory (why: "memory limit" or "driver") in the history, writes
// the history where HistoryOptions.OnOOM asks, and returns the error's
// detail with where it went.
func (d *Device) historyOOM(capacity uint64, why, detail string) string {
	h := d.pool.hist
	if !h.recording() {
		return detail
	}
	h.marker(EventOOM, capacity, why)
	if path := h.opts.OnOOM; path != "" {
		detail += "; " + d.dumpHistoryLocked(path, "out of memory")
	}
	return detail
}

// passes reports whether used+n bytes pass limit, without wrapping.
func passes(used, n, limit uint64) bool { return used > limit || n > limit-used }

// put ends a live handle and returns its memory to the free list. The
// handle stays released for ever; the memory may serve a new handle.
func (p *poolState) put(b *Buffer) {
	delete(p.live, b)
	b.live = false
	p.watch.released(b)
	p.hist.released(b, b.alloc.destroyed)
	p.stats.LiveBuffers--
	p.stats.LiveBytes -= b.capacity
	if b.alloc.destroyed {
		p.stats.ReservedBytes = p.stats.LiveBytes + p.stats.PooledBytes
		return
	}
	key := poolKey{b.capacity, b.usage}
	p.free[key] = append(p.free[key], b.alloc)
	p.stats.PooledBuffers++
	p.stats.PooledBytes += b.capacity
}

// drop destroys a live buffer that can serve no one again, such as an
// upload buffer left unmapped, and takes it off the live list.
func (p *poolState) drop(b *Buffer) {
	p.destroy(b.alloc)
	p.put(b)
}

// destroyAll destroys every buffer, live and pooled (Close).
func (p *poolState) destroyAll() {
	for b := range p.live {
		p.destroy(b.alloc)
		b.live = false
		delete(p.live, b)
	}
	for k, list := range p.free {
		for _, a := range list {
			p.destroy(a)
		}
		delete(p.free, k)
	}
	p.stats.LiveBuffers, p.stats.LiveBytes = 0, 0
	p.stats.PooledBuffers, p.stats.PooledBytes, p.stats.ReservedBytes = 0, 0, 0
}

// BufferInfo describes one live buffer, for memory reports.
type BufferInfo struct {
	ID       uint64
	Size     uint64 // bytes asked for
	Capacity uint64 // bytes allocated
	Usage    Usage
	Site     string // "dir/file.go:line" of the first caller outside wgtensor that asked for it (or of the holder Attribute named)
	Internal bool   // the runtime's own: staging or parameters
	// AwaitingWork says that every owner let go of the buffer and only
	// work queued but not yet recorded holds it (see Buffer.AwaitWork):
	// flushing that work frees it.
	AwaitingWork bool
}

// LiveBuffers lists the buffers handed out and not released, by id; none
// for a nil or zero Device.
func (d *Device) LiveBuffers() []BufferInfo {
	if d.opened("live buffers") != nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	infos := make([]BufferInfo, 0, len(d.pool.live))
	for b := range d.pool.live {
		infos = append(infos, BufferInfo{ID: b.id, Size: b.size, Capacity: b.capacity, Usage: b.usage, Site: b.site.String(), Internal: b.internal, AwaitingWork: b.awaiting})
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].ID < infos[j].ID })
	return infos
}

// liveReport summarises live buffers by creation site, largest first:
// "live 3 buffers, 12.00 MiB: 2 × 8.00 MiB at x.go:10, ...". Buffers that
// only wait for queued work (Buffer.AwaitWork) are summarised apart, after
// the others. Internal buffers are included only if withInternal; "" if
// there is nothing to say.
func (p *poolState) liveReport(withInternal bool) string {
	var held, awaiting []*Buffer
	for b := range p.live {
		switch {
		case b.internal && !withInternal:
		case b.awaiting:
			awaiting = append(awaiting, b)
		default:
			held = append(held, b)
		}
	}
	switch {
	case len(held)+len(awaiting) == 0 && withInternal:
		return "nothing is live"
	case len(held)+len(awaiting) == 0:
		return ""
	case len(awaiting) == 0:
		return "live " + summarise(held)
	case len(held) == 0:
		return "live " + summarise(awaiting) + ", every one disposed and held only by queued work (a flush or Sync frees them)"
	}
	return "live " + summarise(held) + "; and " + summarise(awaiting) + " disposed and held only by queued work (a flush or Sync frees them)"
}

// summarise describes buffers by site, largest first: "3 buffers,
// 12.00 MiB: 2 × 8.00 MiB at x.go:10, ...", naming at most five sites.
func summarise(bufs []*Buffer) string {
	type group struct {
		site  string
		n     int
		bytes uint64
	}
	groups := map[string]*group{}
	var total uint64
	for _, b := range bufs {
		site := b.site.String()
		if b.internal {
			site = "wgtensor (" + b.usage.String() + ")"
		}
		g := groups[site]
		if g == nil {
			g = &group{site: site}
			groups[site] = g
		}
		g.n++
		g.bytes += b.capacity
		total += b.capacity
	}
	list := make([]*group, 0, len(groups))
	for _, g := range groups {
		list = append(list, g)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].bytes != list[j].bytes {
			return list[i].bytes > list[j].bytes
		}
		return list[i].site < list[j].site
	})
	var sb strings.Builder
	noun := "buffers"
	if len(bufs) == 1 {
		noun = "buffer"
	}
	fmt.Fprintf(&sb, "%d %s, %s:", len(bufs), noun, bytesize.Format(total))
	for i, g := range list {
		if i == 5 {
			fmt.Fprintf(&sb, " and %d more sites", len(list)-i)
			break
		}
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, " %d × %s at %s", g.n, bytesize.Format(g.bytes/uint64(g.n)), g.site)
	}
	return sb.String()
}
