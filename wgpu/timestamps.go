package wgpu

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/wgtensor/wgtensor/wgpu/internal/native"
)

// stamps are a running Timer's timestamp queries: a query set, and an
// internal storage buffer the batches resolve their queries into. Each
// timed dispatch takes two queries (its pass's start and end); when the
// set runs short, and at Stop, the Timer reads the buffer back (harvest)
// and starts over at query 0. Protected by Device.mu; only the goroutine
// holding the Timer's mu harvests.
type stamps struct {
	set      *native.QuerySet
	buf      *Buffer
	used     uint32    // queries taken, or skipped to align a resolve
	resolved uint32    // queries [0, resolved) are resolved into buf by submitted batches, or skipped
	waiting  []stamped // dispatches whose queries are not read back yet
	batch    []int     // records of the dispatches stamped in the open batch
	epoch    uint64    // the first tick read back: the timeline's zero
	haveZero bool
}

// stamped is a timed dispatch's record (an index in Timer.records) and its
// first query; the second follows it.
type stamped struct {
	record int
	query  uint32
}

const (
	stampQueries = 4096    // queries per set: 32 KiB of results
	resolveAlign = 256 / 8 // queries in 256 B, the alignment of a resolve's destination
	// stampMargin is the free queries a timed dispatch is sure of: its two,
	// and the ones flushes may skip while it is being recorded.
	stampMargin = 2 + 2*resolveAlign
)

// newStampsLocked makes a Timer's queries, or returns nil if the device
// cannot have them.
func (d *Device) newStampsLocked() *stamps {
	set, err := d.dev.CreateTimestampQuerySet("wgtensor timer", stampQueries)
	if err != nil {
		return nil
	}
	buf, err := d.newBufferLocked(stampQueries*8, UsageStorage, nil, true)
	if err != nil {
		set.Release()
		return nil
	}
	return &stamps{set: set, buf: buf}
}

// release lets go of the query set and the buffer.
func (s *stamps) release() {
	s.set.Release()
	_ = s.buf.Release()
}

// stampsLocked returns the running Timer and its queries, if it has them.
func (d *Device) stampsLocked() (*Timer, *stamps) {
	t := d.timer.Load()
	if t == nil || t.stamps == nil {
		return nil, nil
	}
	return t, t.stamps
}

// encodeDispatchLocked records a dispatch into the open batch: in a
// compute pass of its own that is stamped if a Timer with timestamp
// queries runs (timedDispatch made room), else into the batch's pass.
func (d *Device) encodeDispatchLocked(k *Kernel, bg *native.BindGroup, groups [3]uint32, bufs []*Buffer) {
	t, s := d.stampsLocked()
	if s == nil || stampQueries-s.used < 2 {
		d.rec.enc.Dispatch(k.pipeline, bg, groups)
		return
	}
	q := s.used
	d.rec.enc.DispatchTimed(k.pipeline, bg, groups, s.set, q, q+1)
	s.used += 2
	d.rec.name(s.buf)
	rec := dispatchRecord(k, groups, bufs)
	rec.Source = GPUTimestamps
	t.records = append(t.records, rec)
	s.waiting = append(s.waiting, stamped{record: len(t.records) - 1, query: q})
	s.batch = append(s.batch, len(t.records)-1)
}

// resolveStampsLocked records, at the end of the open batch, the
// resolution of the queries it stamped. The next resolve starts 256 bytes
// on, as WebGPU wants.
func (d *Device) resolveStampsLocked() {
	_, s := d.stampsLocked()
	if s == nil || s.used == s.resolved {
		return
	}
	// An error invalidates the batch, and Finish reports it.
	_ = d.rec.enc.ResolveTimestamps(s.set, s.resolved, s.used-s.resolved, s.buf.raw, uint64(s.resolved)*8)
	s.used = min((s.used+resolveAlign-1)/resolveAlign*resolveAlign, stampQueries)
	s.resolved = s.used
}

// settleStampsLocked ends the open batch's part in the queries: if the
// batch failed (err), its dispatches did not run, and their records are
// marked to be dropped.
func (d *Device) settleStampsLocked(err error) {
	t, s := d.stampsLocked()
	if s == nil {
		return
	}
	if err != nil {
		for _, i := range s.batch {
			t.records[i].Duration = -1
		}
	}
	s.batch = s.batch[:0]
}

// makeRoom harvests t's queries if a dispatch might not find two free.
// The caller holds t.mu.
func (t *Timer) makeRoom() error {
	d := t.d
	d.mu.Lock()
	enough := t.stopped || stampQueries-t.stamps.used >= stampMargin
	d.mu.Unlock()
	if enough {
		return nil
	}
	return t.harvest(context.Background())
}

// harvest submits the open batch, reads the resolved queries back and
// fills in the records of the dispatches waiting for them, then starts the
// queries over. Ticks are taken as nanoseconds (see native's timestamp.go).
// On failure the waiting records are marked to be dropped. The caller
// holds t.mu.
func (t *Timer) harvest(ctx context.Context) error {
	d, s := t.d, t.stamps
	_ = d.Flush() // a failed batch marks its own records
	d.mu.Lock()
	waiting, n := s.waiting, s.resolved
	s.waiting = nil
	d.mu.Unlock()
	var data []byte
	var err error
	if n > 0 {
		data, err = d.ReadAsync(s.buf, 0, uint64(n)*8).Await(ctx)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	s.used, s.resolved = 0, 0
	for _, w := range waiting {
		r := &t.records[w.record]
		if err != nil || len(data) < 8*int(w.query+2) { // not resolved: its batch failed
			r.Duration = -1
		}
		if r.Duration < 0 {
			continue
		}
		begin := binary.LittleEndian.Uint64(data[8*w.query:])
		end := binary.LittleEndian.Uint64(data[8*(w.query+1):])
		if !s.haveZero {
			s.epoch, s.haveZero = begin, true
		}
		r.Start = time.Duration(begin - min(s.epoch, begin))
		r.Duration = time.Duration(end - min(begin, end))
	}
	return err
}
